"""`shu faults`: the whole fault suite, short (CI) or full, and its table."""

from __future__ import annotations

import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from shu_eval.faults.abuse import server_abuse_check
from shu_eval.faults.checks import Check, concurrency_check, hostile_check, walls_check
from shu_eval.faults.corpus import good_corpus
from shu_eval.faults.crash import CrashSuite, Stores
from shu_eval.faults.race import link_race_check
from shu_eval.faults.serve import serve_walls_check

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Scale:
    crash_runs_per_kind: int
    hostile_files: int
    ingests: int
    searchers: int
    documents: int
    race_ingests: int


SHORT = Scale(crash_runs_per_kind=2, hostile_files=130, ingests=3, searchers=2, documents=12, race_ingests=30)
FULL = Scale(
    crash_runs_per_kind=9, hostile_files=1040, ingests=4, searchers=3, documents=30, race_ingests=150
)
KINDS = ("ingest", "enrich", "migrate")


def run_faults(scale: Scale, postgres: str | None = None, progress: Progress | None = None) -> list[Check]:
    """Every check at `scale`; with a PostgreSQL URL (a database allowed to CREATE DATABASE), the
    crash and concurrency checks run on both stores, each run in a database of its own."""
    say = progress or (lambda line: None)
    with tempfile.TemporaryDirectory(prefix="shu-faults-") as temporary, _databases(postgres) as new_database:
        work = Path(temporary)
        corpus = good_corpus(work / "corpus", scale.documents)
        crash = CrashSuite(work, corpus, Stores(new_database))
        say("clean reference run")
        crash.prepare()
        assert crash.reference is not None
        checks: list[Check] = []
        for store in crash.stores.kinds():
            for kind in KINDS:
                check = Check(f"kill -9 during {kind} ({store})", 0)
                killed: list[float] = []
                for number in range(scale.crash_runs_per_kind):
                    outcome = crash.run(kind, store, number)
                    check.inputs += 1
                    if outcome.killed:
                        killed.append(outcome.killed_at_s)
                    check.hangs += outcome.hung
                    check.lost += bool(outcome.problems)
                    check.notes += [
                        f"run {number} (killed at {outcome.killed_at_s} s): {p}" for p in outcome.problems
                    ]
                    say(
                        f"{check.name}: run {number + 1}/{scale.crash_runs_per_kind}, "
                        f"{len(outcome.problems)} problems"
                    )
                duration = crash.durations[(kind, store)]
                check.notes.insert(0, _killed_note(killed, scale.crash_runs_per_kind, duration))
                checks.append(check)
        for store in crash.stores.kinds():
            url = crash.stores.url(store, work / f"concurrency-{store}")
            say(f"concurrency ({store})")
            checks.append(
                concurrency_check(work, corpus, crash.reference, url, store, scale.ingests, scale.searchers)
            )
        for store in crash.stores.kinds():
            folder = work / f"hostile-{store}"
            say(f"hostile corpus ({store})")
            url = crash.stores.url(store, folder)
            checks.append(hostile_check(folder, scale.hostile_files, 900, 2048, url))
        for store in crash.stores.kinds():  # the walls hold on every store
            folder = work / f"walls-{store}"
            say(f"persona walls and injected instructions ({store})")
            checks += list(walls_check(folder, crash.stores.url(store, folder)))
            say(f"persona and user walls through HTTP and MCP ({store})")
            checks.append(serve_walls_check(folder, crash.stores.url(store, folder)))
        for store in crash.stores.kinds():
            folder = work / f"race-{store}"
            say(f"a file swapped for a link mid-read ({store})")
            checks.append(link_race_check(folder, scale.race_ingests, crash.stores.url(store, folder)))
        for store in crash.stores.kinds():  # sign-in's counts live in the store
            folder = work / f"abuse-{store}"
            say(f"hostile requests through HTTP ({store})")
            checks.append(server_abuse_check(folder, crash.stores.url(store, folder)))
        return checks


def _killed_note(killed: list[float], runs: int, clean_s: float) -> str:
    """How many runs the kill caught while running (the rest had finished: a clean run to compare)."""
    when = f" at {min(killed):.1f}–{max(killed):.1f} s" if killed else ""
    return f"{len(killed)} of {runs} runs killed while running{when} (a clean run: {clean_s:.1f} s)"


def markdown(checks: list[Check], scale: Scale, seconds: float) -> str:
    header = "| check | inputs tried | crashes | hangs | data lost | isolation breaches |"
    lines = [header, "|---|---|---|---|---|---|"]
    for c in checks:
        lines.append(f"| {c.name} | {c.inputs} | {c.crashes} | {c.hangs} | {c.lost} | {c.breaches} |")
    total = [sum(getattr(c, f) for c in checks) for f in ("inputs", "crashes", "hangs", "lost", "breaches")]
    lines.append("| **all** | " + " | ".join(f"**{n}**" for n in total) + " |")
    notes = [f"- {c.name}: {note}" for c in checks for note in c.notes[:8]]
    scale_line = (
        f"Scale: {scale.crash_runs_per_kind} crash runs per kind and store, "
        f"{scale.hostile_files} hostile files, "
        f"{scale.ingests} concurrent ingests with {scale.searchers} searchers, "
        f"{scale.race_ingests} ingests racing a link swap; {seconds:.0f} s in all."
    )
    return "\n".join([*lines, "", scale_line, *(["", *notes] if notes else [])]) + "\n"


def failures(checks: list[Check]) -> int:
    return sum(c.crashes + c.hangs + c.lost + c.breaches for c in checks)


@contextmanager
def _databases(postgres: str | None) -> Iterator[Callable[[], str] | None]:
    """A maker of fresh databases on the server `postgres` names, all dropped at the end."""
    if not postgres:
        yield None
        return
    import psycopg

    made: list[str] = []

    def new_database() -> str:
        name = f"shu_fault_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(postgres, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        made.append(name)
        return postgres.rsplit("/", 1)[0] + "/" + name

    try:
        yield new_database
    finally:
        with psycopg.connect(postgres, autocommit=True) as conn:
            for name in made:
                conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def timed(scale: Scale, postgres: str | None, progress: Progress | None = None) -> tuple[list[Check], float]:
    started = time.monotonic()
    checks = run_faults(scale, postgres, progress)
    return checks, time.monotonic() - started
