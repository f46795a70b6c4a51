"""Frontmatter from hostile files: refused with a named reason, in bounded time and memory."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from shu.errors import DocumentError
from shu.ingest.frontmatter import split_frontmatter
from shu_eval.faults.hostile import deep_yaml, impossible_date, yaml_alias_bomb, yaml_merge_bomb


@pytest.mark.parametrize("bomb", [yaml_alias_bomb(), yaml_merge_bomb()], ids=["aliases", "merge-keys"])
def test_a_yaml_bomb_is_refused_before_anything_is_built(bomb: bytes) -> None:
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(DocumentError, match="expands to more than 20,000 values"):
            split_frontmatter(bomb.decode())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 1
    assert peak < 20_000_000, f"{peak / 1e6:.0f} MB allocated"


def test_merge_keys_within_bounds_still_work() -> None:
    meta, _ = split_frontmatter(
        "---\nbase: &b {owner: ana, tags: [x]}\ndoc: {<<: *b, title: T}\n---\n\nText."
    )
    assert meta["doc"] == {"owner": "ana", "tags": ["x"], "title": "T"}


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
