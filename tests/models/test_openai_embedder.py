"""The OpenAI-compatible embedder against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import numpy as np
import pytest

from shu.errors import EmbedderError
from shu.models.embed.openai import OpenAIEmbedder


def fake_vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b - 128.0 for b in digest[:16]]


class Handler(BaseHTTPRequestHandler):
    mode = "ok"
    seen_auth: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Handler.seen_auth.append(self.headers.get("Authorization", ""))
        if self.path != "/v1/embeddings" or Handler.mode == "error":
            self.send_response(500)
            self.end_headers()
            return
        items = [{"index": i, "embedding": fake_vector(t)} for i, t in enumerate(body["input"])]
        if Handler.mode == "short":
            items = items[:-1]
        payload = json.dumps({"data": list(reversed(items)), "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    Handler.mode = "ok"
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


def test_embeddings_come_back_in_input_order_and_normalised(server: str) -> None:
    embedder = OpenAIEmbedder(base_url=server, model="nomic", api_key="k", batch_size=2)
    vectors = embedder.embed_documents(["a", "b", "c"])
    expected = np.array([fake_vector(t) for t in "abc"], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)
    assert embedder.dim == 16 and embedder.name == "openai:nomic"
    assert Handler.seen_auth[-1] == "Bearer k"


@pytest.mark.parametrize(("mode", "message"), [("error", "500"), ("short", "2 vectors for 3 texts")])
def test_server_faults_are_clear_errors(server: str, mode: str, message: str) -> None:
    Handler.mode = mode
    with pytest.raises(EmbedderError, match=message):
        OpenAIEmbedder(base_url=server, model="m").embed_documents(["a", "b", "c"])


def test_an_unreachable_endpoint_is_a_clear_error() -> None:
    with pytest.raises(EmbedderError, match=r"embedding endpoint http://127\.0\.0\.1:9/"):
        OpenAIEmbedder(base_url="http://127.0.0.1:9", model="m", timeout_s=2).embed_query("x")
