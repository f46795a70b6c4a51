"""The conformance suite every `Store` backend passes, one mixin per store role, run over each
backend by `tests/store/test_conformance.py` (a `store` fixture parametrized by backend, fresh and
empty). A new backend inherits the mixins of the roles it implements."""

from tests.store.conformance.accounts import AccountsConformance
from tests.store.conformance.concurrency import ConcurrencyConformance
from tests.store.conformance.conversations import ConversationsConformance
from tests.store.conformance.findings import FindingsConformance
from tests.store.conformance.jobs import JobsConformance
from tests.store.conformance.knowledge import KnowledgeConformance
from tests.store.conformance.logins import LoginsConformance
from tests.store.conformance.records import chunks, document, finding, persona, unit, vectors

__all__ = [
    "AccountsConformance",
    "ConcurrencyConformance",
    "ConversationsConformance",
    "FindingsConformance",
    "JobsConformance",
    "KnowledgeConformance",
    "LoginsConformance",
    "chunks",
    "document",
    "finding",
    "persona",
    "unit",
    "vectors",
]
