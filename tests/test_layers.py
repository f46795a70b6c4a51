"""The flow is the layout: the front ends reach Shu through `shu.kb` only — no store internals —
and the product never imports the measuring package `shu_eval` (its commands mount themselves on
`shu` through the `shu.commands` entry points)."""

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


def test_serve_imports_no_store_internals() -> None:
    crossing = {
        f"{path.name}: {module}"
        for path in SERVE.glob("*.py")
        for module in imported(path)
        if module.startswith("shu.store")
    }
    assert crossing == set()


def test_the_product_never_imports_the_measuring_package() -> None:
    product = Path(shu.__file__).parent
    crossing = {
        f"{path.relative_to(product)}: {module}"
        for path in product.rglob("*.py")
        for module in imported(path)
        if module.split(".")[0] == "shu_eval"
    }
    assert crossing == set()


def test_the_measuring_commands_mount_on_shu_through_their_entry_point() -> None:
    from typer.main import get_command

    from shu.serve.cli import app

    names = set(get_command(app).commands)  # type: ignore[attr-defined]  # a Typer group
    assert {"eval", "faults", "bench", "bench-peers", "eval-scope"} <= names
