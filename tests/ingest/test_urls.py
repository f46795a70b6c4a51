"""URL lists: pages are fetched from a real HTTP server on 127.0.0.1; unreachable URLs fail one
by one with a clear message while the rest of the run goes on."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from shu.config.settings import IngestSettings
from shu.ingest.personas import load_persona
from shu.ingest.urls import fetch_url_lists, read_url_list, url_doc_id
from shu.kb import KnowledgeBase
from tests.conftest import PersonaMaker

LOCAL = IngestSettings(url_timeout_s=3, allow_private_urls=True)
PAGE = b"""<html><head><title>Status page</title></head><body><nav>menu</nav>
<h1>Service status</h1><p>All systems are operational since 3 May 2026.</p></body></html>"""


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/status":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)
        elif self.path == "/slow-headers":  # header lines a second apart: no body ever starts
            self.send_response(200)
            for number in range(20):
                self.send_header(f"X-Slow-{number}", "x")
                self.wfile.flush()
                time.sleep(0.25)
            self.end_headers()
            self.wfile.write(b"late")
        elif self.path == "/table":  # a page whose table is over the conversion budget
            body = b"<table>" + b"<tr><td>a</td><td>b</td></tr>" * 2000 + b"</table>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/redirect-home":
            self.send_response(302)
            self.send_header("Location", "/status")
            self.end_headers()
        elif self.path == "/trickle":  # a byte every 0.2 s, for ever: each read is quick
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(100):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.2)
        else:
            self.send_response(404)
            self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_url_list_lines() -> None:
    assert read_url_list(b"# links\nhttps://a.example/x\n\n- https://b.example/y\n") == [
        "https://a.example/x",
        "https://b.example/y",
    ]


def test_each_url_is_fetched_or_fails_on_its_own(make_persona: PersonaMaker, site: str) -> None:
    urls = f"{site}/status\n{site}/missing\nhttp://127.0.0.1:9/unreachable\nftp://old.example/file\n"
    folder = load_persona(make_persona("lumen", raw={"sources.urls": urls}))
    outcomes = {o.path.split(": ", 1)[1]: o for o in fetch_url_lists(folder, LOCAL)}
    assert outcomes[f"{site}/status"].status == "converted"
    assert outcomes[f"{site}/missing"].message == "HTTP 404 from server"
    assert outcomes["http://127.0.0.1:9/unreachable"].message.startswith("cannot fetch (ConnectError")
    assert outcomes["ftp://old.example/file"].message == "not an http(s) URL"
    rag = next((folder.rag_dir).glob("*-status-*.md")).read_text()
    assert f"source_url: {site}/status" in rag and "All systems are operational" in rag and "menu" not in rag


def test_a_fetched_page_is_kept_and_not_fetched_again(
    kb: KnowledgeBase, make_persona: PersonaMaker, site: str
) -> None:
    kb.settings.ingest.allow_private_urls = True
    folder = make_persona("lumen", raw={"sources.urls": f"{site}/status\nhttp://127.0.0.1:9/down\n"})
    report = kb.ingest(folder)
    assert report.counts()["ingested"] == 1 and len(report.failed) == 1
    assert kb.search("is the service operational", persona="lumen")[0].doc_source_url == f"{site}/status"
    again = kb.ingest(folder)
    assert not [o for o in again.outcomes if o.path.endswith("/status")], "not fetched again"
    assert again.counts()["unchanged"] == 1 and again.counts()["ingested"] == 0


def test_a_malformed_url_fails_alone(make_persona: PersonaMaker, site: str) -> None:
    folder = load_persona(make_persona("lumen", raw={"s.urls": f"http://[::1/x\n{site}/status\n"}))
    outcomes = fetch_url_lists(folder, LOCAL)
    assert [o.status for o in outcomes] == ["failed", "converted"]
    assert outcomes[0].message.startswith("malformed URL (")


def test_long_urls_sharing_a_prefix_get_distinct_ids() -> None:
    base = "https://docs.example/" + "section/" * 20
    assert url_doc_id(base + "a") != url_doc_id(base + "b")


def test_prune_removes_pages_whose_url_was_unlisted(
    kb: KnowledgeBase, make_persona: PersonaMaker, site: str
) -> None:
    kb.settings.ingest.allow_private_urls = True
    folder = make_persona("lumen", raw={"sources.urls": f"{site}/status\n"})
    kb.ingest(folder)
    (folder / "RAW-DOCS" / "sources.urls").write_text("# nothing listed any more\n")
    report = kb.ingest(folder, prune=True)
    assert report.counts()["pruned"] == 1, "one document: its RAG file and its index entry are one"
    assert kb.documents() == [] and not list((folder / "RAG").glob("*.md"))


def test_offline_urls_do_not_stop_the_run(
    kb: KnowledgeBase, make_persona: PersonaMaker, tmp_path: Path
) -> None:
    folder = make_persona(
        "lumen",
        rag={"a.md": "# A\n\nLocal text stays searchable."},
        raw={"links.urls": "https://docs.example.invalid/page\n"},
    )
    report = kb.ingest(folder)
    assert [o.status for o in report.outcomes if "docs.example.invalid" in o.path] == ["failed"]
    assert "cannot fetch" in report.failed[0].message
    assert [d.id for d in kb.documents()] == ["a"]


def test_local_and_private_addresses_are_refused_by_default(
    kb: KnowledgeBase, make_persona: PersonaMaker, site: str
) -> None:
    urls = f"{site}/status\nhttp://localhost:9/x\nhttp://10.1.2.3/intranet\nhttp://[::1]:9/x\n"
    folder = make_persona("lumen", rag={"a.md": "# A\n\nLocal text."}, raw={"sources.urls": urls})
    report = kb.ingest(folder)
    refused = [o.message for o in report.failed]
    assert len(refused) == 4 and all("private or local address" in m for m in refused), refused
    assert "ingest.allow_private_urls=true" in refused[0]
    assert [d.id for d in kb.documents()] == ["a"], "the rest of the run goes on"


def test_a_server_that_trickles_is_cut_off_at_the_total_time(make_persona: PersonaMaker, site: str) -> None:
    folder = load_persona(make_persona("lumen", raw={"s.urls": f"{site}/trickle\n{site}/status\n"}))
    started = time.monotonic()
    outcomes = fetch_url_lists(folder, LOCAL.model_copy(update={"url_total_s": 1.0}))
    assert time.monotonic() - started < 5, "bounded by url_total_s, not by 100 quick reads"
    assert [o.status for o in outcomes] == ["failed", "converted"]
    assert "longer than 1 s (ingest.url_total_s)" in outcomes[0].message


def test_slow_headers_are_cut_off_at_the_total_time_too(make_persona: PersonaMaker, site: str) -> None:
    folder = load_persona(make_persona("lumen", raw={"s.urls": f"{site}/slow-headers\n"}))
    started = time.monotonic()
    outcomes = fetch_url_lists(folder, LOCAL.model_copy(update={"url_total_s": 1.0}))
    assert time.monotonic() - started < 3
    assert "longer than 1 s" in outcomes[0].message


def test_redirects_are_followed_and_checked(make_persona: PersonaMaker, site: str) -> None:
    folder = load_persona(make_persona("lumen", raw={"s.urls": f"{site}/redirect-home\n"}))
    assert [o.status for o in fetch_url_lists(folder, LOCAL)] == ["converted"]


def test_a_name_that_rebinds_to_a_local_address_is_refused(
    make_persona: PersonaMaker, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first lookup (the check) says public, the next (the connection) says 127.0.0.1."""
    import socket

    real = socket.getaddrinfo
    port = int(site.rsplit(":", 1)[1])
    calls = []

    def rebinding(host: str, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if host != "rebind.test":
            return real(host, *args, **kwargs)
        calls.append(host)
        address = "93.184.216.34" if len(calls) == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    folder = load_persona(make_persona("lumen", raw={"s.urls": f"http://rebind.test:{port}/status\n"}))
    outcomes = fetch_url_lists(folder, IngestSettings(url_timeout_s=3))
    assert len(calls) >= 2, "the connection looked the name up again"
    assert outcomes[0].status == "failed" and "private or local address (127.0.0.1)" in outcomes[0].message
    assert not list(folder.rag_dir.glob("*.md")), "nothing from the local server was kept"


def test_a_downloaded_page_converts_within_the_budget_of_a_raw_file(
    make_persona: PersonaMaker, site: str
) -> None:
    folder = make_persona("news", raw={"links.urls": f"{site}/table\n{site}/status\n"})
    outcomes = fetch_url_lists(load_persona(folder), LOCAL.model_copy(update={"max_table_cells": 1000}))
    assert [o.status for o in outcomes] == ["failed", "converted"]
    assert "over the budget" in outcomes[0].message and "max_table_cells" in outcomes[0].message
