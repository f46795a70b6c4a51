import itertools

from shu.ingest.chunking import chunk_document
from shu.markdown import split_sections
from shu.text import count_tokens

DOC = """Intro before any heading.

# Pricing

Plans are billed per seat.

## Enterprise

Enterprise starts at $30,000 per year.

```python
# a comment, not a heading
print("hi")
```

### Discounts

Nonprofits get 50% off.

# Support

Email us.
"""


def test_sections_follow_the_heading_path() -> None:
    paths = [s.path for s in split_sections(DOC, root="Lumen Pricing")]
    assert paths == [
        "Lumen Pricing",
        "Pricing",
        "Pricing > Enterprise",
        "Pricing > Enterprise > Discounts",
        "Support",
    ]


def test_code_fences_are_not_split_on_hash_lines() -> None:
    sections = split_sections(DOC, root="x")
    enterprise = next(s for s in sections if s.path == "Pricing > Enterprise")
    assert "# a comment, not a heading" in enterprise.text


def test_chunks_respect_the_budget_and_overlap() -> None:
    body = "# Guide\n\n" + " ".join(
        f"Step {i} tells you to open panel {i} and press save." for i in range(80)
    )
    chunks = chunk_document("guide", "Guide", body, max_tokens=60, overlap=15)
    assert len(chunks) > 5
    assert all(c.token_count <= 60 for c in chunks)
    assert all(c.token_count == count_tokens(c.text) for c in chunks)
    for before, after in itertools.pairwise(chunks):
        last_sentence = before.text.split(". ")[-1]
        assert after.text.startswith(last_sentence.rstrip(".")), "next chunk repeats the last sentence"
    assert [c.ord for c in chunks] == list(range(len(chunks)))


def test_overlap_zero_repeats_nothing() -> None:
    body = " ".join(f"Sentence {i} is here." for i in range(100))
    chunks = chunk_document("d", "D", body, max_tokens=40, overlap=0)
    joined = " ".join(c.text for c in chunks)
    assert joined.count("Sentence 50 is here.") == 1


def test_an_overlong_sentence_is_split_by_words() -> None:
    body = "word " * 500
    chunks = chunk_document("d", "D", body, max_tokens=100, overlap=0)
    assert len(chunks) == 5 and all(c.token_count == 100 for c in chunks)


def test_chunk_ids_are_stable_and_unique() -> None:
    first = chunk_document("d", "D", DOC, max_tokens=50, overlap=10)
    again = chunk_document("d", "D", DOC, max_tokens=50, overlap=10)
    assert [c.id for c in first] == [c.id for c in again]
    assert len({c.id for c in first}) == len(first)
    duplicated = chunk_document("d", "D", "# A\n\nSame text.\n\n# A\n\nSame text.\n", 50, 0)
    assert len({c.id for c in duplicated}) == 2


def test_editing_one_section_keeps_the_other_ids() -> None:
    before = chunk_document("d", "D", DOC, max_tokens=50, overlap=10)
    after = chunk_document("d", "D", DOC.replace("Email us.", "Call us."), max_tokens=50, overlap=10)
    assert [c.id for c in before[:-1]] == [c.id for c in after[:-1]]
    assert before[-1].id != after[-1].id


def test_index_text_names_where_the_chunk_sits() -> None:
    chunks = chunk_document("d", "Lumen Pricing", DOC, max_tokens=200, overlap=0)
    enterprise = next(c for c in chunks if c.section_path == "Pricing > Enterprise")
    assert enterprise.index_text.startswith("Lumen Pricing > Pricing > Enterprise\n")
    assert enterprise.text in enterprise.index_text


def test_a_dated_documents_relative_dates_are_indexed_as_dates() -> None:
    """What a chat said "yesterday" is found by the day it means; the text shown stays as said."""
    said = "# Session 4\n\nI went to a support group yesterday. We meet again next month."
    (chunk,) = chunk_document("s4", "Session 4", said, max_tokens=200, overlap=0, written="2023-05-08")
    assert "yesterday (7 May 2023)" in chunk.index_text and "next month (June 2023)" in chunk.index_text
    assert chunk.text == "I went to a support group yesterday. We meet again next month."
    for undated in (None, "2023-05", "not a date", "2023-02-30"):
        (plain,) = chunk_document("s4", "Session 4", said, max_tokens=200, overlap=0, written=undated)
        assert "(7 May 2023)" not in plain.index_text, undated


def test_a_table_split_across_chunks_repeats_its_header_in_each() -> None:
    from shu.ingest.chunking import chunk_document

    rows = "\n".join(f"| Feature {i} | {i} seats | {i * 10} dashboards |" for i in range(60))
    table = f"| Feature | Team | Pro |\n| --- | --- | --- |\n{rows}"
    chunks = chunk_document("plans", "Plans", f"# Plans\n\n## Overview\n\n{table}\n", 120, 20)
    tables = [c for c in chunks if "| Feature 5" in c.text or "| Feature 59" in c.text]
    assert len(chunks) > 3 and tables
    header = "| Feature | Team | Pro |\n| --- | --- | --- |\n| Feature "
    for chunk in chunks[1:]:
        assert chunk.text.startswith(header), chunk.text[:80]
    assert all(chunk.text.count("| Feature | Team | Pro |") == 1 for chunk in chunks)


