"""DNS rebinding: a real server on loopback answers only requests that name it (a loopback Host,
the address it is bound to, or one set in `server.allowed_hosts`), on every route; a page of
another origin is refused too."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest

from shu.serve.background import running
from shu.serve.http import create_app
from tests.serve.conftest import SmallKB

FOREIGN = ["attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example", "localhost.evil:80"]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
ROUTES: list[tuple[str, str, object]] = [
    ("GET", "/healthz", None),
    ("GET", "/v1/personas", None),
    ("GET", "/v1/me", None),
    ("POST", "/v1/search", {"question": "Pro plan price", "persona": "lumen"}),
    ("POST", "/v1/jobs", {"kind": "ingest", "path": "/"}),
    ("GET", "/", None),
    ("GET", "/docs", None),
    ("GET", "/openapi.json", None),
    ("POST", "/mcp", INITIALIZE),
]


def test_a_keyless_server_refuses_every_route_under_a_foreign_host(small_kb: SmallKB) -> None:
    kb = small_kb()
    with running(create_app(kb)) as url:
        for host in FOREIGN:
            for method, path, body in ROUTES:
                response = httpx.request(method, url + path, json=body, headers={"Host": host}, timeout=30)
                assert response.status_code == 421, (host, path, response.status_code)
                assert "not a name of this server" in response.json()["detail"], response.text
                assert response.json()["error"]["code"] == "421", response.text
        assert kb.jobs.list(False, 10) == [], "no job was started through a foreign host"


def test_loopback_names_and_configured_hosts_are_answered(small_kb: SmallKB) -> None:
    kb = small_kb('server.allowed_hosts=["Shu.LAN", "10.0.0.7"]')
    with running(create_app(kb)) as url:
        port = urlsplit(url).port
        hosts = [
            f"127.0.0.1:{port}",
            f"localhost:{port}",
            f"[::1]:{port}",
            "localhost",
            "shu.lan:8443",
            "10.0.0.7",
        ]
        for host in hosts:
            response = httpx.get(f"{url}/v1/personas", headers={"Host": host}, timeout=30)
            assert response.status_code == 200, (host, response.text)
        assert httpx.get(f"{url}/v1/personas", headers={"Host": "shu.lan.evil"}).status_code == 421


def test_a_keyed_server_refuses_a_foreign_host_even_with_a_good_key(small_kb: SmallKB) -> None:
    kb = small_kb()
    token = kb.accounts.create_key("ana", ["lumen"])[1]
    with running(create_app(kb)) as url:
        auth = {"Authorization": f"Bearer {token}"}
        assert httpx.get(f"{url}/v1/personas", headers=auth).status_code == 200
        for method, path, body in ROUTES:
            response = httpx.request(method, url + path, json=body, headers=auth | {"Host": FOREIGN[0]})
            assert response.status_code == 421, (path, response.status_code)


def test_a_request_from_a_page_of_another_origin_is_refused(small_kb: SmallKB) -> None:
    with running(create_app(small_kb())) as url:
        body = {"question": "Pro plan price", "persona": "lumen"}
        for origin in ("http://attacker.example", "null", "http://127.0.0.1.attacker.example:80"):
            response = httpx.post(f"{url}/v1/search", json=body, headers={"Origin": origin})
            assert response.status_code == 403 and "origin" in response.json()["detail"], origin
        same = httpx.post(f"{url}/v1/search", json=body, headers={"Origin": url})
        assert same.status_code == 200, same.text


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("192.168.1.5:8000", True),
        ("192.168.1.5", True),
        ("shu.lan", True),
        ("localhost:1", True),
        ("[::1]:8000", True),
        ("192.168.1.6:8000", False),
        ("attacker.example", False),
        ("", False),
        ("192.168.1.5.attacker.example", False),
    ],
)
def test_a_server_bound_to_an_address_answers_that_address(host: str, allowed: bool) -> None:
    from shu.serve.hosts import HostRule

    rule = HostRule(bound="192.168.1.5", configured=["shu.lan"])
    assert rule.allows(host, local=None) is allowed
