"""Generated text made safe to show while it arrives: a citation key is held back until its `]`,
then shown resolved to a key of the context (as a piece of its own, so a front end can number
it) or not at all; nothing that looks like a key is shown unless it is one; no Markdown link,
reference definition or autolink to anything but http(s) survives; an abstention
(`INSUFFICIENT: …`) is not shown, its final answer is."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from shu.answer.citations import KEY, ContextKeys
from shu.types import Answer

ABSTAIN = re.compile(r"^[\s*_]*insufficient[\s*_]*:", re.I)
"""The reply the prompt asks for when the context does not answer: `INSUFFICIENT: <what>`."""
PREMISE = re.compile(r"^[\s*_]*premise[\s*_]*:[\s*_]*", re.I)
"""The reply's opening when the question takes for granted what the context shows is not so: the
correction follows (`PREMISE: There is no Business plan; …`). The marker is not shown."""
_DECIDE_AFTER = len("INSUFFICIENT:")
_LONGEST_KEY = 304
_HTTP_LINK = re.compile(r"\(\s*<?\s*https?://", re.I)
_LINK_LOOKAHEAD = len("( < https://")
_UNSAFE_AUTOLINK = re.compile(r"<\s*(?!https?://)[a-z][a-z0-9+.-]*:", re.I)
_AUTOLINK_LOOKAHEAD = 40
_SPECIAL = re.compile(r"[\[\]<]")


@dataclass(frozen=True)
class StreamReset:
    """What was streamed so far is withdrawn (the model's answer was not usable): a front end
    clears it; the next pieces are a new attempt or the fallback's final answer."""

    reason: str


@dataclass(frozen=True)
class Progress:
    """What answering is doing before any text is written (`searching`, then `reading` the
    passages found, `investigating` when the agent goes first): a front end shows it instead of
    a blank wait."""

    stage: str
    detail: str = ""


AskEvent = str | StreamReset | Progress | Answer
"""What `ask_stream` yields: progress, text pieces (a citation key always whole, as its own
piece), resets, and last the final, checked `Answer`."""


def final_answer(events: Iterable[AskEvent]) -> Answer:
    """The `Answer` a stream ends with (its pieces are dropped)."""
    final = None
    for event in events:
        if isinstance(event, Answer):
            final = event
    if final is None:
        raise AssertionError("an answer stream ended without an Answer")
    return final


def filtered(deltas: Iterable[str], shown: KeyFilter, raw: list[str]) -> Iterator[str]:
    """A model's deltas through `shown`, each also kept as written in `raw` (for the check)."""
    for delta in deltas:
        raw.append(delta)
        yield from shown.feed(delta)
    yield from shown.flush()


class KeyFilter:
    def __init__(self, keys: ContextKeys, detect_abstention: bool = True) -> None:
        self.keys = keys
        self.abstaining = False
        self._decided = not detect_abstention
        self._pending = ""
        self._after_space = False
        self._after: str | None = None
        """`key` or `text` when the last piece shown ended with a bracket: what follows it is
        checked (a link, a reference definition)."""

    def feed(self, delta: str) -> Iterator[str]:
        self._pending += delta
        if not self._decided:
            if len(self._pending.lstrip(" \t\r\n*_")) < _DECIDE_AFTER:
                return
            self._decide()
        if not self.abstaining:
            yield from self._spaced(self._release(final=False))

    def flush(self) -> Iterator[str]:
        if not self._decided:
            self._decide()
        if not self.abstaining:
            yield from self._spaced(self._release(final=True))

    def _decide(self) -> None:
        """An abstention is not shown; a premise correction is, without its marker."""
        self._decided = True
        self.abstaining = bool(ABSTAIN.match(self._pending))
        self._pending = PREMISE.sub("", self._pending, count=1)

    def _spaced(self, pieces: Iterator[str]) -> Iterator[str]:
        """No doubled space where a key was dropped between two spaces."""
        for piece in pieces:
            if self._after_space and piece.startswith(" "):
                piece = piece[1:]
            if piece:
                self._after_space = piece.endswith(" ")
                yield piece

    def _release(self, final: bool) -> Iterator[str]:
        while self._pending:
            if self._after is not None:
                if not final and self._undecided_after():
                    return
                yield from self._break_after()
                continue
            found = _SPECIAL.search(self._pending)
            if found is None:
                yield self._take(len(self._pending))
                return
            if found.start():
                yield self._take(found.start())
                continue
            char = self._pending[0]
            if char == "]":
                self._after = "text"
                yield self._take(1)
            elif char == "<":
                if not final and len(self._pending) < _AUTOLINK_LOOKAHEAD and ">" not in self._pending:
                    return  # an autolink to where?
                self._take(1)
                yield "< " if _UNSAFE_AUTOLINK.match("<" + self._pending) else "<"
            elif not (shown := self._bracket(final)):
                if shown is None:
                    return  # the key may still be arriving
            else:
                yield shown

    def _bracket(self, final: bool) -> str | None:
        """What a `[` at the start of the pending text shows: a whole resolved key, a bracketed
        text, a lone bracket (never `[^`), nothing (a key that resolves to nothing), or None
        while it cannot be told yet."""
        end = self._pending.find("]")
        nested = self._pending.find("[", 1)
        if nested > 0 and (end < 0 or nested < end):
            return self._lone()
        if end < 0:
            if not final and len(self._pending) < _LONGEST_KEY and "\n" not in self._pending:
                return None
            return self._lone()
        written = self._take(end + 1)
        shown = self._shown(written)
        if shown:
            self._after = "key" if shown.startswith("[^") else "text"
        return shown

    def _lone(self) -> str:
        self._take(1)
        return "(" if self._pending.startswith("^") else "["

    def _shown(self, written: str) -> str:
        match = KEY.fullmatch(written)
        if match is None:
            return "(" + written[1:] if written.startswith("[^") else written
        source = self.keys.resolve(written)
        if source is not None:
            return source.key
        if written.startswith("[^") or ":" in match.group(1):
            return ""  # a key that resolves to nothing is never shown
        return written

    def _undecided_after(self) -> bool:
        head = self._pending
        return head.startswith("(") and len(head) < _LINK_LOOKAHEAD and not _HTTP_LINK.match(head)

    def _break_after(self) -> Iterator[str]:
        """`](javascript:…)`, `]:` (a reference definition) and `[^key](…)` never become links."""
        after, self._after = self._after, None
        head = self._pending
        link = head.startswith("(") and (after == "key" or not _HTTP_LINK.match(head))
        definition = head.startswith(":") and after == "text"
        if link or definition:
            yield " "

    def _take(self, count: int) -> str:
        taken, self._pending = self._pending[:count], self._pending[count:]
        return taken
