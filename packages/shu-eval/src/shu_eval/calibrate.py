"""Calibrating abstention on data: `answer.min_evidence` is the largest threshold at which no
dataset loses more than `max_false_abstain` of its answerable questions (a withheld right answer
costs more than a cited weak one); among those, the one that declines the most unanswerable ones.

Input: per dataset, (answerable, evidence score) per question, as `shu eval --answers` records
them. A question with no score (deferred before any evidence was weighed) counts as neither.
"""

from __future__ import annotations

from statistics import fmean

Scored = list[tuple[bool, float | None]]
THRESHOLDS = tuple(round(0.20 + 0.01 * i, 2) for i in range(31))


def rates(scored: Scored, threshold: float) -> tuple[float | None, float | None]:
    """(false-abstention rate on answerable, abstention recall on unanswerable) at `threshold`."""
    answerable = [e for ok, e in scored if ok and e is not None]
    unanswerable = [e for ok, e in scored if not ok and e is not None]
    false = fmean(e < threshold for e in answerable) if answerable else None
    recall = fmean(e < threshold for e in unanswerable) if unanswerable else None
    return false, recall


def choose(per_dataset: dict[str, Scored], max_false_abstain: float = 0.05) -> float | None:
    """The threshold, or None when even the lowest one declines too many answerable questions."""
    best: float | None = None
    best_recall = -1.0
    for threshold in THRESHOLDS:
        found = {name: rates(scored, threshold) for name, scored in per_dataset.items()}
        if any(false is not None and false > max_false_abstain for false, _ in found.values()):
            break
        recalls = [recall for _, recall in found.values() if recall is not None]
        recall = fmean(recalls) if recalls else 0.0
        if recall >= best_recall:
            best, best_recall = threshold, recall
    return best


def sweep_markdown(per_dataset: dict[str, Scored], chosen: float | None, step: int = 2) -> str:
    """False abstentions / abstention recall per dataset over the thresholds, the chosen one bold."""
    names = list(per_dataset)
    lines = [
        "| min_evidence | " + " | ".join(f"{n} false / recall" for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    shown = sorted({*THRESHOLDS[::step], *([chosen] if chosen is not None else [])})
    for threshold in shown:
        cells = []
        for name in names:
            false, recall = rates(per_dataset[name], threshold)
            cells.append(f"{_pct(false)} / {_pct(recall)}")
        label = f"**{threshold:.2f}**" if threshold == chosen else f"{threshold:.2f}"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"
