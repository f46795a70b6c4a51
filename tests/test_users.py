"""Users' profiles: set by hand (Python, a YAML file), learned from e-mail traffic, meetings and
the user's own signals with where each item came from, exported and forgotten whole."""

from __future__ import annotations

import time
from typing import Any

import pytest

from shu.errors import InvalidRequestError, NotFoundError
from shu.kb import KnowledgeBase
from shu.types import Signal, UserProfile
from shu_eval.samples import calendar_chat, mail
from tests.conftest import PersonaMaker, doc

AYLA = {"name": "Ayla Demir", "emails": ["ayla@harbor.example"], "roles": ["treasurer"]}


@pytest.fixture
def club(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    raw = {"board.mbox": mail.make_mbox(), "club.ics": calendar_chat.make_ics()}
    assert not kb.ingest(make_persona("club", raw=raw).parent).failed
    return kb


def test_contacts_are_learned_from_mail_and_meetings_with_affinity_recency_and_reciprocity(
    club: KnowledgeBase,
) -> None:
    club.accounts.set_user(
        "ayla", AYLA | {"contacts": ["Lee Park <lee@harbor.example>"], "projects": ["Hull survey"]}
    )
    learned = club.accounts.learn_user("ayla")
    contacts = {c.email: c for c in learned.contacts}
    jonas = contacts["jonas@harbor.example"]
    assert (jonas.name, jonas.interactions, jonas.reciprocity, jonas.source) == (
        "Jonas Berg",
        5,
        0.5,
        "email+meetings",
    )
    assert jonas.recency == "2026-09-08" and 0.6 < jonas.affinity < 0.8
    assert (
        contacts["marco@harbor.example"].source == "meetings"
        and contacts["marco@harbor.example"].reciprocity is None
    )
    assert (
        jonas.affinity > contacts["marco@harbor.example"].affinity > contacts["priya@harbor.example"].affinity
    )
    lee = contacts["lee@harbor.example"]
    assert (lee.source, lee.name, lee.affinity) == ("set", "Lee Park", 0.8), "what was set by hand stays"
    assert learned.contacts[0].source == "set"
    assert [p.value for p in learned.projects][:1] == ["Hull survey"] and learned.projects[0].source == "set"
    assert all(c.updated for c in learned.contacts)
    assert club.accounts.user("ayla") == learned


def test_interests_come_from_the_documents_a_user_stars_and_opens(club: KnowledgeBase) -> None:
    club.accounts.set_user("ayla", AYLA)
    reply = next(d.id for d in club.documents("club") if d.title == "Re: Q3 repair budget")
    club.accounts.feedback(Signal(user="ayla", persona="club", kind="star", doc_id=reply))
    club.accounts.feedback(Signal(user="ayla", persona="club", kind="opened", doc_id=reply))
    interests = club.accounts.learn_user("ayla").interests
    assert interests and interests[0].source == "signals" and interests[0].weight == 1.0
    with pytest.raises(NotFoundError, match="unknown user 'bob'"):
        club.accounts.learn_user("bob")


def test_a_yaml_file_in_the_home_sets_fields_by_hand(club: KnowledgeBase) -> None:
    folder = club.settings.home / "users"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "jonas.yaml").write_text(
        "name: Jonas Berg\nemails: [jonas@harbor.example]\nroles: [captain]\nprojects: [Q3 repair budget]\n"
        "preferences: {detail: summary}\n"
    )
    profile = club.accounts.user("jonas")
    assert (profile.name, profile.roles, profile.preferences) == (
        "Jonas Berg",
        ["captain"],
        {"detail": "summary"},
    )
    assert profile.projects[0].value == "Q3 repair budget" and profile.projects[0].source == "set"
    (folder / "broken.yaml").write_text("name: [unclosed\n")
    with pytest.raises(InvalidRequestError, match="not a readable profile"):
        club.accounts.user("broken")
    with pytest.raises(InvalidRequestError, match="user 'a b'"):
        club.accounts.set_user("a b", {})


def test_export_holds_everything_about_a_user_and_forget_removes_it(club: KnowledgeBase) -> None:
    club.accounts.set_user("ayla", AYLA)
    club.accounts.set_user("jonas", {"name": "Jonas Berg"})
    club.accounts.feedback(Signal(user="ayla", persona="club", kind="up", question="budget?"))
    club.accounts.feedback(Signal(user="jonas", persona="club", kind="down", question="survey?"))
    club.accounts.create_key("ayla", ["club"])
    exported = club.accounts.export_user("ayla")
    assert exported["profile"]["name"] == "Ayla Demir" and [s["kind"] for s in exported["signals"]] == ["up"]
    assert [k["user"] for k in exported["keys"]] == ["ayla"] and "secret" not in str(exported["keys"])
    assert club.accounts.forget_user("ayla") == {"profile": 1, "signals": 1, "keys": 1}
    assert club.accounts.export_user("ayla") == {"profile": None, "signals": [], "keys": []}
    assert club.accounts.users() == ["jonas"] and len(club.accounts.signals("jonas")) == 1, (
        "another user's data stays"
    )


def test_a_user_with_no_profile_and_no_file_is_unknown(club: KnowledgeBase) -> None:
    with pytest.raises(NotFoundError):
        club.accounts.user("ghost")


# -- continuous learning -----------------------------------------------------------------------

NEW_MAIL = doc(
    "dock-fees",
    "Dock fees for the winter",
    "# Dock fees for the winter\n\nAyla, the winter dock fee is 340 euros per boat, due in November.",
    type="email",
    date="2026-09-20",
    participants=[
        {"name": "Nadia Roy", "email": "nadia@harbor.example", "role": "author"},
        {"name": "Ayla Demir", "email": "ayla@harbor.example", "role": "recipient"},
    ],
)


