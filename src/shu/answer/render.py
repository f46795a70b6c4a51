"""Answer → Markdown: inline `[^doc_id:section]` citations and a Sources list (spec 004 §8)."""

from __future__ import annotations

from shu.answer.quote import quoted
from shu.types import Answer, Citation


def source_line(citation: Citation) -> str:
    """The key, then the document's own words (title, section path), quoted: a key-like string
    in a heading is not a citation."""
    date = f" ({citation.date})" if citation.date else ""
    link = f" <{citation.source_url}>" if citation.source_url else ""
    return f"{citation.key} {quoted(citation.title)}{date}, §{quoted(citation.section_path)}.{link}"


def render_answer(answer: Answer) -> str:
    if not answer.citations:
        return answer.text
    lines = [f"- {s.text} {s.citation}" for s in answer.sentences] if answer.sentences else [answer.text]
    sources = [source_line(c) for c in answer.citations]
    return "\n".join(lines) + "\n\nSources:\n" + "\n".join(f"{s}" for s in sources)
