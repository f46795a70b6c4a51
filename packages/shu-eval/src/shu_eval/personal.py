"""`shu eval-personal`: what RELATIONAL-BOOST (ranking for the person asking) is worth, measured on an
invented organisation (`tests/eval/data/personal`): the same ambiguous questions ("What's the
status of the proposal?") asked by different people, each with the documents that answer it *for
them*, and plain fact questions with one answer whoever asks.

The persona is ingested into a fresh knowledge base (the real embedder, enrichment as
configured by default), the users are set by hand (name, e-mails, roles, projects), their stars
recorded and their contacts, projects and interests learned. Every question is then ranked
without a user, for its user with all boosts, and for its user with each boost switched off in
turn (`retrieval.personal.<boost>=0`); nDCG@10 and Recall@10 are computed on documents (each
document counted once, at its best chunk). The fact questions show what personalization costs
where it has nothing to add (it should be about nothing)."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from shu.config.settings import load_settings
from shu.errors import ShuError
from shu.kb import KnowledgeBase
from shu.models.embed import Embedder, create_embedder
from shu.types import Signal
from shu_eval.metrics import evaluate

LIMIT = 30
"""Chunks retrieved per question (ranked into documents for the metrics)."""
BOOSTS = ("contact", "project", "interest", "own", "familiar", "role", "fresh", "deadline", "away")
TODAY = "2025-11-20"
"""The dataset's today (its documents are dated October and early November 2025): freshness and
due dates count from it, so the measurement does not drift with the calendar."""
DEFAULT_DATA = Path("tests/eval/data/personal")


@dataclass(frozen=True)
class PersonalQuery:
    id: str
    text: str
    user: str
    personal: bool
    relevant: dict[str, int]
    """doc id → grade (2: the answer, 1: useful beside it)"""


@dataclass
class PersonalData:
    folder: Path
    persona: Path
    """the persona folder (`persona.config.json`, `RAG/`)"""
    slug: str
    users: list[dict[str, Any]]
    queries: list[PersonalQuery]

    def stars(self) -> dict[str, list[str]]:
        return {u["id"]: list(u.get("stars", [])) for u in self.users}


@dataclass
class ConfigRow:
    name: str
    user: bool
    overrides: list[str]
    personal: dict[str, float]
    """nDCG@10 and Recall@10 over the personal questions"""
    general: dict[str, float]
    """nDCG@10 and Recall@10 over the non-personal questions"""
    per_query: dict[str, float] = field(default_factory=dict)
    """query id → nDCG@10"""
    rankings: dict[str, list[str]] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass
class PersonalResult:
    rows: list[ConfigRow]
    documents: int
    users: int
    personal: list[str]
    """the personal questions' ids (the others are non-personal)"""
    general_queries: int
    ingest_s: float
    learn_s: float
    seconds: float
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    """user → what was learned: contacts (name, affinity), projects (value, weight, source),
    interests (value, weight)"""

    @property
    def personal_queries(self) -> int:
        return len(self.personal)

    def row(self, name: str) -> ConfigRow:
        return next(r for r in self.rows if r.name == name)