def test_a_learning_profile_follows_each_ingestion_run_and_keeps_when_items_changed(
    club: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    club.accounts.set_user("ayla", AYLA)
    before = club.accounts.learn_user("ayla")
    assert "nadia@harbor.example" not in {c.email for c in before.contacts} and before.learned
    folder = make_persona("club", rag={"dock-fees.md": NEW_MAIL})
    report = club.ingest(folder)  # no `learn`: the profile follows the run
    assert "profiles learned again: ayla" in report.notes
    after = club.accounts.user("ayla")
    nadia = next(c for c in after.contacts if c.email == "nadia@harbor.example")
    assert (nadia.name, nadia.source, nadia.interactions) == ("Nadia Roy", "email", 1)
    assert after.learned >= before.learned
    time.sleep(1.1)  # learned again a second later, with nothing new: each item keeps its time
    assert club.accounts.follow() == []
    again = club.accounts.user("ayla")
    assert [c.updated for c in again.contacts] == [c.updated for c in after.contacts]
    assert again.learned > after.learned, "learning ran; nothing it learned changed"
    assert club.ingest(folder).notes == [], "an unchanged run changes no profile"


def test_an_admin_pauses_resumes_and_resets_learning(club: KnowledgeBase, make_persona: PersonaMaker) -> None:
    club.accounts.set_user("ayla", AYLA | {"contacts": ["Lee Park <lee@harbor.example>"]})
    club.accounts.learn_user("ayla")
    paused = club.accounts.set_learning("ayla", False)
    assert not paused.learning
    club.ingest(make_persona("club", rag={"dock-fees.md": NEW_MAIL}))
    assert "nadia@harbor.example" not in {c.email for c in club.accounts.user("ayla").contacts}, "paused"
    resumed = club.accounts.set_learning("ayla", True)
    assert resumed.learning and "nadia@harbor.example" in {c.email for c in resumed.contacts}
    reset = club.accounts.reset_learning("ayla")
    assert [(c.email, c.source) for c in reset.contacts] == [("lee@harbor.example", "set")]
    assert reset.learned == "" and reset.learning
    with pytest.raises(NotFoundError, match="unknown user 'bob'"):
        club.accounts.set_learning("bob", False)
    with pytest.raises(NotFoundError, match="unknown user 'bob'"):
        club.accounts.reset_learning("bob")


def test_a_signal_has_a_learning_profile_learned_again(club: KnowledgeBase) -> None:
    from shu.accounts import Accounts

    accounts = Accounts(club.store, club.store, club.settings.home, relearn_s=0.0)
    accounts.set_user("ayla", AYLA)
    assert accounts.learn_user("ayla").interests == []
    reply = next(d.id for d in club.documents("club") if d.title == "Re: Q3 repair budget")
    accounts.feedback(Signal(user="ayla", persona="club", kind="star", doc_id=reply))
    interests = accounts.user("ayla").interests
    assert interests and interests[0].source == "signals", "learned from the star, no `learn` asked"
    slow = Accounts(club.store, club.store, club.settings.home, relearn_s=3600.0)
    learned = slow.learn_user("ayla").interests
    other = next(d.id for d in club.documents("club") if d.id != reply and d.type == "meeting")
    slow.feedback(Signal(user="ayla", persona="club", kind="star", doc_id=other))
    assert slow.user("ayla").interests == learned, "learned a moment ago: not again for each click"
    assert accounts.feedback(Signal(user="ayla", persona="club", kind="star", doc_id=other))
    assert accounts.user("ayla").interests != learned, "past the interval: learned again"
    slow.reset_learning("ayla")
    slow.feedback(Signal(user="ayla", persona="club", kind="star", doc_id=reply))
    assert slow.user("ayla").interests == [], "a signal alone makes no profile: `learn` does"


def test_learning_reads_only_the_personas_the_users_keys_reach(
    club: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    club.accounts.create_key("ayla", ["club"])
    club.accounts.set_user("ayla", AYLA)
    club.accounts.learn_user("ayla", ["club"])
    assert club.accounts.reach("ayla") == ["club"]
    hr_mail = NEW_MAIL.replace("dock-fees", "hr-note").replace("Dock fees for the winter", "HR note")
    club.ingest(make_persona("hr", rag={"hr-note.md": hr_mail}))  # Nadia writes to Ayla, in hr
    assert "nadia@harbor.example" not in {c.email for c in club.accounts.user("ayla").contacts}
    club.accounts.create_key("ayla", [])  # a key of every persona: every persona is hers to learn from
    assert club.accounts.reach("ayla") is None
    club.accounts.set_learning("ayla", True)
    assert "nadia@harbor.example" in {c.email for c in club.accounts.user("ayla").contacts}
    assert club.accounts.reach("nobody") is None, "no key, no sign-in: the machine's own user"


def test_a_pause_made_while_learning_runs_is_kept(
    club: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shu.accounts as accounts_module

    club.accounts.set_user("ayla", AYLA)
    original = accounts_module.learn
    store = club.accounts.store

    def learn_while_an_admin_pauses(*args: Any, **kwargs: Any) -> UserProfile:
        made = original(*args, **kwargs)
        paused = store.get_user("ayla")
        assert paused is not None
        store.save_user(paused.model_copy(update={"learning": False, "name": "Ayla D."}))
        return made

    monkeypatch.setattr(accounts_module, "learn", learn_while_an_admin_pauses)
    club.accounts.follow()
    kept = club.accounts.user("ayla")
    assert not kept.learning and kept.name == "Ayla D.", "paused and renamed meanwhile: both kept"
    assert kept.contacts == [], "a profile paused meanwhile is not written over"
