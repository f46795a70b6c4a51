"""What the commands print besides their results: the progress bar's time left, a piped trace."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from typer.testing import CliRunner

from shu.kb import KnowledgeBase
from shu.serve.cli import app
from shu.serve.console import progress_columns, stage_bars
from tests.conftest import PersonaMaker, doc


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def time_left(bar: Progress) -> str:
    """The last column of the bar as it is drawn now."""
    (task,) = bar.tasks
    return str(progress_columns()[-1].render(task))


def test_the_time_left_follows_the_rate_of_the_whole_stage() -> None:
    """10 of 31 files done in half a second (unchanged ones), then the eleventh takes long: the
    estimate is the rate so far, and it rises while the slow file runs instead of holding
    "0:00:03"."""
    clock = Clock()
    with Progress(*progress_columns(), console=Console(force_terminal=False), get_time=clock) as bar:
        advance = stage_bars(bar)
        advance("ingest", 0, 31)
        assert time_left(bar) == "-:--:--", "nothing done yet: no rate"
        for done in range(1, 11):
            clock.now += 0.05
            advance("ingest", done, 31)
        assert time_left(bar) == "0:00:01"  # 10 in 0.5 s: 21 more in about a second
        clock.now += 29.5  # the eleventh file is slow; nothing is reported for half a minute
        assert time_left(bar) == "0:01:03", "21 files at 10 per 30 s"
        clock.now += 30
        assert time_left(bar) == "0:02:06", "and it keeps rising while nothing is done"
        clock.now += 0.5
        advance("ingest", 11, 31)
        assert time_left(bar) == "0:01:50"  # 11 in 60.5 s: 20 more at that rate
        advance("ingest", 31, 31)
        assert time_left(bar) == "0:00:00"


def test_a_stage_reports_its_start_so_the_rate_counts_its_first_item(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    rag = {f"d{n}.md": doc(f"d{n}", f"D{n}", f"# D{n}\n\nText number {n}.") for n in range(3)}
    folder = make_persona("lumen", rag=rag)
    seen: list[tuple[str, int, int]] = []
    kb.ingest(folder.parent, progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert seen == [("ingest", 0, 3), ("ingest", 1, 3), ("ingest", 2, 3), ("ingest", 3, 3)]


def test_conversion_reports_each_raw_file_without_a_total(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    """Conversion reports each raw file (a background job may let another persona's job run
    there); it knows no total, and the bar shows none rather than "2/0"."""
    folder = make_persona("lumen", raw={"a.txt": "Alpha notes.", "b.txt": "Beta notes."})
    seen: list[tuple[str, int, int]] = []
    kb.ingest(folder.parent, progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert [s for s in seen if s[0] == "convert"] == [("convert", 1, 0), ("convert", 2, 0)]
    with Progress(*progress_columns(), console=Console(force_terminal=False)) as bar:
        stage_bars(bar)("convert", 2, 0)
        (task,) = bar.tasks
        assert task.total is None and time_left(bar) == ""


def test_a_piped_trace_keeps_its_long_lines_whole(tmp_path: Path, make_persona: PersonaMaker) -> None:
    """Output that is no terminal (a pipe, a file) is not cut at 80 columns: a long question, a
    result's citation key and the surfaces that found it stay on their lines whole."""
    body = "# Pricing and Plans\n\n## Plan details for the large enterprise customers\n\n"
    body += "The Pro plan costs $65 per seat per month when billed annually."
    folder = make_persona("lumen", rag={"pricing.md": doc("pricing", "Pricing and Plans", body)})
    home = str(tmp_path / "home")
    runner = CliRunner()
    assert runner.invoke(app, ["--home", home, "ingest", str(folder.parent)]).exit_code == 0
    question = "How much does the Pro plan cost per seat per month when it is billed annually for a team?"
    result = runner.invoke(app, ["--home", home, "search", question, "-p", "lumen", "--trace"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"{question} · persona lumen"
    key = "[^pricing:Pricing and Plans > Plan details for the large enterprise customers]"
    ranked = next(line for line in lines if "1. " in line and key in line)
    assert ranked.endswith("keyword#1 dense#1"), ranked
