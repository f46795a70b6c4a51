"""What a claim is compared with: the cited text cut into units a claim can restate.

The extractive reader's candidate sentences (prose sentences, list items, table rows spelled out
`Header: cell; …`), read with a table apart from a line of prose run on after it; and inside them,
the finer units a claim often restates alone: each sentence of a unit that holds several (a list
item of three sentences) and each cell of a table row with its header ("Banned: Paraquat and all
other herbicides", from a row that also names what is allowed).
"""

from __future__ import annotations

import re

from shu.answer.extractive import candidate_sentences
from shu.answer.tables import RULE, cells, piped
from shu.text import split_sentences


def verifiable(text: str) -> list[str]:
    """The units of `text`, coarse ones first, without repeats."""
    apart = tables_apart(text)
    units = candidate_sentences(apart)
    finer = [s for unit in units if len(parts := split_sentences(unit)) > 1 for s in parts]
    return list(dict.fromkeys([*units, *finer, *table_cells(apart)]))


def tables_apart(text: str) -> str:
    """`text` with a blank line between a table and a line that is not one of its rows."""
    lines = text.split("\n")
    out: list[str] = []
    for index, line in enumerate(lines):
        if index and line.strip() and lines[index - 1].strip() and piped(line) != piped(lines[index - 1]):
            out.append("")
        out.append(line)
    return "\n".join(out)


def table_cells(text: str) -> list[str]:
    """Each cell of each table of `text` as `Header: cell` (a cell of two words or more)."""
    found: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.split("\n") if line.strip()]
        if len(lines) < 3 or not all(piped(line) for line in lines) or not RULE.match(lines[1]):
            continue
        header = cells(lines[0])
        for line in lines[2:]:
            for name, cell in zip(header, cells(line), strict=False):
                if len(cell.split()) >= 2:
                    found.append(f"{name}: {cell}" if name else cell)
    return found
