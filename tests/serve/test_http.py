"""The HTTP API against a real uvicorn server on loopback: every route, the streamed answer, and
bad input answered with a 4xx and a message (never a 500)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.serve.background import running
from shu.serve.http import MAX_BODY_BYTES, create_app
from shu.store.rows import now
from shu.types import Job
from tests.conftest import CountingEmbedder, PersonaMaker, doc
from tests.serve.conftest import SmallKB

PRICING = doc("pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
TEAM = doc("team", "Team plan", "# Team plan\n\n## Price\n\nThe Team plan costs $35 per seat.")
SECRET = doc("secret", "Board secrets", "# Board\n\n## Deal\n\nThe acquisition price is 9 million.")
PRO = "[^pricing:Pricing > Pro]"


@pytest.fixture
def served(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> Iterator[tuple[str, ScriptedLLM]]:
    model = ScriptedLLM(lambda messages, schema: f"The Pro plan costs $65 per seat per month. {PRO}")
    prose_only = "llm.budget.max_json_failures=0"  # it writes answers, never JSON: asked all the same
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false", "answer.scope=false", prose_only])
    kb = KnowledgeBase(settings, embedder=embedder, llm=LLMClient(model))
    folder = make_persona("lumen", rag={"pricing.md": PRICING, "team.md": TEAM})
    make_persona("board", rag={"secret.md": SECRET})
    assert not kb.ingest(folder.parent).failed
    with running(create_app(kb)) as url:
        yield url, model
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
    assert names[:2] == ["progress", "progress"], "what it is doing, before any text"
    assert data[0] == {"stage": "searching", "detail": ""} and data[1]["stage"] == "reading"
    assert re.fullmatch(r"\d+ passages? from \d+ documents?", data[1]["detail"])
    pieces = [d["text"] for name, d in zip(names, data, strict=True) if name == "piece"]
    assert PRO in pieces, "a citation key arrives whole, as its own piece"
    assert "".join(pieces).startswith("The Pro plan costs $65")
    assert data[-1]["citations"][0]["key"] == PRO


def test_a_quoted_answer_streams_a_sentence_and_a_key_at_a_time(small_kb: SmallKB) -> None:
    kb = small_kb("answer.method=extractive")
    with running(create_app(kb)) as url:
        body = {"question": "What does the Pro plan cost?", "persona": "lumen", "stream": True}
        with httpx.stream("POST", f"{url}/v1/ask", json=body, timeout=30) as response:
            lines = list(response.iter_lines())
    names = [line.removeprefix("event: ") for line in lines if line.startswith("event: ")]
    data = [json.loads(line.removeprefix("data: ")) for line in lines if line.startswith("data: ")]
    assert names[:2] == ["progress", "progress"] and names[-1] == "answer"
    pieces = [d["text"] for name, d in zip(names, data, strict=True) if name == "piece"]
    final = data[-1]
    assert final["method"] == "extractive" and len(pieces) >= 2
    assert "[^pricing:Pricing > Pro]" in pieces, "its citation key a piece of its own"
    assert "".join(pieces).replace("- ", "", 1).startswith(final["text"].split(" [^")[0])


def test_search_and_ask_keep_to_a_filter(served: tuple[str, ScriptedLLM]) -> None:
    url, _ = served
    only_team = {"doc_ids": ["team"]}
    body = {"question": "Pro plan price", "persona": "lumen", "filter": only_team, "trace": True}
    found = httpx.post(f"{url}/v1/search", json=body, timeout=30).json()
    assert found["hits"] and {h["chunk"]["doc_id"] for h in found["hits"]} == {"team"}
    assert found["trace"]["filter"]["doc_ids"] == ["team"] and found["trace"]["filtered"] == 1
    asked = httpx.post(
        f"{url}/v1/ask",
        json={"question": "What does the plan cost?", "persona": "lumen", "filter": {"until": "2000-01-01"}},
        timeout=30,
    )
    assert asked.status_code == 200 and asked.json()["insufficient"] is True
    assert "matches the filter (until 2000-01-01)" in asked.json()["text"]
    # another persona's document is never kept, whatever the filter names
    secret = {"question": "acquisition price", "persona": "lumen", "filter": {"doc_ids": ["secret"]}}
    assert httpx.post(f"{url}/v1/search", json=secret, timeout=30).json()["hits"] == []
    listed = httpx.get(f"{url}/v1/personas/lumen/documents?doc=team&doc=secret&offset=0", timeout=30).json()
    assert listed["total"] == 1 and [d["id"] for d in listed["documents"]] == ["team"]
    choices = httpx.get(f"{url}/v1/personas/lumen/filters", timeout=30).json()
    assert choices["documents"] == 2 and choices["folders"] == [{"value": "lumen/RAG", "documents": 2}]
    graph = httpx.get(f"{url}/v1/personas/lumen/graph", timeout=30).json()
    assert {n["doc_id"] for n in graph["nodes"] if n["kind"] == "document"} == {"pricing", "team"}
    assert graph["documents"] == 2 and graph["truncated"] is False
    kept = httpx.get(f"{url}/v1/personas/lumen/graph?doc=team&around=team", timeout=30).json()
    assert [n["doc_id"] for n in kept["nodes"] if n["kind"] == "document"] == ["team"] and kept[
        "around"
    ] == "team"
    walled = httpx.get(f"{url}/v1/personas/lumen/graph?around=secret", timeout=30)
    assert walled.status_code == 404 and "no document 'secret' in persona 'lumen'" in walled.text
    assert httpx.get(f"{url}/v1/personas/lumen/graph?max_documents=0", timeout=30).status_code == 422
    refused = httpx.get(f"{url}/v1/personas/lumen/documents?since=2026-05-01&until=2026-01-01", timeout=30)
    assert refused.status_code == 422 and "is after until" in refused.text


@pytest.mark.parametrize(
    ("route", "body", "status", "message"),
    [
        ("/v1/ask", {"question": "", "persona": "lumen"}, 422, "question"),
        ("/v1/ask", {"question": "x" * 4001, "persona": "lumen"}, 422, "question"),
        ("/v1/ask", {"question": "hi", "persona": "lumen", "extra": 1}, 422, "extra"),
        ("/v1/ask", {"question": "hi", "persona": "nobody"}, 404, "unknown persona"),
        ("/v1/ask", {"question": "   ", "persona": "lumen"}, 422, "the question is empty"),
        ("/v1/search", {"question": "", "persona": "lumen"}, 422, "at least 1 character"),
        ("/v1/search", {"question": " \t\n", "persona": "lumen"}, 422, "the question is empty"),
        ("/v1/search", {"question": "pro", "persona": "lumen", "limit": 0}, 422, "limit"),
        ("/v1/search", [1, 2], 422, ""),
        (
            "/v1/search",
            {"question": "pro", "persona": "lumen", "filter": {"since": "2026-05-01", "until": "2026-04-01"}},
            422,
            "is after until",
        ),
        ("/v1/ask", {"question": "pro", "persona": "lumen", "filter": {"kind": "email"}}, 422, "kind"),
        ("/v1/ask", {"question": "pro", "persona": "lumen", "filter": {"since": "May"}}, 422, "since"),
        ("/v1/ask", {"question": "pro", "persona": "lumen", "filter": {"types": ["x"] * 101}}, 422, "types"),
        ("/v1/ask", {"question": "pro", "persona": "lumen", "filter": {"tags": ["a\nb"]}}, 422, "one line"),
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


def test_jobs_start_report_progress_and_refuse_what_cannot_be_done(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING, "team.md": TEAM})
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false"])
    with KnowledgeBase(settings, embedder=embedder) as kb, running(create_app(kb)) as url:
        started = httpx.post(f"{url}/v1/jobs", json={"kind": "ingest", "path": str(folder.parent)})
        assert started.status_code == 202 and started.json()["status"] == "queued"
        job_id = started.json()["id"]
        deadline = time.monotonic() + 60
        while (job := httpx.get(f"{url}/v1/jobs/{job_id}").json())["status"] in ("queued", "running"):
            assert time.monotonic() < deadline, job
            time.sleep(0.1)
        assert job["status"] == "done" and job["percent"] == 100.0 and job["processed"] == job["total"] == 2
        assert job["elapsed_s"] is not None and job["report"]["personas"] == ["lumen"]
        shown = httpx.get(f"{url}/v1/jobs/{job_id}").text
        assert str(tmp_path) not in shown, "paths inside the knowledge base, never the server's"
        assert job["path"] == folder.parent.name and job["files"][0]["file"].startswith("lumen/")
        assert [j["id"] for j in httpx.get(f"{url}/v1/jobs").json()["jobs"]] == [job_id]
        assert httpx.get(f"{url}/v1/jobs", params={"active": True}).json()["jobs"] == []
        again = httpx.post(f"{url}/v1/jobs/{job_id}/cancel")
        assert again.status_code == 409 and "already done" in again.json()["detail"]
        assert httpx.get(f"{url}/v1/jobs/nope").status_code == 404
        missing = httpx.post(f"{url}/v1/jobs", json={"kind": "ingest", "path": str(tmp_path / "none")})
        assert missing.status_code == 400 and "not a folder" in missing.json()["detail"]
        assert httpx.post(f"{url}/v1/jobs", json={"kind": "rm", "path": "/"}).status_code == 422
        for odd in ("/tmp/a\x00b", "~no-such-user-here/x", "x" * 4000):
            refused = httpx.post(f"{url}/v1/jobs", json={"kind": "ingest", "path": odd})
            detail = refused.json()["detail"]
            assert refused.status_code == 400 and ("not a usable path" in detail or "not a folder" in detail)


def test_a_job_left_by_a_stopped_server_resumes_when_the_next_one_starts(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false"])
    with KnowledgeBase(settings, embedder=embedder) as kb:
        left = Job(id="left", kind="ingest", path=str(folder.parent), status="running", created=now())
        kb.store.save_job(left)
        with running(create_app(kb)) as url:
            deadline = time.monotonic() + 60
            while (job := httpx.get(f"{url}/v1/jobs/left").json())["status"] != "done":
                assert time.monotonic() < deadline, job
                time.sleep(0.1)
        assert job["attempts"] == 1 and [d.id for d in kb.documents("lumen")] == ["pricing"]


def test_the_page_and_the_api_docs_are_served_from_the_package(served: tuple[str, ScriptedLLM]) -> None:
    url, _ = served
    page = httpx.get(f"{url}/")
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    docs = httpx.get(f"{url}/docs").text
    assert "/docs-assets/swagger-ui-bundle.js" in docs and "cdn" not in docs.lower()
    assert httpx.get(f"{url}/docs-assets/swagger-ui-bundle.js").status_code == 200
    assert "/v1/ask" in httpx.get(f"{url}/openapi.json").json()["paths"]


def test_a_document_shows_no_server_path_and_no_unsafe_link(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    hostile = doc("odd", "Odd", "# Odd\n\nText.", source_url="javascript:alert(1)")
    folder = make_persona("lumen", rag={"odd.md": hostile})
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false"])
    with KnowledgeBase(settings, embedder=embedder) as kb, running(create_app(kb)) as url:
        kb.ingest(folder.parent)
        shown = httpx.get(f"{url}/v1/documents/odd", params={"persona": "lumen"}).json()["document"]
        listed = httpx.get(f"{url}/v1/personas/lumen/documents").json()["documents"][0]
    for document in (shown, listed):
        assert document["path"] == "lumen/RAG/odd.md" and document["source_url"] is None


def test_profiles_need_a_key_on_a_server_without_keys(served: tuple[str, ScriptedLLM]) -> None:
    url, _ = served
    refused = httpx.get(f"{url}/v1/users/me")
    assert refused.status_code == 400 and "this server has no keys" in refused.json()["detail"]


def test_the_agents_findings_are_listed_and_undone_over_http(small_kb: SmallKB) -> None:
    from shu.types import Finding

    kb = small_kb()
    stored = kb.store.add_finding(
        Finding(
            kind="participant",
            doc_id="pricing",
            persona="lumen",
            target="decision_maker",
            value="Carla Mendes",
            evidence="Carla Mendes set the Pro price",
            method="agent:rules",
        )
    )
    with running(create_app(kb)) as url:
        listed = httpx.get(f"{url}/v1/findings", params={"persona": "lumen"}).json()
        assert [(f["kind"], f["value"], f["target"], f["evidence"]) for f in listed] == [
            ("participant", "Carla Mendes", "decision_maker", "Carla Mendes set the Pro price")
        ]
        unknown = httpx.get(f"{url}/v1/findings", params={"persona": "nobody"})
        assert unknown.status_code == 404 and "unknown persona 'nobody'" in unknown.json()["detail"]
        undone = httpx.post(f"{url}/v1/findings/{stored.id}/undo")
        assert undone.status_code == 200 and undone.json()["undone"] is True
        assert httpx.get(f"{url}/v1/findings").json() == []
        assert [f["undone"] for f in httpx.get(f"{url}/v1/findings", params={"all": True}).json()] == [True]
        again = httpx.post(f"{url}/v1/findings/{stored.id}/undo")
        assert again.status_code == 409 and "already undone" in again.json()["detail"]
        missing = httpx.post(f"{url}/v1/findings/999/undo")
        assert missing.status_code == 404 and "unknown finding 999" in missing.json()["detail"]
        bad = httpx.post(f"{url}/v1/findings/abc/undo")
        assert bad.status_code == 422


def test_an_admin_pauses_and_resets_a_profiles_learning_over_http(small_kb: SmallKB) -> None:
    kb = small_kb()
    kb.accounts.set_user("ana", {"name": "Ana", "contacts": ["Lee Park <lee@harbor.example>"]})
    with running(create_app(kb)) as url:
        paused = httpx.put(f"{url}/v1/admin/profiles/ana/learning", json={"on": False})
        assert paused.status_code == 200 and paused.json()["learning"] is False
        assert kb.accounts.user("ana").learning is False
        resumed = httpx.put(f"{url}/v1/admin/profiles/ana/learning", json={"on": True}).json()
        assert resumed["learning"] is True and resumed["learned"]
        reset = httpx.post(f"{url}/v1/admin/profiles/ana/reset").json()
        assert reset["learned"] == "" and [c["email"] for c in reset["contacts"]] == ["lee@harbor.example"]
        unknown = httpx.post(f"{url}/v1/admin/profiles/nobody/reset")
        assert unknown.status_code == 404 and "unknown user 'nobody'" in unknown.json()["detail"]
        bad = httpx.put(f"{url}/v1/admin/profiles/ana/learning", json={"on": "maybe"})
        assert bad.status_code == 422
