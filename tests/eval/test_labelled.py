"""The labelled answer set (issue 26): its reader, the fixed hash split, the judge of one answer,
the summary, and one run end to end through the real `KnowledgeBase.ask`."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shu.kb import open_kb
from shu.serve.cli import app
from shu.types import Answer, Citation
from shu_eval import labelled
from shu_eval.labelled import LabelledQuestion, LabelledSetError, grade, load_questions, normalise, split_of
from tests.conftest import CountingEmbedder, PersonaMaker, doc

SHIPPED = Path(labelled.shipped_folder()) / "questions.jsonl"


def _row(**changes: object) -> dict[str, object]:
    row: dict[str, object] = {
        "id": "q-1",
        "kb": "personas",
        "persona": "lumen-support",
        "question": "How long are backups kept?",
        "kind": "value",
        "expect": "answer",
        "facts": [["35 days", "thirty-five days"]],
        "doc_ids": ["policy"],
    }
    return row | changes


def _write(path: Path, rows: list[dict[str, object] | str]) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8"
    )
    return path


def _answer(
    text: str, cited: tuple[str, ...] = (), insufficient: bool = False, out_of_scope: bool = False
) -> Answer:
    citations = [
        Citation(key=f"[^{d}:s]", doc_id=d, section_path="s", chunk_id=f"{d}#s", title=d) for d in cited
    ]
    return Answer(
        question="q",
        persona="p",
        text=text,
        method="extractive",
        citations=citations,
        insufficient=insufficient,
        out_of_scope=out_of_scope,
    )


def _question(**changes: object) -> LabelledQuestion:
    return LabelledQuestion.model_validate(_row(**changes))


# -- the reader --------------------------------------------------------------------------------


def test_good_rows_are_read_with_their_facts_and_documents(tmp_path: Path) -> None:
    decline = _row(id="q-2", kind="absent_entity", expect="decline", facts=[], doc_ids=[])
    path = _write(tmp_path / "questions.jsonl", [_row(), "", decline])
    first, second = load_questions(path)
    assert first.facts == [["35 days", "thirty-five days"]]
    assert first.doc_ids == ["policy"]
    assert (second.kind, second.expect, second.facts) == ("absent_entity", "decline", [])


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ('{"id": "q-2", "kb": "personas"', "line 2"),
        (json.dumps(_row(id="q-2", kind="opinion")), "kind"),
        (json.dumps(_row(id="q-2", facts=[])), "needs at least one fact"),
        (json.dumps(_row(id="q-2", kind="out_of_scope", expect="answer")), "does not go with"),
        (json.dumps(_row(id="q-2", kind="out_of_scope", expect="decline")), "has no facts"),
        (json.dumps(_row(id="q-2", facts=[["..."]])), "letter or digit"),
        (json.dumps(_row()), "already used on line 1"),
        (json.dumps(_row(id="q-2", answer_type="count", facts=[["3"], ["4"]])), "a count has one fact"),
        (json.dumps(_row(id="q-2", answer_type="everything")), "answer_type"),
    ],
)
def test_a_malformed_row_is_a_clear_error_naming_the_line(tmp_path: Path, bad: str, words: str) -> None:
    path = _write(tmp_path / "questions.jsonl", [_row(), bad])
    with pytest.raises(LabelledSetError) as caught:
        load_questions(path)
    assert f"{path}, line 2" in str(caught.value)
    assert words in str(caught.value)


def test_the_kinds_chunk_retrieval_answers_badly_are_read_with_what_their_facts_are(tmp_path: Path) -> None:
    rows = [
        _row(id="q-list", kind="which_documents", answer_type="complete_list", facts=[["FAQ"], ["Pricing"]]),
        _row(id="q-count", kind="structural", answer_type="count", facts=[["3", "three"]]),
        _row(id="q-sum", kind="synthesized"),
    ]
    questions = load_questions(_write(tmp_path / "questions.jsonl", rows))
    assert [(q.kind, q.answer_type) for q in questions] == [
        ("which_documents", "complete_list"),
        ("structural", "count"),
        ("synthesized", "facts"),
    ]
    assert set(labelled.BEYOND_CHUNKS_KINDS) <= set(labelled.KINDS)


def test_the_shipped_set_is_big_enough_and_covers_every_kind() -> None:
    questions = load_questions(SHIPPED)
    kinds = Counter(q.kind for q in questions)
    assert len(questions) >= 150
    assert all(kinds[kind] >= 8 for kind in labelled.ANSWER_KINDS)
    assert kinds["absent_entity"] >= 12
    assert kinds["not_in_documents"] >= 8 and kinds["out_of_scope"] >= 8
    assert {q.kb for q in questions} == {"personas", "office-kb"}
    assert {q.persona for q in questions} == {"lumen-support", "city-garden", "fernhill-ops"}
    assert all(q.doc_ids for q in questions if q.expect == "answer")


# -- the split ----------------------------------------------------------------------------------


def test_the_split_is_the_parity_of_the_first_byte_of_sha256() -> None:
    for question_id in ("lumen-incident-cause", "garden-officers", "office-door-code", "x"):
        first = hashlib.sha256(question_id.encode()).digest()[0]
        assert split_of(question_id) == ("dev" if first % 2 == 0 else "test")
        assert _question(id=question_id).split == split_of(question_id)


def test_the_split_of_the_shipped_set_is_stable_and_near_half() -> None:
    questions = load_questions(SHIPPED)
    # pinned: these ids must never change side (a change would move questions between splits)
    assert split_of("lumen-incident-cause") == "dev"
    assert split_of("garden-april-decisions") == "test"
    assert split_of("office-press2-resolution") == "dev"
    test = sum(q.split == "test" for q in questions)
    assert 0.4 <= test / len(questions) <= 0.6


# -- judging one answer ------------------------------------------------------------------------


def test_normalise_drops_case_punctuation_and_thousands_separators_but_keeps_decimals() -> None:
    assert normalise("The Pro plan: 1,200 requests/min!") == "the pro plan 1200 requests min"
    assert normalise("3.6%") == "3.6" and normalise("3.6%") != normalise("36%")
    assert normalise("12 m²") == "12 m2"
    assert normalise("E-214") == normalise("e 214")


def test_an_answer_with_every_fact_is_right() -> None:
    question = _question(facts=[["16 workers", "16"], ["64"], ["timeout", "time limit"]])
    answer = _answer("The pool ran with 16 workers instead of 64, and jobs had no time limit. [^pm:root]")
    graded = grade(question, answer, 0.5)
    assert graded.right and graded.missing == [] and not graded.declined


def test_an_answer_missing_one_fact_is_wrong_and_names_it() -> None:
    question = _question(facts=[["16"], ["64"], ["timeout", "time limit"]])
    graded = grade(question, _answer("The pool ran with 16 workers instead of 64."), 0.5)
    assert not graded.right
    assert graded.missing == [["timeout", "time limit"]]


def test_an_alternative_spelling_and_number_format_count() -> None:
    question = _question(facts=[["35 days", "thirty-five days"], ["1,000,000", "1 million"]])
    assert grade(question, _answer("Thirty-five days; exports up to 1000000 rows."), 0.1).right
    assert not grade(question, _answer("Thirty days; exports up to 1000000 rows."), 0.1).right


def test_facts_match_whole_words_only() -> None:
    question = _question(facts=[["16"]])
    assert not grade(question, _answer("It had 160 workers."), 0.1).right
    assert not grade(question, _answer("Version 3.16 was out."), 0.1).right


def test_a_citation_key_is_not_a_stated_fact() -> None:
    question = _question(facts=[["2026-03-incident-postmortem"]])
    graded = grade(question, _answer("See the postmortem. [^2026-03-incident-postmortem:root]"), 0.1)
    assert not graded.right


def test_a_declined_answer_to_an_answerable_question_is_wrong_even_if_it_names_the_fact() -> None:
    question = _question(facts=[["35 days"]])
    graded = grade(question, _answer("Nothing says whether backups last 35 days.", insufficient=True), 0.1)
    assert not graded.right and graded.declined and graded.missing == [["35 days"]]


def test_a_decline_is_right_only_when_the_question_is_to_decline() -> None:
    absent = _question(kind="absent_entity", expect="decline", facts=[], doc_ids=[])
    assert grade(absent, _answer("I could not find the CEO's phone number.", insufficient=True), 0.1).right
    assert grade(absent, _answer("Not my subject.", out_of_scope=True), 0.1).right
    assert not grade(absent, _answer("Call 555-0100. [^faq:support]", cited=("faq",)), 0.1).right


def test_citation_precision_counts_cited_documents_among_the_gold_ones() -> None:
    question = _question(doc_ids=["policy", "faq"])
    graded = grade(question, _answer("35 days.", cited=("policy", "pricing", "policy")), 0.1)
    assert graded.cited == ["policy", "pricing"]
    assert graded.citation_precision == 0.5
    assert grade(question, _answer("35 days."), 0.1).citation_precision is None


def test_the_summary_reports_abstention_and_per_kind_accuracy() -> None:
    answerable = _question(id="a", facts=[["35 days"]])
    table = _question(id="b", kind="table", facts=[["$42", "42"]])
    absent = _question(id="c", kind="absent_entity", expect="decline", facts=[], doc_ids=[])
    out_of_scope = _question(id="d", kind="out_of_scope", expect="decline", facts=[], doc_ids=[])
    graded = [
        grade(answerable, _answer("Backups: 35 days.", cited=("policy",)), 1.0),
        grade(table, _answer("No idea.", insufficient=True), 2.0),
        grade(absent, _answer("Not found.", insufficient=True), 3.0),
        grade(out_of_scope, _answer("The capital is Canberra. [^x:y]", cited=("x",)), 4.0),
    ]
    found = labelled.summary(graded)
    assert found["accuracy"] == 0.5
    assert found["false_abstention"] == 0.5  # the table question
    assert found["abstain_precision"] == 0.5  # two declines, one right
    assert found["abstain_recall"] == 0.5  # out of scope was answered
    assert found["citation_precision"] == 1.0  # only the answered answerable question counts
    assert found["seconds_mean"] == 2.5
    unmeasured = {"document_recall_5": None, "document_recall_10": None}
    assert found["per_kind"]["table"] == {"n": 1, "right": 0, "accuracy": 0.0} | unmeasured
    assert found["per_kind"]["value"] == {"n": 1, "right": 1, "accuracy": 1.0} | unmeasured
    assert found["document_recall_10"] is None  # no question's documents were ranked
    data = labelled.results(graded)
    assert list(data)[:7] == [
        "dataset",
        "split_rule",
        "questions",
        "knowledge_bases",
        "methods",
        "test",
        "dev",
    ]
    table_md = labelled.markdown(data)
    assert "| absent_entity |" in table_md and "abstention recall" in table_md


# -- end to end --------------------------------------------------------------------------------


def _tiny_set(tmp_path: Path, make_persona: PersonaMaker) -> Path:
    make_persona(
        "bakery",
        tags=["bakery", "bread", "opening hours", "ovens"],
        rag={
            "hours.md": doc(
                "hours",
                "Opening hours",
                "# Opening hours\n\nThe Crumb Bakery opens at 07:00 and closes at 18:30 on weekdays.\n\n"
                "## Ovens\n\nThe stone oven was serviced by Ovenworks on 3 March 2026.\n",
            )
        },
    )
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "knowledge_bases.json").write_text(json.dumps({"bakery-kb": str(tmp_path / "personas")}))
    common = {"kb": "bakery-kb", "persona": "bakery"}
    rows = [
        _row(
            id="t-hours",
            question="When does the Crumb Bakery close on weekdays?",
            kind="when",
            facts=[["18:30"]],
            doc_ids=["hours"],
            **common,
        ),
        _row(
            id="t-oven",
            question="Who serviced the stone oven?",
            kind="who",
            facts=[["Ovenworks"]],
            doc_ids=["hours"],
            **common,
        ),
        _row(
            id="t-capital",
            question="What is the capital of Peru?",
            kind="out_of_scope",
            expect="decline",
            facts=[],
            doc_ids=[],
            **common,
        ),
    ]
    _write(folder / "questions.jsonl", rows)
    return folder


def test_a_tiny_set_runs_end_to_end_through_kb_ask(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    folder = _tiny_set(tmp_path, make_persona)
    opened = []

    def open_example(name: str, personas: Path):  # type: ignore[no-untyped-def]
        kb = open_kb(tmp_path / f"home-{name}", ["answer.cache=false"], embedder=embedder)
        kb.ingest(personas)
        opened.append(kb)
        return kb

    graded, data = labelled.evaluate(folder, open_example)
    by_id = {g.id: g for g in graded}
    assert len(opened) == 1 and set(by_id) == {"t-hours", "t-oven", "t-capital"}
    assert by_id["t-hours"].right and by_id["t-hours"].cited == ["hours"]
    assert by_id["t-oven"].right
    assert by_id["t-capital"].right and by_id["t-capital"].declined
    assert data["all"]["accuracy"] == 1.0 and data["all"]["citation_precision"] == 1.0
    assert data["test"]["questions"] + data["dev"]["questions"] == 3
    labelled.write(graded, data, tmp_path / "out")
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["answers"]["all"]["questions"] == 3
    assert len((tmp_path / "out" / "answers.jsonl").read_text().splitlines()) == 3


# -- every dataset's answer metrics are saved, not only printed ----------------------------------


def test_answer_metrics_are_saved_beside_the_retrieval_results(tmp_path: Path) -> None:
    from shu_eval.answers import answers_record, save_answers

    data = {
        "answerer": "extractive",
        "answer_contains": 0.75,
        "asked": 4,
        "evidence": [[True, 0.5]],
        "confidence": [["q1", {}, True, 0.9]],
        "configs": {"plain": {"answer_contains": 0.5, "asked": 4, "evidence": [[True, 0.1]]}},
    }
    record = answers_record(data)
    assert record["answer_contains"] == 0.75 and "evidence" not in record and "confidence" not in record
    assert record["configs"]["plain"] == {"answer_contains": 0.5, "asked": 4}
    (tmp_path / "results.md").write_text("retrieval table\n", encoding="utf-8")
    save_answers(tmp_path, "scifact", data)
    written = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert written.startswith("retrieval table\n")
    assert "| answers | scifact |" in written and "| answer_contains | 0.7500 |" in written
    assert "| answers | plain |" in written


def test_shu_eval_reads_a_labelled_set_and_saves_its_results(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    folder = _tiny_set(tmp_path, make_persona)
    home = ["--home", str(tmp_path / "h"), "eval", str(folder)]
    refused = CliRunner().invoke(app, home)
    assert refused.exit_code == 2 and "run it with --answers" in refused.output
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [*home, "--answers", "--output", str(out)])
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "results.json").read_text())["answers"]
    assert saved["dataset"] == "set" and saved["all"]["questions"] == 3
    assert saved["test"]["questions"] + saved["dev"]["questions"] == 3
    assert saved["all"]["per_kind"]["out_of_scope"]["n"] == 1
    assert "| absent_entity |" in (out / "results.md").read_text() and "| accuracy |" in result.output
    assert {json.loads(line)["id"] for line in (out / "answers.jsonl").read_text().splitlines()} == {
        "t-hours",
        "t-oven",
        "t-capital",
    }


def test_a_run_can_keep_one_split_and_a_fixed_sample_of_it() -> None:
    questions = [_question(id=f"q-{n}") for n in range(40)]
    dev = labelled.select(questions, "dev")
    assert dev and all(q.split == "dev" for q in dev) and len(dev) < len(questions)
    sample = labelled.select(questions, "dev", 5)
    assert len(sample) == 5 and sample == labelled.select(list(reversed(questions)), "dev", 5)[::-1]
    assert [q.id for q in sample] == [q.id for q in dev if q in sample], "kept in the file's order"
    assert labelled.select(questions, None, 3) == labelled.select(questions, None, 3)
    with pytest.raises(LabelledSetError, match="split 'train'"):
        labelled.select(questions, "train")


def test_time_to_the_first_text_shown_is_measured_from_the_stream() -> None:
    question = _question(facts=[["35 days"]])
    streamed = labelled.ask_all(
        lambda q: iter(["", "Backups: ", "35 days.", _answer("Backups: 35 days.")]), [question]
    )
    whole = labelled.ask_all(lambda q: iter([_answer("Backups: 35 days.")]), [question])
    for graded in (streamed[0], whole[0]):
        assert graded.right and graded.first_text_seconds is not None
        assert graded.first_text_seconds <= graded.seconds
    found = labelled.summary(streamed + whole)
    assert found["first_text_mean"] is not None and found["first_text_p50"] is not None


def test_shu_eval_runs_one_split_of_a_labelled_set(tmp_path: Path, make_persona: PersonaMaker) -> None:
    folder = _tiny_set(tmp_path, make_persona)
    out = tmp_path / "out"
    args = ["--home", str(tmp_path / "h"), "eval", str(folder), "--answers", "--split", "test"]
    result = CliRunner().invoke(app, [*args, "--output", str(out)])
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "results.json").read_text())["answers"]
    assert saved["dev"]["questions"] == 0 and saved["test"]["questions"] == sum(
        split_of(i) == "test" for i in ("t-hours", "t-oven", "t-capital")
    )


def test_the_probe_set_loads_and_asks_nothing_the_shipped_set_asks() -> None:
    probe = SHIPPED.parent.parent / "answers-probe"
    questions = labelled.load_questions(probe / "questions.jsonl")
    shipped = labelled.load_questions(SHIPPED)
    assert len(questions) == 56 and len({q.id for q in questions}) == 56
    assert not {q.id for q in questions} & {q.id for q in shipped}
    assert not {q.question for q in questions} & {q.question for q in shipped}
    assert set(labelled.load_knowledge_bases(probe)) == {q.kb for q in questions}


def test_document_recall_is_the_share_of_the_documents_to_find_among_the_first_k_ranked() -> None:
    two = _question(id="a", facts=[["35 days"]], doc_ids=["policy", "pricing"])
    graded = grade(two, _answer("Backups: 35 days.", cited=("policy",)), 1.0)
    graded.found = ["faq", "policy", "a", "b", "c", "pricing"]
    assert graded.document_recall(5) == 0.5 and graded.document_recall(10) == 1.0
    absent = _question(id="c", kind="absent_entity", expect="decline", facts=[], doc_ids=[])
    declined = grade(absent, _answer("Not found.", insufficient=True), 1.0)
    declined.found = ["faq"]
    assert declined.document_recall(5) is None  # nothing to find
    found = labelled.summary([graded, declined])
    assert found["document_recall_5"] == 0.5 and found["document_recall_10"] == 1.0
    assert found["per_kind"]["value"]["document_recall_5"] == 0.5
    assert "R@10 1.00" in labelled.markdown(labelled.results([graded, declined]))


def test_a_file_of_questions_about_a_corpus_is_asked_of_the_corpus_built_once(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    tiny = Path(__file__).parent / "data" / "tiny"
    (folder / "knowledge_bases.json").write_text(json.dumps({"tiny": str(tiny)}), encoding="utf-8")
    row = _row(
        id="p-laki",
        kb="tiny",
        persona="geo",
        question="When did the Laki fissure erupt?",
        kind="when",
        facts=[["1783"]],
        doc_ids=["r1"],
    )
    questions = folder / "public-questions.jsonl"
    _write(questions, [row])
    assert labelled.is_labelled_set(questions) and labelled.set_name(questions) == "set-public-questions"
    home = ["--home", str(tmp_path / "h"), "eval", str(questions), "--answers", "--output"]
    result = CliRunner().invoke(app, [*home, str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    saved = json.loads((tmp_path / "out" / "results.json").read_text())["answers"]
    assert saved["dataset"] == "set-public-questions" and saved["all"]["accuracy"] == 1.0
    assert saved["all"]["document_recall_5"] == 1.0
    built = list((tmp_path / "h" / "eval-cache").glob("tiny-*/build.json"))
    assert len(built) == 1
    again = CliRunner().invoke(app, [*home, str(tmp_path / "again")])
    assert again.exit_code == 0, again.output
    assert list((tmp_path / "h" / "eval-cache").glob("tiny-*/build.json")) == built  # built once


def test_a_count_is_right_only_when_it_is_the_first_number_the_answer_states() -> None:
    count = _question(id="n", kind="structural", answer_type="count", facts=[["6", "six"]], doc_ids=["a"])
    assert grade(count, _answer("6 chats mention the store: session 2, session 9."), 0.1).right
    assert grade(count, _answer("Six chats mention it."), 0.1).right
    wrong = grade(count, _answer("12 chats mention the store: session 6, 3 June."), 0.1)
    assert not wrong.right and wrong.missing == [["6", "six"]]
    assert not grade(count, _answer("The store came up often."), 0.1).right


@pytest.mark.parametrize(
    ("knowledge_bases", "said"),
    [
        ('{"tiny": "/nonexistent/corpus"}', "/nonexistent/corpus: no such folder of personas"),
        ('{"tiny": ', "knowledge_bases.json: Expecting value"),
        ('["tiny"]', "expected an object of name → folder"),
        ('{"tiny": 3}', "expected an object of name → folder"),
    ],
)
def test_a_public_file_whose_knowledge_base_is_missing_or_misnamed_is_a_clear_error(
    tmp_path: Path, knowledge_bases: str, said: str
) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "knowledge_bases.json").write_text(knowledge_bases, encoding="utf-8")
    row = _row(
        id="p-1", kb="tiny", persona="geo", question="When?", kind="when", facts=[["1783"]], doc_ids=["r1"]
    )
    questions = folder / "public-questions.jsonl"
    _write(questions, [row])
    result = CliRunner().invoke(app, ["--home", str(tmp_path / "h"), "eval", str(questions), "--answers"])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.exception
    assert said in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output
