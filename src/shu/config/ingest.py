"""The settings of a document's way in: its enrichment, its chunks, and the limits on reading it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


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
    chunk_batch: int = Field(
        4, ge=1, le=16, description="with an LLM: passages profiled in one call (1: a call each)"
    )
    defer: bool = Field(
        False,
        description="with an LLM: index documents with the non-LLM artifacts first (searchable at once), "
        "then let the model's fill in (`shu ingest` in a second pass; a server in an `enrich` job)",
    )
    tiers: bool = Field(
        True,
        description="with an LLM: a document's worth (type, size, links, age) picks what the model "
        "writes for it — everything, its profile only, or nothing (docs/design/enrichment.md#tiers)",
    )


class ChunkingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    max_tokens: int = Field(180, ge=16, le=4000)
    overlap_tokens: int = Field(30, ge=0, le=1000)
    key_terms: bool = Field(
        True,
        description="index a document's Key Terms with its first chunk, and an alias's other form with "
        "each chunk naming one (docs/design/personas-and-storage.md#key-terms)",
    )


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
    max_ocr_page_pixels: int = Field(
        40_000_000,
        ge=1,
        description="pixels of one page or image read by OCR, checked before it is rendered or "
        "decoded (an A4 scan at 300 dpi is ~8.7 million; each costs ~6 bytes while read)",
    )
    max_ocr_file_pixels: int = Field(
        1_000_000_000,
        ge=1,
        description="pixels read by OCR from one raw file (~250 A4 pages at the 200 dpi scanned PDFs "
        "are rendered at; more would take longer than ingest.max_file_seconds anyway)",
    )
    max_chunks_per_file: int = Field(
        5_000,
        ge=1,
        description="chunks made from one RAG file's document, counted as they are made, before any "
        "is embedded (the documents of examples/ make at most 20)",
    )
    watch_debounce_s: float = Field(
        2.0,
        gt=0,
        le=3600,
        description="`shu watch` and `shu serve --watch`: seconds a persona folder must be quiet "
        "after its last file event before it is ingested (a burst of writes is one run)",
    )
