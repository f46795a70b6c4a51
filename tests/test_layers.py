"""The flow is the layout: imports between Shu's top-level packages point down the layers only
(never up, never sideways), the front ends reach Shu through `shu.kb` — no store internals — and
the product never imports the measuring package `shu_eval` (its commands mount themselves on
`shu` through the `shu.commands` entry points)."""

from __future__ import annotations

import ast
from pathlib import Path

import shu

PRODUCT = Path(shu.__file__).parent
SERVE = PRODUCT / "serve"
LAYERS = [
    {"serve"},
    {"kb"},
    {"parts"},
    {"accounts", "jobs", "conversations"},
    {"answer"},
    {"retrieve"},
    {"ingest"},
    {"enrich"},
    {"store"},
    {"models"},
    {"prompts"},
    {"config"},
    {"fences"},
    {"checks", "roles", "markdown"},
    {"text"},
    {"analysis"},
    {"relative_dates"},
    {"months"},
    {"types"},
    {"errors"},
]
"""Shu's top-level packages and modules from the front ends down (docs/architecture.md draws it);
a package may import only from the layers below its own."""


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def layer_of(name: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if name in layer)


def test_every_top_level_package_has_a_layer() -> None:
    names = {p.stem for p in PRODUCT.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    assert names - {"__init__"} == set().union(*LAYERS)


def test_imports_point_down_the_layers_only() -> None:
    crossing = set()
    for path in PRODUCT.rglob("*.py"):
        part = path.relative_to(PRODUCT).parts[0].removesuffix(".py")
        if part == "__init__":  # the package's face re-exports from below
            continue
        for module in imported(path):
            names = module.split(".")
            inside = names[0] == "shu" and len(names) > 1 and names[1] != part
            if inside and layer_of(names[1]) <= layer_of(part):
                crossing.add(f"{path.relative_to(PRODUCT)}: {module}")
    assert crossing == set()


def test_serve_imports_no_store_internals() -> None:
    crossing = {
        f"{path.name}: {module}"
        for path in SERVE.glob("*.py")
        for module in imported(path)
        if module.startswith("shu.store")
    }
    assert crossing == set()


FRONT_DOOR = {
    "shu",
    "shu.kb",
    "shu.types",
    "shu.errors",
    "shu.config.settings",
    "shu.config.presets",
    # what the front ends show: an answer, its stream, its tables
    "shu.answer.render",
    "shu.answer.stream",
    "shu.answer.tables",
    # who may do what (policy functions over a caller's key or login)
    "shu.accounts.keys",
    "shu.accounts.logins",
    # the records and progress of the verbs' groups
    "shu.conversations",
    "shu.jobs",
    "shu.ingest.job",
    "shu.ingest.report",
    # what a front end checks before it hands a file or a folder to the knowledge base
    "shu.ingest.uploads",
    "shu.ingest.personas",
    "shu.ingest.watch",
    # `shu models`: the registry of installable models
    "shu.models.registry",
    "shu.models.embed.gemma",
    "shu.models.embed.gemma_graph",
}
"""The product modules a front end may import: the knowledge base and what it hands out or
checks; never the store, retrieval, enrichment, the LLM or the parts they are built from."""


def test_front_ends_import_only_the_front_door() -> None:
    crossing = {
        f"{path.relative_to(PRODUCT)}: {module}"
        for path in SERVE.rglob("*.py")
        for module in imported(path)
        if module.split(".")[0] == "shu" and not module.startswith("shu.serve") and module not in FRONT_DOOR
    }
    assert crossing == set()


def test_front_ends_reach_the_product_through_the_knowledge_base_verbs() -> None:
    """Not through its store or the parts it is made of (`kb.store`, `kb.parts`): the verbs of
    `KnowledgeBase` and its groups (`kb.accounts`, `kb.logins`, `kb.jobs`, `kb.conversations`)."""
    reached = set()
    for path in SERVE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute) or node.attr not in ("store", "parts"):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("kb", "knowledge", "base"):
                reached.add(f"{path.relative_to(PRODUCT)}:{node.lineno}: {node.value.id}.{node.attr}")
    assert reached == set()


def test_the_product_never_imports_the_measuring_package() -> None:
    crossing = {
        f"{path.relative_to(PRODUCT)}: {module}"
        for path in PRODUCT.rglob("*.py")
        for module in imported(path)
        if module.split(".")[0] == "shu_eval"
    }
    assert crossing == set()


def test_the_measuring_commands_mount_on_shu_through_their_entry_point() -> None:
    from typer.main import get_command

    from shu.serve.cli import app

    names = set(get_command(app).commands)  # type: ignore[attr-defined]  # a Typer group
    assert {"eval", "faults", "bench", "bench-peers", "eval-scope"} <= names
