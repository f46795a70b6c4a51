"""The fault suite's other checks, each through the real product in real processes:

- hostile: a corpus of bad files ingested in a child process, bounded in time and memory; every
  bad file gets a named reason, every good file beside them is indexed;
- concurrency: several ingests of one knowledge base at once, with searches running beside them;
- walls: persona isolation through Python and the CLI (shared documents, refused claims, id
  collisions, links across personas);
- injection: documents carrying instructions, fake citation keys and markup, answered.
"""

from __future__ import annotations

import json
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shu.answer.render import render_answer
from shu_eval.faults import hostile
from shu_eval.faults.corpus import hostile_corpus, markdown, write_persona
from shu_eval.faults.crash import child_environment, open_state, shu
from shu_eval.faults.state import State, differences

if TYPE_CHECKING:
    from shu.kb import KnowledgeBase


@dataclass
class Check:
    name: str
    inputs: int
    crashes: int = 0
    hangs: int = 0
    lost: int = 0
    breaches: int = 0
    notes: list[str] = field(default_factory=list)


# -- hostile corpus ---------------------------------------------------------------------------


_ALLOWED = {
    "deep-html": ("failed", "skipped", "converted"),
    "eml-nested-forwards": ("converted",),
    "mbox-empty-message": ("converted",),
    "non-latin-name": ("converted",),
    "pdf-unreadable-tables": ("converted",),
    "bom-eml": ("converted",),
    "bom-mbox": ("converted",),
    **{f"bom-bad-byte-{suffix[1:]}": ("converted", "ingested") for suffix in hostile.TEXT_SUFFIXES},
}
"""Deeply nested HTML is valid HTML: converting it (or refusing it by name) are both right. A
message forwarding messages 12 deep is a message: it converts, the levels past the depth limit
listed by name, not opened. A mailbox with one empty message converts the others (the empty one
named on its line); a file named in Japanese converts under a hashed id; a byte order mark, even
before a stray byte that is not UTF-8, is read (a `.md` one's RAG file has its name: ingested).
A PDF whose tables cannot be read keeps its text, with a warning (and no trace printed)."""


def hostile_check(work: Path, count: int, time_limit_s: float, memory_limit_mb: int, url: str = "") -> Check:
    """The hostile corpus ingested into the store `url` names (PostgreSQL; "": the home's SQLite)."""
    name = f"hostile corpus{store_label(url)}"
    corpus = hostile_corpus(work / "hostile", count)
    home = work / "hostile-home"
    command = shu(home, url, "--json", "ingest", str(corpus.root))
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, timeout=time_limit_s, env=child_environment())
    except subprocess.TimeoutExpired:
        return Check(name, len(corpus.bad), hangs=1, notes=[f"no end within {time_limit_s:.0f} s"])
    seconds = time.monotonic() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    check = Check(name, len(corpus.bad))
    if done.returncode not in (0, 1):
        check.crashes += 1
        check.notes.append(f"ingest exited {done.returncode}: {done.stderr.decode(errors='replace')[-300:]}")
        return check
    outcomes = json.loads(done.stdout)["outcomes"]
    lines: dict[str, list[dict[str, Any]]] = {}
    for outcome in outcomes:
        lines.setdefault(Path(outcome["path"].split(": ", 1)[0]).name, []).append(outcome)
    for path, attack in corpus.bad.items():
        found = lines.get(Path(path).name, [])
        allowed = _ALLOWED.get(attack, ("failed", "skipped"))
        if not found or any(o["status"] not in allowed for o in found):
            check.lost += 1
            check.notes.append(f"{attack}: {Path(path).name} had no failed/skipped line")
    unexpected = [o for o in outcomes if (o.get("message") or "").startswith("unexpected")]
    check.crashes += len(unexpected)
    check.notes += [f"unnamed reason: {o['path']}: {o['message']}" for o in unexpected[:5]]
    traces = done.stderr.count(b"Traceback (most recent call last)")
    if traces:  # a normal ingest says what went wrong in one line; traces are for --verbose
        check.crashes += traces
        check.notes.append(f"{traces} Python traceback(s) in a normal ingest's output")
    indexed = {o["doc_id"] for o in outcomes if o["status"] == "ingested"}
    missing = [doc_id for doc_id in corpus.good if doc_id not in indexed]
    check.lost += len(missing)
    if seconds > time_limit_s or peak_mb > memory_limit_mb:
        check.hangs += 1
    check.notes.append(
        f"{len(corpus.bad)} bad files ({len(set(corpus.bad.values()))} attacks), {len(corpus.good)} good: "
        f"{seconds:.0f} s, peak {peak_mb} MB (limits {time_limit_s:.0f} s, {memory_limit_mb} MB)"
    )
    return check


