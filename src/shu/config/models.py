"""The models' settings: the embedder, and the LLM with what one question may spend on it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class EmbedderSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    provider: Literal["local", "minilm", "openai"] = Field(
        "local",
        description="local: a model in this process, named by embedder.model; minilm: the same as "
        "local with all-MiniLM-L6-v2 (the earlier spelling); openai: an OpenAI-compatible endpoint",
    )
    model: str = Field(
        "all-MiniLM-L6-v2",
        description="local: all-MiniLM-L6-v2 (ships with Shu; fast) or embeddinggemma-300m "
        "(`shu models install embeddinggemma-300m`; better retrieval, ~25x the compute); "
        "openai: the endpoint's model name",
    )
    base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1"
    )
    api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the key")
    batch_size: int = Field(32, ge=1, le=1024)
    max_tokens: int | None = Field(
        None,
        ge=16,
        le=2048,
        description="tokens per input; longer is cut (none: the model's choice, MiniLM 256, "
        "EmbeddingGemma 512; MiniLM reads at most 512)",
    )
    dim: int | None = Field(
        None,
        description="embeddinggemma-300m: keep the first 512, 256 or 128 of its 768 dimensions "
        "(Matryoshka; a smaller store, slightly weaker retrieval); none: all",
    )
    threads: int = Field(0, ge=0, description="onnxruntime intra-op threads; 0 = all cores")
    quantized: bool = Field(
        False,
        description="minilm: int8 matrix products (about 1.7x faster; vectors differ slightly, so a "
        "store keeps the choice it was embedded with); needs the onnx package",
    )
    models_dir: Path | None = Field(
        None,
        description="where `shu models install` put the model (none: $SHU_MODELS_DIR, else "
        "~/.cache/shu/models)",
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


LLMStage = Literal["plan", "rerank", "scope", "verify", "agent", "followup", "enrich"]
FAST_STAGES: tuple[LLMStage, ...] = ("plan", "rerank", "scope", "verify", "agent", "followup")
"""What a fast model runs by default: every stage but the answer and the ingestion's artifacts."""


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
    fast: LLMSettings | None = Field(
        None,
        description="a second, faster model for the stages in `fast_stages` (planning, rewriting, "
        "verification…), with its own `budget`; the answer stays with this one",
    )
    fast_stages: list[LLMStage] = Field(
        default_factory=lambda: list(FAST_STAGES),
        description="the stages `llm.fast` runs when it is set: plan (planning, rewriting, HyDE), "
        "rerank, scope, verify, agent, followup, enrich",
    )

    @model_validator(mode="after")
    def _one_level(self) -> LLMSettings:
        if self.fast is not None and self.fast.fast is not None:
            raise ValueError("llm.fast cannot have its own llm.fast.fast")
        if self.fast is not None and self.fast.provider == "none":
            raise ValueError("llm.fast needs a provider (openai, anthropic or local)")
        return self
