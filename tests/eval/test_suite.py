"""`shu eval --suite`: datasets found and converted, one table across them with the mean."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from shu.serve.cli import app
from shu_eval.dataset import load_dataset
from shu_eval.enron import convert_enron, self_contained
from shu_eval.suite import default_gaps, suite_markdown

TINY = Path(__file__).parent / "data" / "tiny"
HEADERS = (
    "Message-ID: <{n}.JavaMail.evans@thyme>\nDate: Fri, 25 Aug 2000 03:30:00 -0700 (PDT)\n"
    "From: phillip.allen@enron.com\nTo: {to}\nSubject: {subject}\nMime-Version: 1.0\n"
    "X-From: Phillip K Allen\n\n"
)


def email(number: int, to: str, subject: str, body: str, qas: list[dict[str, object]]) -> dict[str, object]:
    context = HEADERS.format(n=number, to=to, subject=subject) + body
    for qa in qas:
        for answer in qa.get("answers", []):  # type: ignore[attr-defined]
            answer["answer_start"] = context.find(answer["text"])
    return {"paragraphs": [{"context": context, "document_id": number, "qas": qas}]}


def enron_file(folder: Path) -> Path:
    folder.mkdir(parents=True)
    data = {
        "data": [
            email(
                1,
                "sally.beck@enron.com",
                "Gas desk",
                "Sally,\n\nPlease send the gas storage report to sally.beck@enron.com by Friday.\n\nPhillip",
                [
                    {
                        "question": "Who sent the email?",
                        "id": "a",
                        "is_impossible": False,
                        "answers": [{"text": "phillip.allen@enron.com"}],
                    },
                    {
                        "question": "What is the email address of Sally Beck?",
                        "id": "b",
                        "is_impossible": False,
                        "answers": [{"text": "sally.beck@enron.com"}],
                    },
                    {
                        "question": "What is the phone number of Sally Beck?",
                        "id": "c",
                        "is_impossible": True,
                        "answers": [],
                    },
                ],
            ),
            email(
                2,
                "hunter.shively@enron.com",
                "Promotion of Tori Kuykendall",
                "Hunter,\n\nTori Kuykendall should be promoted to commercial manager. "
                "Copy sally.beck@enron.com.\n\nPhillip",
                [
                    {
                        "question": "What is the email address of Sally Beck?",
                        "id": "d",
                        "is_impossible": False,
                        "answers": [{"text": "sally.beck@enron.com"}],
                    },
                    {
                        "question": "Who should be promoted to commercial manager?",
                        "id": "e",
                        "is_impossible": False,
                        "answers": [{"text": "Tori Kuykendall"}],
                    },
                ],
            ),
        ]
    }
    path = folder / "enron_annotated.json"
    path.write_text(json.dumps(data))
    return path


def test_questions_about_the_mail_in_hand_are_left_out() -> None:
    assert not self_contained("Who sent the email?")
    assert not self_contained("What is the phone number of the sender?")
    assert self_contained("What is the email address of Sally Beck?")
    assert not self_contained("Who should be promoted to commercial manager?"), "names no one"


def test_the_enron_file_becomes_a_dataset_of_chunks_through_shus_own_converter(tmp_path: Path) -> None:
    folder = convert_enron(enron_file(tmp_path / "src"), tmp_path / "out")
    dataset = load_dataset(folder)
    assert sorted(d.id for d in dataset.documents) == ["email-1", "email-2"]
    first = next(d for d in dataset.documents if d.id == "email-1")
    assert first.title == "Gas desk" and first.meta["date"] == "2000-08-25"
    assert first.meta["author"] == "phillip.allen@enron.com"
    text = " ".join(c.text for c in first.chunks)
    assert "Mime-Version" not in text and "X-From" not in text, "MIME and X- headers are not text"
    assert [q.text for q in dataset.queries] == ["What is the email address of Sally Beck?"]
    relevant = dataset.qrels[dataset.queries[0].id]
    assert {row.split("#")[0] for row in relevant} == {"email-1", "email-2"}, "every mail holding the answer"
    rows = [json.loads(line) for line in (folder / "queries.jsonl").read_text().splitlines()]
    assert [(r["text"], r["metadata"]["answerable"]) for r in rows] == [
        ("What is the email address of Sally Beck?", True),
        ("What is the phone number of Sally Beck?", False),
    ]


def test_the_suite_runs_every_dataset_found_and_reports_the_mean(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data / "tiny")
    enron_file(data / "enron-mini")
    out = tmp_path / "out"
    args = ["--home", str(tmp_path / "h"), "eval", "--suite", "all", "--data", str(data), "--configs", "bm25"]
    result = CliRunner().invoke(app, [*args, "--output", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "suite.json").read_text())
    assert list(summary["datasets"]) == ["relations", "enron-mini", "tiny"]
    tiny = summary["metrics"]["nDCG@10"]["bm25"]
    assert tiny["tiny"] == 1.0
    means = [tiny[name] for name in summary["datasets"]]
    assert abs(tiny["mean"] - sum(means) / 3) < 1e-9
    assert "| nDCG@10 | relations | enron-mini | tiny | mean |" in result.output
    assert (out / "tiny" / "results.json").is_file() and (out / "suite.md").is_file()

    again = CliRunner().invoke(app, [*args[:4], "tiny,relations", "--data", str(data), "--output", str(out)])
    assert again.exit_code == 0, again.output
    assert list(json.loads((out / "suite.json").read_text())["datasets"]) == ["tiny", "relations"]


def test_bad_suite_requests_are_clear_errors(tmp_path: Path) -> None:
    home = ["--home", str(tmp_path / "h"), "eval"]
    unknown = CliRunner().invoke(app, [*home, "--suite", "nope", "--data", str(TINY.parent)])
    assert unknown.exit_code == 2 and "unknown dataset(s) nope" in unknown.output
    both = CliRunner().invoke(app, [*home, str(TINY), "--suite", "all"])
    assert both.exit_code == 2 and "not both" in both.output
    missing = CliRunner().invoke(app, [*home, "--suite", "all", "--data", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "no such folder" in missing.output


def test_the_report_flags_a_default_far_from_the_best() -> None:
    recall = {"default": {"a": 0.80, "b": 0.70}, "hybrid": {"a": 0.802, "b": 0.75}}
    gaps = default_gaps(recall, ["a", "b"])
    assert gaps == {"a": {"best": "hybrid", "gap": 0.002}, "b": {"best": "hybrid", "gap": 0.05}}
    data = {
        "datasets": {"a": {"queries": 1, "rows": 1}, "b": {"queries": 1, "rows": 1}},
        "metrics": {"Recall@10": recall},
        "default_gap_r10": gaps,
    }
    text = suite_markdown(data)
    assert (
        "`b`: best `hybrid`, default +0.0500 below" in text and "`a`" not in text.split("below the best:")[1]
    )
