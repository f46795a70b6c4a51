"""Property-based: whatever text or bytes arrive, frontmatter, chunking and conversion either work
or fail with a named reason; chunking never loses a word."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shu.errors import DocumentError, SkipDocument
from shu.ingest.chunking import chunk_document
from shu.ingest.convert import convert_file
from shu.ingest.frontmatter import split_frontmatter
from shu.text import words

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROSE = st.characters(blacklist_characters="#`|<>", blacklist_categories=("Cs",))
"""Any text but Markdown structure (a heading or code fence inside a body is another section)."""
yaml_ish = st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!|>'\"#\n\t ,.0123456789")), max_size=300)


@FAST
@given(block=yaml_ish, body=st.text(max_size=200))
def test_frontmatter_parses_or_names_the_problem(block: str, body: str) -> None:
    try:
        meta, rest = split_frontmatter(f"---\n{block}\n---\n{body}")
    except DocumentError as exc:
        assert str(exc)
    else:
        assert isinstance(meta, dict) and isinstance(rest, str)


@FAST
@given(
    sections=st.lists(
        st.tuples(st.text(alphabet="abc XYZ#", max_size=20), st.text(alphabet=PROSE, max_size=400)),
        max_size=6,
    ),
    max_tokens=st.integers(min_value=16, max_value=200),
)
def test_chunking_never_loses_a_word(sections: list[tuple[str, str]], max_tokens: int) -> None:
    markdown = "\n\n".join(f"## {heading}\n\n{text}" for heading, text in sections)
    chunks = chunk_document("doc", "Title", markdown, max_tokens, overlap=min(10, max_tokens // 4))
    chunked = set(words(" ".join(c.text for c in chunks)))
    body_words = set(words(" ".join(text for _, text in sections).replace("#", " ")))
    assert body_words <= chunked | set(words(" ".join(c.section_path for c in chunks)))
    assert len({c.id for c in chunks}) == len(chunks), "chunk ids are unique"


@FAST
@given(data=st.binary(max_size=3000), suffix=st.sampled_from([".md", ".txt", ".html", ".pdf", ".docx"]))
def test_conversion_of_any_bytes_works_or_names_the_problem(data: bytes, suffix: str) -> None:
    try:
        converted = convert_file(Path(f"any{suffix}"), data)
    except (DocumentError, SkipDocument) as exc:
        assert str(exc) and not str(exc).startswith("unexpected")
    else:
        assert converted.markdown.strip() and "\x00" not in converted.markdown
