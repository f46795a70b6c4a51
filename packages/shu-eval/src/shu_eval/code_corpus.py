"""A code corpus in the BEIR layout, built from an installed Python package's source and its
README (the long description in its `*.dist-info/METADATA`): what identifier tokenization is
measured on. Nothing of the package is copied into the repository; the questions and their
judgements (`data/code-<package>/`) were written from the code before anything was measured.

One document per top-level class (a chunk for its header and docstring, one per method), per
top-level function, per module's own statements (docstring, constants), and the README (a chunk
per `##` section). Chunk ids are dotted names (`httpx._models.Response.raise_for_status`), so
the judgements hold as long as the package version does."""

from __future__ import annotations

import ast
import json
import re
import shutil
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

from shu.errors import ShuError

DATA = Path(__file__).parent / "data"


def build_code_corpus(package: str, out: Path) -> tuple[int, int]:
    """Write `out`/corpus.jsonl from the installed `package` and copy its shipped questions and
    judgements beside it; (documents, chunks) written."""
    shipped = DATA / f"code-{package}"
    if not shipped.is_dir():
        raise ShuError(f"no questions ship for package {package!r} (looked in {shipped})")
    wanted = json.loads((shipped / "package.json").read_text())["version"]
    try:
        installed = metadata.version(package)
    except metadata.PackageNotFoundError as exc:
        raise ShuError(f"package {package!r} is not installed here") from exc
    if installed != wanted:
        raise ShuError(f"the questions were written for {package} {wanted}; {installed} is installed")
    root = _package_root(package)
    rows = [*_source_rows(package, root), *_readme_rows(package)]
    out.mkdir(parents=True, exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    shutil.copy(shipped / "queries.jsonl", out / "queries.jsonl")
    shutil.copytree(shipped / "qrels", out / "qrels", dirs_exist_ok=True)
    return len({r["metadata"]["doc_id"] for r in rows}), len(rows)


def _package_root(package: str) -> Path:
    files = metadata.files(package) or []
    init = next((f for f in files if str(f) == f"{package}/__init__.py"), None)
    if init is None:
        raise ShuError(f"package {package!r} has no {package}/__init__.py")
    return Path(str(init.locate())).parent


def _source_rows(package: str, root: Path) -> Iterator[dict[str, Any]]:
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent)
        module = ".".join(relative.with_suffix("").parts)
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        lines = source.splitlines()
        own: list[str] = []
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                yield from _class_rows(module, str(relative), node, lines)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{module}.{node.name}"
                yield _row(name, name, f"def {node.name} ({relative})", node.name, _segment(node, lines))
            elif not isinstance(node, ast.Import | ast.ImportFrom):
                own.append(_segment(node, lines))
        if own:
            name = f"{module}.<module>"
            yield _row(name, name, f"module {module} ({relative})", module, "\n".join(own))


def _class_rows(module: str, relative: str, node: ast.ClassDef, lines: list[str]) -> Iterator[dict[str, Any]]:
    doc_id = f"{module}.{node.name}"
    title = f"class {node.name} ({relative})"
    methods = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    header = [_segment(n, lines) for n in node.body if n not in methods]
    start = "\n".join(lines[node.lineno - 1 : node.body[0].lineno - 1]) if node.body else ""
    yield _row(doc_id, doc_id, title, node.name, "\n".join([start, *header]).strip())
    named: dict[str, list[str]] = {}  # a property's getter and setter are one chunk
    for method in methods:
        named.setdefault(method.name, []).append(_segment(method, lines))
    for name, segments in named.items():
        yield _row(f"{doc_id}.{name}", doc_id, title, f"{node.name}.{name}", "\n\n".join(segments))


def _readme_rows(package: str) -> Iterator[dict[str, Any]]:
    text = metadata.metadata(package).get_payload()  # type: ignore[attr-defined]  # the description body
    body = str(text or "")
    doc_id = f"{package}-readme"
    for number, part in enumerate(re.split(r"(?m)^(?=## )", body)):
        if not part.strip():
            continue
        heading = part.splitlines()[0].lstrip("# ").strip() if part.startswith("## ") else "Introduction"
        yield _row(f"{doc_id}#{number}", doc_id, f"{package} README", heading, part.strip())


def _segment(node: ast.AST, lines: list[str]) -> str:
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])  # type: ignore[attr-defined]
    return "\n".join(lines[first - 1 : node.end_lineno])  # type: ignore[attr-defined]


def _row(row_id: str, doc_id: str, title: str, section: str, text: str) -> dict[str, Any]:
    return {
        "_id": row_id,
        "title": title,
        "text": text,
        "metadata": {"doc_id": doc_id, "title": title, "section": section},
    }
