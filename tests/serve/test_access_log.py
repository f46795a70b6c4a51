"""A line a request: method, path, status, time and whose key — never the key, never the query
string — for requests answered and for those a wall refused (issue 45, part 5)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import httpx
import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import CountingEmbedder, PersonaMaker, doc


def test_every_request_is_one_line_with_whose_key_and_never_the_key(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    kb = KnowledgeBase(load_settings(tmp_path / "home", ["enrich.enabled=false"]), embedder=embedder)
    assert not kb.ingest(
        make_persona("lumen", rag={"p.md": doc("p", "Pricing", "# Pricing\n\nPro is $65.")})
    ).failed
    key, secret = kb.accounts.create_key("ana", ["lumen"])
    caplog.set_level(logging.INFO, logger="shu.access")
    with running(create_app(kb)) as url:
        good = {"Authorization": f"Bearer {secret}"}
        assert httpx.get(f"{url}/v1/personas/lumen/documents?limit=5", headers=good).status_code == 200
        assert (
            httpx.get(f"{url}/v1/personas", headers={"Authorization": "Bearer shu_wrong"}).status_code == 401
        )
        assert httpx.get(f"{url}/healthz", headers={"Host": "attacker.example"}).status_code == 421
    kb.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "shu.access"]
    assert re.fullmatch(
        rf"GET /v1/personas/lumen/documents 200 \d+ ms {re.escape(key.id)} \(ana\)", lines[0]
    ), lines
    assert re.fullmatch(r"GET /v1/personas 401 \d+ ms -", lines[1]), lines
    assert re.fullmatch(r"GET /healthz 421 \d+ ms -", lines[2]), lines
    assert not any(secret in line or "limit=" in line or "shu_wrong" in line for line in lines)


def test_a_request_the_app_fails_on_is_logged_as_a_500(caplog: pytest.LogCaptureFixture) -> None:
    import anyio

    from shu.serve.access_log import AccessLog

    async def broken(scope: object, receive: object, send: object) -> None:
        raise RuntimeError("boom")

    async def call() -> None:
        scope = {"type": "http", "method": "GET", "path": "/v1/x", "state": {}}

        async def receive() -> dict[str, object]:
            return {"type": "http.request"}

        async def send(message: object) -> None:
            return None

        with pytest.raises(RuntimeError):
            await AccessLog(broken)(scope, receive, send)  # type: ignore[arg-type]

    caplog.set_level(logging.INFO, logger="shu.access")
    anyio.run(call)
    assert re.fullmatch(r"GET /v1/x 500 \d+ ms -", caplog.records[-1].getMessage())
