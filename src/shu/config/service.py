"""Where the knowledge base lives (the store) and what `shu serve` answers."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class StoreSettings(BaseModel):
    """Where the knowledge base lives: `<home>/shu.db` (SQLite) unless `url` names PostgreSQL."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    url: str | None = Field(None, description="postgresql://user:password@host:port/database")
    pool_size: int = Field(4, ge=1, le=64)
    wait_s: float = Field(
        10.0,
        gt=0,
        le=300,
        description="how long a request waits for a connection before the store is called unavailable (503)",
    )
    hnsw_m: int = Field(16, ge=4, le=100)
    hnsw_ef_construction: int = Field(64, ge=8, le=1000)
    hnsw_ef_search: int = Field(100, ge=10, le=1000)
    index_build_memory: str = Field(
        "1GB",
        pattern=r"^[1-9][0-9]*(kB|MB|GB)$",
        description="PostgreSQL maintenance_work_mem while building indexes (HNSW at a million "
        "384-d vectors wants about 2.5GB, or its build slows down many times)",
    )
    exact_limit: int = Field(
        20_000,
        ge=0,
        description="personas with at most this many vectors are searched exactly (above: SQLite "
        "keeps a sign sketch and int8 copy in memory, PostgreSQL uses its HNSW index)",
    )
    keyword: Literal["memory", "sql"] = Field(
        "memory",
        description="keyword search: an in-memory BM25 index kept in step with the store (built on a "
        "persona's first search), or the store's own in SQL (SQLite FTS5, PostgreSQL postings)",
    )


class ServerSettings(BaseModel):
    """`shu serve`: the Host names it answers, and what one caller (a key; the client's address
    on a server without keys) may ask of it."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names (or addresses) answered besides loopback and the bound address, "
        'e.g. ["shu.example.org"] or "shu.example.org,10.0.0.7"',
    )
    concurrent_per_caller: int = Field(
        4, ge=1, le=256, description="API and MCP requests one caller may have running at once (429 beyond)"
    )
    concurrent_total: int = Field(
        32, ge=1, le=1024, description="API and MCP requests running at once for all callers (503 beyond)"
    )
    requests_per_minute: int = Field(
        120, ge=1, le=1_000_000, description="API and MCP requests one caller may start a minute (429 beyond)"
    )
    read_timeout_s: float = Field(
        15.0, gt=0, le=600, description="a request (line, headers and body) must arrive within this"
    )
    job_turn_s: float = Field(
        10.0,
        gt=0,
        le=86_400,
        description="a background job runs this long while another persona's job waits, then lets it "
        "run first (it resumes where it stopped): one writer's large upload never stalls everyone's",
    )
    concurrent_unauthenticated: int = Field(
        4,
        ge=1,
        le=256,
        description="requests without a good key or session (sign-ins among them) running at once, "
        "apart from the others' (503 beyond)",
    )
    sign_in_hashes: int = Field(
        2,
        ge=1,
        le=64,
        description="passwords hashed at once (argon2id takes 64 MiB each); sign-ins wait a turn",
    )
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description="addresses (or networks) of reverse proxies whose X-Forwarded-For names the client "
        'to the limits, e.g. ["127.0.0.1"]; none by default',
    )
    max_upload_bytes: int = Field(
        50 * 1024 * 1024,
        ge=1024,
        le=4 * 1024**3,
        description="the most bytes one upload (POST /v1/personas/{p}/documents) sends, files together",
    )

    @field_validator("allowed_hosts", "trusted_proxies", mode="before")
    @classmethod
    def _listed(cls, value: object) -> object:
        """`--set server.allowed_hosts=a.example,b.example` lists two names (and so for proxies)."""
        return [part for part in value.split(",") if part.strip()] if isinstance(value, str) else value

    @field_validator("allowed_hosts")
    @classmethod
    def _bare_names(cls, value: list[str]) -> list[str]:
        names = [name.strip().lower().removeprefix("[").removesuffix("]") for name in value]
        for name in names:
            if not name or (any(c in name for c in "/:*@ ") and not _ipv6(name)):
                raise ValueError(f"{name!r}: a host name or address, without scheme, port or wildcard")
        return names

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        networks = []
        for text in value:
            try:
                networks.append(str(ipaddress.ip_network(text.strip(), strict=False)))
            except ValueError:
                raise ValueError(f"{text!r}: an address or a network (10.0.0.0/8), not a name") from None
        return networks


def _ipv6(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).version == 6
    except ValueError:
        return False
