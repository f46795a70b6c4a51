"""Calibrating answer confidence: ECE, reliability bins, the fit, the split, the reports."""

import math
from pathlib import Path

import numpy as np
import pytest

from shu.answer.confidence import FEATURES, WEIGHTS, confidence
from shu_eval.confidence import (
    Record,
    calibration_markdown,
    ece,
    fit,
    reliability,
    reliability_png,
    split,
    summary,
    weights_markdown,
)

TRUE_WEIGHTS = {
    "bias": -1.0,
    "declined": 1.5,
    "evidence": 3.0,
    "declined_evidence": -3.0,
    "top_score": 1.0,
    "agreement": 0.5,
    "unsupported": -1.5,
    "yes_no": -1.0,
}


def synthetic_records(n: int, seed: int = 7) -> list[Record]:
    """Features shaped like `confidence_features`, labels sampled from `TRUE_WEIGHTS`."""
    rng = np.random.default_rng(seed)
    records: list[Record] = []
    for _ in range(n):
        declined = float(rng.random() < 0.3)
        evidence = float(rng.random())
        features = {
            "bias": 1.0,
            "declined": declined,
            "evidence": evidence,
            "declined_evidence": declined * evidence,
            "top_score": float(rng.random()),
            "agreement": float(rng.integers(0, 4) / 3),
            "unsupported": 0.0 if declined else float(rng.random()),
            "yes_no": float(rng.random() < 0.3),
        }
        records.append((features, bool(rng.random() < confidence(features, TRUE_WEIGHTS))))
    return records


def scored(records: list[Record], weights: dict[str, float]) -> tuple[list[float], list[bool]]:
    return [confidence(f, weights) for f, _ in records], [ok for _, ok in records]


def test_ece_of_calibrated_data_is_small() -> None:
    rng = np.random.default_rng(0)
    confidences = rng.random(10_000)
    correct = rng.random(10_000) < confidences
    assert ece(confidences.tolist(), correct.tolist()) < 0.02


def test_ece_of_an_overconfident_predictor() -> None:
    correct = [i % 2 == 0 for i in range(1000)]
    assert ece([0.95] * 1000, correct) == pytest.approx(0.45)


def test_ece_puts_one_in_the_last_bin() -> None:
    assert reliability([1.0, 0.95], [True, True]) == [(0.95, 0.975, 1.0, 2)]
    assert ece([1.0], [True]) == pytest.approx(0.0)
    assert ece([], []) == 0.0


def test_reliability_counts_sum_to_n() -> None:
    rng = np.random.default_rng(1)
    confidences = rng.random(777).tolist()
    correct = (rng.random(777) < 0.6).tolist()
    rows = reliability(confidences, correct, bins=10)
    assert sum(count for *_, count in rows) == 777
    for mid, mean, accuracy, count in rows:
        assert abs(mean - mid) <= 0.05 + 1e-12
        assert 0.0 <= accuracy <= 1.0 and count > 0
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)


def test_fit_recovers_known_weights() -> None:
    dev, test = synthetic_records(8000, seed=7), synthetic_records(4000, seed=8)
    weights = fit(dev)
    assert list(weights) == list(FEATURES)
    for name, true in TRUE_WEIGHTS.items():
        assert math.copysign(1, weights[name]) == math.copysign(1, true), name
        assert weights[name] == pytest.approx(true, abs=0.75), name
    wrong = {name: -value for name, value in TRUE_WEIGHTS.items()}
    fitted, wrongly = summary(*scored(test, weights)), summary(*scored(test, wrong))
    assert fitted["ece"] < wrongly["ece"]
    assert fitted["brier"] < wrongly["brier"]
    assert fitted["ece"] < 0.05


def test_fit_is_deterministic() -> None:
    records = synthetic_records(500)
    assert fit(records) == fit(records)


@pytest.mark.parametrize("label", [True, False])
def test_fit_with_one_class_is_finite(label: bool) -> None:
    records = [(f, label) for f, _ in synthetic_records(200)]
    weights = fit(records)
    assert list(weights) == list(FEATURES)
    assert all(math.isfinite(v) for v in weights.values())
    confidences, _ = scored(records, weights)
    assert all((c > 0.9) if label else (c < 0.1) for c in confidences)


def test_fit_without_records_returns_the_shipped_weights() -> None:
    weights = fit([])
    assert weights == WEIGHTS
    weights["bias"] = 99.0
    assert WEIGHTS["bias"] != 99.0, "a copy, not the module's dict"


def test_split_is_deterministic_and_about_half() -> None:
    records = synthetic_records(1000)
    ids = [f"question-{i}" for i in range(1000)]
    dev, test = split(records, ids)
    again_dev, again_test = split(records, ids)
    assert (dev, test) == (again_dev, again_test)
    assert len(dev) + len(test) == 1000
    assert 400 < len(dev) < 600
    with pytest.raises(ValueError):
        split(records, ids[:-1])


