"""Nested settings: defaults < `<home>/config.json` < `SHU_*` environment < dotted overrides."""

from __future__ import annotations

import ipaddress
import json
import math
import os
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from shu.errors import ConfigError
from shu.types import RetrievalParams


class EmbedderSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    provider: Literal["minilm", "openai"] = "minilm"
    model: str = "all-MiniLM-L6-v2"
    base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1"
    )
    api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the key")
    batch_size: int = Field(32, ge=1, le=1024)
    max_tokens: int = Field(256, ge=16, le=512, description="word pieces per input; longer is cut")
    threads: int = Field(0, ge=0, description="onnxruntime intra-op threads; 0 = all cores")
    quantized: bool = Field(
        False,
        description="minilm: int8 matrix products (about 1.7x faster; vectors differ slightly, so a "
        "store keeps the choice it was embedded with); needs the onnx package",
    )
    timeout_s: float = Field(60.0, gt=0)


class LLMBudgetSettings(BaseModel):
    """What one question may spend on the LLM, over every step that asks it (planner, rewrite,
    an LLM reranker, scope judge, generator, verifier, corrective retrieval, agent); past it, the
    remaining steps use their non-LLM methods and the answer says why (`Answer.llm_stopped`).

    The defaults fit the longest legitimate path at default settings with room to spare: the
    static path asks at most five times (plan, rewrite, scope, answer, verify) plus one retry,
    a corrective round four more (plan, rewrite, answer, verify), the agent five choices plus its
    answer and verification: 16 calls. Tokens: the answer's prompt is `answer.context_tokens`
    (6,000) plus ~1,000 of instructions and 600 of reply, each of the other steps 500–2,000; the
    static path and one corrective round come to ~22,000, and the agent adds its own
    `agent.max_tokens` (8,000) and another answer: 40,000. A stand-in server that never returned
    valid JSON cost 14 calls for one question; two invalid JSON replies now end the model's
    part in a question (a model that cannot write JSON in the asked shape is not one to trust
    with the rest of it)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    max_calls: int = Field(16, ge=0, le=1000, description="LLM calls per question, retries included")
    max_tokens: int = Field(
        40_000, ge=0, le=10_000_000, description="LLM tokens per question (prompt + completion)"
    )
    max_json_failures: int = Field(
        2,
        ge=0,
        le=100,
        description="replies that are not valid JSON in the asked shape before the model is not asked "
        "again for the question (0: never stop for that)",
    )


class LLMSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    provider: Literal["none", "openai", "anthropic", "local"] = "none"
    model: str | None = Field(
        None, description="local: an installed model's name (`shu models list`), e.g. qwen2.5-coder-1.5b"
    )
    model_path: Path | None = Field(None, description="local: a .gguf file (instead of llm.model)")
    models_dir: Path | None = Field(
        None,
        description="where `shu models install` puts models (default $SHU_MODELS_DIR, ~/.cache/shu/models)",
    )
    n_threads: int | None = Field(
        None,
        ge=1,
        le=256,
        description="local: CPU threads (none: every core; on 2 cores, 2 beat 1 idle and busy: README)",
    )
    n_ctx: int = Field(4096, ge=512, le=131_072, description="local: context window in tokens")
    n_batch: int = Field(512, ge=8, le=8192, description="local: prompt tokens evaluated at once")
    chat_format: str | None = Field(
        None, description="local: llama-cpp-python chat format (default: the template inside the GGUF)"
    )
    base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1"
    )
    api_key_env: str | None = Field(None, description="environment variable holding the key")
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(3, ge=0, le=10)
    concurrency: int = Field(4, ge=1, le=64)
    json_mode: Literal["json_schema", "json_object"] = Field(
        "json_schema", description="json_schema: OpenAI, vLLM; json_object: llama-cpp-python's server"
    )
    price_in_per_mtok: float = Field(0.0, ge=0, description="USD per million prompt tokens")
    price_out_per_mtok: float = Field(0.0, ge=0, description="USD per million completion tokens")
    cache: bool = True
    budget: LLMBudgetSettings = Field(default_factory=LLMBudgetSettings)


class EnrichSettings(BaseModel):
    """Ingestion-time intelligence, artifact by artifact."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    enabled: bool = True
    method: Literal["auto", "extractive"] = Field(
        "auto",
        description="auto: the LLM writes the artifacts when one is configured, else the non-LLM "
        "methods; extractive: always the non-LLM methods (local: extractive)",
    )
    profiles: bool = True
    questions: bool = True
    chunk_profiles: bool = True
    context: bool = Field(
        False, description="prefix each chunk's indexed text with its context (measured first)"
    )
    llm_relationships: bool = Field(
        True, description="with an LLM: propose typed relationships to other documents, quote-checked"
    )


class ChunkingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    max_tokens: int = Field(180, ge=16, le=4000)
    overlap_tokens: int = Field(30, ge=0, le=1000)


class IngestSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    max_file_mb: float = Field(20.0, gt=0)
    url_timeout_s: float = Field(10.0, gt=0, le=3600, description="longest wait for one read")
    url_total_s: float = Field(60.0, gt=0, le=86_400, description="longest a whole download may take")
    allow_private_urls: bool = Field(
        False, description="fetch URLs on loopback and private networks (a URL list is input)"
    )
    embed_batch_chunks: int = Field(
        256, ge=1, description="chunks gathered across documents per embedding call"
    )
    max_file_seconds: float = Field(300.0, gt=0, description="longest conversion of one raw file")
    max_expansion: float = Field(
        50.0,
        gt=0,
        description="bytes inflated from archive parts (each read counted) and bytes of Markdown "
        "made, per byte of a raw file (1 MB is always allowed)",
    )
    max_markdown_mb: float = Field(50.0, gt=0, description="Markdown made from one raw file")
    max_documents: int = Field(
        2000, ge=1, description="documents made from one raw file (a mailbox's messages, attachments)"
    )
    max_table_cells: int = Field(
        200_000, ge=1, description="HTML table cells read from one raw file (each costs ~1 KB while read)"
    )


class RerankSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    method: Literal["none", "cross-encoder", "llm"] = "none"
    model_path: Path | None = Field(None, description="folder with model.onnx + tokenizer.json")
    depth: int = Field(30, ge=1, le=500, description="how many fused candidates are reranked")
    batch_size: int = Field(16, ge=1, le=256)


