"""`shu migrate`: a knowledge base copied between stores with nothing recomputed, resumable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from shu.accounts.logins import Logins
from shu.errors import StoreError
from shu.kb import KnowledgeBase
from shu.serve.cli import app
from shu.store.base import Store
from shu.store.factory import open_store_url
from shu.store.migrate import migrate
from shu.types import Finding, Signal
from tests.conftest import PersonaMaker, doc
from tests.store.postgres_server import fresh_database

DOCS = {
    "pricing.md": doc(
        "pricing",
        "Pricing",
        "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.\n\n## Team\n\nTeam costs $35.",
        relations={"explains": ["sso"]},
    ),
    "sso.md": doc("sso", "SSO", "# SSO\n\nSAML single sign-on works with Okta and Azure AD on the Pro plan."),
    "alerts.md": doc("alerts", "Alerts", "# Alerts\n\nAn alert fires when a metric crosses its threshold."),
}


@pytest.fixture
def source(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    assert not kb.ingest(make_persona("alpha", rag=DOCS)).failed
    return kb


def same_knowledge_base(a: Store, b: Store) -> None:
    assert [d.id for d in a.list_documents()] == [d.id for d in b.list_documents()]
    for doc_id in ("pricing", "sso", "alerts"):
        left, right = a.export_document(doc_id), b.export_document(doc_id)
        assert left is not None and right is not None
        assert left.doc == right.doc and left.chunks == right.chunks
        assert np.allclose(left.vectors, right.vectors) and left.enrichment == right.enrichment
        assert left.question_vectors is not None and np.allclose(
            left.question_vectors, right.question_vectors
        )
        assert left.profile_vectors.keys() == right.profile_vectors.keys()
    query = a.export_document("sso").vectors[0]  # type: ignore[union-attr]
    assert [h.chunk_id for h in a.search_vector(query, "alpha", 3)] == [
        h.chunk_id for h in b.search_vector(query, "alpha", 3)
    ]
    assert (
        a.search_keyword("Okta single sign-on", "alpha", 1)[0].chunk_id
        == "sso#" + a.list_chunks("sso")[0].id.split("#")[1]
    )
    assert b.search_keyword("Okta single sign-on", "alpha", 1)[0].chunk_id == a.list_chunks("sso")[0].id
    assert b.list_relationships(["pricing"])[0].target == "sso"


def test_a_copy_is_the_same_knowledge_base_and_a_second_run_copies_nothing(
    source: KnowledgeBase, tmp_path: Path
) -> None:
    target = open_store_url(f"sqlite:///{tmp_path}/copy/shu.db")
    first = migrate(source.store, target)
    assert (first.copied, first.unchanged, first.personas) == (3, 0, 1)
    same_knowledge_base(source.store, target)
    again = migrate(source.store, target)
    assert (again.copied, again.unchanged) == (0, 3)
    forced = migrate(source.store, target, force=True)
    assert (forced.copied, forced.unchanged) == (3, 0), "--force copies re-enriched documents too"
    same_knowledge_base(source.store, target)
    target.close()


def test_a_stopped_migration_resumes_where_it_stopped(source: KnowledgeBase, tmp_path: Path) -> None:
    target = open_store_url(f"sqlite:///{tmp_path}/copy/shu.db")

    def stop_after_two(stage: str, done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        migrate(source.store, target, stop_after_two)
    assert len(target.list_documents()) == 2
    resumed = migrate(source.store, target)
    assert (resumed.copied, resumed.unchanged) == (1, 2)
    same_knowledge_base(source.store, target)
    target.close()


@pytest.mark.service
def test_sqlite_to_postgresql(source: KnowledgeBase) -> None:
    with fresh_database() as url:
        target = open_store_url(url)
        report = migrate(source.store, target)
        assert report.copied == 3
        same_knowledge_base(source.store, target)
        target.close()


def test_the_agents_findings_are_copied_undone_ones_too_and_once(
    source: KnowledgeBase, tmp_path: Path
) -> None:
    found = source.store.add_finding(
        Finding(kind="relationship", doc_id="pricing", persona="alpha", target="alerts", value="references")
    )
    undone = source.store.add_finding(
        Finding(kind="document_type", doc_id="sso", persona="alpha", value="reference", question="q")
    )
    assert undone.id is not None and source.store.undo_finding(undone.id)
    target = open_store_url(f"sqlite:///{tmp_path}/copy/shu.db")
    assert migrate(source.store, target).findings == 2
    strip = lambda findings: [f.model_copy(update={"id": None}) for f in findings]  # noqa: E731
    assert strip(target.list_findings(include_undone=True)) == strip(
        source.store.list_findings(include_undone=True)
    )
    assert [f.created for f in target.list_findings()] == [found.created]
    agent = [r for r in target.list_relationships(["pricing"]) if r.origin == "agent"]
    assert [(r.target, r.type) for r in agent] == [("alerts", "references")]
    assert migrate(source.store, target).findings == 0, "a second run copies none again"
    target.close()


def test_the_command_and_its_errors(source: KnowledgeBase, tmp_path: Path) -> None:
    db = source.settings.db_path
    source.close()
    runner = CliRunner()
    done = runner.invoke(
        app, ["migrate", "--from", f"sqlite:///{db}", "--to", f"sqlite:///{tmp_path}/c/shu.db"]
    )
    assert done.exit_code == 0 and "3 documents copied" in done.output
    wrong = runner.invoke(app, ["migrate", "--from", "mysql://x", "--to", f"sqlite:///{tmp_path}/d.db"])
    assert wrong.exit_code == 2 and "expected sqlite:///" in wrong.output


def test_a_document_the_target_refuses_is_reported_and_the_rest_is_copied(
    source: KnowledgeBase, tmp_path: Path
) -> None:
    target = open_store_url(f"sqlite:///{tmp_path}/copy/shu.db")
    refused = target.replace_document

    def refuse_sso(doc, *args):  # type: ignore[no-untyped-def]
        if doc.id == "sso":
            raise StoreError("disk full")
        return refused(doc, *args)

    target.replace_document = refuse_sso  # type: ignore[method-assign]
    report = migrate(source.store, target)
    assert report.copied == 2 and report.failed == {"sso": "disk full"}
    target.replace_document = refused  # type: ignore[method-assign]
    assert migrate(source.store, target).copied == 1, "a re-run copies what was refused"
    target.close()


def test_users_keys_conversations_and_signals_move_with_the_knowledge_base(
    source: KnowledgeBase, tmp_path: Path
) -> None:
    source.accounts.set_user("ana", {"name": "Ana", "projects": ["Pricing"]})
    key, token = source.accounts.create_key("ana", ["alpha"])
    _, gone = source.accounts.create_key("bob")
    source.accounts.revoke_key(source.accounts.authenticate(gone).id)
    source.accounts.feedback(Signal(user="ana", persona="alpha", kind="star", doc_id="pricing"))
    source.accounts.feedback(Signal(user="", persona="alpha", kind="up", question="local"))
    thread = source.conversations.start("ana", "alpha", "Prices")
    Logins(source.store, source.store).add("ana", "a long enough password", reads=["alpha"])
    target = open_store_url(f"sqlite:///{tmp_path}/copy/shu.db")
    assert (
        migrate(source.store, target).users == 7
    )  # a profile, two keys, a login, a conversation, two signals
    assert target.get_conversation(thread.id) == thread
    copied = KnowledgeBase(source.settings, store=target)
    assert copied.accounts.authenticate(token).id == key.id, "a copied key keeps working (its hash moved)"
    assert target.list_keys() == source.store.list_keys()
    assert {k.user: k.revoked for k in target.list_keys()} == {"ana": False, "bob": True}
    assert target.get_user("ana") is not None and target.get_user("ana").projects[0].value == "Pricing"
    assert [s.kind for s in target.list_signals("ana")] == ["star"] and len(target.list_signals("")) == 1
    assert Logins(target, target).sign_in("ana", "a long enough password")[0].reads == ["alpha"]
    assert migrate(source.store, target).users == 0, "a second run copies none again"
    target.close()


@pytest.mark.service
def test_many_documents_go_to_postgresql_in_bulk_from_two_threads(tmp_path: Path) -> None:
    """Over 200 documents: a bulk load (statistics and indexes at the end) written by two threads;
    the report and the progress are kept in order all the same."""
    from shu.store.sqlite import SQLiteStore
    from shu.store.testing import chunks, document, persona, unit, vectors

    source = SQLiteStore(tmp_path / "source.db")
    source.upsert_persona(persona("alpha"))
    for n in range(240):
        doc_id = f"d{n:03d}"
        texts = [f"orchard {n} grows apples", f"bees of orchard {n} make honey"]
        source.replace_document(
            document(doc_id, ["alpha"]), chunks(doc_id, texts), vectors(unit(1, 0), unit(0, 1)), "e"
        )
    seen: list[int] = []
    with fresh_database() as url:
        target = open_store_url(url)
        report = migrate(source, target, lambda stage, done, total: seen.append(done))
        assert (report.copied, report.chunks, report.failed) == (240, 480, {})
        assert seen == list(range(1, 241))
        assert [d.id for d in target.list_documents()] == [d.id for d in source.list_documents()]
        for store in (source, target):
            assert store.search_keyword("orchard 117 honey", "alpha", 1)[0].chunk_id.startswith("d117#")
        target.close()
    source.close()
