"""What the commands print besides their results: the progress bar's time left."""

from __future__ import annotations

from rich.console import Console
from rich.progress import Progress

from shu.kb import KnowledgeBase
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
