"""`shu eval answers --answers`: answers judged on a labelled set nobody tunes on (issue 26).

The set (`shu_eval/data/answers/questions.jsonl`, or any folder with a `questions.jsonl` and,
optionally, a `knowledge_bases.json` naming the persona folders) was written from the documents
of the example knowledge bases, each line a question with its kind, whether it should be
answered or declined, the facts a right answer states (each with its accepted spellings) and the
documents that hold them. Every question is asked through `KnowledgeBase.ask`, as a user would,
and judged:

- right, for a question to answer: the answer does not decline and every fact has one of its
  spellings in the answer text (citation keys removed; case, punctuation, thousands separators
  and white space normalised; matched on word boundaries);
- right, for a question to decline: the answer declines (`Answer.insufficient`, nothing in the
  knowledge base answers it) or defers (`Answer.out_of_scope`, not the persona's subject).

Reported per split, test first: accuracy, accuracy per kind, document-level Recall@5 and @10 of
retrieval (a search of its own, the documents of the first 50 chunks; a question with `doc_ids`),
false abstention (answerable questions declined), abstention precision and recall, citation
precision (the cited documents that are among the question's `doc_ids`, over answered questions
that cite something), seconds to the first piece of text shown (a streamed model's first token; a
quoted answer arrives whole) and seconds per answer. A run can be kept to one split (`split`) and
to a fixed sample of it (`sample`: the questions whose sha256("sample:" + id) is smallest, the
same on every run), so a slow answerer can be tuned on dev questions without ever reading the test
half. The split is a fixed hash of the question id (`split_of`), never stored, so nobody can move
a question from test to dev by editing the file.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import unicodedata
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from statistics import fmean, median
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

from pydantic import BaseModel, Field, ValidationError, model_validator

from shu.answer.confidence import confidence_features, written, written_features
from shu.answer.stream import AskEvent
from shu.types import Answer

if TYPE_CHECKING:
    from shu.kb import KnowledgeBase

AnswerKind = Literal[
    "value", "who", "when", "where", "why", "resolution", "decision", "comparison", "yesno", "table", "list"
]
BeyondChunksKind = Literal[
    "interpretive", "synthesized", "relational", "structural", "temporal", "which_documents"
]
"""The kinds chunk retrieval answers badly (issue 44; the `beyond-chunks` set asks them)."""
DeclineKind = Literal["absent_entity", "not_in_documents", "out_of_scope"]
Kind = AnswerKind | BeyondChunksKind | DeclineKind
ANSWER_KINDS: tuple[str, ...] = get_args(AnswerKind)
BEYOND_CHUNKS_KINDS: tuple[str, ...] = get_args(BeyondChunksKind)
DECLINE_KINDS: tuple[str, ...] = get_args(DeclineKind)
KINDS = ANSWER_KINDS + BEYOND_CHUNKS_KINDS + DECLINE_KINDS
SPLITS = ("test", "dev")
EXAMPLE_KNOWLEDGE_BASES = {"personas": Path("examples/personas"), "office-kb": Path("examples/office-kb")}
SHIPPED = "answers"
"""The name that means the shipped set (`shu eval answers --answers`)."""

Progress = Callable[[str, int, int], None]
_KEYS = re.compile(r"\[\^[^\]\n]*\]")
_THOUSANDS = re.compile(r"(?<=\d)[,\u00a0\u202f\u2009'](?=\d{3}(?!\d))")
_TOKENS = re.compile(r"\d+(?:\.\d+)*|[^\W_]+")


Record = TypeVar("Record", bound=BaseModel)


class LabelledSetError(ValueError):
    """The labelled set cannot be read: names the file and line."""


class LabelledQuestion(BaseModel):
    id: str = Field(min_length=1)
    kb: str = Field(min_length=1)
    """The knowledge base the question is about (a key of `knowledge_bases.json`)."""
    persona: str = Field(min_length=1)
    question: str = Field(min_length=1)
    kind: Kind
    expect: Literal["answer", "decline"]
    facts: list[list[str]] = Field(default_factory=list)
    """Each inner list is one fact the answer must state, as its accepted spellings."""
    doc_ids: list[str] = Field(default_factory=list)
    """The documents that hold the answer: every one must be found (document-level gold)."""
    answer_type: Literal["facts", "complete_list", "count"] = "facts"
    """What the facts are: facts a right answer states, the items of a list it must give whole,
    or (one fact) the number it counts, `doc_ids` then being the documents counted: a count is
    right when it is the first number the answer states (`stated_count`)."""

    @model_validator(mode="after")
    def _consistent(self) -> LabelledQuestion:
        if self.answer_type == "count" and len(self.facts) != 1:
            raise ValueError("a count has one fact: the number")
        if (self.kind in DECLINE_KINDS) != (self.expect == "decline"):
            raise ValueError(f"kind {self.kind!r} does not go with expect {self.expect!r}")
        if self.expect == "decline" and self.facts:
            raise ValueError("a question to decline has no facts")
        if self.expect == "answer" and not self.facts:
            raise ValueError("a question to answer needs at least one fact")
        for fact in self.facts:
            if not fact or not all(normalise(spelling) for spelling in fact):
                raise ValueError(f"fact {fact!r}: every fact needs spellings with a letter or digit")
        return self

    @property
    def split(self) -> str:
        return split_of(self.id)


def split_of(question_id: str) -> str:
    """`dev` when the first byte of sha256(id) is even, else `test`: fixed, computed, never stored."""
    return "dev" if hashlib.sha256(question_id.encode("utf-8")).digest()[0] % 2 == 0 else "test"


def shipped_folder() -> Path:
    return Path(str(resources.files("shu_eval") / "data" / "answers"))


def is_labelled_set(path: Path) -> bool:
    """A folder of labelled answer questions (not a BEIR dataset), one of its files of questions
    (`public-questions.jsonl`), or the shipped set's name."""
    if path.is_dir():
        return (path / "questions.jsonl").is_file() and not (path / "corpus.jsonl").is_file()
    if path.is_file():
        return path.name.endswith("questions.jsonl")
    return str(path) == SHIPPED


