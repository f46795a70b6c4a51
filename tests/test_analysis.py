"""What a word is: identifier terms beside the index terms (`shu.analysis`)."""

from __future__ import annotations

import pytest

from shu.analysis import identifier_terms, joined_names, keyword_query, keyword_text


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("run_target", ["runtarget"]),
        ("sync.workers", ["syncworkers"]),
        ("SAML-004 and COVID-19", ["saml004", "covid19"]),
        ("DiffExecutor", ["diff", "executor"]),
        ("HTTPStatusError", ["http", "status", "error"]),
        ("settings.enrich.llm_relationships", ["settingsenrichllmrelationships", "llmrelationships"]),
        ("max_keepalive_connections", ["maxkeepaliveconnections"]),
    ],
)
def test_identifiers_add_their_whole_and_parts(text: str, terms: list[str]) -> None:
    assert identifier_terms(text) == terms


@pytest.mark.parametrize(
    "prose", ["e.g. the U.S. budget", "version 3.14", "a long-term plan", "an iPhone", "a PhD", "__init__"]
)
def test_prose_adds_nothing(prose: str) -> None:
    assert identifier_terms(prose) == []
    assert keyword_text(prose) == prose


def test_a_query_adds_joined_names_but_keeps_camel_case_whole() -> None:
    assert joined_names("Why does run_target fail in DiffExecutor?") == ["runtarget"]
    assert keyword_query("sync.workers") == "sync.workers\nsyncworkers"
    assert keyword_text("Call DiffExecutor.run_target") == (
        "Call DiffExecutor.run_target\ndiffexecutorruntarget runtarget diff executor"
    )


def test_a_huge_identifier_is_read_in_one_pass() -> None:
    """A hostile chunk: one 600,000-character name (no backtracking blow-up)."""
    terms = identifier_terms("a_" * 300_000 + "b")
    assert terms == ["a" * 300_000 + "b"]
