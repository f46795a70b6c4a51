"""Text from documents is data: printed to a terminal, its control characters (ANSI and OSC
escape sequences, bells, backspaces, carriage returns) and bidirectional overrides are removed,
so a hostile title cannot clear the screen, rename the window or hide what it says."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.console import Console
from rich.segment import Segment

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` without control characters (newlines and tabs are kept)."""
    return _UNSAFE.sub("", text)


class SafeConsole(Console):
    """A rich console that cleans every piece of text it writes; rich's own styling (which it
    adds around the text, never inside it) is left alone."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            Segment(printable(text), style, control) if control is None else Segment(text, style, control)
            for text, style, control in buffer
        )