def load(folder: Path) -> PersonalData:
    """The dataset: `users.json`, `queries.jsonl` and its one persona folder (`northwind/`)."""
    try:
        users = json.loads((folder / "users.json").read_text(encoding="utf-8"))
        lines = (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    except (OSError, json.JSONDecodeError) as exc:
        raise ShuError(f"{folder}: not a personal-retrieval dataset ({exc})") from exc
    personas = sorted(p.parent for p in folder.glob("*/persona.config.json"))
    if len(personas) != 1:
        raise ShuError(
            f"{folder}: expected one persona folder (with persona.config.json), found {len(personas)}"
        )
    try:
        queries = [_query(json.loads(line)) for line in lines if line.strip()]
        slug = json.loads((personas[0] / "persona.config.json").read_text(encoding="utf-8"))["slug"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ShuError(f"{folder}: not a personal-retrieval dataset ({exc!r})") from exc
    return PersonalData(folder, personas[0], slug, users, queries)


def _query(row: dict[str, Any]) -> PersonalQuery:
    """One line of `queries.jsonl`; `relevant` is a list of doc ids (grade 1) or id → grade."""
    relevant = row["relevant"]
    if isinstance(relevant, list):
        relevant = dict.fromkeys(relevant, 1)
    return PersonalQuery(
        id=row["id"],
        text=row["text"],
        user=row["user"],
        personal=bool(row.get("personal", True)),
        relevant={str(k): int(v) for k, v in relevant.items()},
    )


def configurations() -> list[tuple[str, bool, list[str]]]:
    """(name, asked as the user, settings overrides): no user, all boosts, each boost off, each
    boost alone (the others 0: what it carries by itself, the shared cap aside)."""
    found: list[tuple[str, bool, list[str]]] = [("no user", False, []), ("user, all boosts", True, [])]
    found += [(f"user, {boost} = 0", True, [f"retrieval.personal.{boost}=0"]) for boost in BOOSTS]
    for boost in BOOSTS:
        others = [f"retrieval.personal.{other}=0" for other in BOOSTS if other != boost]
        found.append((f"user, {boost} only", True, others))
    return found


def run(
    folder: Path = DEFAULT_DATA,
    embedder: Embedder | None = None,
    overrides: list[str] | None = None,
    work: Path | None = None,
) -> PersonalResult:
    """Ingest `folder`'s persona into a fresh knowledge base (in `work`, a temporary folder when
    not given), set up its users and rank every question in every configuration."""
    began = time.perf_counter()
    data = load(folder)
    owned = work is None
    work = work or Path(tempfile.mkdtemp(prefix="shu-eval-personal-"))
    try:
        shutil.copytree(data.persona, work / "personas" / data.slug)  # the slug names the folder
        home = work / "home"
        base = [f"retrieval.personal.now={TODAY}", *(overrides or [])]
        settings = load_settings(home, base)
        embedder = embedder or create_embedder(settings.embedder)
        kb = KnowledgeBase(settings, embedder=embedder)
        try:
            started = time.perf_counter()
            report = kb.ingest(work / "personas" / data.slug)
            if report.failed:
                first = report.failed[0]
                raise ShuError(
                    f"ingesting {folder}: {len(report.failed)} failed ({first.path}: {first.message})"
                )
            ingest_s = time.perf_counter() - started
            started = time.perf_counter()
            profiles = _set_up_users(kb, data)
            learn_s = time.perf_counter() - started
            rows = [
                _measure(kb, data, name, as_user, base + extra) for name, as_user, extra in configurations()
            ]
            documents = len(kb.documents(data.slug))
        finally:
            kb.close()
    finally:
        if owned:
            shutil.rmtree(work, ignore_errors=True)
    return PersonalResult(
        rows=rows,
        documents=documents,
        users=len(data.users),
        personal=[q.id for q in data.queries if q.personal],
        general_queries=sum(not q.personal for q in data.queries),
        ingest_s=ingest_s,
        learn_s=learn_s,
        seconds=time.perf_counter() - began,
        profiles=profiles,
    )


def _set_up_users(kb: KnowledgeBase, data: PersonalData) -> dict[str, dict[str, Any]]:
    """Hand-set fields, the stars, then everything learned (stars first: interests come from them)."""
    learned = {}
    stars = data.stars()
    for user in data.users:
        fields = {k: v for k, v in user.items() if k not in ("id", "stars")}
        kb.accounts.set_user(user["id"], fields)
        for doc_id in stars[user["id"]]:
            kb.accounts.feedback(Signal(user=user["id"], persona=data.slug, kind="star", doc_id=doc_id))
        profile = kb.accounts.learn_user(user["id"])
        learned[user["id"]] = {
            "contacts": [(c.name, c.affinity) for c in profile.contacts],
            "projects": [(p.value, p.weight, p.source) for p in profile.projects],
            "interests": [(i.value, i.weight) for i in profile.interests],
        }
    return learned


def _measure(
    kb: KnowledgeBase, data: PersonalData, name: str, as_user: bool, overrides: list[str]
) -> ConfigRow:
    """Every question ranked in one configuration (its own settings over the same store)."""
    settings = load_settings(kb.settings.home, overrides)
    ranked = KnowledgeBase(
        settings, embedder=kb.parts.embedder, store=kb.store
    )  # shares the store: not closed
    started = time.perf_counter()
    rankings = {q.id: _documents(ranked, data.slug, q, as_user) for q in data.queries}
    seconds = time.perf_counter() - started
    row = ConfigRow(name, as_user, overrides, {}, {}, rankings=rankings, seconds=seconds)
    for personal in (True, False):
        qrels = {q.id: q.relevant for q in data.queries if q.personal == personal}
        means, per_query = evaluate(qrels, {q: rankings[q] for q in qrels})
        (row.personal if personal else row.general).update(
            {"nDCG@10": means["nDCG@10"], "Recall@10": means["Recall@10"]}
        )
        row.per_query.update({q: values["nDCG@10"] for q, values in per_query.items()})
    return row


def _documents(kb: KnowledgeBase, persona: str, query: PersonalQuery, as_user: bool) -> list[str]:
    """The documents of the question's hits, best first, each once."""
    result = kb.retrieve(query.text, persona, limit=LIMIT, user=query.user if as_user else None)
    return list(dict.fromkeys(h.chunk.doc_id for h in result.hits))


def markdown(result: PersonalResult) -> str:
    """The configurations side by side; the gain over no user and the cost on fact questions."""
    plain = result.rows[0]
    lines = [
        f"Personal retrieval — {result.documents} documents, {result.users} users, "
        f"{result.personal_queries} personal questions, {result.general_queries} non-personal "
        f"(ingest {result.ingest_s:.1f} s, learn {result.learn_s:.2f} s, total {result.seconds:.1f} s)",
        "",
        "| Configuration | Personal nDCG@10 | Personal Recall@10 | Δ nDCG@10 vs no user "
        "| Non-personal nDCG@10 | Δ non-personal | Personal won / lost | ms/question |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in result.rows:
        won = sum(row.per_query[q] > plain.per_query[q] + 1e-9 for q in result.personal)
        lost = sum(row.per_query[q] < plain.per_query[q] - 1e-9 for q in result.personal)
        per_question = 1000 * row.seconds / max(1, result.personal_queries + result.general_queries)
        lines.append(
            f"| {row.name} | {row.personal['nDCG@10']:.3f} | {row.personal['Recall@10']:.3f} "
            f"| {row.personal['nDCG@10'] - plain.personal['nDCG@10']:+.3f} "
            f"| {row.general['nDCG@10']:.3f} | {row.general['nDCG@10'] - plain.general['nDCG@10']:+.3f} "
            f"| {won} / {lost} | {per_question:.0f} |"
        )
    return "\n".join(lines) + "\n"


def per_user(result: PersonalResult, data: PersonalData, name: str = "user, all boosts") -> dict[str, float]:
    """Personal nDCG@10 by user in one configuration."""
    row = result.row(name)
    by_user: dict[str, list[float]] = {}
    for query in data.queries:
        if query.personal:
            by_user.setdefault(query.user, []).append(row.per_query[query.id])
    return {user: fmean(values) for user, values in by_user.items()}
