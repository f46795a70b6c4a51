"""A real HTTP server on 127.0.0.1 that answers like OpenAI's or Anthropic's API from a script."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Script:
    replies: list[tuple[int, Any]] = field(default_factory=list)  # (status, body) served in order
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    delay_s: float = 0.0
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def openai_reply(text: str, prompt_tokens: int = 10, completion_tokens: int = 5) -> tuple[int, Any]:
    return 200, {
        "model": "m",
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


def openai_stream(pieces: list[str], usage: bool = True) -> tuple[int, str]:
    """`chat/completions` with `stream: true`: one event per piece, usage, then [DONE]."""
    events = [{"choices": [{"delta": {"content": piece}}]} for piece in pieces]
    if usage:
        events.append({"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": len(pieces)}})
    return 200, "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"


def anthropic_stream(pieces: list[str]) -> tuple[int, str]:
    events = [("message_start", {"message": {"usage": {"input_tokens": 9}}})]
    events += [("content_block_delta", {"delta": {"type": "text_delta", "text": p}}) for p in pieces]
    events += [("message_delta", {"usage": {"output_tokens": len(pieces)}}), ("message_stop", {})]
    return 200, "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


@contextmanager
def serve(script: Script) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with script.lock:
                script.requests.append(body)
                script.headers.append(dict(self.headers))
                script.in_flight += 1
                script.max_in_flight = max(script.max_in_flight, script.in_flight)
                status, reply = script.replies.pop(0) if script.replies else (500, {"error": "script empty"})
            time.sleep(script.delay_s)
            with script.lock:
                script.in_flight -= 1
            payload = reply.encode() if isinstance(reply, str) else json.dumps(reply).encode()
            self.send_response(status)
            events = isinstance(reply, str) and reply.startswith(("data:", "event:"))
            self.send_header("Content-Type", "text/event-stream" if events else "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
