"""The conformance suite every `Store` backend passes, one mixin per store role, run over each
backend by `tests/store/test_conformance.py` (a `store` fixture parametrized by backend, fresh and
empty). A new backend inherits the mixins of the roles it implements."""

from shu.store.testing.accounts import AccountsConformance
from shu.store.testing.concurrency import ConcurrencyConformance
from shu.store.testing.conversations import ConversationsConformance
from shu.store.testing.filters import FilterConformance
from shu.store.testing.findings import FindingsConformance
from shu.store.testing.jobs import JobsConformance
from shu.store.testing.knowledge import KnowledgeConformance
from shu.store.testing.logins import LoginsConformance
from shu.store.testing.records import chunks, document, finding, persona, unit, vectors

__all__ = [
    "AccountsConformance",
    "ConcurrencyConformance",
    "ConversationsConformance",
    "FilterConformance",
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
