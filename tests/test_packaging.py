"""`pip install .` ships the product only: the measuring package lives in `packages/shu-eval`."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_product_wheel_holds_no_measurement_code(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("shu-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "shu/kb.py" in names and "shu/serve/web/index.html" in names
    measuring = [n for n in names if n.startswith(("shu/eval/", "shu_eval/")) or "/samples/" in n]
    assert measuring == []