class PersonalSettings(BaseModel):
    """RELATIONAL-BOOST for the person asking (`--as USER`, the key's user): each boost bounded,
    the total capped, a share of the places kept for the unboosted ranking."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    enabled: bool = True
    contact: float = Field(0.2, ge=0.0, le=1.0, description="× the affinity of the closest contact involved")
    project: float = Field(0.3, ge=0.0, le=1.0, description="a document of one of the asker's projects")
    interest: float = Field(0.15, ge=0.0, le=1.0, description="a document matching an interest")
    own: float = Field(0.1, ge=0.0, le=1.0, description="a document the asker wrote or received")
    familiar: float = Field(0.1, ge=0.0, le=1.0, description="× how much the asker used the document before")
    role: float = Field(
        0.15, ge=0.0, le=1.0, description="× how much the document matters to the asker's role"
    )
    fresh: float = Field(0.02, ge=0.0, le=1.0, description="× how fresh the document is for its kind")
    deadline: float = Field(0.1, ge=0.0, le=1.0, description="a due date of the document coming up soon")
    deadline_days: int = Field(21, ge=1, le=365, description="how far ahead a due date counts as coming up")
    now: str | None = Field(
        None,
        pattern=r"^\d{4}-\d{2}-\d{2}$",
        description="the day freshness and due dates count from (default: today)",
    )

    @field_validator("now")
    @classmethod
    def _a_real_day(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{value!r} is not a day of the calendar (YYYY-MM-DD)") from None
        return value

    ambiguous_at: float = Field(
        0.9, ge=0.0, le=1.0, description="second document's score ÷ first's from which boosts count fully"
    )
    clear_at: float = Field(
        0.6, ge=0.0, le=1.0, description="second ÷ first at or below which the question needs no asker"
    )
    max_boost: float = Field(
        0.8,
        ge=0.0,
        le=2.0,
        description="the most a score is raised (relative; boosts add up and are squashed below it)",
    )
    unboosted_share: float = Field(
        0.3, ge=0.0, le=1.0, description="share of the first `guard_places` unboosted results kept there"
    )
    guard_places: int = Field(10, ge=1, le=100)
    depth: int = Field(50, ge=1, le=1000, description="fused results considered for boosting")


class RetrievalSettings(BaseModel):
    """The query pipeline's stages; each can be switched off. Surface weights live in each
    persona's `retrieval` config."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    plan: bool = Field(True, description="classify the question (rules; an LLM when configured)")
    plan_method: Literal["auto", "rules"] = Field(
        "auto", description="auto: the LLM classifies when one is configured; rules: never (local: rules)"
    )
    transform: bool = Field(
        False, description="spell out contractions before searching (measured neutral; aliases always apply)"
    )
    multiquery: bool = Field(False, description="search rule/LLM variations of the question too")
    hyde: bool = Field(True, description="with an LLM: embed a hypothetical answer too")
    expand: bool = Field(True, description="one hop along outgoing relationships from the seeds")
    relation_types: list[str] | None = Field(None, description="only expand along these types")
    expand_seeds: int = Field(5, ge=1, le=50, description="top documents whose relationships are followed")
    max_expansions: int = Field(10, ge=0, le=100)
    decisive_question: float = Field(
        0.9, ge=0.0, le=1.0, description="a question match this close ends the search early"
    )
    rerank: RerankSettings = Field(default_factory=RerankSettings)
    context_tokens: int = Field(16_000, ge=256, le=1_000_000, description="assembled context budget")
    full_document: bool = Field(True, description="document lookups return the whole document")
    escalate: bool = Field(True, description="load a whole document its summary matches but chunks do not")
    personal: PersonalSettings = Field(default_factory=PersonalSettings)
    tuned: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="persona → retrieval parameters fitted by `shu tune`, laid over persona.config.json's",
    )

    @field_validator("tuned")
    @classmethod
    def _tuned_are_parameters(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for persona, fields in value.items():
            unknown = set(fields) - set(RetrievalParams.model_fields)
            if unknown:
                raise ValueError(f"tuned.{persona}: not retrieval parameters: {', '.join(sorted(unknown))}")
            RetrievalParams.model_validate(fields)
        return value


class AnswerSettings(BaseModel):
    """How `ask` answers from the assembled context."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    method: str = Field(
        "auto",
        min_length=1,
        description="auto (the LLM when one is configured, else extractive), extractive, llm, "
        "or package.module:Class (your own answerer)",
    )
    max_sentences: int = Field(3, ge=1, le=20, description="extractive: sentences quoted at most")
    chunks_considered: int = Field(6, ge=1, le=100, description="extractive: best-ranked sections read")
    min_meaning: float = Field(0.3, ge=-1.0, le=1.0, description="extractive: least cosine to answer at all")
    min_evidence: float = Field(
        0.31,
        ge=0.0,
        le=2.0,
        description="least score of the best evidence sentence to answer at all, else decline "
        "(both answerers; calibrated by `shu eval --suite all --answers`)",
    )
    citation_style: Literal["footnotes", "keys"] = Field(
        "footnotes", description="footnotes: [^1] with a followable link; keys: [^doc_id:section]"
    )
    context_tokens: int = Field(
        6000,
        ge=200,
        le=1_000_000,
        description="llm: context sent to the model at most (≈4 characters a token)",
    )
    max_tokens: int = Field(600, ge=16, le=32_000, description="llm: longest generated answer")
    numbered_citations: bool = Field(
        False,
        description="llm: the context's sections are numbered [1]…[n] and the numbers the model writes "
        "are mapped back to their keys (small models cite by number); on for llm.provider=local",
    )
    max_sections: int | None = Field(
        None,
        ge=1,
        le=100,
        description="llm: context sections sent at most (none: as many as fit); 4 for llm.provider=local",
    )
    model_context: Literal["sections", "evidence"] = Field(
        "sections",
        description="llm: what the model reads: the best sections of the context, or the sentences "
        "the extractive reader chose, a passage per section (evidence for llm.provider=local)",
    )
    keep_decisions: bool = Field(
        False,
        description="llm: a reader's answer that is a decision it computed (a yes/no verdict, a "
        "comparison, a list) is shown as written; the model only judges whether its evidence answers "
        "the question (on for llm.provider=local: a small model rewriting them lost items, flipped verdicts)",
    )
    absent_terms: bool = Field(
        True,
        description="decline, naming it, when a code, a name, or two things the question asks about "
        "(INC-2026-0402, the Tokyo office, the guest Wi-Fi password) appear nowhere in the knowledge base, "
        "its retrieved sections or their metadata (false abstention 0-4.9 % on the public sets: "
        "docs/benchmarks.md)",
    )
    scope: bool = Field(True, description="defer questions outside the persona's expertise")
    scope_threshold: float = Field(
        0.19,
        ge=-1.0,
        le=1.0,
        description="without an LLM: least cosine between the question and the persona's subject "
        "(persona.md, tags, synopses, manifests, the best chunk) to be in scope (calibrated by "
        "`shu eval-scope`)",
    )
    scope_sure: float = Field(
        0.5,
        ge=-1.0,
        le=1.0,
        description="with an LLM: closeness at or above which the question is in scope without asking "
        "the model (below scope_threshold it is out without asking)",
    )
    out_of_scope: Literal["defer", "general"] = Field(
        "defer",
        description="defer: say it is outside the persona's expertise; general: the configured LLM "
        "answers, labelled as not from the knowledge base",
    )
    cache: bool = Field(True, description="keep answers until the knowledge base or settings change")


class VerifySettings(BaseModel):
    """Checking each claim of an answer against the sections it cites (stage 7)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    enabled: bool = True
    method: Literal["auto", "rules", "llm"] = Field(
        "auto", description="auto: the LLM when one is configured (its verdicts quote-checked), else rules"
    )
    on_unsupported: Literal["mark", "remove"] = Field(
        "mark", description="mark: unsupported claims stay, marked; remove: they are taken out"
    )
    min_similarity: float = Field(
        0.62, ge=-1.0, le=1.0, description="rules: cosine to a cited sentence that supports a claim"
    )
    min_coverage: float = Field(
        0.6, ge=0.0, le=1.0, description="rules: share of a claim's content words the cited text holds"
    )
    max_rounds: int = Field(
        1,
        ge=0,
        le=3,
        description="corrective retrieval (CRAG): rounds of searching again for what is missing when "
        "evidence is weak or claims are unsupported; 0 = never (local: 0)",
    )
    weak_evidence: float = Field(
        0.4,
        ge=0.0,
        le=2.0,
        description="an answer whose best evidence scores below this is corrected (searched again)",
    )


class AgentSettings(BaseModel):
    """Agentic retrieval (spec 000 §5): the surfaces as tools, within budgets."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    mode: Literal["auto", "always", "never"] = Field(
        "auto",
        description="auto: multi-step or relational+temporal questions, a low-confidence answer, or "
        'an explicit request ("dig deeper"); always; never (`--agent` forces it)',
    )
    method: Literal["auto", "rules", "llm"] = Field(
        "auto", description="auto: the LLM chooses the tools when one is configured, else rules"
    )
    max_steps: int = Field(5, ge=1, le=50, description="tool calls at most")
    max_seconds: float = Field(30.0, gt=0, le=3600, description="time budget")
    max_tokens: int = Field(8000, ge=100, le=1_000_000, description="LLM tokens at most (prompt + reply)")
    low_confidence: float = Field(
        0.1, ge=0.0, le=1.0, description="auto: a static answer below this confidence goes to the agent"
    )
    learn: bool = Field(
        True, description="write what the agent discovers back (relationships, stale manifests, types)"
    )


class StoreSettings(BaseModel):
    """Where the knowledge base lives: `<home>/shu.db` (SQLite) unless `url` names PostgreSQL."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    url: str | None = Field(None, description="postgresql://user:password@host:port/database")
    pool_size: int = Field(4, ge=1, le=64)
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

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _listed(cls, value: object) -> object:
        """`--set server.allowed_hosts=a.example,b.example` lists two names."""
        return [part for part in value.split(",") if part.strip()] if isinstance(value, str) else value

    @field_validator("allowed_hosts")
    @classmethod
    def _bare_names(cls, value: list[str]) -> list[str]:
        names = [name.strip().lower().removeprefix("[").removesuffix("]") for name in value]
        for name in names:
            if not name or (any(c in name for c in "/:*@ ") and not _ipv6(name)):
                raise ValueError(f"{name!r}: a host name or address, without scheme, port or wildcard")
        return names


def _ipv6(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).version == 6
    except ValueError:
        return False


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    home: Path = Path(".shu")
    embedder: EmbedderSettings = Field(default_factory=EmbedderSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    enrich: EnrichSettings = Field(default_factory=EnrichSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)

    @property
    def db_path(self) -> Path:
        return self.home / "shu.db"

    @model_validator(mode="after")
    def _local_model_defaults(self) -> Settings:
        """A small model in this process (`llm.provider=local`) answers, and nothing else: the
        steps a 1.5B model does badly use their non-LLM methods, and its context is short and
        numbered, unless a setting says otherwise."""
        if self.llm.provider == "local":
            for section, field, value in LOCAL_DEFAULTS:
                part = self if not section else _dotted(self, section)
                if field not in part.model_fields_set:
                    setattr(part, field, value)
        return self


LOCAL_DEFAULTS: list[tuple[str, str, Any]] = [
    ("enrich", "method", "extractive"),
    ("retrieval", "plan_method", "rules"),
    ("retrieval", "hyde", False),
    ("retrieval", "multiquery", False),
    ("verify", "method", "rules"),
    ("agent", "method", "rules"),
    ("answer", "scope_sure", -1.0),
    ("verify", "max_rounds", 0),
    ("answer", "numbered_citations", True),
    ("answer", "model_context", "evidence"),
    ("answer", "keep_decisions", True),
    ("answer", "max_sections", 4),
    ("answer", "context_tokens", 1200),
    ("answer", "max_tokens", 256),
]
"""(section, setting, value) that `llm.provider=local` changes when the setting is not given."""


def _dotted(settings: BaseModel, section: str) -> BaseModel:
    node = settings
    for part in section.split("."):
        node = getattr(node, part)
    return node


def load_settings(home: Path | str | None = None, overrides: list[str] | None = None) -> Settings:
    """Build settings for a home folder. `overrides` are `dotted.key=value` strings."""
    home_path = Path(home or os.environ.get("SHU_HOME") or ".shu")
    data: dict[str, Any] = {}
    config_file = home_path / "config.json"
    if config_file.exists() and not config_file.is_file():
        raise ConfigError(f"{config_file}: must be a file of JSON settings, not a folder")
    if home_path.exists() and not home_path.is_dir():
        raise ConfigError(f"{home_path}: the home must be a folder, and this is a file")
    if config_file.is_file():
        try:
            data = json.loads(config_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{config_file}: not valid UTF-8 JSON ({exc})") from exc
        except RecursionError as exc:
            raise ConfigError(f"{config_file}: nested too deeply to be settings") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{config_file}: must hold a JSON object of settings")
    for key, value in _environment_overrides().items():
        _set_dotted(data, key, value)
    for item in overrides or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"override {item!r}: expected dotted.key=value")
        _set_dotted(data, key.strip(), _parse_value(value.strip()))
    data["home"] = str(home_path)
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {_first_error(exc)}") from exc


def _environment_overrides() -> dict[str, Any]:
    """`SHU_EMBEDDER__PROVIDER=openai` → `embedder.provider`."""
    found: dict[str, Any] = {}
    for name, value in os.environ.items():
        if name.startswith("SHU_") and "__" in name:
            dotted = name[4:].lower().replace("__", ".")
            found[dotted] = _parse_value(value)
    return found


def _set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = data
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"override {dotted!r}: {part!r} is not a section")
        node = child
    node[parts[-1]] = value


def _parse_value(raw: str) -> Any:
    """JSON when it parses (numbers, true, lists), else the string itself; Infinity and NaN stay
    strings (a setting is never infinite), and so does anything nested too deeply."""
    try:
        value = json.loads(raw, parse_constant=lambda name: raw)
    except (json.JSONDecodeError, RecursionError):
        return raw
    if isinstance(value, float) and not math.isfinite(value):
        return raw  # 1e999 parses as inf
    return value


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}"
