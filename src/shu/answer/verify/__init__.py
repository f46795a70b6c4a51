"""Verification (stage 7): each claim of an answer checked against the sections it cites, by
rules (numbers, dates, names, words, meaning, contradictions) or by an LLM whose verdicts must
quote the cited text; unsupported claims are marked or removed, never shown as supported."""

from shu.answer.verify.base import Verifier, apply_verification
from shu.answer.verify.factory import create_verifier

__all__ = ["Verifier", "apply_verification", "create_verifier"]
