"""A persona's documents changed over HTTP on a real server with keys: files uploaded (checked
before anything is written, stored under a safe name, indexed by a job the uploader follows),
downloaded, re-ingested and deleted; read-only keys stay read-only, another persona's document
is "not found", and nothing reaches outside the persona's folder."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import CountingEmbedder, PersonaMaker, doc

PLANS = doc("plans", "Plans", "# Plans\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
SECRET = doc("secret", "Board secrets", "# Board\n\n## Deal\n\nThe acquisition price is 9 million.")
NOTES = b"# Garden notes\n\nThe community garden opens at nine on Saturdays.\n"


@pytest.fixture
def served(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> Iterator[dict[str, Any]]:
    settings = load_settings(
        tmp_path / "home",
        [
            "enrich.enabled=false",
            "answer.scope=false",
            "server.max_upload_bytes=200000",
            "ingest.max_file_mb=0.1",
        ],
    )
    kb = KnowledgeBase(settings, embedder=embedder)
    board = make_persona("board", rag={"secret.md": SECRET})
    lumen = make_persona("lumen", rag={"plans.md": PLANS})
    make_persona("empty")
    assert not kb.ingest(lumen.parent).failed
    tokens = {
        "writer": kb.accounts.create_key("wendy", ["lumen"], writes=["lumen"])[1],
        "reader": kb.accounts.create_key("rita", ["lumen"])[1],
        "boarder": kb.accounts.create_key("carol", ["board"], writes=["board"])[1],
        "admin": kb.accounts.create_key("ops", admin=True)[1],
    }
    with running(create_app(kb)) as url:
        yield {"url": url, "lumen": lumen, "board": board, "kb": kb} | tokens
    kb.close()


def client(served: dict[str, Any], who: str) -> httpx.Client:
    return httpx.Client(
        base_url=served["url"], headers={"Authorization": f"Bearer {served[who]}"}, timeout=60
    )


def finished(http: httpx.Client, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = http.get(f"/v1/jobs/{job_id}")
        assert found.status_code == 200, found.text
        job: dict[str, Any] = found.json()
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")


def ids(http: httpx.Client, persona: str = "lumen") -> list[str]:
    return [d["id"] for d in http.get(f"/v1/personas/{persona}/documents").json()["documents"]]


def test_upload_follow_download_reingest_and_delete(served: dict[str, Any]) -> None:
    wendy = client(served, "writer")
    sent = wendy.post(
        "/v1/personas/lumen/documents", files=[("files", ("garden-notes.txt", NOTES, "text/plain"))]
    )
    assert sent.status_code == 202, sent.text
    body = sent.json()
    assert body["stored"] == [{"name": "garden-notes.txt", "stored_as": "garden-notes.txt"}]
    assert body["refused"] == [] and body["job"]["path"] == "lumen"
    job = finished(wendy, body["job"]["id"])
    assert job["status"] == "done" and job["failed"] == 0 and "report" not in job
    assert str(served["lumen"]) not in str(job)  # no server path shown to the uploader
    assert "garden-notes" in ids(wendy)
    assert (served["lumen"] / "RAW-DOCS" / "garden-notes.txt").read_bytes() == NOTES

    original = wendy.get("/v1/documents/garden-notes/original", params={"persona": "lumen"})
    assert original.status_code == 200 and original.content == NOTES
    assert original.headers["content-disposition"].startswith("attachment")
    markdown = client(served, "reader").get("/v1/documents/plans/original", params={"persona": "lumen"})
    assert markdown.status_code == 200 and markdown.text.startswith("---") and "$65" in markdown.text
    assert markdown.headers["content-type"].startswith("text/markdown")

    again = wendy.post("/v1/documents/garden-notes/reingest", params={"persona": "lumen"})
    assert again.status_code == 202
    assert finished(wendy, again.json()["job"]["id"])["status"] == "done"
    assert "garden-notes" in ids(wendy)

    gone = wendy.delete("/v1/documents/garden-notes", params={"persona": "lumen"})
    assert gone.status_code == 200, gone.text
    assert gone.json() | {} == {
        "deleted": "garden-notes",
        "rag_file": "garden-notes.md",
        "raw_file": "garden-notes.txt",
        "raw_kept_for": [],
    }
    assert "garden-notes" not in ids(wendy)
    assert not (served["lumen"] / "RAW-DOCS" / "garden-notes.txt").exists()
    assert not (served["lumen"] / "RAG" / "garden-notes.md").exists()
    assert wendy.get("/v1/documents/garden-notes", params={"persona": "lumen"}).status_code == 404


def test_a_taken_name_gets_a_number_and_nothing_is_replaced(served: dict[str, Any]) -> None:
    wendy = client(served, "writer")
    files = [
        ("files", ("notes.txt", NOTES, "text/plain")),
        ("files", ("notes.txt", b"Other text.\n", "text/plain")),
    ]
    sent = wendy.post("/v1/personas/lumen/documents", files=files)
    assert [s["stored_as"] for s in sent.json()["stored"]] == ["notes.txt", "notes-2.txt"]
    assert (served["lumen"] / "RAW-DOCS" / "notes.txt").read_bytes() == NOTES
    finished(wendy, sent.json()["job"]["id"])
    assert {"notes", "notes-2"} <= set(ids(wendy))


def test_read_only_keys_stay_read_only_and_walls_hold(served: dict[str, Any]) -> None:
    rita, carol = client(served, "reader"), client(served, "boarder")
    upload = [("files", ("x.txt", NOTES, "text/plain"))]
    for http in (rita, carol):
        refused = http.post("/v1/personas/lumen/documents", files=upload)
        assert refused.status_code == 403
        assert http.delete("/v1/documents/plans", params={"persona": "lumen"}).status_code == 403
        assert http.post("/v1/documents/plans/reingest", params={"persona": "lumen"}).status_code == 403
    assert rita.post("/v1/personas/lumen/documents", files=upload).json()["detail"] == (
        "this key may not change persona 'lumen'"
    )
    assert carol.get("/v1/documents/plans/original", params={"persona": "lumen"}).status_code == 403
    # another persona's document is "not found" to a key that writes this one
    wendy = client(served, "writer")
    assert wendy.delete("/v1/documents/secret", params={"persona": "lumen"}).status_code == 404
    assert wendy.get("/v1/documents/secret/original", params={"persona": "lumen"}).status_code == 404
    assert wendy.post("/v1/documents/secret/reingest", params={"persona": "lumen"}).status_code == 404
    assert wendy.delete("/v1/documents/secret", params={"persona": "board"}).status_code == 403
    assert list((served["lumen"] / "RAW-DOCS").iterdir()) == []
    assert (served["lumen"] / "RAG" / "plans.md").exists()
    # a persona with no document yet: its folder is unknown to the server, said as a 400
    nowhere = client(served, "admin").post("/v1/personas/empty/documents", files=upload)
    assert nowhere.status_code == 400 and "folder" in nowhere.json()["detail"]
    # a job is followed by the one who started it only
    job = wendy.post("/v1/personas/lumen/documents", files=upload).json()["job"]["id"]
    assert rita.get(f"/v1/jobs/{job}").status_code == 403
    assert client(served, "admin").get(f"/v1/jobs/{job}").json()["path"] == "lumen"  # not the server path
    finished(wendy, job)


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("../../etc/passwd.txt", "passwd.txt"),
        ("..\\..\\windows\\win.ini.txt", "win.ini.txt"),
        ("a\x00b.txt", "a-00b.txt"),  # httpx sends the NUL as %00
        ("x" * 400 + ".txt", "x" * 150 + ".txt"),
        ("Über café 日本語.md", "Über café 日本語.md"),
        (".hidden.txt", "hidden.txt"),
        ("....txt", "upload.txt"),
    ],
)
def test_hostile_names_are_stored_inside_raw_docs(served: dict[str, Any], name: str, stored: str) -> None:
    wendy = client(served, "writer")
    sent = wendy.post("/v1/personas/lumen/documents", files=[("files", (name, NOTES, "text/plain"))])
    assert sent.status_code == 202, sent.text
    assert sent.json()["stored"][0]["stored_as"] == stored
    assert [p.name for p in (served["lumen"] / "RAW-DOCS").iterdir()] == [stored]
    assert finished(wendy, sent.json()["job"]["id"])["status"] == "done"


def test_too_big_and_unknown_types_are_refused_before_anything_is_written(served: dict[str, Any]) -> None:
    wendy = client(served, "writer")
    raw = served["lumen"] / "RAW-DOCS"
    over_file = wendy.post("/v1/personas/lumen/documents", files=[("files", ("big.txt", b"a" * 100_001))])
    assert over_file.status_code == 413 and "over the 100,000" in over_file.json()["detail"]
    over_body = wendy.post("/v1/personas/lumen/documents", files=[("files", ("big.txt", b"a" * 300_000))])
    assert over_body.status_code == 413
    assert wendy.post("/v1/search", content=b"{" + b" " * 70_000 + b"}").status_code == 413  # others: 64 KiB
    anonymous = httpx.post(
        f"{served['url']}/v1/personas/lumen/documents", files={"files": ("a.txt", b"a" * 70_000)}
    )
    assert anonymous.status_code == 401  # no credentials: its 401 past the small limit, never megabytes first
    for name, data, why in [
        ("tool.exe", b"MZ\x90\x00", "not a format Shu reads"),
        ("noext", b"text", "no suffix"),
        ("fake.pdf", b"<html>not a pdf", "does not look like a .pdf"),
        ("fake.docx", b"plain text", "does not look like a .docx"),
        ("binary.txt", b"\x00\x01\x02", "binary data"),
        ("empty.md", b"", "empty"),
    ]:
        refused = wendy.post("/v1/personas/lumen/documents", files=[("files", (name, data))])
        assert refused.status_code == 415, (name, refused.text)
        assert why in refused.json()["refused"][0]["reason"]
    assert list(raw.iterdir()) == []
    mixed = wendy.post(
        "/v1/personas/lumen/documents", files=[("files", ("ok.md", NOTES)), ("files", ("bad.exe", b"MZ"))]
    )
    assert mixed.status_code == 202
    assert [r["name"] for r in mixed.json()["refused"]] == ["bad.exe"]
    assert [p.name for p in raw.iterdir()] == ["ok.md"]
    finished(wendy, mixed.json()["job"]["id"])


def test_a_corrupt_file_is_reported_by_the_job_and_nothing_else_is_lost(served: dict[str, Any]) -> None:
    wendy = client(served, "writer")
    files = [("files", ("broken.pdf", b"%PDF-1.4\n" + b"\x00garbage" * 50)), ("files", ("fine.txt", NOTES))]
    sent = wendy.post("/v1/personas/lumen/documents", files=files)
    assert sent.status_code == 202
    job = finished(wendy, sent.json()["job"]["id"])
    assert job["status"] == "done" and job["failed"] == 1
    failed = [f for f in job["files"] if f["status"] == "failed"]
    assert [f["file"] for f in failed] == ["RAW-DOCS/broken.pdf"] and failed[0]["message"]
    assert "\n" not in failed[0]["message"]
    assert {"plans", "fine"} <= set(ids(wendy))


def test_a_file_named_like_another_personas_document_is_indexed_and_the_job_names_nothing_beyond_the_wall(
    served: dict[str, Any],
) -> None:
    """Once both `secret.md`s failed and the job told lumen's writer the board file's server path."""
    (served["lumen"] / "RAW-DOCS" / "peek.md").symlink_to(served["board"] / "RAG" / "secret.md")
    wendy = client(served, "writer")
    sent = wendy.post("/v1/personas/lumen/documents", files=[("files", ("secret.md", NOTES))])
    assert sent.status_code == 202
    job = finished(wendy, sent.json()["job"]["id"])
    shown = {f["file"]: f for f in job["files"]}
    assert shown["RAG/secret.md"]["doc_id"] == "lumen.secret" and "lumen.secret" in ids(wendy)
    assert shown["RAW-DOCS/peek.md"]["status"] == "failed"
    assert (
        shown["RAW-DOCS/peek.md"]["message"]
        == "path outside the knowledge base (resolves to (a file of another persona))"
    )
    text = str(job)
    assert "board" not in text and str(served["lumen"].parent) not in text, text
    admin = client(served, "admin")
    assert "board/RAG/secret.md" in str(finished(admin, job["id"])), "an admin sees every path"
    carol = client(served, "boarder")
    assert (
        "The acquisition price is 9 million."
        in carol.post("/v1/search", json={"question": "acquisition price", "persona": "board"}).text
    ), "the board's own document is untouched"


def test_a_server_without_keys_lets_everyone_upload(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    kb = KnowledgeBase(load_settings(tmp_path / "open", ["enrich.enabled=false"]), embedder=embedder)
    folder = make_persona("lumen", rag={"plans.md": PLANS})
    kb.ingest(folder.parent)
    with running(create_app(kb)) as url, httpx.Client(base_url=url, timeout=60) as http:
        sent = http.post("/v1/personas/lumen/documents", files=[("files", ("n.md", NOTES))])
        assert sent.status_code == 202
        assert finished(http, sent.json()["job"]["id"])["status"] == "done"
        assert http.get("/v1/me").json()["admin"] is True
        assert http.delete("/v1/documents/n", params={"persona": "lumen"}).status_code == 200
    kb.close()
