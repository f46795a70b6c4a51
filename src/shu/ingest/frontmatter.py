"""YAML frontmatter: split it from a Markdown file, and write it back in `FIELD_ORDER`."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import yaml

from shu.errors import DocumentError

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
FIELD_ORDER = (
    "id",
    "title",
    "date",
    "source_url",
    "type",
    "personas",
    "tags",
    "summary",
    "license",
    "source_file",
    "source_sha256",
)


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """Return (metadata, body). A file without frontmatter has empty metadata.
    Raises DocumentError when a frontmatter block is present but is not a YAML mapping."""
    text = text.lstrip("\ufeff")
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            block = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            return _parse_yaml(block), body
    raise DocumentError("frontmatter starts with --- but is never closed")


MAX_FRONTMATTER_CHARS = 200_000
MAX_VALUES = 20_000
"""Values a frontmatter may hold once YAML aliases are expanded (an alias bomb holds billions)."""
MAX_DEPTH = 40


def _parse_yaml(block: str) -> dict[str, Any]:
    if len(block) > MAX_FRONTMATTER_CHARS:
        raise DocumentError(f"frontmatter is {len(block):,} characters (at most {MAX_FRONTMATTER_CHARS:,})")
    try:
        loader = yaml.SafeLoader(block)
    except yaml.YAMLError as exc:  # the reader refuses control characters before parsing
        raise DocumentError(f"broken YAML frontmatter: {getattr(exc, 'reason', None) or exc}") from exc
    try:
        node = loader.get_single_node()
        if node is not None:
            _bounded(node)  # before anything is built: aliases and merge keys copy what they name
        data = loader.construct_document(node) if node is not None else None
    except RecursionError as exc:
        raise DocumentError(f"frontmatter is nested too deeply (at most {MAX_DEPTH} levels)") from exc
    except (ValueError, OverflowError) as exc:  # 2024-02-30 is read as a date and fails as one
        raise DocumentError(f"frontmatter has an impossible value ({exc})") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or exc.__class__.__name__
        raise DocumentError(f"broken YAML frontmatter{where}: {problem}") from exc
    finally:
        loader.dispose()
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise DocumentError(f"frontmatter must be a YAML mapping, found {type(data).__name__}")
    return {str(key): _plain(value) for key, value in data.items()}


def _bounded(root: yaml.Node) -> None:
    """Refuse a YAML graph that expands past MAX_VALUES values or MAX_DEPTH levels once its aliases
    (and `<<` merge keys, which copy the mappings they name) are followed: an alias bomb is a
    few hundred bytes that expand to billions. Shared nodes are sized once (memoised)."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise DocumentError(f"frontmatter is nested too deeply (at most {MAX_DEPTH} levels)")
        if id(node) in sizes:
            return sizes[id(node)]
        sizes[id(node)] = MAX_VALUES + 1  # a node that contains itself expands for ever
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k, depth + 1) + size(v, depth + 1) for k, v in node.value)
        if total > MAX_VALUES:
            raise DocumentError(
                f"frontmatter expands to more than {MAX_VALUES:,} values (YAML aliases nested too deep?)"
            )
        sizes[id(node)] = total
        return total

    size(root, 1)


def _plain(value: Any) -> Any:
    """YAML dates become ISO strings so metadata is JSON-serialisable."""
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()[:10]
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def render_frontmatter(meta: dict[str, Any], body: str) -> str:
    ordered = {key: meta[key] for key in FIELD_ORDER if meta.get(key) not in (None, "", [])}
    ordered.update({k: v for k, v in meta.items() if k not in ordered and v not in (None, "", [])})
    if isinstance(ordered.get("date"), str) and _ISO_DATE.match(ordered["date"]):
        ordered["date"] = dt.date.fromisoformat(ordered["date"])  # written unquoted: date: 2026-03-05
    block = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=100).strip()
    return f"---\n{block}\n---\n\n{body.strip()}\n"


def as_str_list(value: Any, field: str) -> list[str]:
    """Frontmatter list fields accept a list or a comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    raise DocumentError(f"frontmatter field {field!r} must be a list of strings")