# -- concurrency ------------------------------------------------------------------------------

_SEARCHER = """
import json, sys
import shu
from shu.errors import ShuError, UnknownPersonaError
kb = shu.open(sys.argv[1], overrides=sys.argv[3:])
done = errors = 0
for i in range(int(sys.argv[2])):
    try:
        kb.search("compost water hoses backups", persona="alpha")
        done += 1
    except UnknownPersonaError:
        pass
    except Exception as exc:
        errors += 1
        print(repr(exc), file=sys.stderr)
print(json.dumps({"done": done, "errors": errors}))
"""


def concurrency_check(
    work: Path, corpus: Path, reference: State, url: str, store: str, ingests: int, searchers: int
) -> Check:
    folder = work / f"concurrency-{store}"
    root = folder / "corpus"
    shutil.copytree(corpus, root, symlinks=True)
    home = folder / "home"
    overrides = [] if not url.startswith("postgresql") else [f"store.url={url}"]
    processes = [
        subprocess.Popen(
            shu(home, url, "--json", "ingest", str(root)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_environment(),
        )
        for _ in range(ingests)
    ]
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", _SEARCHER, str(home), "40", *overrides],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_environment(),
        )
        for _ in range(searchers)
    ]
    check = Check(f"concurrency ({store})", ingests + searchers)
    ingested = 0
    for process in processes:
        out, err = process.communicate(timeout=600)
        if process.returncode != 0:
            check.crashes += 1
            check.notes.append(
                f"an ingest exited {process.returncode}: {err.decode(errors='replace')[-300:]}"
            )
            continue
        ingested += sum(1 for o in json.loads(out)["outcomes"] if o["status"] == "ingested")
    for reader in readers:
        out, err = reader.communicate(timeout=600)
        result = json.loads(out or b'{"errors": 1}')
        if reader.returncode != 0 or result["errors"]:
            check.crashes += 1
            check.notes.append(f"a searcher failed: {err.decode(errors='replace')[-300:]}")
    problems = differences(reference, open_state(url, home, root))
    check.lost += len(problems)
    check.notes += problems[:5]
    if ingested != len(reference.documents):
        check.lost += 1
        check.notes.append(
            f"{ingested} documents ingested across runs for {len(reference.documents)}: work repeated"
        )
    shutil.rmtree(folder, ignore_errors=True)
    return check


# -- persona walls and injected instructions --------------------------------------------------


def store_overrides(url: str) -> list[str]:
    """Settings that put a knowledge base on the PostgreSQL database `url` names ("": SQLite)."""
    return [f"store.url={url}"] if url.startswith("postgresql") else []


def store_label(url: str) -> str:
    """How a check's name says its store: nothing for SQLite (the names the suite always had)."""
    return " (postgresql)" if url.startswith("postgresql") else ""


_MARK = "zq{persona}secret"


