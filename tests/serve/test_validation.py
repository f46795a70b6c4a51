"""JSON that no JSON encoder writes back (a lone surrogate, NaN, Infinity) on every JSON route of
a real server, open and behind keys, and at /mcp: a 4xx with a message that does not echo it,
never a 500."""

from __future__ import annotations

import httpx
import pytest

from shu.serve.background import running
from shu.serve.http import create_app
from tests.serve.conftest import SmallKB

ROUTES: list[tuple[str, str, str]] = [
    ("POST", "/v1/search", '{"question": %s, "persona": "lumen"}'),
    ("POST", "/v1/search", '{"question": "Pro plan", "persona": "lumen", "limit": %s}'),
    ("POST", "/v1/search", '{"question": "Pro plan", "persona": %s}'),
    ("POST", "/v1/ask", '{"question": %s, "persona": "lumen", "use_cache": false}'),
    ("POST", "/v1/ask", '{"question": "Pro plan", "persona": "lumen", "stream": %s}'),
    ("POST", "/v1/feedback", '{"persona": "lumen", "kind": "up", "question": %s}'),
    ("POST", "/v1/feedback", '{"persona": "lumen", "kind": "star", "doc_id": %s}'),
    ("PUT", "/v1/users/me", '{"name": %s}'),
    ("PUT", "/v1/users/me", '{"preferences": {"detail": %s}}'),
    ("POST", "/v1/jobs", '{"kind": "ingest", "path": %s}'),
    ("POST", "/v1/search", '{%s: 1, "question": "Pro plan", "persona": "lumen"}'),
]
VALUES = ['"\\ud800"', '"price \\udfff of Pro"', "NaN", "Infinity", "-Infinity", "1e999"]
MCP = [
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search", '
    '"arguments": {"question": %s, "persona": "lumen"}}}',
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search", '
    '"arguments": {"question": "Pro", "persona": "lumen", "limit": %s}}}',
    '{"jsonrpc": "2.0", "id": %s, "method": "ping"}',
]


@pytest.mark.parametrize("keyed", [False, True])
def test_unencodable_json_is_a_4xx_with_a_message_on_every_route(small_kb: SmallKB, keyed: bool) -> None:
    kb = small_kb()
    headers = {"content-type": "application/json"}
    if keyed:
        headers["Authorization"] = f"Bearer {kb.accounts.create_key('ana', ['lumen'], admin=True)[1]}"
    with running(create_app(kb)) as url:
        for method, path, template in ROUTES:
            for value in VALUES:
                if template.startswith("{%s") and not value.startswith('"'):
                    continue  # a key is a string
                body = (template % value).encode()
                response = httpx.request(method, url + path, content=body, headers=headers, timeout=60)
                where = f"{method} {path} {body!r}"
                assert 400 <= response.status_code < 500, (where, response.status_code, response.text[:300])
                assert response.json()["detail"], where
                assert "\\ud800" not in response.text and "\\udfff" not in response.text, where


def test_unencodable_json_at_mcp_is_never_a_server_error(small_kb: SmallKB) -> None:
    with running(create_app(small_kb())) as url:
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        for template in MCP:
            for value in VALUES:
                body = (template % value).encode()
                response = httpx.post(f"{url}/mcp", content=body, headers=headers, timeout=60)
                assert response.status_code < 500, (body, response.status_code, response.text[:300])
