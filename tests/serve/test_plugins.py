"""Commands from other installed packages mount on `shu` through the `shu.commands` entry points;
one that fails to load is named and left out, and the product's own commands still run."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from shu.serve.plugins import mount_command_plugins

PLUGIN = """
import typer

def register(app: typer.Typer) -> None:
    @app.command("hello-plugin")
    def hello() -> None:
        typer.echo("hello from a plugin")
"""


def _install(site: Path, name: str, target: str, module: str = "", source: str = "") -> None:
    """A distribution as pip leaves it on a path: its dist-info with the entry point."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[shu.commands]\n{name} = {target}\n")
    if module:
        (site / f"{module}.py").write_text(source)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("shu_test_plugin", None)


def test_a_plugin_adds_its_commands_and_a_broken_one_is_left_out(
    site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _install(site, "hello", "shu_test_plugin:register", "shu_test_plugin", PLUGIN)
    _install(site, "broken", "shu_no_such_module:register")
    app = typer.Typer()

    @app.command("own")
    def own() -> None:
        typer.echo("own command")

    mounted = mount_command_plugins(app)

    assert "hello" in mounted and "broken" not in mounted
    assert "broken" in caplog.text and "shu_no_such_module" in caplog.text
    runner = CliRunner()
    assert runner.invoke(app, ["hello-plugin"]).output == "hello from a plugin\n"
    assert runner.invoke(app, ["own"]).output == "own command\n"