def folder_of(path: Path) -> Path:
    """The set's folder (its `knowledge_bases.json` is there)."""
    if path.is_file():
        return path.parent
    return path if path.is_dir() else shipped_folder()


def questions_of(path: Path) -> Path:
    """The file of questions a set names: the file itself, else its folder's `questions.jsonl`."""
    return path if path.is_file() else folder_of(path) / "questions.jsonl"


def set_name(path: Path) -> str:
    """The set's name in results: its folder's, and the file's when it is not `questions.jsonl`."""
    questions = questions_of(path)
    stem = questions.name.removesuffix(".jsonl")
    folder = folder_of(path).name
    return folder if stem == "questions" else f"{folder}-{stem}"


def load_questions(path: Path) -> list[LabelledQuestion]:
    """The questions of a JSONL file; a malformed line is a `LabelledSetError` naming it."""
    return load_records(path, LabelledQuestion, "questions")


def load_records(path: Path, model: type[Record], what: str) -> list[Record]:
    """The records of a JSONL file, each with a unique `id`; a malformed line, a repeated id or
    an empty file is a `LabelledSetError` naming it."""
    records: list[Record] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = model.model_validate_json(line)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or 'line'}: {error['msg']}"
                for error in exc.errors()
            )
            raise LabelledSetError(f"{path}, line {number}: {problems}") from None
        record_id = str(getattr(record, "id"))  # noqa: B009 — every labelled record has an id
        if record_id in seen:
            first = seen[record_id]
            raise LabelledSetError(f"{path}, line {number}: id {record_id!r} already used on line {first}")
        seen[record_id] = number
        records.append(record)
    if not records:
        raise LabelledSetError(f"{path}: no {what}")
    return records


def load_knowledge_bases(folder: Path) -> dict[str, Path]:
    """Knowledge base name → its folder of personas: `knowledge_bases.json` in the set's folder
    when there is one, else the example knowledge bases (relative paths are taken from the
    current directory, the repository's root)."""
    path = folder / "knowledge_bases.json"
    if not path.is_file():
        return dict(EXAMPLE_KNOWLEDGE_BASES)
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise LabelledSetError(f"{path}: {exc}") from None
    if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
        raise LabelledSetError(f"{path}: expected an object of name → folder")
    return {name: Path(value) for name, value in found.items()}


# -- judging one answer ----------------------------------------------------------------------


def normalise(text: str) -> str:
    """Lower case, compatibility forms (m² → m2), thousands separators dropped (1,200 → 1200),
    every other run of punctuation and white space one space; a decimal point between digits
    stays (3.6 is not 36)."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = _THOUSANDS.sub("", text)
    return " ".join(_TOKENS.findall(text))


def said(answer: Answer) -> str:
    """The answer's text without its citation keys (a document id is not a stated fact)."""
    return _KEYS.sub(" ", answer.text)


