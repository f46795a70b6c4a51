"""`shu eval --answers`: answer metrics on gold answers, citations and abstention."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from shu.serve.cli import app
from shu.types import Answer, Citation
from shu_eval.answers import contains, normalise, right, score, token_f1
from shu_eval.dataset import EvalQuery, load_dataset

TINY = Path(__file__).parent / "data" / "tiny"


def test_squad_normalisation_containment_and_f1() -> None:
    assert normalise("The  Laki fissure!") == "laki fissure"
    assert contains("It was the Laki fissure, in 1783. [^laki:Laki]", ["laki fissure"])
    assert not contains("Lakis", ["laki"])
    assert token_f1("the Laki fissure erupted", ["Laki fissure"]) == 0.8
    assert token_f1("nothing", ["Laki"]) == 0.0


def answer(text: str, cited: list[str], insufficient: bool = False) -> Answer:
    citations = [Citation(key=f"[^d:{c}]", doc_id="d", section_path=c, chunk_id=c, title="T") for c in cited]
    return Answer(
        question="q", persona="p", text=text, method="test", citations=citations, insufficient=insufficient
    )


def test_citations_and_abstention_are_scored_against_the_gold() -> None:
    queries = [
        EvalQuery("a1", "q", "p", answers=["1783"], answerable=True),
        EvalQuery("a2", "q", "p", answers=["spring"], answerable=True),
        EvalQuery("u1", "q", "p", answerable=False),
        EvalQuery("u2", "q", "p", answerable=False),
    ]
    answered = [
        (queries[0], answer("It erupted in 1783. [^d:r1]", ["r1", "r9"])),
        (queries[1], answer("nothing here", [], insufficient=True)),
        (queries[2], answer("declined", [], insufficient=True)),
        (queries[3], answer("a made-up answer [^d:r5]", ["r5"])),
    ]
    metrics, counts = score(answered, {"a1": {"r1": 1}, "a2": {"r2": 1}})
    assert metrics["answer_contains"] == 0.5 and metrics["citation_precision"] == 0.5
    assert metrics["citation_recall"] == 0.5, "a1 cites its one relevant row, a2 cites nothing"
    assert metrics["abstain_precision"] == 0.5 and metrics["abstain_recall"] == 0.5
    assert metrics["false_abstain"] == 0.5
    assert counts == {"asked": 4, "answerable": 2, "unanswerable": 2, "abstained": 2} | {
        "deferred": 0,
        "generated": 0,
        "fell_back": 0,
        "keys_removed": 0,
        "uncited_sentences": 0,
        "corrected": 0,
        "corrections_kept": 0,
        "agent_runs": 0,
        "agent_steps": 0,
    }
    assert [right(q, a, {"a1": {"r1": 1}}) for q, a in answered] == [True, False, True, False]


def test_the_command_reports_answers_beside_retrieval(tmp_path: Path) -> None:
    data = tmp_path / "tiny"
    shutil.copytree(TINY, data)
    rows = [json.loads(line) for line in (data / "queries.jsonl").read_text().splitlines()]
    rows[0]["metadata"]["answers"] = ["Laki"]
    rows[4]["metadata"]["answerable"] = False  # q9 has no qrels: asked only for abstention
    (data / "queries.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert [q.id for q in load_dataset(data).answer_queries] == ["q1", "q9"]
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "--home",
            str(tmp_path / "h"),
            "eval",
            str(data),
            "--configs",
            "bm25",
            "--answers",
            "--output",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    found = json.loads((out / "results.json").read_text())["answers"]
    assert found["answerer"] == "extractive" and found["asked"] == 2 and found["unanswerable"] == 1
    assert found["answer_contains"] == 1.0, "the Laki sentence is quoted"
    assert "| answer_contains | 1.0000 |" in result.output


def test_answer_presets_side_by_side_with_confidence_calibrated(tmp_path: Path) -> None:
    data = tmp_path / "data" / "tiny"
    shutil.copytree(TINY, data)
    rows = [json.loads(line) for line in (data / "queries.jsonl").read_text().splitlines()]
    rows[0]["metadata"]["answers"] = ["Laki"]
    rows[1]["metadata"]["answers"] = ["no such answer"]
    rows[4]["metadata"]["answerable"] = False
    (data / "queries.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "out"
    arguments = ["--home", str(tmp_path / "h"), "eval", "--suite", "all", "--data", str(tmp_path / "data")]
    arguments += ["--configs", "bm25", "--answer-configs", "plain,+crag,agent-always", "--output", str(out)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    found = json.loads((out / "tiny" / "results.json").read_text())["answers"]
    assert list(found["configs"]) == ["plain", "+crag", "agent-always"]
    assert found["configs"]["agent-always"]["agent_runs"] == found["configs"]["agent-always"]["asked"]
    assert found["configs"]["plain"]["agent_runs"] == 0 and found["configs"]["plain"]["corrected"] == 0
    assert "| answers | plain | +crag | agent-always |" in result.output
    assert "Answer confidence on held-out questions" in result.output
    assert (out / "confidence.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = CliRunner().invoke(app, [*arguments[:7], "--answer-configs", "plain,+magic"])
    assert bad.exit_code != 0 and "unknown answer config" in bad.output
