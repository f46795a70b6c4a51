"""The labelled conversations (issue 28): the reader, the shipped set's labels against the
documents, recall and the judge of a turn, and `shu eval` over a tiny set through the real
`KnowledgeBase` (real ingest, real embedder, real conversations)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shu.serve.cli import app
from shu.types import Answer
from shu_eval import conversations
from shu_eval.conversations import LabelledSetError, load_conversations, missing_facts, recall
from shu_eval.labelled import has_fact, normalise, split_of
from tests.conftest import PersonaMaker, doc

SHIPPED = conversations.shipped_folder() / "conversations.jsonl"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "personas"


def _conversation(**changes: object) -> dict[str, object]:
    row: dict[str, object] = {
        "id": "c-1",
        "kb": "bakery-kb",
        "persona": "bakery",
        "turns": [
            {
                "question": "When does the Crumb Bakery open on weekdays?",
                "facts": [["07:00"]],
                "doc_ids": ["hours"],
            },
            {
                "question": "And when does it close?",
                "facts": [["18:30"]],
                "doc_ids": ["hours"],
                "kind": "attribute",
            },
        ],
    }
    return row | changes


def _write(path: Path, rows: list[dict[str, object] | str]) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8"
    )
    return path


# -- the reader ----------------------------------------------------------------------------------


def test_a_good_conversation_is_read_with_its_turns(tmp_path: Path) -> None:
    (found,) = load_conversations(_write(tmp_path / "conversations.jsonl", [_conversation(), ""]))
    assert [turn.kind for turn in found.turns] == [None, "attribute"]
    assert found.turns[1].facts == [["18:30"]] and found.split == split_of("c-1")


def _turn(kind: str | None = "pronoun") -> dict[str, object]:
    turn: dict[str, object] = {"question": "Who did it?", "facts": [["Ovenworks"]], "doc_ids": ["hours"]}
    return turn | ({"kind": kind} if kind else {})


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ('{"id": "c-2"', "line 2"),
        (json.dumps(_conversation(id="c-2", turns=[_turn(None)])), "at least 2"),
        (json.dumps(_conversation(id="c-2", turns=[_turn(None), *[_turn()] * 3])), "at most 3"),
        (json.dumps(_conversation(id="c-2", turns=[_turn("pronoun"), _turn()])), "stands alone"),
        (json.dumps(_conversation(id="c-2", turns=[_turn(None), _turn(None)])), "needs its kind"),
        (json.dumps(_conversation(id="c-2", turns=[_turn(None), _turn("sarcasm")])), "kind"),
        (json.dumps(_conversation(id="c-2", turns=[_turn(None), _turn() | {"facts": []}])), "facts"),
        (
            json.dumps(_conversation(id="c-2", turns=[_turn(None), _turn() | {"facts": [["--"]]}])),
            "letter or digit",
        ),
        (json.dumps(_conversation()), "already used on line 1"),
    ],
)
def test_a_malformed_conversation_is_a_clear_error_naming_the_line(
    tmp_path: Path, bad: str, words: str
) -> None:
    path = _write(tmp_path / "conversations.jsonl", [_conversation(), bad])
    with pytest.raises(LabelledSetError) as caught:
        load_conversations(path)
    assert f"{path}, line 2" in str(caught.value) and words in str(caught.value)


def _documents() -> dict[str, str]:
    """The example personas' converted documents (id → normalised text)."""
    found = {}
    for path in EXAMPLES.glob("*/RAG/*.md"):
        text = path.read_text(encoding="utf-8")
        doc_id = re.search(r"^id: (.+)$", text, re.M)
        assert doc_id is not None, path
        found[doc_id.group(1).strip()] = normalise(text)
    return found


def test_the_shipped_set_is_big_enough_and_every_follow_up_needs_a_kind() -> None:
    shipped = load_conversations(SHIPPED)
    assert len(shipped) >= 48 and sum(len(c.turns) - 1 for c in shipped) >= 48
    assert {c.persona for c in shipped} == {"lumen-support", "city-garden", "fernhill-ops"}
    assert {c.kb for c in shipped} == {"personas", "office-kb"}
    assert Counter(len(c.turns) for c in shipped).keys() == {2, 3}
    assert set(conversations.FOLLOW_UP_KINDS) == {t.kind for c in shipped for t in c.turns[1:]}
    assert 0.4 <= sum(c.split == "test" for c in shipped) / len(shipped) <= 0.6


