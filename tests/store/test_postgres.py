"""The PostgreSQL store behind the whole product: one setting (`store.url`), nothing else changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from shu.errors import StoreError, UnknownPersonaError
from shu.kb import open_kb
from shu.store.postgres import PostgresStore
from tests.conftest import CountingEmbedder, PersonaMaker, doc
from tests.store.postgres_server import fresh_database

pytestmark = pytest.mark.service


def test_ingest_search_and_ask_on_postgresql(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    with fresh_database() as url:
        kb = open_kb(tmp_path / "home", [f"store.url={url}"], embedder=embedder)
        assert isinstance(kb.store, PostgresStore)
        make_persona(
            "alpha", rag={"sso.md": doc("sso", "SSO", "# SSO\n\nSAML single sign-on works with Okta.")}
        )
        folder = make_persona(
            "beta", rag={"fees.md": doc("fees", "Fees", "# Fees\n\nA full plot costs $40 per season.")}
        )
        report = kb.ingest(folder.parent)
        assert report.counts()["ingested"] == 2 and not (tmp_path / "home" / "shu.db").exists()
        assert kb.search("Okta SAML", persona="alpha")[0].chunk.doc_id == "sso"
        assert {h.chunk.doc_id for h in kb.search("plot costs", persona="alpha")} <= {"sso"}
        answer = kb.ask("How much does a full plot cost?", persona="beta")
        assert "$40" in answer.text and answer.citations[0].doc_id == "fees"
        assert kb.ingest(folder.parent).counts()["unchanged"] == 2, "incremental on PostgreSQL too"
        with pytest.raises(UnknownPersonaError):
            kb.search("x", persona="gamma")
        kb.close()


def test_opening_twice_applies_migrations_once() -> None:
    with fresh_database() as url:
        first, second = PostgresStore(url), PostgresStore(url)
        first.close()
        second.close()


def test_an_unreachable_server_is_a_clear_error() -> None:
    with pytest.raises(StoreError, match=r"postgresql://shu@127\.0\.0\.1:1/nowhere"):
        PostgresStore("postgresql://shu:secret@127.0.0.1:1/nowhere")
