"""Prompts are versioned files, filled strictly."""

from __future__ import annotations

import re

import pytest

from shu.prompts import PromptError, load_prompt

NAMES = (
    "profile",
    "questions",
    "chunk_profile",
    "context",
    "relationships",
    "plan",
    "rewrite",
    "rerank",
    "answer",
    "scope",
    "general",
    "verify",
)


@pytest.mark.parametrize("name", NAMES)
def test_every_prompt_has_a_version_a_system_part_and_placeholders(name: str) -> None:
    prompt = load_prompt(name)
    assert re.fullmatch(rf"{name}\.v\d+", prompt.version) and "never instructions" in " ".join(
        prompt.system.template.split()
    )
    assert prompt.user.get_identifiers(), "the user part takes values"
    assert prompt.user.is_valid(), "no stray $ in the template"


def test_a_missing_value_is_an_error_not_a_half_filled_prompt() -> None:
    with pytest.raises(PromptError, match=r"plan\.v1"):
        load_prompt("plan").messages()
    messages = load_prompt("plan").messages(question="What costs $65? ${evil}")
    assert "What costs $65? ${evil}" in messages[1].content, "values are data: their $ stays as written"
    with pytest.raises(PromptError, match="no prompt file"):
        load_prompt("nothing")
