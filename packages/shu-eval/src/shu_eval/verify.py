"""`shu eval-verify`: how well the verifier finds planted errors.

A labelled set over the shipped example knowledge base (`shu_eval/data/verify/claims.jsonl`):
claims citing one section — copied, paraphrased (supported), with a number changed
(contradicted), a name swapped, citing an unrelated document, or stating what the section does
not (unsupported). Each claim is checked against the section it cites, as read from the store.
Reported per method: detection precision and recall (a detection is any verdict but supported,
on a claim that is not), contradiction recall, and the share flagged per kind.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from shu.answer.verify.base import Claim, Verifier
from shu.store.base import Store
from shu.types import AssembledContext, ContextDocument, ContextSection

Kind = Literal["exact", "paraphrase", "changed_number", "swapped_name", "wrong_document", "unstated"]


class PlantedClaim(BaseModel):
    persona: str
    doc_id: str
    heading: str
    claim: str
    label: Literal["supported", "unsupported", "contradicted"]
    kind: Kind


@dataclass
class Checked:
    item: PlantedClaim
    verdict: str
    reason: str


def planted_claims(path: Path | None = None) -> list[PlantedClaim]:
    text = (
        path.read_text(encoding="utf-8")
        if path
        else (resources.files("shu_eval") / "data" / "verify" / "claims.jsonl").read_text(encoding="utf-8")
    )
    return [PlantedClaim.model_validate_json(line) for line in text.splitlines() if line.strip()]


def cited_section(store: Store, doc_id: str, heading: str) -> AssembledContext:
    """The one section a claim cites, as the answer step would see it in its context."""
    document = store.get_document(doc_id)
    chunks = [c for c in store.list_chunks(doc_id) if c.section_path.rsplit(" > ", 1)[-1] == heading]
    if document is None or not chunks:
        raise ValueError(f"{doc_id}: no section headed {heading!r}")
    section = ContextSection(
        section_path=chunks[0].section_path,
        text="\n\n".join(c.text for c in chunks),
        chunk_ids=[c.id for c in chunks],
    )
    return AssembledContext(
        documents=[ContextDocument(doc_id=doc_id, title=document.title, score=1.0, sections=[section])]
    )


def check_all(store: Store, claims: list[PlantedClaim], verifier: Verifier) -> list[Checked]:
    checked: list[Checked] = []
    for item in claims:
        context = cited_section(store, item.doc_id, item.heading)
        key = context.documents[0].sections[0].citation_key
        verdict = verifier.verify([Claim(item.claim, [key], 0)], context).verdicts[0]
        checked.append(Checked(item, verdict.verdict, verdict.reason))
    return checked


def detection(checked: list[Checked]) -> dict[str, float]:
    wrong = [c for c in checked if c.item.label != "supported"]
    flagged = [c for c in checked if c.verdict != "supported"]
    caught = [c for c in flagged if c.item.label != "supported"]
    contradicted = [c for c in checked if c.item.label == "contradicted"]
    return {
        "precision": len(caught) / len(flagged) if flagged else 0.0,
        "recall": len(caught) / len(wrong) if wrong else 0.0,
        "contradiction_recall": (
            sum(c.verdict == "contradicted" for c in contradicted) / len(contradicted)
            if contradicted
            else 0.0
        ),
        "supported_kept": (
            sum(c.verdict == "supported" for c in checked if c.item.label == "supported")
            / max(1, sum(c.item.label == "supported" for c in checked))
        ),
    }


def markdown(per_method: dict[str, list[Checked]]) -> str:
    methods = list(per_method)
    lines = ["| | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    scores = {m: detection(rows) for m, rows in per_method.items()}
    for metric in ("precision", "recall", "contradiction_recall", "supported_kept"):
        lines.append(f"| {metric} | " + " | ".join(f"{scores[m][metric]:.3f}" for m in methods) + " |")
    by_model = [sum(r.reason.startswith("the model") for r in per_method[m]) for m in methods]
    lines.append("| verdicts the model gave (quote-checked) | " + " | ".join(map(str, by_model)) + " |")
    kinds: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for method, rows in per_method.items():
        for row in rows:
            kinds[row.item.kind][method].append(row.verdict != "supported")
    for kind, by_method in kinds.items():
        cells = [f"{sum(v)}/{len(v)}" for v in (by_method[m] for m in methods)]
        lines.append(f"| flagged: {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
