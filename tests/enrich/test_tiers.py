"""A document's worth picks what the model writes for it: nothing for a short note, the profile
alone for a short message nobody links to or an old document, everything for the rest and for
anything another document links to — counted in the ingestion report."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from shu.config.settings import load_settings
from shu.enrich.tiers import tier
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.types import Chunk, Document
from tests.conftest import CountingEmbedder, PersonaMaker, doc
from tests.enrich.test_llm_enrichment import GOOD, kind_of, scripted

TODAY = date(2026, 11, 28)
RECENT = (date.today() - timedelta(days=60)).isoformat()
"""a date the ingestion's tier sees as recent, whenever the test runs"""
PROSE = " ".join(["The harbour crane is inspected every spring by the port authority."] * 8)


def document(kind: str | None = None, day: str | None = "2026-10-01") -> Document:
    return Document(id="d", title="D", personas=["p"], content_hash="", path="/d.md", type=kind, date=day)


def chunks(text: str, n: int = 1) -> list[Chunk]:
    return [
        Chunk(id=f"d#{i}", doc_id="d", ord=i, section_path="D", text=text, index_text=text, token_count=1)
        for i in range(n)
    ]


def test_the_tier_follows_size_type_links_and_age() -> None:
    assert tier(document(), chunks("Call me."), 0, TODAY) == "extractive"
    assert tier(document("email"), chunks(PROSE), 0, TODAY) == "light"
    assert tier(document("email"), chunks(PROSE, 5), 0, TODAY) == "full", "a long thread gets everything"
    assert tier(document("email"), chunks(PROSE), 2, TODAY) == "full", "others link to it"
    assert tier(document("guide"), chunks(PROSE), 0, TODAY) == "full"
    assert tier(document("guide", "2021-01-01"), chunks(PROSE), 0, TODAY) == "light"
    assert tier(document("guide", None), chunks(PROSE), 0, TODAY) == "full"
    assert tier(document(), chunks("Call me."), 1, TODAY) == "light", "short, but linked: its profile"


def test_ingestion_asks_the_model_by_tier(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    rag = {
        "note.md": doc("note", "Note", "# Note\n\nCall the crane office."),
        "mail.md": doc("mail", "Crane inspection", f"# Crane inspection\n\n{PROSE}", type="email",
                       date=RECENT),
        "guide.md": doc("guide", "Crane guide",
                        f"# Crane guide\n\n## Inspection\n\n{PROSE}\n\n## Repairs\n\n{PROSE}",
                        type="guide", date=RECENT),
    }  # fmt: skip
    asked: dict[str, dict[str, list[str]]] = {}
    for tiers in (True, False):
        model = scripted(GOOD)
        settings = load_settings(
            tmp_path / f"home-{tiers}",
            [f"enrich.tiers={str(tiers).lower()}", "enrich.llm_relationships=false"],
        )
        kb = KnowledgeBase(settings, embedder=embedder, llm=LLMClient(model))
        try:
            report = kb.ingest(make_persona(f"port-{str(tiers).lower()}", rag=rag))
            by_doc: dict[str, list[str]] = {}
            for call in model.calls:
                text = call[-1].content
                for doc_id, title in (
                    ("note", "Note"),
                    ("mail", "Crane inspection"),
                    ("guide", "Crane guide"),
                ):
                    if (
                        f"{title}\n" in text
                        or f"Document: {title}" in text
                        or f"title: {title}" in text.lower()
                    ):
                        by_doc.setdefault(doc_id, []).append(kind_of(call))
            asked[str(tiers)] = by_doc
            if tiers:
                assert report.llm.get("tiers") == {"extractive": 1, "light": 1, "full": 1}
                questions = kb.store.list_questions("mail")
                assert questions and all(q.provenance.method == "extractive" for q in questions)
        finally:
            kb.close()
    assert len(model.calls) > 0
    on, off = asked["True"], asked["False"]
    assert "note" not in on and "note" in off
    assert set(on["mail"]) == {"profile"} and set(off["mail"]) > {"profile"}, (on, off)
    assert len(on["guide"]) == len(off["guide"]) > 1
