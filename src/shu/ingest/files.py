"""Listing input files safely: nothing outside the knowledge base, nothing too large."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import BinaryIO

from shu.errors import DocumentError, SkipDocument


def list_files(folder: Path) -> list[Path]:
    """Everything but folders under `folder` (recursively), hidden ones left out, in a stable
    order: links, and named pipes, sockets and devices too, so that each gets a line of its own
    (`read_inside` skips them without opening them: opening a named pipe blocks). A folder that
    vanishes while it is listed is passed over (`os.walk` ignores what it cannot read); a linked
    folder is listed as an entry, never entered."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    for top, folders, files in os.walk(folder):
        here = Path(top)
        folders[:] = [name for name in folders if not name.startswith(".")]
        found += [here / name for name in files if not name.startswith(".")]
        found += [here / name for name in folders if (here / name).is_symlink()]
    return sorted(found)


def resolved(path: Path) -> Path:
    """`path` with links followed; a link loop (or a link that cannot be followed) stays as it is
    written, so that listing a folder never stops on one bad link."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return path.absolute()


def read_inside(path: Path, root: Path, max_bytes: int) -> bytes:
    """Read a file that must resolve inside `root`. Raises DocumentError otherwise.

    The file is opened once, without following a link at its name, and what was opened is
    checked (its kind, size and, where the system names an open file, its real path): a file
    swapped for a link out of the knowledge base between the check and the read is refused,
    never read."""
    try:
        resolved = path.resolve(strict=True)
    except RuntimeError as exc:  # Python 3.11 reports a link loop this way
        raise DocumentError("symbolic link loop") from exc
    except OSError as exc:
        raise DocumentError(f"cannot be read ({exc.strerror or exc})") from exc
    inside = root.resolve()
    if not resolved.is_relative_to(inside):
        raise DocumentError(f"path outside the knowledge base (resolves to {resolved})")
    try:
        mode = resolved.stat().st_mode  # (stat never opens the file: opening a named pipe blocks)
    except OSError as exc:
        raise DocumentError(f"cannot be read ({exc.strerror or exc})") from exc
    if not stat.S_ISREG(mode):
        raise SkipDocument(f"not a regular file ({_kind(mode)})")
    try:
        fd = os.open(resolved, _OPEN_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise DocumentError("the file became a link while it was read (read again next run)") from exc
        raise DocumentError(f"cannot be read ({exc.strerror or exc})") from exc
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise SkipDocument(f"not a regular file ({_kind(opened.st_mode)})")
        real = _opened_path(fd)
        if real is not None and not real.is_relative_to(inside):
            raise DocumentError("the file moved out of the knowledge base while it was read")
        if opened.st_size > max_bytes:
            raise _too_large(opened.st_size, max_bytes)
        try:
            return _read_at_most(handle, opened.st_size, max_bytes)
        except OSError as exc:
            raise DocumentError(f"cannot be read ({exc.strerror or exc})") from exc


def _read_at_most(handle: BinaryIO, size: int, max_bytes: int) -> bytes:
    """What is in the file, as large as it says it is, or larger if it grew since, but never
    more than `max_bytes` (a read of `max_bytes` would allocate that much whatever the file)."""
    parts = [handle.read(size + 1)]
    read = len(parts[0])
    while read > size and read <= max_bytes and (more := handle.read(min(_READ_STEP, max_bytes + 1 - read))):
        parts.append(more)
        read += len(more)
    if read > max_bytes:
        raise _too_large(read, max_bytes)
    return b"".join(parts)


_READ_STEP = 1024 * 1024


_OPEN_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
)
"""Never through a link at the file's own name; never waiting on a file that turned into a pipe."""


def _opened_path(fd: int) -> Path | None:
    """The real path of an open file where the system tells it (Linux), else None."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return None


def _too_large(size: int, max_bytes: int) -> DocumentError:
    return DocumentError(
        f"file too large ({size / 1e6:.1f} MB > limit {max_bytes / 1e6:.1f} MB; "
        "raise it with --set ingest.max_file_mb=N)"
    )


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
