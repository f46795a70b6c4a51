"""A passage's standing without an asker: a persona's freshness decay, the source's authority
and the quality floor — bounded, off by default, and applied in the ranking."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from shu.kb import KnowledgeBase
from shu.retrieve.standing import active, authority, freshness, standing
from shu.types import CapabilityManifest, Document, DocumentProfile, Provenance, RetrievalParams
from tests.conftest import PersonaMaker, doc

TODAY = date(2026, 11, 28)


def document(doc_id: str, written: str | None) -> Document:
    return Document(
        id=doc_id, title=doc_id, personas=["p"], content_hash="", path=f"/{doc_id}.md", date=written
    )


def profile(doc_id: str, level: str) -> DocumentProfile:
    return DocumentProfile(
        doc_id=doc_id,
        synopsis="",
        document_type="reference",
        manifest=CapabilityManifest(authority_level=level),  # type: ignore[arg-type]
        provenance=Provenance(method="extractive"),
    )


def test_freshness_is_off_by_default_and_bounded_when_on() -> None:
    off = RetrievalParams()
    assert not active(off)
    assert freshness(document("a", "2000-01-01"), off, TODAY) == 1.0
    on = RetrievalParams(freshness_half_life_days=365, freshness_weight=0.2)
    assert freshness(document("new", "2026-11-28"), on, TODAY) == 1.0
    assert freshness(document("year", "2025-11-28"), on, TODAY) == pytest.approx(0.9)
    assert freshness(document("ancient", "1990-01-01"), on, TODAY) == pytest.approx(0.8, abs=1e-6)
    assert freshness(document("undated", None), on, TODAY) == 1.0
    assert freshness(document("future", "2027-01-01"), on, TODAY) == 1.0


def test_authority_raises_the_authoritative_and_lowers_the_informal() -> None:
    on = RetrievalParams(authority_boost=0.1)
    assert authority(profile("a", "authoritative"), on) == pytest.approx(1.1)
    assert authority(profile("b", "informal"), on) == pytest.approx(0.9)
    assert authority(profile("c", "unknown"), on) == 1.0 and authority(None, on) == 1.0
    assert authority(profile("a", "authoritative"), RetrievalParams()) == 1.0


def test_standing_reorders_and_the_floor_drops() -> None:
    docs = {"old": document("old", "2016-01-01"), "new": document("new", "2026-11-01")}
    owners = {"old#0": "old", "new#0": "new", "new#1": "new"}
    scored = [("old#0", 1.0), ("new#0", 0.95), ("new#1", 0.2)]
    params = RetrievalParams(freshness_half_life_days=365, min_relative_score=0.3)
    ranked = standing(scored, owners, docs, {}, params, TODAY)
    assert [c for c, _ in ranked] == ["new#0", "old#0"], "fresher first; 0.2 under 30 % of the best: dropped"
    assert standing(scored, owners, docs, {}, RetrievalParams(), TODAY) == scored


def test_a_personas_freshness_decay_puts_the_newer_rule_first(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    """The 2019 rule matches the question's words better; with the persona's decay on, the 2026
    one ranks first; without it, the old one does."""
    old = "# Parking\n\n## Rules\n\nVisitors park in the east lot."
    new = "# Parking\n\n## Rules\n\nSince October, guests of the office leave their cars in the west lot."
    long_ago = (date.today() - timedelta(days=2600)).isoformat()
    lately = (date.today() - timedelta(days=50)).isoformat()  # the decay counts from today, whenever
    rag = {
        "old.md": doc("rules-2019", "Parking rules 2019", old, date=long_ago),
        "new.md": doc("rules-2026", "Parking rules 2026", new, date=lately),
    }
    decayed = {"freshness_half_life_days": 180, "freshness_weight": 0.5}
    assert not kb.ingest(make_persona("fresh", rag=rag, retrieval=decayed)).failed
    assert not kb.ingest(make_persona("plain", rag=rag)).failed
    question = "Where do visitors park?"
    plain = [h.chunk.doc_id.removeprefix("plain.") for h in kb.search(question, persona="plain")]
    assert plain[:2] == ["rules-2019", "rules-2026"]
    assert [h.chunk.doc_id for h in kb.search(question, persona="fresh")][:2] == ["rules-2026", "rules-2019"]
