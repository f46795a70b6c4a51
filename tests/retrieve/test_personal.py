"""RELATIONAL-BOOST: the same ambiguous question ranked for two people, each boost bounded and
in the trace with its reason, a share of the unboosted results kept, nothing changed for a
question the profile has nothing to say about, and a stale profile weighing less."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from shu.config.settings import PersonalSettings
from shu.kb import KnowledgeBase
from shu.retrieve.personal import _guarded, asker_of
from shu.types import Contact, ProfileItem, UserProfile
from tests.conftest import PersonaMaker, doc


def proposal(doc_id: str, title: str, author: tuple[str, str], body: str, project: str) -> str:
    people = [{"name": author[0], "email": author[1], "role": "author"}]
    return doc(doc_id, title, body, participants=people, project=project)


@pytest.fixture
def office(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    rag = {
        "acme.md": proposal(
            "acme-proposal", "Proposal for Acme Corp", ("Sarah Chen", "sarah@org.example"),
            "# Proposal for Acme Corp\n\n## Status\n\nThe proposal status: sent to Acme on 3 March, "
            "awaiting legal review.",
            "Acme Deal",
        ),
        "q4.md": proposal(
            "q4-proposal", "Q4 planning proposal", ("Omar Haddad", "omar@org.example"),
            "# Q4 planning proposal\n\n## Status\n\nThe proposal status: approved by engineering, "
            "budget pending.",
            "Q4 Planning",
        ),
        "lunch.md": doc("lunch", "Canteen menu", "# Canteen menu\n\n## Monday\n\nLentil soup and bread."),
    }  # fmt: skip
    assert not kb.ingest(make_persona("office", rag=rag).parent).failed
    kb.set_user("vp", {"name": "Vera Park", "roles": ["VP Sales"], "projects": ["Acme Deal"],
                       "contacts": ["Sarah Chen <sarah@org.example>"]})  # fmt: skip
    kb.set_user("eng", {"name": "Eli Ng", "roles": ["engineer"], "projects": ["Q4 Planning"]})
    return kb


def test_the_same_question_means_different_documents_to_different_people(office: KnowledgeBase) -> None:
    question = "What's the status of the proposal?"
    plain = office.retrieve(question, persona="office")
    for user, wanted in (("vp", "acme-proposal"), ("eng", "q4-proposal")):
        result = office.retrieve(question, persona="office", user=user)
        assert result.hits[0].chunk.doc_id == wanted, (user, [h.chunk.doc_id for h in result.hits])
        assert result.asker == user and result.personal[0].doc_id == wanted
        assert all(0 < b.boost <= PersonalSettings().max_boost for b in result.personal)
    vp = office.retrieve(question, persona="office", user="vp").personal[0]
    reasons = ["contact Sarah Chen (affinity 0.80) +0.16", "project Acme Deal +0.30", "capped at +0.30"]
    assert vp.reasons == reasons
    assert plain.asker is None and plain.personal == []
    answer = office.ask(question, persona="office", user="eng")
    assert answer.citations[0].doc_id == "q4-proposal"


def test_a_question_the_profile_has_nothing_to_say_about_is_ranked_as_before(office: KnowledgeBase) -> None:
    question = "What is on the canteen menu on Monday?"
    plain = [h.chunk.id for h in office.retrieve(question, persona="office").hits]
    for user in ("vp", "eng"):
        ranked = [h.chunk.id for h in office.retrieve(question, persona="office", user=user).hits]
        assert ranked[:1] == plain[:1]


def test_the_unboosted_best_keep_a_share_of_the_first_places() -> None:
    original = [(f"c{i}", 1.0 - i / 100) for i in range(20)]
    boosted = sorted([(c, s * (1.3 if int(c[1:]) >= 10 else 1.0)) for c, s in original], key=lambda p: -p[1])
    guarded = _guarded(boosted, original, share=0.3, places=10)
    first = [c for c, _ in guarded[:10]]
    assert {"c0", "c1", "c2"} <= set(first), "the three best unboosted results stay in the first ten"
    assert sum(c in first for c in (f"c{i}" for i in range(10, 20))) == 7


def test_a_stale_learned_profile_weighs_less() -> None:
    now = datetime(2026, 11, 1, tzinfo=UTC)
    learned = Contact(name="Sarah", email="s@x.example", affinity=0.8, source="email")
    fresh = UserProfile(id="a", contacts=[learned], updated=now.isoformat())
    stale = fresh.model_copy(update={"updated": (now - timedelta(days=180)).isoformat()})
    assert asker_of(fresh, [], now).contacts["s@x.example"][1] == pytest.approx(0.8)
    assert asker_of(stale, [], now).contacts["s@x.example"][1] == pytest.approx(0.2)
    by_hand = stale.model_copy(update={"contacts": [learned.model_copy(update={"source": "set"})],
                                       "projects": [ProfileItem(value="X")]})  # fmt: skip
    kept = asker_of(by_hand, [], now).contacts["s@x.example"][1]
    assert kept == pytest.approx(0.8), "set by hand: no decay"
