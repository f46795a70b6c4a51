"""What a store keeps, by role, and the `Store` every backend implements (SQLite, PostgreSQL).

A caller types against the role it needs: retrieval and answering read the knowledge
(`KnowledgeReader`), ingestion writes it (`KnowledgeStore`), the agent keeps its findings
(`FindingStore`), keys, users and signals are the accounts (`AccountStore`), background jobs
their own (`JobStore`). `Store` is all of them, what the factory opens. Every search is confined
to one persona: a store never returns a chunk of a document that does not list it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from shu.store.document_index import DocumentIndex
from shu.types import (
    ApiKey,
    Chunk,
    ChunkProfile,
    Conversation,
    Document,
    DocumentProfile,
    Enrichment,
    Finding,
    Job,
    KeywordFeedback,
    Login,
    Persona,
    Relationship,
    Session,
    Signal,
    SynthesizedQuestion,
    UserProfile,
)

Within = frozenset[str] | None
"""The documents a search keeps to (a filter's, `shu.store.facets`), inside its own query: the
top `limit` are the best of these documents, never the best of all then thinned; None: every
document of the persona."""


@dataclass(frozen=True)
class ScoredChunk:
    chunk_id: str
    score: float


@dataclass(frozen=True)
class ScoredQuestion:
    question_id: str
    doc_id: str
    text: str
    score: float


@dataclass(frozen=True)
class ScoredDocument:
    doc_id: str
    score: float


PROFILE_SURFACES = ("synopsis", "manifest")
"""Document-level surfaces embedded from a profile (`Store.search_profiles`)."""


@dataclass
class StoredDocument:
    """Everything a store keeps about one document, as `replace_document` takes it back: what
    `shu migrate` copies from one store to another without recomputing anything."""

    doc: Document
    chunks: list[Chunk]
    vectors: np.ndarray
    embedder: str
    enrichment: Enrichment
    question_vectors: np.ndarray | None
    profile_vectors: dict[str, np.ndarray]


@dataclass(frozen=True)
class StoreStats:
    personas: int
    documents: int
    chunks: int
    vectors: int
    embedder: str | None
    size_bytes: int


class KnowledgeReader(Protocol):
    """What retrieval and answering read: personas, documents, chunks, what enrichment wrote,
    and the searches. Every search is confined to one persona."""

    keyword_in_sql: bool
    """Keyword search runs in the database (it releases the GIL: worth a thread beside dense
    search); False for an in-memory index (a thread would only add its hand-over)."""

    def get_persona(self, slug: str) -> Persona | None: ...

    def list_personas(self) -> list[Persona]: ...

    def get_document(self, doc_id: str) -> Document | None: ...

    def get_documents(self, doc_ids: list[str]) -> dict[str, Document]: ...

    def list_documents(self, persona: str | None = None) -> list[Document]: ...

    def get_profile(self, doc_id: str) -> DocumentProfile | None:
        """The document's profile with the agent's active findings applied: the newest
        `document_type` finding replaces its type, a `stale_manifest` finding marks its manifest
        stale."""
        ...

    def get_profiles(self, doc_ids: list[str]) -> dict[str, DocumentProfile]:
        """`get_profile` of many documents in one read: doc id → profile, for those that have one."""
        ...

    def list_relationships(self, doc_ids: list[str]) -> list[Relationship]:
        """Outgoing relationships of these documents, with the agent's active `relationship`
        findings (origin "agent"), most confident first."""
        ...

    def linking_to(self, doc_id: str) -> list[str]:
        """The documents with a relationship to this one (stored, or the agent's found), any
        persona's: a caller keeps to its own."""
        ...

    def list_questions(self, doc_id: str) -> list[SynthesizedQuestion]: ...

    def get_chunk_profiles(self, chunk_ids: list[str]) -> dict[str, ChunkProfile]: ...

    def search_questions(
        self, vector: np.ndarray, persona: str, limit: int, within: Within = None
    ) -> list[ScoredQuestion]:
        """Synthesized questions of the persona's documents, by cosine, best first."""
        ...

    def search_profiles(
        self, vector: np.ndarray, persona: str, surface: str, limit: int, within: Within = None
    ) -> list[ScoredDocument]:
        """The persona's documents by the cosine of one profile surface's vector, best first."""
        ...

    def document_index(self, persona: str) -> DocumentIndex:
        """Titles, names (relational index) and dates of the persona's documents."""
        ...

    def get_chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]: ...

    def chunk_documents(self, chunk_ids: list[str]) -> dict[str, str]:
        """chunk id → id of the document it belongs to (unknown ids are left out)."""
        ...

    def first_chunks(self, doc_ids: list[str]) -> dict[str, str]:
        """doc id → id of its first chunk."""
        ...

    def adjacent_chunks(self, chunk_ids: list[str]) -> dict[str, list[str]]:
        """chunk id → the ids of the chunks just before and after it in its document (in
        reading order; unknown ids and chunks with no neighbour are left out)."""
        ...

    def list_chunks(self, doc_id: str) -> list[Chunk]:
        """A document's chunks in reading order."""
        ...

    def search_keyword(
        self,
        query: str,
        persona: str,
        limit: int,
        feedback: KeywordFeedback | None = None,
        within: Within = None,
    ) -> list[ScoredChunk]:
        """BM25 over `index_text`, best first; higher score is better. `feedback` (RM3) is
        applied by the in-memory keyword index; keyword search in SQL searches the query alone."""
        ...

    def search_vector(
        self, vector: np.ndarray, persona: str, limit: int, within: Within = None
    ) -> list[ScoredChunk]:
        """Cosine similarity (vectors are unit length), best first."""
        ...

    def generation(self) -> str:
        """Changes whenever anything in the store is written (by any process), and differs
        between two stores: what a cache of answers is keyed on."""
        ...


class KnowledgeStore(KnowledgeReader, Protocol):
    """The knowledge and its writes: what ingestion and enrichment keep, and their accounting."""

    def upsert_persona(self, persona: Persona) -> None: ...

    def replace_document(
        self,
        doc: Document,
        chunks: list[Chunk],
        vectors: np.ndarray,
        embedder: str,
        enrichment: Enrichment | None = None,
        question_vectors: np.ndarray | None = None,
        profile_vectors: dict[str, np.ndarray] | None = None,
    ) -> None:
        """Insert or atomically replace a document with its chunks, their vectors, and what
        enrichment wrote about it (one question vector per synthesized question; one vector per
        profile surface, keyed by a name in `PROFILE_SURFACES`)."""
        ...

    def export_document(self, doc_id: str) -> StoredDocument | None:
        """The document with its chunks, vectors and enrichment (None when unknown)."""
        ...

    def delete_document(self, doc_id: str) -> bool:
        """Delete a document with everything about it, its findings too (replacing a document
        keeps them)."""
        ...

    def stored_embedder(self) -> str | None:
        """The name of the embedder whose vectors the store holds (None: no vectors yet); vectors
        of another are refused."""
        ...

    def forget_embedder(self) -> None:
        """With no document left, let the next vectors come from any embedder (switching
        re-embeds everything, `shu reindex --embedder`); refused while a document is kept."""
        ...

    def writer(self) -> AbstractContextManager[None]:
        """Held by an ingestion run from its first read of the store to its last write: a second
        run over the same store (another process) waits, then finds the work done."""
        ...

    def record_llm_run(self, summary: dict[str, object]) -> None:
        """Keep one run's LLM use (calls, tokens, cost, fallbacks by kind) for `shu stats`."""
        ...

    def llm_totals(self) -> dict[str, object]:
        """Sums over every recorded run."""
        ...

    def enrichment_stats(self) -> dict[str, dict[str, int]]:
        """artifact → method → count, plus chunks with a context prefix."""
        ...

    def index_settings(self) -> dict[str, Any]:
        """What the index was last built with, as `save_index_settings` kept it ({} when never)."""
        ...

    def save_index_settings(self, settings: dict[str, Any]) -> None:
        """Keep what the index is built with (settings that change the indexed text, choices a
        reindex made), for the next ingestion run to compare with and follow."""
        ...


class FindingStore(Protocol):
    """What the agent wrote back about the knowledge, with provenance, undoable."""

    def add_finding(self, finding: Finding) -> Finding:
        """Keep what the agent found; returned with its `id` (and `created`, UTC ISO seconds, if
        it had none). An identical active finding (kind, document, persona, target, value) is not
        stored twice: the one already there is returned. Moves the generation."""
        ...

    def list_findings(self, persona: str | None = None, include_undone: bool = False) -> list[Finding]:
        """Findings (of one persona, or all), newest first; undone ones only when asked."""
        ...

    def undo_finding(self, finding_id: int) -> bool:
        """Mark a finding undone (kept for the record; its effects stop). False when unknown or
        already undone. Moves the generation."""
        ...


class AccountStore(Protocol):
    """What the server keeps about who asks: keys, signals and users' profiles; none of it
    moves the generation."""

    def add_key(self, key: ApiKey, secret_hash: str) -> None:
        """Keep a key with the hash of its secret (never the secret)."""
        ...

    def get_key(self, key_id: str) -> tuple[ApiKey, str] | None:
        """The key (revoked or not) and its secret's hash."""
        ...

    def list_keys(self) -> list[ApiKey]:
        """Every key, revoked ones too, oldest first."""
        ...

    def revoke_key(self, key_id: str) -> bool:
        """False when unknown or already revoked."""
        ...

    def delete_keys(self, user: str) -> int:
        """Delete every key of a user (revoked ones too); how many there were."""
        ...

    def add_signal(self, signal: Signal) -> Signal:
        """Keep a user's signal; returned with its id (and `created`, if it had none)."""
        ...

    def list_signals(self, user: str, persona: str | None = None) -> list[Signal]:
        """One user's signals (of one persona, or all), newest first."""
        ...

    def list_signal_users(self) -> list[str]:
        """Every user with at least one signal, sorted."""
        ...

    def forget_signals(self, user: str) -> int:
        """Delete every signal of the user; how many there were."""
        ...

    def save_user(self, profile: UserProfile) -> UserProfile:
        """Insert or replace a user's profile; returned with `updated` set."""
        ...

    def get_user(self, user_id: str) -> UserProfile | None: ...

    def list_users(self) -> list[str]:
        """The ids of the users with a profile, sorted."""
        ...

    def delete_user(self, user_id: str) -> bool:
        """Delete a user's profile (their signals go with `forget_signals`)."""
        ...


class JobStore(Protocol):
    """Background jobs and their progress, kept so a client can leave and come back."""

    def save_job(self, job: Job) -> None:
        """Insert or update a job (its cancel request, kept apart, is left as it is)."""
        ...

    def request_cancel(self, job_id: str) -> bool:
        """Ask a queued or running job to stop; False when unknown or already finished."""
        ...

    def get_job(self, job_id: str) -> Job | None: ...

    def list_jobs(self, statuses: list[str] | None = None, limit: int = 50) -> list[Job]:
        """Jobs (with these statuses, or all), newest first."""
        ...


class ConversationStore(Protocol):
    """Users' conversations, each read and written whole; none of it moves the generation."""

    def save_conversation(self, conversation: Conversation) -> None:
        """Insert or replace a conversation (its turns included)."""
        ...

    def get_conversation(self, conversation_id: str) -> Conversation | None: ...

    def list_conversations(self, user: str, persona: str | None = None) -> list[Conversation]:
        """A user's conversations (with this persona, or all), most recently updated first."""
        ...

    def delete_conversation(self, conversation_id: str) -> bool: ...

    def list_conversation_users(self) -> list[str]:
        """The users who have a conversation (what `shu migrate` copies)."""
        ...


class LoginStore(Protocol):
    """People who sign in with a password (its argon2 hash kept beside the login, never in it)
    and their sessions (kept by the hash of their token); none of it moves the generation."""

    def save_login(self, login: Login, password_hash: str) -> None:
        """Insert or replace a login with its password hash."""
        ...

    def get_login(self, name: str) -> tuple[Login, str] | None:
        """A login and its password hash."""
        ...

    def list_logins(self) -> list[Login]: ...

    def add_session(self, token_hash: str, session: Session) -> None: ...

    def get_session(self, token_hash: str) -> Session | None: ...

    def delete_session(self, token_hash: str) -> bool: ...

    def delete_sessions(self, user: str) -> int:
        """End every session of a user (a new password, a lock); how many there were."""
        ...

    def delete_expired_sessions(self, moment: str) -> int:
        """Forget the sessions that expired by `moment` (ISO, UTC); how many there were."""
        ...

    def count_sign_in(self, name: str, address: str, now: str, since: str) -> tuple[int, str]:
        """One more sign-in attempt of `name` (`''`: any name) from `address`, counted in one
        atomic statement before the password is checked: the attempts of the window and when it
        started. A window started at or before `since` starts again at `now` (ISO, UTC)."""
        ...

    def uncount_sign_in(self, name: str, address: str) -> None:
        """One attempt fewer (a good password is not held against its address)."""
        ...

    def forget_sign_ins(self, name: str, address: str | None = None) -> int:
        """Forget the attempts of a name from one address, or from every one (None)."""
        ...

    def forget_old_sign_ins(self, since: str) -> int:
        """Forget the windows started at or before `since`; how many there were."""
        ...


class AnsweringStore(KnowledgeReader, FindingStore, Protocol):
    """What answering needs: the knowledge to read, and the findings the agent writes back."""


class Store(KnowledgeStore, FindingStore, AccountStore, JobStore, ConversationStore, LoginStore, Protocol):
    """Every role in one backend (SQLite, PostgreSQL): what the factory opens. A caller types
    against the narrowest role it needs."""

    def stats(self) -> StoreStats: ...

    def close(self) -> None: ...
