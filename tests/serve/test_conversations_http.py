"""`/v1/conversations` on a real server with keys: a conversation continued through `/v1/ask`,
read, renamed, exported and deleted by its user only; other users get "not found", a key without
the persona gets "forbidden"; bad input is a 4xx with a message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import CountingEmbedder, PersonaMaker, doc

PLANS = doc(
    "plans",
    "Plans",
    "# Plans\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.\n\n"
    "## Team\n\nThe Team plan costs $99 per seat per month.",
)
SECRET = doc("secret", "Board secrets", "# Board\n\n## Deal\n\nThe acquisition price is 9 million.")


@pytest.fixture
def served(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> Iterator[dict[str, str]]:
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false", "answer.scope=false"])
    kb = KnowledgeBase(settings, embedder=embedder)
    make_persona("board", rag={"secret.md": SECRET})
    assert not kb.ingest(make_persona("lumen", rag={"plans.md": PLANS}).parent).failed
    tokens = {
        "ana": kb.accounts.create_key("ana", ["lumen"])[1],
        "bob": kb.accounts.create_key("bob", ["lumen"])[1],
        "carol": kb.accounts.create_key("carol", ["board"])[1],
    }
    with running(create_app(kb)) as url:
        yield {"url": url} | tokens
    kb.close()


def as_user(served: dict[str, str], user: str) -> httpx.Client:
    return httpx.Client(
        base_url=served["url"], headers={"Authorization": f"Bearer {served[user]}"}, timeout=60
    )


def test_a_conversation_is_continued_read_renamed_exported_and_deleted(served: dict[str, str]) -> None:
    ana = as_user(served, "ana")
    started = ana.post("/v1/conversations", json={"persona": "lumen"})
    assert started.status_code == 201
    thread = started.json()["id"]
    first = ana.post("/v1/ask", json={"question": "What does the Pro plan cost?", "persona": "lumen",
                                      "conversation_id": thread}).json()  # fmt: skip
    assert "65" in first["text"] and first["standalone_question"] is None
    follow = ana.post("/v1/ask", json={"question": "and the Team plan?", "persona": "lumen",
                                       "conversation_id": thread}).json()  # fmt: skip
    assert follow["standalone_question"] == "What does the Team plan cost?" and "99" in follow["text"]
    listed = ana.get("/v1/conversations").json()
    assert [(c["id"], c["turns"], c["title"]) for c in listed] == [
        (thread, 2, "What does the Pro plan cost?")
    ]
    read = ana.get(f"/v1/conversations/{thread}").json()
    assert [t["question"] for t in read["turns"]] == ["What does the Pro plan cost?", "and the Team plan?"]
    assert read["turns"][1]["citations"][0]["doc_id"] == "plans"
    assert ana.patch(f"/v1/conversations/{thread}", json={"title": "Prices"}).json()["title"] == "Prices"
    exported = ana.get(f"/v1/conversations/{thread}/export")
    assert exported.headers["content-type"].startswith("text/markdown")
    assert exported.text.startswith("# Prices\n") and "[^1]: Plans" in exported.text
    assert ana.delete(f"/v1/conversations/{thread}").status_code == 204
    assert ana.get(f"/v1/conversations/{thread}").status_code == 404


def test_another_users_conversation_is_not_found_and_a_walled_persona_is_forbidden(
    served: dict[str, str],
) -> None:
    ana, bob, carol = (as_user(served, user) for user in ("ana", "bob", "carol"))
    thread = ana.post("/v1/conversations", json={"persona": "lumen", "title": "Mine"}).json()["id"]
    ask = {"question": "What does the Pro plan cost?", "persona": "lumen", "conversation_id": thread}
    for response in (
        bob.get(f"/v1/conversations/{thread}"),
        bob.patch(f"/v1/conversations/{thread}", json={"title": "Taken"}),
        bob.delete(f"/v1/conversations/{thread}"),
        bob.get(f"/v1/conversations/{thread}/export"),
        bob.post("/v1/ask", json=ask),
    ):
        assert response.status_code == 404, response.text
        assert "conversation" in response.json()["detail"]
    assert bob.get("/v1/conversations").json() == []
    assert carol.post("/v1/conversations", json={"persona": "lumen"}).status_code == 403
    assert carol.get("/v1/conversations", params={"persona": "lumen"}).status_code == 403
    assert ana.get(f"/v1/conversations/{thread}").json()["title"] == "Mine"


def test_bad_conversation_input_is_a_4xx_with_a_message(served: dict[str, str]) -> None:
    ana = as_user(served, "ana")
    for response in (
        ana.post("/v1/conversations", json={"persona": "lumen", "title": "x" * 201}),
        ana.post("/v1/conversations", json={"persona": ""}),
        ana.post("/v1/conversations", json={"persona": "nobody"}),
        ana.patch("/v1/conversations/whatever", json={"title": ""}),
        ana.post("/v1/ask", json={"question": "hi", "persona": "lumen", "conversation_id": ""}),
        ana.post("/v1/ask", json={"question": "hi", "persona": "lumen", "conversation_id": "nope"}),
    ):
        assert 400 <= response.status_code < 500, response.text
        assert response.json()["detail"]
