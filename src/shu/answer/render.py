"""Answer → Markdown a reader can follow (spec 004 §8).

- `footnotes` (default): `[^1]` inline and, below, `[^1]: Title (date), §Section path — <link>`,
  the link being the source URL or the document's file in the knowledge base, at the section's
  heading anchor;
- `keys`: the inline `[^doc_id:section]` form and a Sources list.
"""

from __future__ import annotations

from shu.answer.quote import quoted
from shu.types import Answer, Citation


def source_line(citation: Citation) -> str:
    """The key, then the document's own words (title, section path), quoted: a key-like string
    in a heading is not a citation."""
    date = f" ({citation.date})" if citation.date else ""
    link = f" <{citation.source_url}>" if citation.source_url else ""
    return f"{citation.key} {quoted(citation.title)}{date}, §{quoted(citation.section_path)}.{link}"


def footnote(number: int, citation: Citation) -> str:
    date = f" ({citation.date})" if citation.date else ""
    link = f" — <{citation.link}>" if citation.link else ""
    return f"[^{number}]: {quoted(citation.title)}{date}, §{quoted(citation.section_path)}{link}"


def render_answer(answer: Answer, style: str = "footnotes") -> str:
    if not answer.citations:
        return answer.text
    quoted_lines = answer.quoted and answer.sentences
    lines = [f"- {s.text} {s.citation}" for s in answer.sentences] if quoted_lines else [answer.text]
    if style == "keys":
        return "\n".join(lines) + "\n\nSources:\n" + "\n".join(source_line(c) for c in answer.citations)
    numbers = {c.key: n for n, c in enumerate(answer.citations, start=1)}
    body = "\n".join(lines)
    for key, number in numbers.items():
        body = body.replace(key, f"[^{number}]")
    notes = [footnote(numbers[c.key], c) for c in answer.citations]
    return body + "\n\n" + "\n".join(notes)