WEBHOOK = (
    "# Alerts\n\n## Webhook\n\n"
    "Lumen sends an HTTP `POST` with a JSON body to your URL. Each request includes the header "
    "`X-Lumen-Signature: sha256=<hex>`, an HMAC-SHA256 of the raw body using the webhook secret shown "
    "when you create the webhook. Verify the signature before trusting the payload, and reject requests "
    "whose `X-Lumen-Timestamp` header is more than 5 minutes old.\n\n"
    "If your endpoint does not answer with a 2xx status within 10 seconds, Lumen retries 3 times: after "
    "1 minute, 5 minutes and 30 minutes. After the last failed retry the delivery is marked failed in "
    "the alert history.\n\n"
    "Example payload:\n\n"
    """```json
{
  "alert_id": "alt_4821",
  "state": "firing",
  "metric": "orders_per_hour",
  "value": 312,
  "threshold": 400,
  "dashboard_url": "https://app.lumenanalytics.example/d/ops-overview"
}
```
"""
)
"""The Webhook section of the Lumen example's alerts-configuration.md."""

PAYLOAD = WEBHOOK[WEBHOOK.index("```json") :].strip()


def test_a_lead_in_goes_to_the_chunk_of_what_it_introduces() -> None:
    """Issue 41.5: a chunk ended at "Example payload:" and the payload was the next chunk."""
    chunks = chunk_document("alerts", "Alerts", WEBHOOK, max_tokens=180, overlap=30)
    assert not any(c.text.endswith("Example payload:") for c in chunks), [c.text[-40:] for c in chunks]
    (payload,) = [c for c in chunks if "```json" in c.text]
    assert payload.text == f"Example payload:\n\n{PAYLOAD}"
    assert all(c.token_count <= 180 for c in chunks)
    steps = "# Setup\n\n" + " ".join(f"Sentence {i} says a plain thing." for i in range(10))
    steps += "\n\nThe steps are:\n\n" + "\n".join(f"{i}. Open panel {i} and press save." for i in range(1, 6))
    listed = chunk_document("setup", "Setup", steps, max_tokens=80, overlap=0)
    assert not any(c.text.endswith("The steps are:") for c in listed)
    assert any(c.text.startswith("The steps are:\n\n1. Open panel 1") for c in listed)


def test_a_lead_in_stays_when_it_would_leave_its_chunk_empty_or_not_fit() -> None:
    alone = chunk_document("d", "D", "# D\n\nExample payload:\n\n" + PAYLOAD, max_tokens=60, overlap=0)
    assert alone[0].text.startswith("Example payload:")
    assert all(c.text.strip() != "" for c in alone)


def test_a_code_block_keeps_its_newlines_and_stays_whole_in_one_chunk() -> None:
    """A code block in a paragraph over the budget (no blank line after its lead-in) was cut into
    lines and its lines run together with spaces."""
    prose = " ".join(f"Sentence {i} explains the payload." for i in range(20))
    body = f"# Webhook\n\n{prose}\nExample payload:\n{PAYLOAD}\n"
    chunks = chunk_document("alerts", "Alerts", body, max_tokens=120, overlap=10)
    (payload,) = [c for c in chunks if "```json" in c.text]
    assert PAYLOAD in payload.text, payload.text
    assert "Example payload:\n```json" in payload.text
    assert all(c.token_count <= 120 for c in chunks)


def test_a_code_block_over_the_budget_is_split_by_lines_each_part_fenced() -> None:
    lines = [f'  "field_{i}": "value number {i}",' for i in range(60)]
    code = "```json\n{\n" + "\n".join(lines) + "\n}\n```"
    body = f"# Payload\n\nExample payload:\n\n{code}\n"
    chunks = chunk_document("big", "Big", body, max_tokens=100, overlap=10)
    parts = [c.text[c.text.index("```json") :] for c in chunks if "```json" in c.text]
    assert len(parts) > 2 and all(c.token_count <= 100 for c in chunks)
    for part in parts:
        assert part.startswith("```json\n") and part.endswith("\n```"), part
    inner = [line for part in parts for line in part.split("\n")[1:-1]]
    assert inner == ["{", *lines, "}"], "every line whole, in order, once, indentation kept"
    minified = "```json\n" + "{" + ",".join(f'"k{i}":{i}' for i in range(200)) + "}\n```"
    cut = chunk_document("min", "Min", f"# Min\n\n{minified}\n", max_tokens=100, overlap=0)
    assert len(cut) > 2 and all(c.token_count <= 100 for c in cut)
    assert all(c.text.startswith("```json\n") and c.text.endswith("\n```") for c in cut)
    assert "".join(c.text.split("\n")[1] for c in cut) == minified.split("\n")[1]
