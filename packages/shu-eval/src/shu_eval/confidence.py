"""Calibrating `Answer.confidence` on the answer eval.

`shu.answer.confidence` scores an answer as `sigmoid(sum(w[name] * features[name]))`. The answer
eval records, per answered question, `(features, correct)`. Here those records are split into a
dev and a test half by a stable hash of the question id, the weights are fitted on the dev half
(L2-regularised logistic regression, Newton/IRLS in numpy, deterministic), and the test half is
reported: expected calibration error (ECE), Brier score, and a reliability diagram (PNG).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from shu.answer.confidence import FEATURES, MONOTONE, WEIGHTS

Record = tuple[dict[str, float], bool]

_TITLE = "Answer confidence: reliability (held-out questions)"
_BIAS_L2 = 1e-6  # keeps the intercept finite when only one class is present
_TOLERANCE = 1e-10


def _is_dev(question_id: str) -> bool:
    return int(hashlib.sha1(question_id.encode("utf-8")).hexdigest(), 16) % 2 == 0


def split(records: list[Record], ids: list[str]) -> tuple[list[Record], list[Record]]:
    """(dev, test): a question whose id's sha1 is even goes to dev, so every re-run agrees."""
    if len(records) != len(ids):
        raise ValueError(f"{len(records)} records but {len(ids)} ids")
    dev = [r for r, i in zip(records, ids, strict=True) if _is_dev(i)]
    test = [r for r, i in zip(records, ids, strict=True) if not _is_dev(i)]
    return dev, test


def _design(records: list[Record], features: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[float(f.get(name, 0.0)) for name in features] for f, _ in records], dtype=float)
    y = np.array([1.0 if ok else 0.0 for _, ok in records], dtype=float)
    return x.reshape(len(records), len(features)), y


def _sigmoid(z: np.ndarray) -> np.ndarray:
    probability: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
    return probability


def _loss(x: np.ndarray, y: np.ndarray, w: np.ndarray, penalty: np.ndarray) -> float:
    z = x @ w
    log_likelihood = y * z - np.logaddexp(0.0, z)
    return float(-log_likelihood.mean() + 0.5 * np.sum(penalty * w * w))


def _newton_step(x: np.ndarray, y: np.ndarray, w: np.ndarray, penalty: np.ndarray) -> np.ndarray:
    p = _sigmoid(x @ w)
    gradient = x.T @ (p - y) / len(y) + penalty * w
    hessian = (x.T * (p * (1.0 - p))) @ x / len(y) + np.diag(penalty)
    return np.linalg.solve(hessian, gradient)


def fit(
    records: list[Record],
    l2: float = 0.01,
    steps: int = 2000,
    features: tuple[str, ...] = FEATURES,
    base: dict[str, float] | None = None,
    monotone: dict[str, int] | None = None,
) -> dict[str, float]:
    """Weights over `FEATURES` (rounded to 3 decimals) minimising the summed log-loss + l2/2·|w|²
    (a Gaussian prior on the weights, so its pull fades as records accumulate).

    The "bias" feature is the intercept and is not regularised (beyond a negligible 1e-6 that
    keeps it finite when every record has the same label). Newton's method with backtracking,
    at most `steps` iterations. No records: a copy of `WEIGHTS`. A feature that is zero in every
    record (unsupported claims, when every answer was quoted) keeps its weight from `WEIGHTS`.
    A feature whose fitted weight has the wrong sign for its `MONOTONE` direction (pooling
    datasets with different base rates can flip one) is left out (weight 0) and the rest refitted.
    `features`, `base` and `monotone` name another model (the written answers': `WRITTEN_*`).
    """
    base = WEIGHTS if base is None else base
    monotone = MONOTONE if monotone is None else monotone
    if not records:
        return {name: base.get(name, 0.0) for name in features}
    x, y = _design(records, features)
    silent = ~np.any(x != 0.0, axis=0)
    active = [i for i, name in enumerate(features) if name == "bias" or not silent[i]]
    while True:
        w = _fit_columns(x[:, active], y, [features[i] for i in active], l2, steps)
        wrong = [i for i, value in zip(active, w, strict=True) if monotone.get(features[i], 0) * value < 0]
        if not wrong:
            break
        active = [i for i in active if i not in wrong]
    fitted = dict(zip([features[i] for i in active], w, strict=True))
    return {
        name: base.get(name, 0.0)
        if silent[i] and name != "bias"
        else round(float(fitted.get(name, 0.0)), 3) + 0.0
        for i, name in enumerate(features)
    }


