"""`shu bench-serve`: the server under load on loopback. A `shu serve` process over a copy of
the example knowledge base; N clients for S seconds, each sending searches and asks (no answer
cache, so every ask retrieves and answers) in turn; and, the whole time, an ingest job re-indexing
every document (a new one is started whenever the last finishes). Requests/s, p50/p95/p99 and
errors per kind of request."""

from __future__ import annotations

import asyncio
import itertools
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from shu.kb import open_kb
from shu_eval.bench import machine, percentile

if TYPE_CHECKING:
    from shu.types import Document

SERVE = "from shu.serve.cli import main; main()"


@dataclass
class LoadResult:
    clients: int
    seconds: float
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    jobs_done: int = 0
    documents_reindexed: int = 0
    unfinished: str = ""
    """The job running when the load stopped: how far it got."""
    documents: int = 0


def run(examples: Path, clients: int = 8, seconds: float = 60.0, with_job: bool = True) -> LoadResult:
    work = Path(tempfile.mkdtemp(prefix="shu-bench-serve-"))
    try:
        shutil.copytree(examples, work / "personas")
        with open_kb(work / "home", ["answer.cache=false"]) as kb:
            kb.ingest(work / "personas")
            personas = [p.slug for p in kb.personas()]
            questions = {slug: _questions(kb.documents(slug)) for slug in personas}
            documents = len(kb.documents())
        port = _free_port()
        options = ["--home", str(work / "home"), "--set", "answer.cache=false"]
        # every client is one caller (loopback, no keys): the load, not the per-caller limits
        options += [
            "--set",
            f"server.concurrent_per_caller={min(clients + 1, 256)}",
            "--set",
            "server.requests_per_minute=1000000",
        ]
        server = subprocess.Popen(
            [sys.executable, "-c", SERVE, *options, "serve", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url)
            result = LoadResult(clients=clients, seconds=seconds, documents=documents)
            stop = threading.Event()
            jobs = threading.Thread(target=_keep_reindexing, args=(url, work / "personas", stop, result))
            if with_job:
                jobs.start()
            asyncio.run(_load(url, questions, clients, seconds, result))
            stop.set()
            if with_job:
                jobs.join()
            return result
        finally:
            server.terminate()
            server.wait(timeout=30)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _questions(documents: list[Document]) -> list[str]:
    titles = [d.title for d in documents]
    return [f"What does “{t}” say?" for t in titles if t] or ["What is this about?"]


async def _load(
    url: str, questions: dict[str, list[str]], clients: int, seconds: float, result: LoadResult
) -> None:
    deadline = time.monotonic() + seconds
    pairs = [(slug, q) for slug, qs in questions.items() for q in qs]
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:

        async def one(index: int) -> None:
            for n in itertools.count(index):
                if time.monotonic() >= deadline:
                    return
                slug, question = pairs[(n * 7) % len(pairs)]
                kind = "search" if n % 2 == 0 else "ask"
                body = {"question": question, "persona": slug}
                began = time.perf_counter()
                try:
                    response = await client.post(f"/v1/{kind}", json=body)
                    failed = response.status_code >= 400
                    detail = f"{kind} {response.status_code}: {response.text[:200]}"
                except httpx.HTTPError as exc:
                    failed, detail = True, f"{kind}: {exc!r}"
                ms = (time.perf_counter() - began) * 1000
                if failed:
                    result.errors[kind] = result.errors.get(kind, 0) + 1
                    result.error_samples.append(detail)
                else:
                    result.latencies.setdefault(kind, []).append(ms)

        await asyncio.gather(*(one(i) for i in range(clients)))


def _keep_reindexing(url: str, personas: Path, stop: threading.Event, result: LoadResult) -> None:
    job: dict[str, object] = {}
    with httpx.Client(base_url=url, timeout=60) as client:
        while not stop.is_set():
            job = client.post(
                "/v1/jobs", json={"kind": "ingest", "path": str(personas), "force": True}
            ).json()
            while not stop.is_set():
                state = client.get(f"/v1/jobs/{job['id']}").json()
                if state["status"] not in ("queued", "running"):
                    if state["status"] == "done":
                        result.jobs_done += 1
                        result.documents_reindexed += state["processed"]
                    break
                stop.wait(0.5)
        if job:
            state = client.get(f"/v1/jobs/{job['id']}").json()
            if state["status"] in ("queued", "running"):
                result.unfinished = (
                    f"{state['processed']}/{state['total']} documents after {state['elapsed_s'] or 0:.0f} s"
                )
            client.post(f"/v1/jobs/{job['id']}/cancel")


def _wait_healthy(url: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"shu serve did not answer on {url} within {timeout:.0f} s")


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def markdown(result: LoadResult) -> str:
    lines = [
        f"Machine: {machine()}. {result.clients} clients for {result.seconds:.0f} s on loopback, "
        f"searches and asks in turn (answer cache off), over the example knowledge base "
        f"({result.documents} documents); an ingest job re-indexing every document ran the whole "
        f"time ({result.jobs_done} finished, {result.documents_reindexed} documents re-indexed"
        + (f"; the last one at {result.unfinished})." if result.unfinished else ")."),
        "",
        "| requests | count | requests/s | p50 ms | p95 ms | p99 ms | errors |",
        "|---|---|---|---|---|---|---|",
    ]
    every = [ms for kind in result.latencies for ms in result.latencies[kind]]
    rows = [*sorted(result.latencies.items()), ("all", every)]
    for kind, values in rows:
        errors = sum(result.errors.values()) if kind == "all" else result.errors.get(kind, 0)
        lines.append(
            f"| {kind} | {len(values)} | {len(values) / result.seconds:.1f} | {percentile(values, 50):.0f} | "
            f"{percentile(values, 95):.0f} | {percentile(values, 99):.0f} | {errors} |"
        )
    if result.error_samples:
        lines += ["", "First errors:", *(f"- {sample}" for sample in result.error_samples[:5])]
    return "\n".join(lines)
