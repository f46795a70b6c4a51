"""Generated text made safe to show while it arrives: a citation key is held back until its `]`,
then shown resolved to a key of the context (as a piece of its own, so a front end can number
it) or not at all; an abstention (`INSUFFICIENT: …`) is not shown, its final answer is."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from shu.answer.citations import KEY, ContextKeys
from shu.types import Answer

ABSTAIN = re.compile(r"^\s*(?:\*\*|__)?\s*insufficient\b", re.I)
_DECIDE_AFTER = len("INSUFFICIENT") + 4
"""Characters of the reply read before deciding it is not an abstention."""
_LONGEST_KEY = 304
_HTTP_LINK = re.compile(r"\(\s*https?://", re.I)
_HTTP_PREFIX = len("( https://")


@dataclass(frozen=True)
class StreamReset:
    """What was streamed so far is withdrawn (the model's answer was not usable): a front end
    clears it; the next pieces are a new attempt or the fallback's final answer."""

    reason: str


AskEvent = str | StreamReset | Answer
"""What `ask_stream` yields: text pieces (a citation key always whole, as its own piece), resets,
and last the final, checked `Answer`."""


class KeyFilter:
    def __init__(self, keys: ContextKeys) -> None:
        self.keys = keys
        self.abstaining = False
        self._decided = False
        self._pending = ""
        self._after_space = False
        self._after_bracket = False

    def feed(self, delta: str) -> Iterator[str]:
        self._pending += delta
        if not self._decided:
            head = self._pending.lstrip()
            if len(head) < _DECIDE_AFTER and "\n" not in head:
                return
            self._decided = True
            self.abstaining = bool(ABSTAIN.match(head))
        if not self.abstaining:
            yield from self._spaced(self._release(final=False))

    def _spaced(self, pieces: Iterator[str]) -> Iterator[str]:
        """No doubled space where a key was dropped between two spaces."""
        for piece in pieces:
            if self._after_space and piece.startswith(" "):
                piece = piece[1:]
            if piece:
                self._after_space = piece.endswith(" ")
                yield piece

    def flush(self) -> Iterator[str]:
        if not self._decided:
            self._decided = True
            self.abstaining = bool(ABSTAIN.match(self._pending))
        if not self.abstaining:
            yield from self._spaced(self._release(final=True))

    def _release(self, final: bool) -> Iterator[str]:
        while self._pending:
            if self._after_bracket:
                if self._pending.startswith("(") and len(self._pending) < _HTTP_PREFIX and not final:
                    return  # is it a link, and to where?
                self._after_bracket = False
                if self._pending.startswith("(") and not _HTTP_LINK.match(self._pending):
                    yield " "  # `[x](javascript:…)` never becomes a link
                continue
            at = self._pending.find("[")
            if at < 0:
                yield self._pending
                self._pending = ""
                return
            if at:
                yield self._pending[:at]
                self._pending = self._pending[at:]
            end = self._pending.find("]")
            nested = self._pending.find("[", 1)
            if nested > 0 and (end < 0 or nested < end):
                yield "["  # `[[^…]`: the first bracket is text; the key after it is checked
                self._pending = self._pending[1:]
            elif end < 0:
                if not final and len(self._pending) < _LONGEST_KEY and "\n" not in self._pending:
                    return  # the key may still be arriving
                yield "["
                self._pending = self._pending[1:]
            else:
                written, self._pending = self._pending[: end + 1], self._pending[end + 1 :]
                if shown := self._shown(written):
                    self._after_bracket = not shown.startswith("[^")
                    yield shown

    def _shown(self, written: str) -> str:
        match = KEY.fullmatch(written)
        if match is None:
            return written
        source = self.keys.resolve(written)
        if source is not None:
            return source.key
        if written.startswith("[^") or ":" in match.group(1):
            return ""  # a key that resolves to nothing is never shown
        return written
