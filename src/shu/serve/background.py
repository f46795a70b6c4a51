"""The server in a thread of this process on a free loopback port: for the fault suite and the tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from shu.serve.connection import DEFAULT_READ_TIMEOUT_S, uvicorn_config


@contextmanager
def running(app: FastAPI) -> Iterator[str]:
    """The app served on 127.0.0.1 until the block ends, as `shu serve` serves it; its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    read_timeout_s = getattr(app.state, "read_timeout_s", DEFAULT_READ_TIMEOUT_S)
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, read_timeout_s))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
