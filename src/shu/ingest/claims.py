"""Who gets a document id when files claim it. Ids are one namespace across personas, so two
folders can name the same id; these rules decide, and no file anywhere can knock a persona's own
document out by naming its id, nor fail for a name another persona uses:

1. A file that lists a persona which does not accept documents from the file's folder (its
   `persona.config.json` accept_from) loses the id to any file of that persona's own folder,
   stored or new, in whatever order the folders were ingested: it reached into a persona that
   never accepted it.
2. Otherwise the file the store holds the id for keeps it while that file is there, whatever
   this run makes of it (a file that fails to parse today keeps its id); only a file of one of
   that document's own personas may take over an id its file gave up.
3. With nothing stored: files from one folder, the first in folder order; files from several
   folders, none of them (nobody is evicted by a file elsewhere, whatever its name or date). A
   byte-identical copy joins the winner (the caller's part).
4. A file that lost the id only to another persona's file (not by rule 1, not to a file of its
   own folder) is stored under the id qualified by its persona, `<persona>.<id>` (`beta.faq`):
   the same file name in two persona folders gives two documents, never a failure. So on a fresh
   store both `faq.md`s become `alpha.faq` and `beta.faq`; a `faq.md` added beside a stored `faq`
   of another persona becomes `beta.faq`. The qualified id is claimed again by these rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from shu.errors import ShuError
from shu.ingest.documents import DOC_ID, ParsedDocument, parse_rag_file
from shu.ingest.files import read_inside
from shu.ingest.report import FileOutcome
from shu.types import Document

Claim = tuple[ParsedDocument, FileOutcome]


@dataclass(frozen=True)
class Holder:
    """The file the store holds an id for, as far as this run knows it."""

    document: Document
    folder: str
    """The persona whose folder holds the file."""
    reached_into: frozenset[str]
    """Personas the file lists that do not accept documents from its folder."""
    in_run: bool
    failed: bool
    """In this run, and failed to parse."""


@dataclass
class Ruling:
    winner: Claim | None
    holder: str | None = None
    """The path of the file that keeps the id (for the losers' messages)."""
    evicted: Holder | None = None
    """A stored holder that loses the id by rule 1."""
    trespassers: dict[int, str] = field(default_factory=dict)
    """id(claim) → the persona it reached into, for claims that lost by rule 1."""


def folder_of(claim: Claim) -> str:
    """The persona whose folder holds the file (always the first of its admitted personas)."""
    return claim[0].doc.personas[0]


def rule(claims: list[Claim], holder: Holder | None, reached: dict[str, frozenset[str]]) -> Ruling:
    """Who of `claims` (files of this run naming one id) gets it; `reached` maps a file's path to
    the personas it listed that refused it."""
    claimants = {folder_of(c) for c in claims} | ({holder.folder} if holder else set())
    trespassers = {
        id(c): sorted(found)[0]
        for c in claims
        if (found := reached.get(c[0].doc.path, frozenset()) & (claimants - {folder_of(c)}))
    }
    fair = [c for c in claims if id(c) not in trespassers]
    if holder is None:
        return Ruling(_fresh_winner(fair), trespassers=trespassers)
    own = _own(claims, holder)
    if (own is not None and id(own) in trespassers) or holder.reached_into & (claimants - {holder.folder}):
        return Ruling(_fresh_winner(fair), evicted=holder, trespassers=trespassers)
    if own is not None:
        return Ruling(own, trespassers=trespassers)
    gave_up = holder.in_run and not holder.failed
    heirs = [c for c in fair if folder_of(c) in holder.document.personas]
    if gave_up and heirs and len({folder_of(c) for c in heirs}) == 1:
        return Ruling(heirs[0], trespassers=trespassers)
    return Ruling(None, holder=holder.document.path, trespassers=trespassers)


def to_qualify(claims: list[Claim], ruling: Ruling, holder: Holder | None) -> list[Claim]:
    """The claims that lost `ruling` only to another persona's file (rule 4): neither trespassers,
    nor copies of the winner, nor files of the folder that keeps the id."""
    winner = ruling.winner
    if winner is not None:
        keeper: str | None = folder_of(winner)
    else:
        keeper = holder.folder if holder is not None and ruling.holder is not None else None
    return [
        c
        for c in claims
        if id(c) not in ruling.trespassers
        and folder_of(c) != keeper
        and (winner is None or (c[0] is not winner[0] and c[0].raw != winner[0].raw))
    ]


def qualified(doc_id: str, persona: str) -> str | None:
    """`doc_id` qualified by the persona whose folder holds its file (None: too long an id)."""
    name = f"{persona}.{doc_id}"
    return name if DOC_ID.match(name) else None


def holder_of(
    stored: Document, run_paths: set[str], failed: set[str], accepts: Callable[[str, str], bool]
) -> Holder:
    """The stored holder of an id; `accepts(target, source)` tells whether persona `target`
    accepts documents from `source` (False for a persona with no folder). A holder outside this
    run is read again for the personas its file lists (a file that cannot be read lists none)."""
    folder = _folder(Path(stored.path))
    listed = _listed(Path(stored.path), folder) if stored.path not in run_paths else frozenset()
    reached = frozenset(p for p in listed if p != folder.name and not accepts(p, folder.name))
    return Holder(stored, folder.name, reached, stored.path in run_paths, stored.path in failed)


def _fresh_winner(claims: list[Claim]) -> Claim | None:
    if not claims:
        return None
    if len({c[0].raw for c in claims}) == 1 or len({folder_of(c) for c in claims}) == 1:
        return claims[0]
    return None


def _own(claims: list[Claim], holder: Holder) -> Claim | None:
    return next((c for c in claims if c[0].doc.path == holder.document.path), None)


def _folder(path: Path) -> Path:
    """The persona folder of a RAG file (`<persona>/RAG/…/<file>.md`)."""
    return next((p.parent for p in path.parents if p.name == "RAG"), path.parent.parent)


def _listed(path: Path, folder: Path) -> frozenset[str]:
    try:
        parsed = parse_rag_file(path, read_inside(path, folder, 20 * 1024 * 1024), folder.name)
    except ShuError:
        return frozenset()
    return frozenset(parsed.doc.personas)