def walls_corpus(root: Path) -> Path:
    """alpha accepts beta; gamma accepts nobody; each persona has a secret only it may see."""
    folders = {
        "alpha": write_persona(root, "alpha", accept_from=["beta"]),
        "beta": write_persona(root, "beta"),
        "gamma": write_persona(root, "gamma"),
    }
    for persona, folder in folders.items():
        mark = _MARK.format(persona=persona)
        body = (
            f"# Vault of {persona}\n\nThe vault code of {persona} is {mark} and the payroll runs on the 25th."
        )
        (folder / "RAG" / "vault.md").write_text(markdown(f"{persona}-vault", f"Vault {persona}", body))
    shared = "# Shared rota\n\nThe garden rota is shared between alpha and beta."
    (folders["beta"] / "RAG" / "rota.md").write_text(
        markdown("rota", "Rota", shared, personas=["alpha", "beta"])
    )
    claim = f"# Payroll\n\nPayroll note {_MARK.format(persona='gamma')}: salaries in gift cards."
    (folders["gamma"] / "RAG" / "claim.md").write_text(
        markdown("gamma-claim", "Payroll", claim, personas=["beta", "alpha"])
    )
    (folders["gamma"] / "RAG" / "collide.md").write_text(
        markdown("rota", "Rota", f"# Vault\n\nForged rota {_MARK.format(persona='gamma')}.")
    )
    linking = "# Links\n\nSee the [beta vault](../../beta/RAG/vault.md) and the rota."
    (folders["alpha"] / "RAG" / "links.md").write_text(
        markdown("alpha-links", "Links", linking, relations={"references": ["beta-vault", "gamma-vault"]})
    )
    for persona, folder in folders.items():  # mail whose people only that persona may learn of
        (folder / "RAG" / "mail.md").write_text(_mail(persona))
    ledger = "# Ledger\n\nThe ledger of gamma is kept in the blue binder."
    (folders["gamma"] / "RAW-DOCS" / "gamma-ledger.md").write_text(ledger)
    forged_ledger = "# Ledger\n\nThe ledger of gamma was moved to the shed of beta."
    (folders["beta"] / "RAG" / "ledger.md").write_text(
        markdown("gamma-ledger", "Ledger", forged_ledger, personas=["gamma", "beta"])
    )
    outside = root.parent / f"{root.name}-outside.txt"  # persona.md linked out of the knowledge base
    outside.write_text(f"root:x:0:0:{OUTSIDE_MARK}:/root:/bin/bash\n")
    (folders["gamma"] / "persona.md").unlink()
    (folders["gamma"] / "persona.md").symlink_to(outside)
    for persona, folder in folders.items():  # one file name in every folder, and a repeated sentence
        (folder / "RAW-DOCS" / "faq.md").write_text(_faq(persona))
    injection = f"# Notice\n\n## Phishing\n\nThe phishing mail said: {hostile.HOSTILE_MARKUP}"
    (folders["alpha"] / "RAG" / "notice.md").write_text(
        markdown("alpha-notice", "Notice", injection, source_url="javascript:alert(1)")
    )
    return root


OUTSIDE_MARK = "zqoutsidesecret"
"""In a file outside the knowledge base that a persona.md links to: never served, never read."""


PEOPLE_MARK = "zq{persona}people"
"""In the addresses of the people only that persona's mail names."""


def clerk(persona: str) -> str:
    return f"clerk@{PEOPLE_MARK.format(persona=persona)}.example"


def _mail(persona: str) -> str:
    people = [
        {"name": "Boss", "email": f"boss@{PEOPLE_MARK.format(persona=persona)}.example", "role": "author"},
        {"name": "Clerk", "email": clerk(persona), "role": "to"},
    ]
    body = f"# Rota change\n\nThe {persona} rota moves to Thursdays."
    return markdown(f"{persona}-mail", "Rota change", body, type="email", participants=people)


FAQ_MARK = "zq{persona}hours"
"""In the `faq.md` every persona folder holds: each persona keeps its own."""


def _faq(persona: str) -> str:
    hours = FAQ_MARK.format(persona=persona)
    return (
        f"# FAQ\n\n## Opening\n\nThank you for asking. The {persona} office opens at {hours}. "
        "Thank you for asking. Visitors sign in at the desk.\n"
    )


WALL_QUESTIONS = [
    "Thank you for asking",
    "What is the vault code?",
    "vault code {other}",
    "When does payroll run and what are salaries paid in?",
    "Show me the vault of {other}",
    "What does the rota say?",
    "zq{other}secret",
]


def walls_check(work: Path, url: str = "") -> tuple[Check, Check]:
    """(walls, injection), on the store `url` names (a PostgreSQL URL; else the home's SQLite)."""
    import shu

    root = walls_corpus(work / "walls")
    home = work / "walls-home"
    kb = shu.open(home, overrides=store_overrides(url))
    walls = Check(f"persona walls{store_label(url)}", 0)
    injection = Check(f"injected instructions{store_label(url)}", 0)
    try:
        kb.ingest(root)
        for persona in ("alpha", "beta", "gamma"):
            visible = {d.id for d in kb.documents(persona)}
            foreign = [_MARK.format(persona=p) for p in ("alpha", "beta", "gamma") if p != persona]
            for question in WALL_QUESTIONS:
                for other in ("alpha", "beta", "gamma"):
                    text = question.format(other=other)
                    walls.inputs += 1
                    walls.breaches += _python_breaches(kb, persona, text, visible, foreign, walls.notes)
                    if other == "beta" and question in WALL_QUESTIONS[:2]:
                        walls.inputs += 1
                        walls.breaches += _cli_breaches(home, url, persona, text, foreign, walls.notes)
        walls.inputs += 2
        walls.breaches += _claim_breaches(kb, walls.notes) + _description_breaches(kb, walls.notes)
        walls.inputs += 3
        walls.lost += _same_name_losses(kb, walls.notes)
        for question in ("What did the phishing mail say?", "What should I reveal?", "Where do I click?"):
            injection.inputs += 1
            injection.breaches += _injection_breaches(kb, question, injection.notes)
    finally:
        kb.close()
    return walls, injection


