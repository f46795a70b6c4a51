"""`shu eval conversations`: follow-up questions, searched as typed and as rewritten (issue 28).

The set (`shu_eval/data/conversations/conversations.jsonl`, or any folder with a
`conversations.jsonl` and, optionally, a `knowledge_bases.json` naming the persona folders) holds
two- and three-turn conversations written from the documents of the example knowledge bases. The
first turn stands alone; every later turn is a follow-up that needs the turn before it ("and the
Team plan?", "who approved it?", "what about last year?"). Each turn lists the facts a right
answer states (with their accepted spellings, judged as `shu_eval.labelled` judges answers) and
the documents that answer it.

Each conversation is asked turn by turn through `KnowledgeBase.ask(..., conversation=id)`, as a
user of `shu chat` would. For every follow-up it records:

- Recall@10 at document level: the share of the turn's documents among those of the top 10 chunks
  of `KnowledgeBase.retrieve` for the question as typed ("without" the rewrite) and for the
  question the conversation searched (`Answer.standalone_question`, or the question itself when
  it was not rewritten: "with");
- answer correctness (no decline, every fact stated) of the question asked alone, outside any
  conversation ("without"), and asked in the conversation ("with");
- whether the follow-up was rewritten.

First turns are judged too (as context: a follow-up after a wrong first answer is harder).
Reported per split (test first, then dev, then both: the fixed hash of the conversation's id,
`shu_eval.labelled.split_of`), per kind of follow-up and per persona.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from statistics import fmean
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, model_validator

from shu.conversations import LOCAL_USER
from shu.types import Answer
from shu_eval.labelled import (
    SPLITS,
    LabelledSetError,
    Progress,
    cited_documents,
    declined,
    has_fact,
    load_knowledge_bases,
    load_records,
    normalise,
    said,
    split_of,
)

if TYPE_CHECKING:
    from shu.kb import KnowledgeBase

SHIPPED = "conversations"
"""The name that means the shipped set (`shu eval conversations`)."""
TOP_K = 10
FOLLOW_UP_KINDS = ("ellipsis", "pronoun", "previous", "other", "attribute")
FollowUpKind = Literal["ellipsis", "pronoun", "previous", "other", "attribute"]


class LabelledTurn(BaseModel):
    question: str = Field(min_length=1)
    facts: list[list[str]] = Field(min_length=1)
    """Each inner list is one fact the answer must state, as its accepted spellings."""
    doc_ids: list[str] = Field(min_length=1)
    """The documents that answer the turn (as Shu names them in `RAG/`)."""
    kind: FollowUpKind | None = None
    """A follow-up's kind: `ellipsis` ("and the Team plan?"), `pronoun` ("who approved it?"),
    `previous` ("what about last year?"), `other` ("and the other one?"), `attribute` (another
    attribute of the same thing: "from when?"); None for the first turn."""

    @model_validator(mode="after")
    def _spelled(self) -> LabelledTurn:
        for fact in self.facts:
            if not fact or not all(normalise(spelling) for spelling in fact):
                raise ValueError(f"fact {fact!r}: every fact needs spellings with a letter or digit")
        return self


class LabelledConversation(BaseModel):
    id: str = Field(min_length=1)
    kb: str = Field(min_length=1)
    """The knowledge base the conversation is about (a key of `knowledge_bases.json`)."""
    persona: str = Field(min_length=1)
    turns: list[LabelledTurn] = Field(min_length=2, max_length=3)

    @model_validator(mode="after")
    def _follow_ups_have_a_kind(self) -> LabelledConversation:
        if self.turns[0].kind is not None:
            raise ValueError("the first turn stands alone: it has no follow-up kind")
        if any(turn.kind is None for turn in self.turns[1:]):
            raise ValueError("every follow-up needs its kind")
        return self

    @property
    def split(self) -> str:
        return split_of(self.id)


def shipped_folder() -> Path:
    return Path(str(resources.files("shu_eval") / "data" / SHIPPED))


def is_conversation_set(path: Path) -> bool:
    """A folder of labelled conversations, or the shipped set's name."""
    if path.is_dir():
        return (path / "conversations.jsonl").is_file() and not (path / "corpus.jsonl").is_file()
    return str(path) == SHIPPED


def folder_of(path: Path) -> Path:
    return path if path.is_dir() else shipped_folder()


def load_conversations(path: Path) -> list[LabelledConversation]:
    """The conversations of a JSONL file; a malformed line is a `LabelledSetError` naming it."""
    return load_records(path, LabelledConversation, "conversations")


# -- judging one turn ------------------------------------------------------------------------


def missing_facts(facts: list[list[str]], answer: Answer) -> list[list[str]]:
    """The facts no spelling of which the answer states (all of them when it declines)."""
    if declined(answer):
        return facts
    text = normalise(said(answer))
    return [fact for fact in facts if not has_fact(text, fact)]


def top_documents(kb: KnowledgeBase, question: str, persona: str, k: int = TOP_K) -> list[str]:
    """The documents of the top `k` chunks `KnowledgeBase.retrieve` ranks, best first."""
    hits = kb.retrieve(question, persona, limit=k).hits[:k]
    return list(dict.fromkeys(hit.chunk.doc_id for hit in hits))