def has_fact(normalised_text: str, spellings: Iterable[str]) -> bool:
    padded = f" {normalised_text} "
    return any(f" {normalise(s)} " in padded for s in spellings if normalise(s))


_NUMBER_WORDS = frozenset(
    "no none zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty".split()
)


def stated_count(normalised_text: str) -> str | None:
    """The number an answer states first (digits or a number word): what a count question is
    judged by, so that an answer listing dates and sessions does not count as right for naming
    the number somewhere."""
    for token in normalised_text.split():
        if token.isdigit() or token in _NUMBER_WORDS:
            return token
    return None


def declined(answer: Answer) -> bool:
    """Declined (nothing in the knowledge base answers it), deferred (not the persona's subject), or
    its premise corrected (what it asks about is not so)."""
    return answer.insufficient or answer.out_of_scope or answer.premise


def cited_documents(answer: Answer) -> list[str]:
    return list(dict.fromkeys(c.doc_id for c in answer.citations))


@dataclass
class Graded:
    id: str
    kb: str
    persona: str
    kind: str
    expect: str
    split: str
    question: str
    right: bool
    declined: bool
    missing: list[list[str]]
    """The facts no spelling of which is in the answer."""
    cited: list[str]
    doc_ids: list[str]
    seconds: float
    method: str
    text: str
    first_text_seconds: float | None = None
    """Seconds until the first piece of text was shown (None: not measured)."""
    confidence: float | None = None
    features: dict[str, float] = field(default_factory=dict)
    """What the answer's confidence is computed from: the written answer's features for a
    model's prose, else the quoted reader's (`shu.answer.confidence`); `shu eval-confidence`
    fits weights on them."""
    written: bool = False
    found: list[str] | None = None
    """The documents retrieval ranks for the question, best first (None: not measured)."""

    def document_recall(self, depth: int) -> float | None:
        """The share of `doc_ids` among the first `depth` of `found`, for a question with both."""
        if self.found is None or not self.doc_ids or self.expect != "answer":
            return None
        return len(set(self.doc_ids) & set(self.found[:depth])) / len(set(self.doc_ids))

    @property
    def citation_precision(self) -> float | None:
        """Cited documents among `doc_ids`, for an answered question with `doc_ids` that cites."""
        if self.declined or not self.doc_ids or not self.cited:
            return None
        return sum(doc in self.doc_ids for doc in self.cited) / len(self.cited)


def grade(
    question: LabelledQuestion, answer: Answer, seconds: float, first_text: float | None = None
) -> Graded:
    gave_up = declined(answer)
    text = normalise(said(answer))
    if question.answer_type == "count":
        counted = stated_count(text) in {normalise(s) for s in question.facts[0]}
        missing = [] if gave_up or counted else question.facts
    else:
        missing = [] if gave_up else [fact for fact in question.facts if not has_fact(text, fact)]
    if question.expect == "decline":
        right = gave_up
    else:
        missing = question.facts if gave_up else missing
        right = not gave_up and not missing
    return Graded(
        id=question.id,
        kb=question.kb,
        persona=question.persona,
        kind=question.kind,
        expect=question.expect,
        split=question.split,
        question=question.question,
        right=right,
        declined=gave_up,
        missing=missing,
        cited=cited_documents(answer),
        doc_ids=question.doc_ids,
        seconds=seconds,
        method=answer.method,
        text=answer.text,
        first_text_seconds=first_text,
        confidence=answer.confidence,
        features=written_features(answer, None) if written(answer) else confidence_features(answer, None),
        written=written(answer),
    )


# -- asking and summing up -------------------------------------------------------------------


def ask_all(
    ask: Callable[[LabelledQuestion], Iterable[AskEvent]],
    questions: list[LabelledQuestion],
    progress: Progress | None = None,
    rank: Callable[[LabelledQuestion], list[str]] | None = None,
) -> list[Graded]:
    """Each question through `ask` (a `KnowledgeBase.ask_stream` of its knowledge base), timed:
    to the first piece of text shown (or the answer, when it arrives whole) and to the answer;
    with `rank`, also the documents retrieval ranks for it (`Graded.found`)."""
    graded = []
    for done, question in enumerate(questions, start=1):
        started = time.perf_counter()
        first_text: float | None = None
        answer: Answer | None = None
        for event in ask(question):
            shown = isinstance(event, Answer) or (isinstance(event, str) and bool(event.strip()))
            if first_text is None and shown:
                first_text = time.perf_counter() - started
            if isinstance(event, Answer):
                answer = event
        if answer is None:
            raise AssertionError(f"{question.id}: the answer stream ended without an answer")
        graded.append(grade(question, answer, time.perf_counter() - started, first_text))
        if rank is not None:
            graded[-1].found = rank(question)
        if progress:
            progress("answers", done, len(questions))
    return graded


