"""One download from a URL list, bounded and kept off this machine's own networks.

- The whole download (connection, headers, every redirect, the body) ends after `url_total_s`:
  it runs on a worker thread, and when the time is up its connection is closed and the file
  fails; each read also waits at most `url_timeout_s`.
- Unless `allow_private_urls`, a host that resolves to a loopback, private, link-local or other
  non-global address is refused before any request (a name that does not resolve is refused
  too), and the address each response actually came from is checked before its headers are
  trusted or its body read (a name that resolves to a public address first and a private one
  next — DNS rebinding — is caught there). Redirects are followed by hand, at most 5, each hop
  checked the same way.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from typing import cast

import httpx

from shu.config.settings import IngestSettings
from shu.errors import DocumentError

MAX_REDIRECTS = 5


def download(url: str, settings: IngestSettings, max_bytes: int) -> tuple[bytes, str]:
    """(body, content type) of `url`. Raises DocumentError with the reason it failed."""
    client = httpx.Client(
        timeout=settings.url_timeout_s, follow_redirects=False, headers={"User-Agent": "shu-ingest"}
    )
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["value"] = _get(client, url, settings, max_bytes)
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="shu-fetch", daemon=True)
    worker.start()
    worker.join(settings.url_total_s)
    if worker.is_alive():
        client.close()  # ends the worker's blocked read
        raise DocumentError(f"download took longer than {settings.url_total_s:g} s (ingest.url_total_s)")
    client.close()
    error = outcome.get("error")
    if isinstance(error, DocumentError):
        raise error
    if isinstance(error, httpx.HTTPError):
        raise DocumentError(f"cannot fetch ({error.__class__.__name__}: {error or 'no network'})") from error
    if isinstance(error, BaseException):  # the only thing work() stores under "error"
        raise DocumentError(f"cannot fetch ({error.__class__.__name__}: {error})") from error
    return cast(tuple[bytes, str], outcome["value"])  # work() returned: `_get`'s value


def _get(client: httpx.Client, url: str, settings: IngestSettings, max_bytes: int) -> tuple[bytes, str]:
    deadline = time.monotonic() + settings.url_total_s
    request = client.build_request("GET", url)
    for _ in range(MAX_REDIRECTS + 1):
        if not settings.allow_private_urls:
            _refuse_private_host(request.url)
        response = client.send(request, stream=True)
        try:
            if not settings.allow_private_urls:
                _refuse_private_peer(response)
            if response.is_redirect and response.next_request is not None:
                request = response.next_request
                continue
            if response.status_code >= 400:
                raise DocumentError(f"HTTP {response.status_code} from server")
            return _body(response, max_bytes, deadline, settings.url_total_s)
        finally:
            response.close()
    raise DocumentError(f"more than {MAX_REDIRECTS} redirects")


def _body(response: httpx.Response, max_bytes: int, deadline: float, total_s: float) -> tuple[bytes, str]:
    chunks: list[bytes] = []
    size = 0
    for part in response.iter_bytes():
        size += len(part)
        if size > max_bytes:
            raise DocumentError(f"page larger than {max_bytes / 1e6:.1f} MB")
        if time.monotonic() > deadline:
            raise DocumentError(f"download took longer than {total_s:g} s (ingest.url_total_s)")
        chunks.append(part)
    content_type = response.headers.get("content-type", "text/html").split(";")[0].strip().lower()
    return b"".join(chunks), content_type


def _refuse_private_host(url: httpx.URL) -> None:
    """A URL list is input: it may not make Shu read this machine or its private network."""
    try:
        infos = socket.getaddrinfo(url.host, url.port or (443 if url.scheme == "https" else 80))
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise DocumentError(f"cannot fetch ({url.host} does not resolve: {exc})") from exc
    for address in {info[4][0] for info in infos}:
        _refuse_address(url.host, str(address))


def _refuse_private_peer(response: httpx.Response) -> None:
    stream = response.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    if not peer:
        raise DocumentError("cannot tell which address answered; refused (ingest.allow_private_urls)")
    _refuse_address(response.url.host, str(peer[0]))


def _refuse_address(host: str, address: str) -> None:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if not ip.is_global:
        raise DocumentError(
            f"{host} is a private or local address ({ip}); set ingest.allow_private_urls=true to fetch it"
        )
