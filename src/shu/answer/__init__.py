"""Answers with `[^doc_id:section]` citations: extractive today; LLM generation and verification later."""

from shu.answer.extractive import ExtractiveAnswerer
from shu.answer.render import render_answer

__all__ = ["ExtractiveAnswerer", "render_answer"]