def select(
    questions: list[LabelledQuestion], split: str | None = None, sample: int | None = None
) -> list[LabelledQuestion]:
    """The questions of one split (None: both), then a fixed sample of `sample` of them (the
    smallest sha256("sample:" + id), so the same questions on every run), in the file's order."""
    if split is not None and split not in SPLITS:
        raise LabelledSetError(f"split {split!r}: expected one of {', '.join(SPLITS)}")
    chosen = [q for q in questions if split is None or q.split == split]
    if sample is not None:
        keep = set(sorted((q.id for q in chosen), key=_sample_rank)[:sample])
        chosen = [q for q in chosen if q.id in keep]
    return chosen


def _sample_rank(question_id: str) -> bytes:
    return hashlib.sha256(f"sample:{question_id}".encode()).digest()


def _share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summary(graded: list[Graded]) -> dict[str, Any]:
    """The metrics over some graded answers (None where no question counts)."""
    answerable = [g for g in graded if g.expect == "answer"]
    to_decline = [g for g in graded if g.expect == "decline"]
    gave_up = [g for g in graded if g.declined]
    precision = [p for g in answerable if (p := g.citation_precision) is not None]
    seconds = [g.seconds for g in graded]
    first = [g.first_text_seconds for g in graded if g.first_text_seconds is not None]
    lengths = [len(_KEYS.sub("", g.text).strip()) for g in graded if not g.declined]
    per_kind = {
        kind: {
            "n": len(rows),
            "right": sum(g.right for g in rows),
            "accuracy": _share([g.right for g in rows]),
            **_recalls(rows),
        }
        for kind in KINDS
        if (rows := [g for g in graded if g.kind == kind])
    }
    return {
        "questions": len(graded),
        "answerable": len(answerable),
        "to_decline": len(to_decline),
        "accuracy": _share([g.right for g in graded]),
        "answer_accuracy": _share([g.right for g in answerable]),
        "decline_accuracy": _share([g.right for g in to_decline]),
        "false_abstention": _share([g.declined for g in answerable]),
        "abstain_precision": _share([g.expect == "decline" for g in gave_up]),
        "abstain_recall": _share([g.declined for g in to_decline]),
        "citation_precision": round(fmean(precision), 4) if precision else None,
        "cited_answers": len(precision),
        "seconds_mean": round(fmean(seconds), 3) if seconds else None,
        "seconds_p50": round(median(seconds), 3) if seconds else None,
        "first_text_mean": round(fmean(first), 3) if first else None,
        "first_text_p50": round(median(first), 3) if first else None,
        "answer_chars_mean": round(fmean(lengths), 1) if lengths else None,
        **_recalls(graded),
        "per_kind": per_kind,
    }


RECALL_DEPTHS = (5, 10)
"""Document-level Recall@k is reported at these depths."""
RANKED_DOCUMENTS = 50
"""How many chunks the ranking of documents reads (`ranked_documents`)."""


def _recalls(graded: list[Graded]) -> dict[str, float | None]:
    """Mean document-level Recall@5 and @10 over the questions measured (None: none was)."""
    found: dict[str, float | None] = {}
    for depth in RECALL_DEPTHS:
        values = [r for g in graded if (r := g.document_recall(depth)) is not None]
        found[f"document_recall_{depth}"] = round(fmean(values), 4) if values else None
    return found


def ranked_documents(kb: KnowledgeBase, question: LabelledQuestion) -> list[str]:
    """The documents of the question's persona retrieval ranks for it, best first: each at its
    best chunk among the first `RANKED_DOCUMENTS`."""
    hits = kb.search(question.question, question.persona, limit=RANKED_DOCUMENTS)
    return list(dict.fromkeys(hit.chunk.doc_id for hit in hits))[: max(RECALL_DEPTHS)]


def results(graded: list[Graded], name: str = SHIPPED) -> dict[str, Any]:
    """Test first, then dev, then both; plus the questions per knowledge base and split."""
    by_kb: dict[str, dict[str, int]] = {}
    for g in graded:
        by_kb.setdefault(g.kb, {s: 0 for s in SPLITS})[g.split] += 1
    methods: dict[str, int] = {}
    for g in graded:
        methods[g.method] = methods.get(g.method, 0) + 1
    return {
        "dataset": name,
        "split_rule": "sha256(id): first byte even -> dev, odd -> test",
        "questions": len(graded),
        "knowledge_bases": by_kb,
        "methods": methods,
        **{split: summary([g for g in graded if g.split == split]) for split in SPLITS},
        "all": summary(graded),
    }