def recall(doc_ids: list[str], found: list[str]) -> float:
    """The share of `doc_ids` among `found`."""
    wanted = set(doc_ids)
    return len(wanted & set(found)) / len(wanted)


@dataclass
class TurnResult:
    conversation: str
    turn: int
    """1 for the first turn, 2 and 3 for the follow-ups."""
    kb: str
    persona: str
    split: str
    kind: str | None
    question: str
    doc_ids: list[str]
    right: bool
    """The answer in the conversation states every fact."""
    missing: list[list[str]]
    declined: bool
    cited: list[str]
    text: str
    standalone: str | None = None
    """What the conversation searched instead of the question (None: the question as asked)."""
    recall_typed: float | None = None
    """Recall@10 (documents) of the question as typed."""
    recall_searched: float | None = None
    """Recall@10 (documents) of what the conversation searched (the rewrite, else the question)."""
    top_typed: list[str] = field(default_factory=list)
    top_searched: list[str] = field(default_factory=list)
    right_alone: bool | None = None
    """A follow-up asked alone, outside the conversation, states every fact."""
    missing_alone: list[list[str]] = field(default_factory=list)
    declined_alone: bool | None = None
    text_alone: str | None = None

    @property
    def follow_up(self) -> bool:
        return self.turn > 1


def ask_conversation(
    kb: KnowledgeBase, conversation: LabelledConversation, k: int = TOP_K
) -> Iterator[TurnResult]:
    """Every turn through a new conversation of the local user; each follow-up also asked alone
    and retrieved as typed and as searched."""
    thread = kb.conversations.start(LOCAL_USER, conversation.persona)
    persona = conversation.persona
    for number, turn in enumerate(conversation.turns, start=1):
        answer = kb.ask(turn.question, persona, use_cache=False, conversation=thread.id)
        missing = missing_facts(turn.facts, answer)
        result = TurnResult(
            conversation=conversation.id,
            turn=number,
            kb=conversation.kb,
            persona=persona,
            split=conversation.split,
            kind=turn.kind,
            question=turn.question,
            doc_ids=turn.doc_ids,
            right=not declined(answer) and not missing,
            missing=missing,
            declined=declined(answer),
            cited=cited_documents(answer),
            text=answer.text,
            standalone=answer.standalone_question,
        )
        result.top_typed = top_documents(kb, turn.question, persona, k)
        result.recall_typed = recall(turn.doc_ids, result.top_typed)
        if number > 1:
            searched = answer.standalone_question or turn.question
            result.top_searched = (
                top_documents(kb, searched, persona, k) if searched != turn.question else result.top_typed
            )
            result.recall_searched = recall(turn.doc_ids, result.top_searched)
            alone = kb.ask(turn.question, persona, use_cache=False)
            result.missing_alone = missing_facts(turn.facts, alone)
            result.declined_alone = declined(alone)
            result.right_alone = not result.declined_alone and not result.missing_alone
            result.text_alone = alone.text
        yield result


def ask_all(
    open_kb: Callable[[str], KnowledgeBase],
    conversations: list[LabelledConversation],
    progress: Progress | None = None,
) -> list[TurnResult]:
    """Each conversation through the knowledge base its `kb` names (`open_kb(name)`)."""
    results: list[TurnResult] = []
    for done, conversation in enumerate(conversations, start=1):
        results.extend(ask_conversation(open_kb(conversation.kb), conversation))
        if progress:
            progress("conversations", done, len(conversations))
    return results


# -- summing up ------------------------------------------------------------------------------


def _mean(values: list[float]) -> float | None:
    return round(fmean(values), 4) if values else None


def _share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summary(results: list[TurnResult]) -> dict[str, Any]:
    """The follow-ups' retrieval and answers without and with the rewrite, and the first turns'
    answers (None where nothing counts)."""
    follow = [r for r in results if r.follow_up]
    first = [r for r in results if not r.follow_up]
    return {
        "conversations": len({r.conversation for r in results}),
        "follow_ups": len(follow),
        "recall_without": _mean([r.recall_typed for r in follow if r.recall_typed is not None]),
        "recall_with": _mean([r.recall_searched for r in follow if r.recall_searched is not None]),
        "found_without": _share([bool(r.recall_typed) for r in follow]),
        "found_with": _share([bool(r.recall_searched) for r in follow]),
        "right_without": _share([bool(r.right_alone) for r in follow]),
        "right_with": _share([r.right for r in follow]),
        "declined_without": _share([bool(r.declined_alone) for r in follow]),
        "declined_with": _share([r.declined for r in follow]),
        "rewritten": _share([r.standalone is not None for r in follow]),
        "first_turns": len(first),
        "first_turn_recall": _mean([r.recall_typed for r in first if r.recall_typed is not None]),
        "first_turn_right": _share([r.right for r in first]),
    }


def _groups(results: list[TurnResult], key: Callable[[TurnResult], str | None]) -> dict[str, Any]:
    names = dict.fromkeys(name for r in results if r.follow_up and (name := key(r)) is not None)
    return {name: summary([r for r in results if key(r) == name]) for name in names}


