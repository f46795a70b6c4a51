"""Markdown pipe tables in answers, read the way the web page reads them (`web/markdown.js`):
a row of cells over a `| --- |` rule line, then every following line that holds a `|`. A `|`
inside a citation key `[^doc_id:A | B]` or written `\\|` does not split cells; cells past the
header's width join the last one (a citation written after the row's closing pipe stays on its
row). The reader's quoted table rows (`Plan: Pro; Price: $65`) are gathered back into a table."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from shu.types import AnswerSentence

RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_PIPE = re.compile(r"(?<!\\)\|(?![^\[\]\n]*\])")
_FIELD = re.compile(r"^([^:;|\n]{1,40}):\s+(\S.*)$")
SOURCE = "Source"


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[list[str]]


def piped(line: str) -> bool:
    """A line a table row may begin with (the terminal holds such lines back while streaming)."""
    return line.lstrip().startswith("|")


def cells(line: str) -> list[str]:
    row = line.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _PIPE.split(row)]


def table_starts(lines: Sequence[str], i: int) -> bool:
    return "|" in lines[i] and i + 1 < len(lines) and "-" in lines[i + 1] and bool(RULE.match(lines[i + 1]))


def blocks(text: str) -> list[str | Table]:
    """`text` as runs of lines and the tables between them, in order."""
    lines = text.replace("\r\n", "\n").split("\n")
    found: list[str | Table] = []
    plain: list[str] = []
    i = 0
    while i < len(lines):
        if not table_starts(lines, i):
            plain.append(lines[i])
            i += 1
            continue
        if plain:
            found.append("\n".join(plain))
            plain = []
        header = cells(lines[i])
        i += 2
        rows: list[list[str]] = []
        while i < len(lines) and "|" in lines[i] and lines[i].strip():
            rows.append(_fitted(cells(lines[i]), len(header)))
            i += 1
        found.append(Table(header, rows))
    if plain:
        found.append("\n".join(plain))
    return found


def _fitted(row: list[str], width: int) -> list[str]:
    if len(row) > width:
        row = [*row[: width - 1], " ".join(cell for cell in row[width - 1 :] if cell)]
    return row + [""] * (width - len(row))


def markdown(table: Table) -> str:
    """The table as Markdown (a `|` in a cell escaped, a citation key left whole)."""
    lines = [table.header, ["---"] * len(table.header), *table.rows]
    return "\n".join("| " + " | ".join(_escaped(cell) for cell in line) + " |" for line in lines)


def _escaped(cell: str) -> str:
    if cell.startswith("[^") and cell.endswith("]"):
        return cell  # citation keys (the Source column): their `|` does not split cells
    return " ".join(cell.replace("|", "\\|").split())


def fields(sentence: str) -> list[tuple[str, str]] | None:
    """`Plan: Pro; Price: $65` → [(Plan, Pro), (Price, $65)]: a table row the reader spelled out
    (two fields or more); None for anything else."""
    if "\n" in sentence:
        return None
    found: list[tuple[str, str]] = []
    for part in sentence.split("; "):
        field = _FIELD.match(part.strip())
        if field is not None:
            found.append((field.group(1).strip(), field.group(2).strip()))
        elif found:  # a cell holding "; " ("Check server clocks; retry the login")
            found[-1] = (found[-1][0], f"{found[-1][1]}; {part.strip()}")
        else:
            return None
    return found if len(found) >= 2 else None


def holds_table(text: str) -> bool:
    lines = text.split("\n")
    return any(table_starts(lines, i) for i in range(len(lines) - 1))


def quoted_markdown(sentences: Sequence[AnswerSentence], between: str = " ", bullet: str = "") -> str:
    """Quoted sentences as Markdown, each with its citation: a run of table rows spelled out
    with the same headers as one table with a Source column; a sentence holding a table as a
    block, its citation on the line under it; a lead-in that cites nothing and ends in a colon
    on a line of its own, every sentence after it a line of its list; the rest as `bullet` +
    sentence, `between` them."""
    parts: list[str] = []
    prose: list[str] = []

    def end_prose() -> None:
        if prose:
            parts.append(between.join(f"{bullet}{s}" for s in prose))
            prose.clear()

    i = 0
    listing = False  # after a lead-in every sentence is a line of its list, never a table row
    while i < len(sentences):
        said, row = _verdict_and_row(sentences[i].text) if not listing else ("", None)
        if row is not None:
            if said:  # "No: Feature: SSO; Starter: No; …": the verdict, then the row as a table
                end_prose()
                parts.append(f"{said}:")
            run = [row]
            heads = [h for h, _ in row]
            while i + len(run) < len(sentences):
                following = fields(sentences[i + len(run)].text)
                if following is None or [h for h, _ in following] != heads:
                    break
                run.append(following)
            cited = [" ".join(s.citations) for s in sentences[i : i + len(run)]]
            end_prose()
            body = [[value for _, value in r] + [key] for r, key in zip(run, cited, strict=True)]
            parts.append(markdown(Table([*heads, SOURCE], body)))
            i += len(run)
            continue
        sentence = sentences[i]
        if not sentence.citations and sentence.text.endswith(":"):  # a lead-in ("3 documents cover …:")
            end_prose()
            parts.append(sentence.text)
            listing = True
        elif holds_table(sentence.text) and not listing:
            end_prose()
            parts.append(f"{sentence.text}\n\n{' '.join(sentence.citations)}".rstrip())
        else:
            prose.append(f"{sentence.text} {' '.join(sentence.citations)}".rstrip())
        i += 1
    end_prose()
    return "\n\n".join(parts)


def needs_gathering(sentences: Sequence[AnswerSentence]) -> bool:
    """Some sentence is a table row spelled out or holds a table (before a lead-in: what follows
    one is the lines of its list)."""
    for s in sentences:
        if not s.citations and s.text.endswith(":"):
            return False
        if _verdict_and_row(s.text)[1] is not None or holds_table(s.text):
            return True
    return False


_VERDICT = re.compile(r"^(Yes|No):\s+")


def _verdict_and_row(sentence: str) -> tuple[str, list[tuple[str, str]] | None]:
    """A yes/no verdict the reader put before a row ("No: Feature: SSO; Starter: No") and the
    row's fields: the verdict is no column of the row."""
    verdict = _VERDICT.match(sentence)
    if verdict and (row := fields(sentence[verdict.end() :])) is not None:
        return verdict.group(1), row
    return "", fields(sentence)
