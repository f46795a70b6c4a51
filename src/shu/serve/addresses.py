"""Where a request comes from, for the limits and the sign-in throttle: the connection's peer,
or — only when the peer is one of `server.trusted_proxies` — the client its `X-Forwarded-For`
names (the right-most address that is not itself a trusted proxy). A header from anyone else is
ignored: a client cannot name its own address."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.types import Scope

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Addresses:
    def __init__(self, trusted_proxies: Iterable[str]) -> None:
        self.trusted: tuple[Network, ...] = tuple(
            ipaddress.ip_network(n, strict=False) for n in trusted_proxies
        )

    def client(self, scope: Scope) -> str:
        peer = scope.get("client")
        address = str(peer[0]) if peer else "unknown"
        if not self.trusted or not self._trusted(address):
            return address
        forwarded = ",".join(Headers(scope=scope).getlist("x-forwarded-for"))
        for hop in reversed([h.strip() for h in forwarded.split(",") if h.strip()]):
            if _address(hop) is None:
                return address  # a hop that is no address: the proxy's own is all that is known
            address = hop
            if not self._trusted(hop):
                break
        return address

    def _trusted(self, text: str) -> bool:
        found = _address(text)
        return found is not None and any(found in network for network in self.trusted)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None
