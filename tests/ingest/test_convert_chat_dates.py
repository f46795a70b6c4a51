"""A chat channel that runs for weeks is one document dated by its first message; each message
(and so each chunk, wherever it is cut, and what the model reads of it) carries its own day."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from shu.ingest.chunking import chunk_document
from shu.ingest.convert.base import convert_documents
from shu.types.retrieval import AssembledContext, ContextDocument, ContextSection

DAYS = ["2026-05-11", "2026-05-13", "2026-06-01", "2026-06-24"]
_LINE = re.compile(r"^\*\*[^*]+\*\* \((\d{4}-\d{2}-\d{2})(?: \d{2}:\d{2})?\):", re.MULTILINE)


def _channel() -> bytes:
    messages = []
    for day in DAYS:
        for hour, text in ((8, "Press 2 is running again after the bearing change."), (15, "Door 2 fixed.")):
            when = dt.datetime.fromisoformat(f"{day}T{hour:02d}:05:00+00:00")
            messages.append(
                {"user": "U1", "user_name": "Sofia Lindqvist", "ts": f"{when.timestamp():.6f}", "text": text}
            )
    return json.dumps(messages).encode()


def test_each_chat_message_carries_its_own_day() -> None:
    [channel] = convert_documents(Path("ops-floor.json"), _channel())
    assert channel.meta["date"] == "2026-05-11" and channel.meta["end_date"] == "2026-06-24"
    assert "**Sofia Lindqvist** (2026-06-24 15:05): Door 2 fixed." in channel.markdown
    assert _LINE.findall(channel.markdown) == [day for day in DAYS for _ in range(2)]


def test_every_chunk_of_a_channel_says_the_day_of_its_messages() -> None:
    [channel] = convert_documents(Path("ops-floor.json"), _channel())
    chunks = chunk_document("ops-floor", "ops-floor", channel.markdown, max_tokens=24, overlap=0)
    assert len(chunks) > len(DAYS)  # a day's messages are cut into several chunks
    for chunk in chunks:
        day = chunk.section_path.rsplit(" > ", 1)[-1]
        stated = _LINE.findall(chunk.text)
        if day in DAYS:
            assert stated and set(stated) == {day}, chunk


def test_the_context_the_model_reads_shows_a_late_message_with_its_own_day() -> None:
    [channel] = convert_documents(Path("ops-floor.json"), _channel())
    chunks = chunk_document("ops-floor", "ops-floor", channel.markdown, max_tokens=24, overlap=0)
    late = next(c for c in chunks if c.section_path.endswith("2026-06-24"))
    context = AssembledContext(
        documents=[
            ContextDocument(
                doc_id="ops-floor",
                title="ops-floor",
                date=channel.meta["date"],
                score=1.0,
                sections=[
                    ContextSection(section_path=late.section_path, text=late.text, chunk_ids=[late.id])
                ],
            )
        ]
    )
    rendered = context.render()
    assert "date: 2026-05-11" in rendered  # the document's date: its first message
    assert "(2026-06-24 " in rendered  # and the message's own
