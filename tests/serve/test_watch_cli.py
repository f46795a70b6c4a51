"""`shu watch` and `shu serve --watch` as a user runs them: real processes, real folders, stopped
with Ctrl-C (SIGINT)."""

from __future__ import annotations

import json
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import httpx
from typer.testing import CliRunner

from shu.serve.cli import app
from tests.conftest import PersonaMaker, doc

SHU = str(Path(sys.executable).with_name("shu"))
QUICK = ["--set", "ingest.watch_debounce_s=0.3", "--set", "enrich.enabled=false"]


def lines_of(stream: IO[str]) -> queue.Queue[str]:
    found: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in stream:
            found.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return found


def line_with(found: queue.Queue[str], text: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            line = found.get(timeout=0.2)
        except queue.Empty:
            continue
        seen.append(line)
        if text in line:
            return line
    raise AssertionError(f"no line with {text!r} in {seen}")


def test_shu_watch_follows_a_folder_one_line_a_run_and_stops_on_ctrl_c(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = make_persona("alpha")
    home = tmp_path / "home"
    command = [SHU, "--home", str(home), *QUICK, "watch", str(folder.parent)]
    watcher = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout = lines_of(watcher.stdout)  # type: ignore[arg-type]
        assert "caught up — 0 converted, 0 ingested, 0 pruned, 0 failed" in line_with(stdout, "personas")
        (folder / "RAW-DOCS" / "hives.txt").write_text("The hives are checked every Tuesday.\n")
        line = line_with(stdout, "1 changed")
        assert "alpha: 1 changed (hives.txt) — 1 converted, 1 ingested, 0 pruned, 0 failed" in line
        (folder / "RAW-DOCS" / "bad.docx").write_bytes(b"not a zip")
        assert "1 failed" in line_with(stdout, "bad.docx")
        assert "failed" in line_with(stdout, "RAW-DOCS/bad.docx")  # the file's own line, with its reason
        watcher.send_signal(signal.SIGINT)
        _, stderr = watcher.communicate(timeout=30)
    finally:
        if watcher.poll() is None:
            watcher.kill()
    assert watcher.returncode == 0, stderr
    assert "Watching" in stderr and "Stopped after 3 runs" in stderr and "Traceback" not in stderr


def test_shu_watch_without_folders_watches_those_ingested_or_asks_for_them(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    home = tmp_path / "home"
    result = CliRunner().invoke(app, ["--home", str(home), "watch"])
    assert result.exit_code == 2 and "no folders to watch" in result.output
    result = CliRunner().invoke(app, ["--home", str(home), "watch", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "not a folder" in result.output
    rag = make_persona("alpha") / "RAG"
    result = CliRunner().invoke(app, ["--home", str(home), "watch", str(rag)])
    assert result.exit_code == 2 and "inside the persona folder" in result.output


def test_shu_serve_watch_picks_up_a_new_file(tmp_path: Path, make_persona: PersonaMaker) -> None:
    folder = make_persona("alpha", rag={"a.md": doc("a", "A", "# A\n\nThe shed is painted green.")})
    home = tmp_path / "home"
    ingest = subprocess.run([SHU, "--home", str(home), *QUICK, "ingest", str(folder.parent)], timeout=120)
    assert ingest.returncode == 0
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [SHU, "--home", str(home), *QUICK, "serve", "--port", str(port), "--watch"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        stderr = lines_of(server.stderr)  # type: ignore[arg-type]
        assert str(folder.resolve()) in line_with(stderr, "Watching")
        line_with(stderr, "caught up")
        (folder / "RAW-DOCS" / "well.txt").write_text("The well is forty metres deep.\n")
        line_with(stderr, "well.txt")
        body = {"question": "How deep is the well?", "persona": "alpha"}
        hits = httpx.post(f"{url}/v1/search", json=body, timeout=30).json()["hits"]
        assert any("forty metres deep" in hit["chunk"]["text"] for hit in hits)
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        assert "Stopped watching after 2 runs" in line_with(stderr, "Stopped watching", timeout=5)
    finally:
        if server.poll() is None:
            server.kill()
    time.sleep(0.3)  # the reader has the last lines
    rest = []
    while not stderr.empty():
        rest.append(stderr.get())
    assert not any("Traceback" in line for line in rest), rest
    assert server.returncode in (0, 130)  # 130: Ctrl-C, as uvicorn passes it on (`shu serve` alone too)


def test_shu_json_watch_prints_one_object_a_run(tmp_path: Path, make_persona: PersonaMaker) -> None:
    folder = make_persona("alpha")
    command = [SHU, "--home", str(tmp_path / "home"), "--json", *QUICK, "watch", "--no-initial", str(folder)]
    watcher = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout = lines_of(watcher.stdout)  # type: ignore[arg-type]
        line_with(lines_of(watcher.stderr), "Watching")  # type: ignore[arg-type]  # the observer runs
        (folder / "RAW-DOCS" / "gate.txt").write_text("The gate code is 4411.\n")
        run = json.loads(line_with(stdout, "gate.txt"))
        assert run["folder"] == str(folder.resolve()) and run["error"] is None and run["failed"] == []
        assert run["changed"] == [str(folder.resolve() / "RAW-DOCS" / "gate.txt")]
        assert run["counts"]["converted"] == run["counts"]["ingested"] == 1
        watcher.send_signal(signal.SIGINT)
        watcher.communicate(timeout=30)
    finally:
        if watcher.poll() is None:
            watcher.kill()
    assert watcher.returncode == 0