_ROWS = (
    ("accuracy", "accuracy"),
    ("answer_accuracy", "accuracy, questions to answer"),
    ("decline_accuracy", "accuracy, questions to decline"),
    ("false_abstention", "false abstention"),
    ("abstain_precision", "abstention precision"),
    ("abstain_recall", "abstention recall"),
    ("citation_precision", "citation precision"),
    ("document_recall_5", "document Recall@5 (retrieval)"),
    ("document_recall_10", "document Recall@10 (retrieval)"),
    ("first_text_mean", "seconds to first text (mean)"),
    ("first_text_p50", "seconds to first text (p50)"),
    ("seconds_mean", "seconds per answer (mean)"),
    ("seconds_p50", "seconds per answer (p50)"),
    ("answer_chars_mean", "characters per answer given (mean)"),
)


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.1f}" if value >= 10 else f"{value:.3f}"
    return str(value)


def _kind_cell(found: dict[str, Any]) -> str:
    """Accuracy (right/asked), and the documents found at 10 when measured."""
    cell = f"{found['accuracy']:.2f} ({found['right']}/{found['n']})"
    recall = found.get("document_recall_10")
    return cell if recall is None else f"{cell}, R@10 {recall:.2f}"


def markdown(data: dict[str, Any]) -> str:
    """Two tables: the metrics, and accuracy per kind (right/asked), test beside dev."""
    columns = [*SPLITS, "all"]
    head = "| | " + " | ".join(f"{c} ({data[c]['questions']})" for c in columns) + " |"
    lines = [f"Answers on the labelled set `{data['dataset']}` ({data['split_rule']})", "", head]
    lines.append("|---|" + "---:|" * len(columns))
    for key, label in _ROWS:
        lines.append(f"| {label} | " + " | ".join(_cell(data[c][key]) for c in columns) + " |")
    lines += ["", "| kind | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for kind in KINDS:
        cells = []
        for column in columns:
            found = data[column]["per_kind"].get(kind)
            cells.append(_kind_cell(found) if found else "—")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write(graded: list[Graded], data: dict[str, Any], folder: Path) -> None:
    """results.json (the metrics), results.md (the tables) and answers.jsonl (one line a question:
    the answer, whether it was right, the facts it missed)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps({"answers": data}, indent=2) + "\n", encoding="utf-8")
    (folder / "results.md").write_text(markdown(data), encoding="utf-8")
    with (folder / "answers.jsonl").open("w", encoding="utf-8") as handle:
        for g in graded:
            row = asdict(g) | {"citation_precision": g.citation_precision}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def evaluate(
    source: Path,
    open_example: Callable[[str, Path], KnowledgeBase],
    limit: int | None = None,
    progress: Progress | None = None,
    split: str | None = None,
    sample: int | None = None,
) -> tuple[list[Graded], dict[str, Any]]:
    """Read the set in `source` (a set's folder, or one of its files of questions), open each
    knowledge base it names (`open_example(name, its folder)`: a folder of personas, a fresh
    copy ingested; or a corpus in the BEIR layout), ask every question there (of `split`, a
    fixed `sample` of them, the first `limit`) and sum up."""
    folder = folder_of(source)
    questions = select(load_questions(questions_of(source)), split, sample)[:limit]
    folders = load_knowledge_bases(folder)
    needed = sorted({q.kb for q in questions})
    unknown = [name for name in needed if name not in folders]
    if unknown:
        raise LabelledSetError(f"{folder / 'knowledge_bases.json'}: no folder for {', '.join(unknown)}")
    missing = [str(folders[name]) for name in needed if not folders[name].is_dir()]
    if missing:
        raise LabelledSetError(
            f"{', '.join(missing)}: no such folder of personas or corpus (relative folders are taken "
            "from the current directory: run from the repository's root, or name them in "
            "knowledge_bases.json)"
        )
    with ExitStack() as stack:
        kbs = {name: stack.enter_context(open_example(name, folders[name])) for name in needed}
        graded = ask_all(
            lambda q: kbs[q.kb].ask_stream(q.question, q.persona),
            questions,
            progress,
            rank=lambda q: ranked_documents(kbs[q.kb], q),
        )
    return graded, results(graded, set_name(source))