def _fit_columns(x: np.ndarray, y: np.ndarray, names: list[str], l2: float, steps: int) -> np.ndarray:
    strength = [_BIAS_L2 if name == "bias" else l2 for name in names]
    penalty = np.array(strength, dtype=float) / len(y)  # the loss below is a mean
    w = np.zeros(len(names))
    loss = _loss(x, y, w, penalty)
    for _ in range(steps):
        step = _newton_step(x, y, w, penalty)
        rate = 1.0
        while rate > 1e-8 and _loss(x, y, w - rate * step, penalty) > loss:
            rate /= 2.0
        w = w - rate * step
        new_loss = _loss(x, y, w, penalty)
        converged = loss - new_loss < _TOLERANCE
        loss = new_loss
        if converged:
            break
    return w


def _bin_index(confidences: np.ndarray, bins: int) -> np.ndarray:
    index: np.ndarray = np.minimum((np.clip(confidences, 0.0, 1.0) * bins).astype(int), bins - 1)
    return index


def reliability(
    confidences: list[float], correct: list[bool], bins: int = 10
) -> list[tuple[float, float, float, int]]:
    """Per non-empty equal-width bin over [0, 1]: (bin mid, mean confidence, accuracy, count)."""
    c = np.asarray(confidences, dtype=float)
    y = np.asarray(correct, dtype=float)
    index = _bin_index(c, bins)
    rows = []
    for b in range(bins):
        mask = index == b
        count = int(mask.sum())
        if count:
            rows.append(((b + 0.5) / bins, float(c[mask].mean()), float(y[mask].mean()), count))
    return rows


def ece(confidences: list[float], correct: list[bool], bins: int = 10) -> float:
    """Expected calibration error: count-weighted mean of |accuracy − mean confidence| per bin."""
    rows = reliability(confidences, correct, bins)
    total = sum(count for *_, count in rows)
    if not total:
        return 0.0
    return sum(count * abs(accuracy - mean) for _, mean, accuracy, count in rows) / total


def brier(confidences: list[float], correct: list[bool]) -> float:
    """Mean squared difference between confidence and outcome (0 when there is nothing)."""
    if not confidences:
        return 0.0
    c = np.asarray(confidences, dtype=float)
    return float(np.mean((c - np.asarray(correct, dtype=float)) ** 2))


def summary(confidences: list[float], correct: list[bool]) -> dict[str, float | int]:
    """n, accuracy, mean_confidence, ece, brier (rounded to 4 decimals; zeros when n is 0)."""
    n = len(confidences)
    return {
        "n": n,
        "accuracy": round(float(np.mean(correct)), 4) if n else 0.0,
        "mean_confidence": round(float(np.mean(confidences)), 4) if n else 0.0,
        "ece": round(ece(confidences, correct), 4),
        "brier": round(brier(confidences, correct), 4),
    }


def reliability_png(curves: dict[str, tuple[list[float], list[bool]]], path: Path, bins: int = 10) -> Path:
    """A reliability diagram (one line per curve, the diagonal, a histogram below) saved to `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (axis, histogram) = plt.subplots(
        2, 1, figsize=(6, 6.5), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
    )
    axis.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="perfect calibration")
    edges = np.linspace(0.0, 1.0, bins + 1)
    for name, (confidences, correct) in curves.items():
        rows = reliability(confidences, correct, bins)
        label = f"{name} (ECE {ece(confidences, correct, bins):.3f}, n={len(confidences)})"
        line = axis.plot([r[1] for r in rows], [r[2] for r in rows], marker="o", label=label)[0]
        histogram.hist(np.clip(confidences, 0.0, 1.0), bins=edges, histtype="step", color=line.get_color())
    axis.set_xlim(0, 1)
    axis.set_ylim(0, 1)
    axis.set_ylabel("accuracy")
    axis.set_title(_TITLE)
    axis.legend(loc="upper left", fontsize=8)
    histogram.set_xlabel("confidence")
    histogram.set_ylabel("answers")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def calibration_markdown(rows: dict[str, dict[str, float | int]]) -> str:
    """A Markdown table of `summary` rows: name, n, accuracy, mean confidence, ECE, Brier score."""
    lines = [
        "| name | n | accuracy | mean confidence | ECE | Brier score |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in rows.items():
        values = [row["accuracy"], row["mean_confidence"], row["ece"], row["brier"]]
        cells = [name, str(int(row["n"])), *[f"{float(v):.4f}" for v in values]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def weights_markdown(weights: dict[str, float]) -> str:
    """A `| feature | weight |` Markdown table, one line per feature."""
    lines = ["| feature | weight |", "|---|---:|"]
    lines += [f"| {name} | {value:.3f} |" for name, value in weights.items()]
    return "\n".join(lines) + "\n"