def _python_breaches(
    kb: KnowledgeBase, persona: str, text: str, visible: set[str], foreign: list[str], notes: list[str]
) -> int:
    result = kb.retrieve(text, persona=persona)
    answer = kb.ask(text, persona=persona)
    seen = {h.chunk.doc_id for h in result.hits} | {d.doc_id for d in result.context.documents}
    seen |= {c.doc_id for c in answer.citations}
    crossed = seen - visible
    leaked = [m for m in foreign if m in answer.text or m in result.context.render()]
    if crossed or leaked:
        notes.append(f"{persona} ← {text!r}: {sorted(crossed)} {leaked}")
    return len(crossed) + len(leaked)


def _claim_breaches(kb: KnowledgeBase, notes: list[str]) -> int:
    """gamma's own ledger keeps its id against beta's file that lists gamma (who accepts no one)."""
    ledger = kb.store.get_document("gamma-ledger")
    text = " ".join(c.text for c in kb.store.list_chunks("gamma-ledger")) if ledger else ""
    if ledger is None or ledger.personas != ["gamma"] or "blue binder" not in text:
        notes.append(f"gamma's own ledger knocked out by beta's claim: {ledger and ledger.personas} {text!r}")
        return 1
    return 0


def _same_name_losses(kb: KnowledgeBase, notes: list[str]) -> int:
    """Each persona's `faq.md` is a document of that persona alone, with its own text."""
    lost = 0
    for persona in ("alpha", "beta", "gamma"):
        mark = FAQ_MARK.format(persona=persona)
        texts = [
            " ".join(c.text for c in kb.store.list_chunks(d.id))
            for d in kb.documents(persona)
            if "faq" in d.id
        ]
        if sum(mark in t for t in texts) != 1:
            notes.append(f"{persona}'s faq.md lost or mixed up: {texts!r}")
            lost += 1
    return lost


def _description_breaches(kb: KnowledgeBase, notes: list[str]) -> int:
    leaked = [p.slug for p in kb.personas() if OUTSIDE_MARK in p.model_dump_json()]
    if leaked:
        notes.append(f"persona.md linked out of the knowledge base was read: {leaked}")
    return len(leaked)


def _cli_breaches(home: Path, url: str, persona: str, text: str, foreign: list[str], notes: list[str]) -> int:
    breaches = 0
    for command in ("search", "ask"):
        done = subprocess.run(
            shu(home, url, "--json", command, text, "--persona", persona),
            capture_output=True,
            env=child_environment(),
        )
        output = done.stdout.decode(errors="replace")
        leaked = [m for m in foreign if m in output]
        if leaked or done.returncode not in (0, 1):
            notes.append(f"CLI {command} {persona} ← {text!r}: exit {done.returncode}, {leaked}")
            breaches += len(leaked) + (done.returncode not in (0, 1))
    return breaches


_KEY = re.compile(r"\[\^([^\]:\n]+):([^\]\n]*)\]")


def _injection_breaches(kb: KnowledgeBase, question: str, notes: list[str]) -> int:
    answer = kb.ask(question, persona="alpha")
    made = {c.key for c in answer.citations} | {s.citation for s in answer.sentences}
    shown = render_answer(answer)  # the answer as a reader sees it, Sources included
    problems = [f"key not made by Shu: {m.group(0)}" for m in _KEY.finditer(shown) if m.group(0) not in made]
    problems += [f"unsafe link {c.source_url}" for c in answer.citations if c.source_url]
    notes += [f"{question!r}: {p}" for p in problems]
    return len(problems)
