"""The Enron QA e-mails (read from ../shared/data, never copied) ingested as raw `.eml` files:
the participants and threads Shu extracts, and the questions that name someone or something,
answered with a citation to the right message."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from shu.ingest.convert.mail import mail_id
from shu.kb import KnowledgeBase
from shu_eval.enron import SOURCE_FILE, self_contained
from tests.conftest import PersonaMaker

SAMPLE_EVERY = 3
_FOLDERS = [
    os.environ.get("SHU_SHARED_DATA", ""),
    str(Path(__file__).resolve().parents[3] / "shared" / "data"),  # ../shared/data beside the repo
    "/work/shared/data",
]
_FOUND = [Path(f) / "enron-email-qa" / SOURCE_FILE for f in _FOLDERS if f]
DATA = next((path for path in _FOUND if path.is_file()), _FOUND[-1])

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not DATA.is_file(), reason=f"{DATA} is not on this machine"),
]


def _folded(text: str) -> str:
    return " ".join(re.sub(r"[^\w@.]+", " ", text.lower()).split())


def test_enron_messages_as_eml_participants_threads_and_cited_answers(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    paragraphs = [p for article in json.loads(DATA.read_text())["data"] for p in article["paragraphs"]]
    raw = {f"enron-{n}.eml": p["context"].encode() for n, p in enumerate(paragraphs)}
    report = kb.ingest(make_persona("enron", raw=raw).parent)
    assert not report.failed, [o.line() for o in report.failed]
    documents = {d.id: d for d in kb.documents("enron")}
    assert len(documents) == 48
    people = [p for d in documents.values() for p in d.meta.get("participants", [])]
    authors = [p for p in people if p["role"] == "author"]
    named = [p for p in people if p["name"]]
    replies = [
        r for d in documents for r in kb.document(d, persona="enron").relationships if r.type == "replies_to"
    ]
    print(
        f"\nparticipants {len(people)} ({len(named)} named, {len({p['email'] for p in people})} distinct), "
        f"authors {len(authors)}, reply links {len(replies)}"
    )
    assert len(authors) == 48 and len(people) >= 200 and len(named) >= 150
    assert documents[mail_id("8069939.1075855675628.JavaMail.evans@thyme")].meta["participants"][0] == {
        "name": "Phillip K Allen",
        "email": "phillip.allen@enron.com",
        "role": "author",
    }

    questions = [
        (mail_id(re.search(r"^Message-ID:\s*<([^>]+)>", p["context"], re.M).group(1)), qa)
        for p in paragraphs
        for qa in p["qas"]
        if not qa["is_impossible"] and self_contained(qa["question"])
    ]
    assert len(questions) == 184
    asked = cited = answered = 0
    for gold, qa in questions[::SAMPLE_EVERY]:  # the whole set (184) is in docs/benchmarks.md
        answer = kb.ask(qa["question"], persona="enron", use_cache=False, agent=False)
        asked += 1
        right = gold in {c.doc_id for c in answer.citations}
        cited += right
        answered += right and any(_folded(a["text"]) in _folded(answer.text) for a in qa["answers"])
    print(
        f"self-contained answerable questions {asked}: right message cited {cited}, "
        f"and the gold answer in the text {answered}"
    )
    assert asked == 62 and cited / asked >= 0.65 and answered / asked >= 0.55
