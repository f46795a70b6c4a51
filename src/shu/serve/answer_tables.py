"""An answer's Markdown tables drawn as tables in the terminal, the rest printed as written.
While an answer streams, a line that begins with `|` is held back until the lines of its block
are all there, then drawn (or printed as written when they are no table): what stays on screen
never shows a table as pipe text. Text is data: nothing of it is read as rich markup."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from shu.answer.tables import Table, blocks, piped

_BREAK = "<br>"
"""How a converted sheet writes a line break inside a cell."""


def drawn(table: Table) -> RichTable:
    shown = RichTable(box=box.SQUARE, show_header=True, header_style="bold", expand=False)
    for name in table.header:
        shown.add_column(Text(name), overflow="fold")
    for row in table.rows:
        shown.add_row(*(Text(cell.replace(_BREAK, "\n")) for cell in row))
    return shown


def print_markdown(out: Console, text: str) -> None:
    """`text` printed with its tables drawn."""
    for block in blocks(text):
        if isinstance(block, Table):
            out.print(drawn(block), soft_wrap=False)
        else:
            out.print(Text(block), highlight=False)


class StreamedTables:
    """Pieces printed as they come, but table lines held until their block ends."""

    def __init__(self, out: Console) -> None:
        self.out = out
        self.held: list[str] = []
        """Complete lines that begin with `|`, waiting for the block to end."""
        self.line = ""
        """The line being written: printed as it comes once it shows it is no table line."""
        self.holding: bool | None = None
        """Whether `line` is held back; None while it is only blanks so far."""

    def write(self, piece: str) -> None:
        *ended, rest = piece.split("\n")
        for line in ended:
            self._add(line)
            self._end_line()
        self._add(rest)

    def close(self) -> None:
        """The stream ended: what is held is shown."""
        if self.holding:
            self.held.append(self.line)
        self._flush(last=True)
        if self.holding is None:
            self._print(self.line)
        self.line, self.holding = "", None

    def drop(self) -> None:
        """What was written is withdrawn: nothing held is shown."""
        self.held, self.line, self.holding = [], "", None

    def _add(self, text: str) -> None:
        if self.holding is None:
            self.line += text
            if self.line.strip():
                self.holding = piped(self.line)
                if not self.holding:
                    self._flush()
                    self._print(self.line)
        elif self.holding:
            self.line += text
        else:
            self.line += text
            self._print(text)

    def _end_line(self) -> None:
        if self.holding:
            self.held.append(self.line)
        else:
            self._flush()  # a blank line ends a table
            self._print(("" if self.holding is False else self.line) + "\n")
        self.line, self.holding = "", None

    def _flush(self, last: bool = False) -> None:
        if not self.held:
            return
        found = blocks("\n".join(self.held))
        for n, block in enumerate(found, start=1):
            if isinstance(block, Table):
                self.out.print(drawn(block), soft_wrap=False)
            else:
                self._print(block if last and n == len(found) else block + "\n")
        self.held = []

    def _print(self, text: str) -> None:
        self.out.print(Text(text), end="", highlight=False)