def test_split_depends_on_the_id_not_the_order() -> None:
    records: list[Record] = [({"bias": 1.0, "evidence": i / 100}, True) for i in range(100)]
    ids = [f"q{i}" for i in range(100)]
    dev, _ = split(records, ids)
    reversed_dev, _ = split(records[::-1], ids[::-1])
    assert sorted(r[0]["evidence"] for r in dev) == sorted(r[0]["evidence"] for r in reversed_dev)


def test_reliability_png_writes_a_png(tmp_path: Path) -> None:
    records = synthetic_records(300)
    curves = {"fitted": scored(records, fit(records)), "shipped": scored(records, WEIGHTS)}
    path = reliability_png(curves, tmp_path / "nested" / "reliability.png")
    assert path == tmp_path / "nested" / "reliability.png"
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 1000


def test_summary_fields() -> None:
    row = summary([0.9, 0.9, 0.2, 0.2], [True, False, False, False])
    assert row == {"n": 4, "accuracy": 0.25, "mean_confidence": 0.55, "ece": 0.3, "brier": 0.225}
    assert summary([], [])["n"] == 0


def test_calibration_markdown() -> None:
    rows = {
        "shipped": {"n": 4, "accuracy": 0.25, "mean_confidence": 0.55, "ece": 0.3, "brier": 0.225},
        "fitted": summary([0.5, 0.5], [True, False]),
    }
    lines = calibration_markdown(rows).splitlines()
    assert lines[0] == "| name | n | accuracy | mean confidence | ECE | Brier score |"
    assert lines[1].startswith("|---|")
    assert lines[2] == "| shipped | 4 | 0.2500 | 0.5500 | 0.3000 | 0.2250 |"
    assert lines[3] == "| fitted | 2 | 0.5000 | 0.5000 | 0.0000 | 0.2500 |"
    assert len(lines) == 4


def test_weights_markdown() -> None:
    lines = weights_markdown(WEIGHTS).splitlines()
    assert lines[0] == "| feature | weight |"
    assert lines[1] == "|---|---:|"
    assert lines[2] == f"| bias | {WEIGHTS['bias']:.3f} |"
    assert len(lines) == 2 + len(WEIGHTS)


def test_a_feature_fitted_against_its_direction_is_left_out_and_a_silent_one_keeps_its_prior() -> None:
    records = []
    for features, _ in synthetic_records(4000, seed=3):
        features = features | {"unsupported": 0.0}
        inverted = features | {"evidence": 1.0 - features["evidence"]}  # labels fall as evidence rises
        records.append((features, bool(confidence(inverted, TRUE_WEIGHTS) > 0.5)))
    weights = fit(records)
    assert weights["evidence"] == 0.0, "evidence may only raise the confidence"
    assert weights["unsupported"] == WEIGHTS["unsupported"], "never seen in the data: the prior stays"
    assert weights["top_score"] > 0


def test_the_written_answers_confidence_is_fitted_on_model_answers_and_judged_held_apart(
    tmp_path: Path,
) -> None:
    """Issue 41.3: a model's answers get their own fit, reported on questions held apart; quoted
    answers and rows without features are not fitted on."""
    import json

    from typer.testing import CliRunner

    from shu.answer.confidence import WRITTEN_FEATURES
    from shu.serve.cli import app

    generator = np.random.default_rng(7)
    rows = []
    for index in range(400):
        supported = float(generator.uniform())
        right = bool(generator.uniform() < 0.1 + 0.85 * supported)
        features = {name: 0.0 for name in WRITTEN_FEATURES} | {
            "bias": 1.0,
            "supported": supported,
            "cited": 1.0,
        }
        rows.append({"id": f"q{index}", "written": True, "features": features, "right": right})
    rows.append({"id": "quoted", "written": False, "features": {"bias": 1.0}, "right": False})
    fitting = tmp_path / "answers.jsonl"
    fitting.write_text("\n".join(json.dumps(r) for r in rows[:300] + rows[-1:]) + "\n")
    apart = tmp_path / "replay-rules.json"
    apart.write_text(json.dumps({"questions": rows[300:400]}))

    result = CliRunner().invoke(
        app, ["--json", "eval-confidence", str(fitting), "--held-apart", str(apart)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["rows"] == 300
    assert data["fitted"]["supported"] > 2.0
    judged = data["judged"][f"{apart} · fitted"]
    assert judged["n"] == 100 and judged["ece"] < 0.15
    empty = tmp_path / "none.jsonl"
    empty.write_text(json.dumps(rows[-1]) + "\n")
    refused = CliRunner().invoke(app, ["eval-confidence", str(empty)])
    assert refused.exit_code != 0 and "no written answers" in refused.output
