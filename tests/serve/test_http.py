"""The HTTP API against a real uvicorn server on loopback: every route, the streamed answer, and
bad input answered with a 4xx and a message (never a 500)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.serve.http import MAX_BODY_BYTES, create_app
from tests.conftest import CountingEmbedder, PersonaMaker, doc

PRICING = doc("pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
TEAM = doc("team", "Team plan", "# Team plan\n\n## Price\n\nThe Team plan costs $35 per seat.")
SECRET = doc("secret", "Board secrets", "# Board\n\n## Deal\n\nThe acquisition price is 9 million.")
PRO = "[^pricing:Pricing > Pro]"


@pytest.fixture
def served(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> Iterator[tuple[str, ScriptedLLM]]:
    model = ScriptedLLM(lambda messages, schema: f"The Pro plan costs $65 per seat per month. {PRO}")
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false", "answer.scope=false"])
    kb = KnowledgeBase(settings, embedder=embedder, llm=LLMClient(model))
    folder = make_persona("lumen", rag={"pricing.md": PRICING, "team.md": TEAM})
    make_persona("board", rag={"secret.md": SECRET})
    assert not kb.ingest(folder.parent).failed
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(kb), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}", model
    server.should_exit = True
    thread.join(timeout=10)
    kb.close()


def test_health_personas_and_a_page_of_documents(served: tuple[str, ScriptedLLM]) -> None:
    url, _ = served
    assert httpx.get(f"{url}/healthz").json()["status"] == "ok"
    personas = {p["slug"]: p["documents"] for p in httpx.get(f"{url}/v1/personas").json()}
    assert personas == {"board": 1, "lumen": 2}
    page = httpx.get(f"{url}/v1/personas/lumen/documents", params={"limit": 1, "offset": 1}).json()
    assert page["total"] == 2 and [d["id"] for d in page["documents"]] == ["team"]
    missing = httpx.get(f"{url}/v1/personas/nobody/documents")
    assert missing.status_code == 404 and "unknown persona 'nobody'" in missing.json()["detail"]


def test_a_document_is_read_only_through_its_own_persona(served: tuple[str, ScriptedLLM]) -> None:
    url, _ = served
    found = httpx.get(f"{url}/v1/documents/pricing", params={"persona": "lumen"}).json()
    assert found["document"]["title"] == "Pricing" and found["sections"][0]["citation_key"] == PRO
    assert "$65" in found["text"]
    walled = httpx.get(f"{url}/v1/documents/secret", params={"persona": "lumen"})
    assert walled.status_code == 404 and "secret" in walled.json()["detail"]
    assert httpx.get(f"{url}/v1/documents/pricing").status_code == 422, "the persona is required"


def test_search_returns_cited_hits_and_the_trace_when_asked(served: tuple[str, ScriptedLLM]) -> None:
    url, _ = served
    body = {"question": "What does the Pro plan cost?", "persona": "lumen", "limit": 3}
    found = httpx.post(f"{url}/v1/search", json=body).json()
    assert found["hits"][0]["citation"] == PRO and "trace" not in found
    traced = httpx.post(f"{url}/v1/search", json=body | {"trace": True}).json()
    assert traced["trace"]["plan"]["query_type"] and "surfaces" in traced["trace"]
    assert {h["chunk"]["doc_id"] for h in traced["hits"]} <= {"pricing", "team"}


def test_ask_answers_as_json_and_as_server_sent_events(served: tuple[str, ScriptedLLM]) -> None:
    url, model = served
    body = {"question": "What does the Pro plan cost?", "persona": "lumen", "use_cache": False}
    answer = httpx.post(f"{url}/v1/ask", json=body, timeout=30).json()
    assert answer["text"].startswith("The Pro plan costs $65") and answer["citations"][0]["key"] == PRO
    assert "[^1]" in answer["markdown"] and model.calls
    with httpx.stream("POST", f"{url}/v1/ask", json=body | {"stream": True}, timeout=30) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = list(response.iter_lines())
    names = [line.removeprefix("event: ") for line in lines if line.startswith("event: ")]
    data = [json.loads(line.removeprefix("data: ")) for line in lines if line.startswith("data: ")]
    assert names[-1] == "answer" and names.count("piece") >= 2
    pieces = [d["text"] for name, d in zip(names, data, strict=True) if name == "piece"]
    assert PRO in pieces, "a citation key arrives whole, as its own piece"
    assert "".join(pieces).startswith("The Pro plan costs $65")
    assert data[-1]["citations"][0]["key"] == PRO


@pytest.mark.parametrize(
    ("route", "body", "status", "message"),
    [
        ("/v1/ask", {"question": "", "persona": "lumen"}, 422, "question"),
        ("/v1/ask", {"question": "x" * 4001, "persona": "lumen"}, 422, "question"),
        ("/v1/ask", {"question": "hi", "persona": "lumen", "extra": 1}, 422, "extra"),
        ("/v1/ask", {"question": "hi", "persona": "nobody"}, 404, "unknown persona"),
        ("/v1/ask", {"question": "   ", "persona": "lumen"}, 400, "the question is empty"),
        ("/v1/search", {"question": "pro", "persona": "lumen", "limit": 0}, 422, "limit"),
        ("/v1/search", [1, 2], 422, ""),
    ],
)
def test_bad_requests_are_4xx_with_a_message(
    served: tuple[str, ScriptedLLM], route: str, body: object, status: int, message: str
) -> None:
    url, _ = served
    response = httpx.post(f"{url}{route}", json=body, timeout=30)
    assert response.status_code == status, response.text
    assert message in response.text


def test_a_body_over_the_limit_is_refused_and_malformed_json_is_422(served: tuple[str, ScriptedLLM]) -> None:
    url, _ = served
    huge = httpx.post(f"{url}/v1/ask", content=b"{" + b" " * MAX_BODY_BYTES + b"}")
    assert huge.status_code == 413 and "request body over" in huge.json()["detail"]
    broken = httpx.post(
        f"{url}/v1/ask", content=b'{"question": ', headers={"content-type": "application/json"}
    )
    assert broken.status_code == 422
