"""Shu: retrieval-augmented generation that reads every document when it arrives."""

__version__ = "0.1.0"  # before the imports: the answer cache keys on it

import os

# An in-process model's OpenMP threads spin while they wait unless told not to, and OpenMP reads
# this once, when llama.cpp loads: set here, before anything of Shu's can import it (measured:
# spinning threads on 2 shared cores answered ~40x slower).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from shu.errors import ShuError
from shu.kb import KnowledgeBase, open_kb
from shu.types import Answer, Document, Persona, SearchHit

open = open_kb  # `shu.open(".shu")`; not in __all__, so `from shu import *` never shadows the builtin

__all__ = ["Answer", "Document", "KnowledgeBase", "Persona", "SearchHit", "ShuError", "open_kb"]
