"""`shu eval-replay`: a capable model's recorded replies replayed through the LLM path of the
knowledge bases the labelled answer eval builds (`shu_eval.replay`), and measured."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Literal

import typer

from shu.errors import ShuError
from shu.serve.console import emit_json as _emit_json
from shu.serve.console import fail as _fail
from shu.serve.console import open_from_state as _kb
from shu.serve.console import out, state
from shu.serve.console import progress as _progress

RECORDINGS = Path("../shared/data/capable-model-replies")


def eval_replay(
    recordings: Annotated[
        Path, typer.Option(help="The folder of recorded replies (log.txt, requests/, replies/, answers/).")
    ] = RECORDINGS,
    verify: Annotated[
        str,
        typer.Option(
            help="rules: verify.method=rules; recorded: the recorded verify reply while the claims "
            "sent are the recorded ones (else the verifier's rules decide)."
        ),
    ] = "rules",
    only: Annotated[
        list[str] | None, typer.Option(help="Only these question ids (repeatable; default: every one).")
    ] = None,
    output: Annotated[Path | None, typer.Option(help="Folder for replay-<verify>.md and .json.")] = None,
) -> None:
    """Replay a model's recorded replies to Shu's prompts through the real pipeline: right answers
    (labelled facts), right answers marked unsupported, confidence of right vs wrong and its ECE,
    lead-ins verified, the largest verify request, and the answers beside the recorded ones."""
    from shu_eval import labelled
    from shu_eval.recordings import RecordingError, load_recordings
    from shu_eval.replay import asking, build_example, recorded_questions, replay_all
    from shu_eval.replay_model import ReplayModel
    from shu_eval.replay_report import markdown, summary, write

    if verify not in ("rules", "recorded"):
        _fail(f"--verify {verify}: expected rules or recorded")
    mode: Literal["rules", "recorded"] = "rules" if verify == "rules" else "recorded"
    folder = labelled.shipped_folder()
    try:
        found = load_recordings(recordings)
        if only:
            unknown = [q for q in only if q not in found]
            if unknown:
                _fail(f"not in the recordings: {', '.join(unknown)}")
            found = {q: found[q] for q in only}
        questions = recorded_questions(found, labelled.load_questions(folder / "questions.jsonl"))
        personas = labelled.load_knowledge_bases(folder)
    except (RecordingError, ValueError, OSError) as exc:
        _fail(str(exc))
    with _kb() as main:
        work = main.settings.home / "eval-cache"
    written = output or work / "replay-results"
    model = ReplayModel(found, verify_recorded=mode == "recorded")
    with ExitStack() as stack, _progress() as advance:
        try:
            kbs = {}
            for name in sorted({q.kb for q in questions}):
                built = stack.enter_context(
                    build_example(personas[name], work / f"replay-{name}", state.overrides)
                )
                kbs[name] = asking(built, state.overrides, mode, model)
            rows = replay_all(questions, kbs, model, advance)
        except ShuError as exc:
            _fail(str(exc))
    data = summary(rows, found, mode)
    write(written, data, rows)
    if state.as_json:
        _emit_json(data)
    else:
        out.print(markdown(data) + f"\nwritten to {written}", highlight=False, markup=False)