def test_every_fact_of_the_example_personas_is_in_a_document_the_turn_lists() -> None:
    documents = _documents()
    for conversation in load_conversations(SHIPPED):
        if conversation.kb != "personas":
            continue  # the office knowledge base's Markdown exists only after an ingest
        for turn in conversation.turns:
            assert set(turn.doc_ids) <= set(documents), (conversation.id, turn.doc_ids)
            for fact in turn.facts:
                assert any(has_fact(documents[d], fact) for d in turn.doc_ids), (conversation.id, fact)


# -- recall and the judge ------------------------------------------------------------------------


def test_recall_is_the_share_of_the_turns_documents_found() -> None:
    assert recall(["a", "b"], ["b", "c", "d"]) == 0.5
    assert recall(["a"], []) == 0.0 and recall(["a", "a"], ["a"]) == 1.0


def test_a_turn_is_right_when_it_states_every_fact_and_does_not_decline() -> None:
    facts = [["18:30", "6:30 pm"], ["weekdays"]]
    said = Answer(question="q", persona="p", text="It closes at 18:30 on weekdays. [^hours:x]", method="t")
    assert missing_facts(facts, said) == []
    half = said.model_copy(update={"text": "It closes at 18:30."})
    assert missing_facts(facts, half) == [["weekdays"]]
    declined = said.model_copy(update={"insufficient": True})
    assert missing_facts(facts, declined) == facts


# -- end to end ----------------------------------------------------------------------------------


def _tiny_set(tmp_path: Path, make_persona: PersonaMaker) -> Path:
    make_persona(
        "bakery",
        tags=["bakery", "bread", "opening hours", "ovens"],
        rag={
            "hours.md": doc(
                "hours",
                "Opening hours",
                "# Opening hours\n\nThe Crumb Bakery opens at 07:00 and closes at 18:30 on weekdays. "
                "On Saturdays it opens at 08:00 and closes at 14:00.\n",
            ),
            "ovens.md": doc(
                "ovens",
                "Ovens",
                "# Ovens\n\nThe stone oven was serviced by Ovenworks on 3 March 2026. The service cost "
                "240 euros and the next one is due in September.\n",
            ),
        },
    )
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "knowledge_bases.json").write_text(json.dumps({"bakery-kb": str(tmp_path / "personas")}))
    oven: dict[str, object] = {
        "id": "c-oven",
        "kb": "bakery-kb",
        "persona": "bakery",
        "turns": [
            {"question": "Who serviced the stone oven?", "facts": [["Ovenworks"]], "doc_ids": ["ovens"]},
            {
                "question": "How much did it cost?",
                "facts": [["240"]],
                "doc_ids": ["ovens"],
                "kind": "pronoun",
            },
            {
                "question": "When is the next one?",
                "facts": [["September"]],
                "doc_ids": ["ovens"],
                "kind": "other",
            },
        ],
    }
    _write(folder / "conversations.jsonl", [_conversation(), oven])
    return folder


def test_shu_eval_asks_each_conversation_and_measures_its_follow_ups(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = _tiny_set(tmp_path, make_persona)
    home = ["--home", str(tmp_path / "h"), "eval", str(folder)]
    refused = CliRunner().invoke(app, [*home, "--answers"])
    assert refused.exit_code == 2 and "labelled conversation set" in refused.output
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [*home, "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert (
        "| Recall@10, follow-up as typed |" in result.output and "| correct, asked alone |" in result.output
    )
    saved = json.loads((out / "results.json").read_text())["conversations"]
    assert saved["dataset"] == "set" and saved["top_k"] == 10
    assert saved["all"]["conversations"] == 2 and saved["all"]["follow_ups"] == 3
    assert saved["all"]["first_turns"] == 2
    assert saved["test"]["follow_ups"] + saved["dev"]["follow_ups"] == 3
    for key in ("recall_without", "recall_with", "right_without", "right_with", "rewritten"):
        assert 0.0 <= saved["all"][key] <= 1.0, key
    assert saved["all"]["first_turn_right"] == 1.0, "both first turns are quoted from their document"
    assert set(saved["per_kind"]) == {"attribute", "pronoun", "other"}
    assert set(saved["per_persona"]) == {"bakery"}
    rows = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert [(r["conversation"], r["turn"]) for r in rows] == [
        ("c-1", 1),
        ("c-1", 2),
        ("c-oven", 1),
        ("c-oven", 2),
        ("c-oven", 3),
    ]
    for row in rows:
        assert row["top_typed"] and len(row["top_typed"]) <= 10
        if row["turn"] == 1:
            assert row["standalone"] is None and row["right_alone"] is None
        else:
            assert row["text_alone"] is not None and isinstance(row["right_alone"], bool)
            assert row["recall_searched"] is not None and row["top_searched"]
    assert "| pronoun |" in (out / "results.md").read_text()