def results_json(results: list[TurnResult], name: str = SHIPPED) -> dict[str, Any]:
    """Test first, then dev, then both; per kind of follow-up and per persona (both splits)."""
    per_kb: dict[str, dict[str, int]] = {}
    for conversation in dict.fromkeys((r.kb, r.conversation, r.split) for r in results):
        per_kb.setdefault(conversation[0], {s: 0 for s in SPLITS})[conversation[2]] += 1
    return {
        "dataset": name,
        "split_rule": "sha256(conversation id): first byte even -> dev, odd -> test",
        "top_k": TOP_K,
        "knowledge_bases": per_kb,
        **{split: summary([r for r in results if r.split == split]) for split in SPLITS},
        "all": summary(results),
        "per_kind": _groups(results, lambda r: r.kind),
        "per_persona": _groups(results, lambda r: r.persona),
    }


_ROWS = (
    ("follow_ups", "follow-ups"),
    ("recall_without", "Recall@10, follow-up as typed"),
    ("recall_with", "Recall@10, as searched (rewrite)"),
    ("found_without", "an answering document in the top 10, as typed"),
    ("found_with", "an answering document in the top 10, as searched"),
    ("right_without", "correct, asked alone"),
    ("right_with", "correct, in the conversation"),
    ("declined_without", "declined, asked alone"),
    ("declined_with", "declined, in the conversation"),
    ("rewritten", "share rewritten"),
    ("first_turns", "first turns"),
    ("first_turn_recall", "first turns: Recall@10"),
    ("first_turn_right", "first turns: correct"),
)
_SHORT = (
    ("follow_ups", "follow-ups"),
    ("recall_without", "R@10 typed"),
    ("recall_with", "R@10 searched"),
    ("right_without", "correct alone"),
    ("right_with", "correct in conversation"),
    ("rewritten", "rewritten"),
)


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def markdown(data: dict[str, Any]) -> str:
    """The metrics per split (test, dev, all), then per kind of follow-up and per persona."""
    columns = [*SPLITS, "all"]
    lines = [
        f"Follow-ups on the labelled conversations `{data['dataset']}` ({data['split_rule']})",
        "",
        "| | " + " | ".join(f"{c} ({data[c]['conversations']} conversations)" for c in columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for key, label in _ROWS:
        lines.append(f"| {label} | " + " | ".join(_cell(data[c][key]) for c in columns) + " |")
    for title, groups in (("kind of follow-up", data["per_kind"]), ("persona", data["per_persona"])):
        lines += ["", f"| {title} (test and dev) | " + " | ".join(label for _, label in _SHORT) + " |"]
        lines.append("|---|" + "---:|" * len(_SHORT))
        for name, found in groups.items():
            lines.append(f"| {name} | " + " | ".join(_cell(found[key]) for key, _ in _SHORT) + " |")
    return "\n".join(lines) + "\n"


def write(results: list[TurnResult], data: dict[str, Any], folder: Path) -> None:
    """results.json (the metrics), results.md (the tables) and answers.jsonl (one line a turn:
    the answer in the conversation, the rewrite, the documents found, the answer alone)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(
        json.dumps({"conversations": data}, indent=2) + "\n", encoding="utf-8"
    )
    (folder / "results.md").write_text(markdown(data), encoding="utf-8")
    with (folder / "answers.jsonl").open("w", encoding="utf-8") as handle:
        for result in results:
            handle.write(json.dumps(asdict(result), ensure_ascii=False) + "\n")


def evaluate(
    folder: Path,
    open_example: Callable[[str, Path], KnowledgeBase],
    limit: int | None = None,
    progress: Progress | None = None,
    split: str | None = None,
) -> tuple[list[TurnResult], dict[str, Any]]:
    """Read the set in `folder`, open each knowledge base it names (`open_example(name, folder of
    personas)`: a fresh copy, ingested), ask every conversation there (of `split`, the first
    `limit`) and sum up."""
    if split is not None and split not in SPLITS:
        raise LabelledSetError(f"split {split!r}: expected one of {', '.join(SPLITS)}")
    conversations = [
        c for c in load_conversations(folder / "conversations.jsonl") if split is None or c.split == split
    ][:limit]
    folders = load_knowledge_bases(folder)
    needed = sorted({c.kb for c in conversations})
    unknown = [name for name in needed if name not in folders]
    if unknown:
        raise LabelledSetError(f"{folder / 'knowledge_bases.json'}: no folder for {', '.join(unknown)}")
    missing = [str(folders[name]) for name in needed if not folders[name].is_dir()]
    if missing:
        raise LabelledSetError(
            f"{', '.join(missing)}: no such folder of personas (relative folders are taken from the "
            "current directory: run from the repository's root, or name them in knowledge_bases.json)"
        )
    with ExitStack() as stack:
        kbs = {name: stack.enter_context(open_example(name, folders[name])) for name in needed}
        results = ask_all(kbs.__getitem__, conversations, progress)
    return results, results_json(results, folder.name)
