"""`shu eval-replay`: recorded replies of a capable model replayed through the real pipeline."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from shu.kb import KnowledgeBase
from shu.models.embed.minilm import MiniLMEmbedder
from shu.models.llm.base import LLMError, Message
from shu_eval import labelled
from shu_eval.recordings import Recorded, claim_lines, load_recordings
from shu_eval.replay import asking, build_example, recorded_questions, replay_all
from shu_eval.replay_model import ReplayModel
from shu_eval.replay_report import said_text, summary

RECORDINGS = Path(__file__).resolve().parents[3] / "shared" / "data" / "capable-model-replies"
THREE = ["lumen-more-keys-no-help", "lumen-business-plan-price", "lumen-staff-ask-password"]
needs_recordings = pytest.mark.skipif(not RECORDINGS.is_dir(), reason=f"no recordings at {RECORDINGS}")


def _three() -> dict[str, Recorded]:
    found = load_recordings(RECORDINGS)
    return {q: found[q] for q in THREE}


@pytest.fixture(scope="module")
def personas(tmp_path_factory: pytest.TempPathFactory, minilm: MiniLMEmbedder) -> Iterator[KnowledgeBase]:
    kb = build_example(Path("examples/personas"), tmp_path_factory.mktemp("replay"), [], minilm)
    yield kb
    kb.close()


@needs_recordings
def test_a_verify_request_whose_claims_changed_falls_back_and_is_counted() -> None:
    recordings = _three()
    model = ReplayModel(recordings, verify_recorded=True)
    model.begin("lumen-more-keys-no-help")
    verify = recordings["lumen-more-keys-no-help"].first("verify")
    assert verify is not None and len(claim_lines(verify.request["messages"])) == 4
    messages = [Message(**m) for m in verify.request["messages"]]
    changed = [
        *messages[:-1],
        Message(role="user", content=messages[-1].content.replace("Claim 4: on", "Claim 4: in")),
    ]
    with pytest.raises(LLMError):
        model(changed, verify.request["json_schema"])
    with pytest.raises(LLMError):  # its recording was used up
        model(messages, verify.request["json_schema"])
    assert [s.outcome for s in model.sent["lumen-more-keys-no-help"]] == ["fell_back", "unrecorded"]


@needs_recordings
def test_a_scope_request_without_a_recording_is_answered_in_scope() -> None:
    model = ReplayModel(_three(), verify_recorded=False)
    model.begin("lumen-staff-ask-password")
    schema = {
        "properties": {"decision": {"enum": ["in_scope", "out_of_scope"]}, "reason": {"type": "string"}}
    }
    assert '"decision": "in_scope"' in model([Message(role="user", content="Question: x")], schema)
    assert model.sent["lumen-staff-ask-password"][0].outcome == "default"


_NOTE = re.compile(r"^\[(?:unsupported|contradicted)\][^\n]*$", re.M)


@pytest.mark.slow
@needs_recordings
def test_three_recorded_questions_replay_to_the_recorded_answers(personas: KnowledgeBase) -> None:
    recordings = _three()
    questions = recorded_questions(
        recordings, labelled.load_questions(labelled.shipped_folder() / "questions.jsonl")
    )
    model = ReplayModel(recordings, verify_recorded=True)
    rows = replay_all(questions, {"personas": asking(personas, [], "recorded", model)}, model)

    assert {r.graded.id: r.graded.right for r in rows} == {
        "lumen-more-keys-no-help": True,
        "lumen-business-plan-price": False,  # lists the real plans instead of declining
        "lumen-staff-ask-password": True,
    }
    for row in rows:
        reply = recordings[row.graded.id].first("answer")
        assert reply is not None
        shown = _NOTE.sub(" ", row.graded.text)  # a verification note is Shu's, not the model's
        assert " ".join(said_text(shown).split()) == " ".join(said_text(reply.reply).split())
    data = summary(rows, recordings, "recorded")
    assert data["right"] == 2 and data["wrong"] == ["lumen-business-plan-price"]
    # the claims changed since the recording (an opening "No." is no claim, no split before "the"):
    # no recorded verify reply fits, the rules decide
    assert data["requests"]["verify"] == {"fell_back": 3}
    assert data["requests"]["answer"] == {"recorded": 3}
    mismatches = {m["question"]: m for m in data["vs_recorded"]["mismatches"]}
    assert data["vs_recorded"]["exactly"] == 0 and set(mismatches) == {
        "lumen-business-plan-price",  # the wrong answer: now marked, and below the right ones
        "lumen-staff-ask-password",  # the yes/no answer's confidence is no longer 0.1397
        "lumen-more-keys-no-help",  # a written answer has its own confidence: 0.67 then
    }
    assert mismatches["lumen-business-plan-price"]["confidence"][1] < data["confidence_right"]["min"]
    assert data["right_marked"] == 0 and data["right_below_0_6"] == []
    assert data["largest_verify_request"]["recorded"]["request"] == 57


@pytest.mark.slow
@needs_recordings
def test_with_rules_no_verify_request_is_sent(personas: KnowledgeBase) -> None:
    recordings = _three()
    questions = recorded_questions(
        recordings, labelled.load_questions(labelled.shipped_folder() / "questions.jsonl")
    )
    model = ReplayModel(recordings, verify_recorded=False)
    rows = replay_all(questions, {"personas": asking(personas, [], "rules", model)}, model)
    data = summary(rows, recordings, "rules")
    assert data["requests"]["verify"] == {} and data["requests"]["answer"] == {"recorded": 3}
    assert {r.verify_method for r in rows} == {"rules"}
    assert data["right"] == 2
