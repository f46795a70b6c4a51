"""Shu: retrieval-augmented generation that reads every document when it arrives."""

__version__ = "0.1.0"  # before the imports: the answer cache keys on it

from shu.errors import ShuError
from shu.kb import KnowledgeBase, open_kb
from shu.types import Answer, Document, Persona, SearchHit

open = open_kb  # `shu.open(".shu")`; not in __all__, so `from shu import *` never shadows the builtin

__all__ = ["Answer", "Document", "KnowledgeBase", "Persona", "SearchHit", "ShuError", "open_kb"]
