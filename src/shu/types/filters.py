"""What a search or a question may be restricted to: documents by their date, type, tags,
people, source file or folder, and ids (`docs/design/query-pipeline.md#filters`). Every field
given must hold (AND); within a field any value may (OR)."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_MAX_VALUES = 100
_MAX_CHARS = 300


class DocumentFilter(BaseModel):
    """`since`/`until` (inclusive days) hold against the document's own dates: its date, and for
    an event its start and end, for a chat its first and last message — a document with no date
    is outside any date range. `types`, `tags`: as the frontmatter says (any case). `people`: a
    name or address among the document's author, sender, recipients and participants (every word
    given, whole words, any case: "sofia" matches "Sofia Marquez"). `sources`: a file or folder
    inside the knowledge base (`lumen-support/RAG/emails`, `pricing.md`), or the source the
    document was converted from. `doc_ids`: these documents only."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    since: date | None = None
    until: date | None = None
    types: tuple[str, ...] = Field(default=(), max_length=_MAX_VALUES)
    tags: tuple[str, ...] = Field(default=(), max_length=_MAX_VALUES)
    people: tuple[str, ...] = Field(default=(), max_length=_MAX_VALUES)
    sources: tuple[str, ...] = Field(default=(), max_length=_MAX_VALUES)
    doc_ids: tuple[str, ...] = Field(default=(), max_length=10_000)

    @field_validator("types", "tags", "people", "sources", "doc_ids")
    @classmethod
    def _cleaned(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        kept = tuple(dict.fromkeys(v.strip() for v in values if v.strip()))
        for value in kept:
            if len(value) > _MAX_CHARS or any(ord(c) < 32 for c in value):
                raise ValueError(f"a filter value must be one line of at most {_MAX_CHARS} characters")
        return kept

    @field_validator("sources")
    @classmethod
    def _placed(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        for value in values:
            if not any(part not in ("", ".", "..") for part in value.replace("\\", "/").split("/")):
                raise ValueError(f"a source must name a file or a folder (not {value!r})")
        return values

    @model_validator(mode="after")
    def _ordered(self) -> DocumentFilter:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ValueError(f"since ({self.since}) is after until ({self.until})")
        return self

    @property
    def empty(self) -> bool:
        """Nothing is restricted."""
        return not any(
            (self.since, self.until, self.types, self.tags, self.people, self.sources, self.doc_ids)
        )

    def described(self) -> str:
        """One line for a trace or a note: `since 2026-01-01, type email, tag billing`."""
        parts = [f"since {self.since}"] if self.since else []
        parts += [f"until {self.until}"] if self.until else []
        for label, values in (
            ("type", self.types),
            ("tag", self.tags),
            ("person", self.people),
            ("source", self.sources),
            ("document", self.doc_ids),
        ):
            if values:
                shown = ", ".join(values[:5]) + (f" (+{len(values) - 5})" if len(values) > 5 else "")
                parts.append(f"{label} {shown}")
        return "; ".join(parts)


class Choice(BaseModel):
    value: str
    documents: int


class FilterChoices(BaseModel):
    """What a persona's documents offer a filter: their types and tags (most documents first),
    the folders they are in, and the span of their dates."""

    documents: int
    types: list[Choice] = Field(default_factory=list)
    tags: list[Choice] = Field(default_factory=list)
    folders: list[Choice] = Field(default_factory=list)
    first: date | None = None
    last: date | None = None
