"""`shu eval-verify`: the planted set and how detection is scored."""

from __future__ import annotations

from collections import Counter

from shu_eval.verify import Checked, PlantedClaim, detection, planted_claims


def test_the_planted_set_has_every_kind_with_its_label() -> None:
    claims = planted_claims()
    kinds = Counter(c.kind for c in claims)
    assert set(kinds) == {
        "exact",
        "paraphrase",
        "changed_number",
        "swapped_name",
        "wrong_document",
        "unstated",
    }
    assert all((c.label == "supported") == (c.kind in ("exact", "paraphrase")) for c in claims)
    assert all((c.label == "contradicted") == (c.kind == "changed_number") for c in claims)


def test_detection_precision_recall_and_contradictions() -> None:
    def row(label: str, verdict: str) -> Checked:
        item = PlantedClaim(persona="p", doc_id="d", heading="h", claim="c", label=label, kind="exact")  # type: ignore[arg-type]
        return Checked(item, verdict, "")

    rows = [
        row("supported", "supported"),
        row("supported", "unsupported"),
        row("contradicted", "contradicted"),
    ]
    rows += [row("unsupported", "supported")]
    scores = detection(rows)
    assert scores["precision"] == 0.5 and scores["recall"] == 0.5
    assert scores["contradiction_recall"] == 1.0 and scores["supported_kept"] == 0.5
