"""`shu eval-confidence`: the written answers' confidence (`shu.answer.confidence.WRITTEN_*`)
fitted on model answers the labelled eval recorded, and judged on questions held apart.

Input: `answers.jsonl` files of `shu eval answers --answers` runs with a model configured (each
row holds the answer's confidence features, whether a model wrote it, and whether it was right),
and held-apart answers: another model's, the test half's, or a replay's `replay-*.json`. Only
written answers count. The fit is made on every fitting row (run the eval on the labelled dev
half to fit) and reported in sample and on every held-apart set, beside the shipped weights.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from shu.serve.console import emit_json as _emit_json
from shu.serve.console import fail as _fail
from shu.serve.console import out, state

Row = tuple[str, dict[str, float], bool]


def written_rows(path: Path) -> list[Row]:
    """(question id, features, right) of each written answer in an `answers.jsonl` file or a
    replay's JSON (`{"questions": [...]}`)."""
    text = path.read_text(encoding="utf-8")
    found: list[dict[str, Any]] = (
        json.loads(text)["questions"]
        if path.suffix == ".json"
        else [json.loads(line) for line in text.splitlines() if line.strip()]
    )
    return [
        (r["id"], r["features"], bool(r["right"])) for r in found if r.get("written") and r.get("features")
    ]


def eval_confidence(
    answers: Annotated[
        list[Path], typer.Argument(help="answers.jsonl files to fit on (written answers only).")
    ],
    held_apart: Annotated[
        list[Path] | None,
        typer.Option(help="answers.jsonl or replay-*.json of questions never fitted on (repeatable)."),
    ] = None,
) -> None:
    """Fit the written answers' confidence and report ECE and Brier on held-out questions."""
    from shu.answer.confidence import WRITTEN_FEATURES, WRITTEN_MONOTONE, WRITTEN_WEIGHTS, confidence
    from shu_eval.confidence import calibration_markdown, fit, summary, weights_markdown

    try:
        rows = [row for path in answers for row in written_rows(path)]
        apart = {str(path): written_rows(path) for path in held_apart or []}
    except (OSError, ValueError, KeyError) as exc:
        _fail(f"cannot read the answers: {exc}")
    if not rows:
        _fail("no written answers to fit on (run `shu eval answers --answers` with a model configured)")
    fitting = [(f, ok) for _, f, ok in rows]
    fitted = fit(fitting, features=WRITTEN_FEATURES, base=WRITTEN_WEIGHTS, monotone=WRITTEN_MONOTONE)
    judged = {"fitted on (in sample)": fitting} | {
        name: [(f, ok) for _, f, ok in found] for name, found in apart.items()
    }
    table: dict[str, dict[str, float | int]] = {}
    for name, records in judged.items():
        correct = [ok for _, ok in records]
        for label, weights in (("shipped", WRITTEN_WEIGHTS), ("fitted", fitted)):
            scores = [confidence(f, weights) for f, _ in records]
            table[f"{name} · {label}"] = summary(scores, correct)
    data = {"fitted": fitted, "rows": len(fitting), "judged": table}
    if state.as_json:
        _emit_json(data)
        return
    out.print(
        f"Written answers fitted on: {len(fitting)}\n\n"
        + calibration_markdown(table)
        + "\nFitted weights\n"
        + weights_markdown(fitted),
        highlight=False,
        markup=False,
    )
