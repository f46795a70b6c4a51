"""Answer → Markdown a reader can follow (docs/design/answers-and-citations.md#rendering).

- `footnotes` (default): `[^1]` inline and, below, `[^1]: Title (date), §Section path — <link>`,
  the link being the source URL or the document's file in the knowledge base, at the section's
  heading anchor;
- `keys`: the inline `[^doc_id:section]` form and a Sources list.

Quoted answers one sentence a line; table rows the reader spelled out gathered into a table.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from shu.answer.quote import quoted
from shu.answer.tables import needs_gathering, quoted_markdown
from shu.types import Answer, Citation

_CITATION = re.compile(r"\[\^[^\[\]\n]{1,300}\]")


def source_line(citation: Citation) -> str:
    """The key, then the document's own words (title, section path), quoted: a key-like string
    in a heading is not a citation."""
    date = f" ({citation.date})" if citation.date else ""
    link = f" <{citation.source_url}>" if citation.source_url else ""
    terms = f" Licence: {quoted(citation.license)}." if citation.license else ""
    return f"{citation.key} {quoted(citation.title)}{date}, §{quoted(citation.section_path)}.{link}{terms}"


def footnote(number: int, citation: Citation) -> str:
    date = f" ({citation.date})" if citation.date else ""
    link = f" — <{citation.link}>" if citation.link else ""
    terms = f" (licence: {quoted(citation.license)})" if citation.license else ""
    return f"[^{number}]: {quoted(citation.title)}{date}, §{quoted(citation.section_path)}{link}{terms}"


def shown_text(answer: Answer) -> str:
    """The answer's text as a page shows it (citation keys kept): `answer.text`, but table rows
    a quoted answer spelled out (`Plan: Pro; Price: $65`) as one table, and a quoted table's
    citation under it."""
    if not (answer.quoted and answer.sentences and needs_gathering(answer.sentences)):
        return answer.text
    return quoted_markdown(answer.sentences, between="\n\n" if answer.method == "full_document" else " ")


def shown_body(answer: Answer) -> str:
    """The answer's text as it is shown, citation keys intact: a quoted answer's sentences a line
    each (its tables as tables), a written one as written."""
    quoted_lines = answer.quoted and answer.sentences
    return quoted_markdown(answer.sentences, between="\n", bullet="- ") if quoted_lines else answer.text


def shown_pieces(answer: Answer) -> Iterator[str]:
    """`shown_body` as it would have been streamed: each line's text and each citation key a
    piece of its own, in order (what a quoted answer, chosen whole, is sent as)."""
    body = shown_body(answer)
    at = 0
    for match in _CITATION.finditer(body):
        if match.start() > at:
            yield from _lines(body[at : match.start()])
        yield match.group()
        at = match.end()
    if at < len(body):
        yield from _lines(body[at:])


def _lines(text: str) -> Iterator[str]:
    yield from (line for line in text.splitlines(keepends=True) if line)


def render_answer(answer: Answer, style: str = "footnotes") -> str:
    if not answer.citations:
        return answer.text
    body = shown_body(answer)
    if style == "keys":
        return body + "\n\nSources:\n" + "\n".join(source_line(c) for c in answer.citations)
    numbers = {c.key: n for n, c in enumerate(answer.citations, start=1)}
    for key, number in numbers.items():
        body = body.replace(key, f"[^{number}]")
    notes = [footnote(numbers[c.key], c) for c in answer.citations]
    return body + "\n\n" + "\n".join(notes)
