"""The flow is the layout: the front ends reach Shu through `shu.kb` only — no store or eval
internals (the measuring commands mount themselves from `shu.eval.cli`)."""

from __future__ import annotations

import ast
from pathlib import Path

import shu

SERVE = Path(shu.__file__).parent / "serve"


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_serve_imports_no_store_and_no_eval_internals() -> None:
    crossing = {
        f"{path.name}: {module}"
        for path in SERVE.glob("*.py")
        for module in imported(path)
        if module.startswith("shu.store") or (module.startswith("shu.eval") and module != "shu.eval.cli")
    }
    assert crossing == set()
