"""Frontmatter from hostile files: refused with a named reason, in bounded time and memory."""

from __future__ import annotations

import resource
import time

import pytest

from shu.errors import DocumentError
from shu.eval.faults.hostile import deep_yaml, impossible_date, yaml_alias_bomb
from shu.ingest.frontmatter import split_frontmatter


def test_a_yaml_alias_bomb_is_refused_at_once() -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    with pytest.raises(DocumentError, match="expands to more than 20,000 values"):
        split_frontmatter(yaml_alias_bomb().decode())
    assert time.monotonic() - started < 1
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000, "under 100 MB more"


def test_a_few_aliases_are_still_fine() -> None:
    meta, body = split_frontmatter("---\nbase: &b [x, y]\ntags: *b\n---\n\nText.")
    assert meta == {"base": ["x", "y"], "tags": ["x", "y"]} and body.strip() == "Text."


def test_deep_nesting_is_refused_by_name() -> None:
    with pytest.raises(DocumentError, match="nested too deeply"):
        split_frontmatter(deep_yaml(depth=5000).decode())
    with pytest.raises(DocumentError, match="nested too deeply"):
        split_frontmatter(deep_yaml(depth=60).decode())


def test_an_impossible_date_is_a_named_reason() -> None:
    with pytest.raises(DocumentError, match=r"impossible value .*day is out of range"):
        split_frontmatter(impossible_date().decode())


def test_an_oversized_frontmatter_is_refused() -> None:
    with pytest.raises(DocumentError, match="characters"):
        split_frontmatter("---\nx: " + "a" * 300_000 + "\n---\n\nText.")
