"""Listing input files safely: nothing outside the knowledge base, nothing too large."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

from shu.errors import DocumentError, SkipDocument


def list_files(folder: Path) -> list[Path]:
    """Everything but folders under `folder` (recursively), hidden ones left out, in a stable
    order: links, and named pipes, sockets and devices too, so that each gets a line of its own
    (`read_inside` skips them without opening them: opening a named pipe blocks)."""
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.rglob("*")
        if not any(part.startswith(".") for part in p.relative_to(folder).parts)
        and (p.is_symlink() or not p.is_dir())
    )


def resolved(path: Path) -> Path:
    """`path` with links followed; a link loop (or a link that cannot be followed) stays as it is
    written, so that listing a folder never stops on one bad link."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return path.absolute()


def read_inside(path: Path, root: Path, max_bytes: int) -> bytes:
    """Read a file that must resolve inside `root`. Raises DocumentError otherwise."""
    try:
        resolved = path.resolve(strict=True)
    except RuntimeError as exc:  # Python 3.11 reports a link loop this way
        raise DocumentError("symbolic link loop") from exc
    except OSError as exc:
        raise DocumentError(f"cannot be read ({exc.strerror or exc})") from exc
    if not resolved.is_relative_to(root.resolve()):
        raise DocumentError(f"path outside the knowledge base (resolves to {resolved})")
    mode = resolved.stat().st_mode  # (stat never opens the file: opening a named pipe blocks)
    if not stat.S_ISREG(mode):
        raise SkipDocument(f"not a regular file ({_kind(mode)})")
    size = resolved.stat().st_size
    if size > max_bytes:
        raise DocumentError(
            f"file too large ({size / 1e6:.1f} MB > limit {max_bytes / 1e6:.1f} MB; "
            "raise it with --set ingest.max_file_mb=N)"
        )
    try:
        return resolved.read_bytes()
    except OSError as exc:
        raise DocumentError(f"cannot be read ({exc.strerror or exc})") from exc


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
