"""Kill -9 at a random moment, resume, compare with a clean run.

Three kinds of run, on SQLite and (given a server) PostgreSQL: `ingest` (a fresh knowledge base),
`enrich` (`shu enrich --force` over a complete one) and `migrate` (`shu migrate` into an empty
store). Each is started as its own process, killed after a random share of the time a clean run
takes, then run again to completion; the store and the RAG files must then equal the clean
run's, with no orphaned rows."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from shu.store.factory import open_store_url
from shu_eval.faults.state import State, capture, differences

RESUME_TIMEOUT_S = 600
"""A resumed run taking longer than this is a hang."""


@dataclass
class CrashRun:
    kind: str
    store: str
    killed_at_s: float
    killed: bool
    problems: list[str] = field(default_factory=list)
    hung: bool = False


@dataclass
class Stores:
    """Where each run's store lives: a fresh SQLite file, or a fresh PostgreSQL database."""

    new_postgres: Callable[[], str] | None = None

    def kinds(self) -> list[str]:
        return ["sqlite", "postgresql"] if self.new_postgres else ["sqlite"]

    def url(self, kind: str, folder: Path) -> str:
        if kind == "postgresql" and self.new_postgres is not None:
            return self.new_postgres()
        return f"sqlite:///{folder / 'shu.db'}"


def shu(home: Path, url: str, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "shu.serve.cli",
        "--home",
        str(home),
        "--set",
        f"store.url={_setting(url)}",
        *args,
    ]


def _setting(url: str) -> str:
    """`store.url` takes PostgreSQL URLs only; a SQLite store is its home's `shu.db`."""
    return url if url.startswith("postgresql") else "null"


def run_quietly(command: list[str], timeout: float = RESUME_TIMEOUT_S) -> tuple[int, bool]:
    """(exit code, hung)."""
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, env=child_environment())
    except subprocess.TimeoutExpired:
        return -1, True
    return done.returncode, False


def killed_run(command: list[str], after_s: float) -> bool:
    """Start `command`, SIGKILL it after `after_s` seconds; True when it was still running."""
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=child_environment()
    )
    try:
        process.wait(timeout=after_s)
        return False
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        return True


def child_environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHU_")}
    return env | {"HF_HUB_OFFLINE": "1"}


def open_state(url: str, home: Path, corpus: Path | None) -> State:
    store = open_store_url(url if url.startswith("postgresql") else f"sqlite:///{home / 'shu.db'}")
    try:
        return capture(store, corpus)
    finally:
        store.close()


class CrashSuite:
    def __init__(self, work: Path, corpus: Path, stores: Stores, seed: int = 3) -> None:
        self.work = work
        self.corpus = corpus
        self.stores = stores
        self.rng = random.Random(seed)
        self.reference: State | None = None
        self.clean_s = 0.0
        self.durations: dict[tuple[str, str], float] = {}
        self.reference_home = work / "reference"

    def prepare(self) -> None:
        """The clean run everything is compared with (SQLite; the state does not depend on it)."""
        corpus = self._copy("reference-corpus")
        started = time.monotonic()
        code, hung = run_quietly(shu(self.reference_home, "", "ingest", str(corpus)))
        self.clean_s = time.monotonic() - started
        if code != 0 or hung:
            raise RuntimeError(f"the clean reference ingest failed (exit {code}, hung {hung})")
        self.reference = open_state("", self.reference_home, corpus)

    def run(self, kind: str, store: str, number: int) -> CrashRun:
        """One run: set up, start the command, SIGKILL it after 0.5–1 × the time a clean run of
        the same command takes (measured once per kind and store), resume, compare."""
        assert self.reference is not None
        after = self.rng.uniform(0.5, 1.0) * self._duration(kind, store)
        folder = self.work / f"{kind}-{store}-{number}"
        command, resume, observe, expected = self._setup(kind, store, folder)
        killed = killed_run(command, after)
        code, hung = run_quietly(resume)
        outcome = CrashRun(kind, store, round(after, 2), killed, hung=hung)
        if code != 0 and not hung:
            outcome.problems.append(f"the resumed run exited {code}")
        outcome.problems += differences(expected, observe())
        shutil.rmtree(folder, ignore_errors=True)
        return outcome

    def _duration(self, kind: str, store: str) -> float:
        if (kind, store) not in self.durations:
            folder = self.work / f"{kind}-{store}-timing"
            command, _, _, _ = self._setup(kind, store, folder)
            started = time.monotonic()
            run_quietly(command)
            self.durations[(kind, store)] = time.monotonic() - started
            shutil.rmtree(folder, ignore_errors=True)
        return self.durations[(kind, store)]

    def _setup(
        self, kind: str, store: str, folder: Path
    ) -> tuple[list[str], list[str], Callable[[], State], State]:
        """(the command to kill, the command that resumes it, what to capture, what it must equal)."""
        assert self.reference is not None
        home = folder / "home"
        url = self.stores.url(store, folder)
        if kind == "migrate":
            source = f"sqlite:///{self.reference_home / 'shu.db'}"
            target = url if store == "postgresql" else f"sqlite:///{folder / 'target.db'}"
            command = shu(home, "", "migrate", "--from", source, "--to", target)
            return command, command, lambda: _target_state(target), _without_files(self.reference)
        corpus = self._copy(f"{folder.name}/corpus")
        ingest = shu(home, url, "ingest", str(corpus))
        if kind == "enrich":
            run_quietly(ingest)
            command = shu(home, url, "enrich", "--force", str(corpus))
        else:
            command = ingest
        return command, ingest, lambda: open_state(url, home, corpus), self.reference

    def _copy(self, name: str) -> Path:
        target = self.work / name
        shutil.copytree(self.corpus, target, symlinks=True)
        return target


def _target_state(url: str) -> State:
    store = open_store_url(url)
    try:
        return capture(store)
    finally:
        store.close()


def _without_files(state: State) -> State:
    return State(documents=state.documents, vectors=state.vectors, rag_files={}, orphans=state.orphans)
