"""Commands other installed packages add to `shu` — the measuring commands of `shu-eval` (`shu
eval`, `shu bench-*`, `shu faults`, …). A package names, in the `shu.commands` entry-point group,
a callable that takes the Typer app and registers its commands on it; the product itself never
imports them."""

from __future__ import annotations

import logging
from importlib.metadata import entry_points

import typer

COMMAND_GROUP = "shu.commands"
log = logging.getLogger(__name__)


def mount_command_plugins(app: typer.Typer) -> list[str]:
    """Register every installed plugin's commands on `app`; the names of those mounted. One that
    fails to load is named on stderr and left out: the product's own commands still run."""
    mounted = []
    for entry in entry_points(group=COMMAND_GROUP):
        try:
            entry.load()(app)
        except Exception as error:  # any failure of foreign code: skip it, keep the CLI usable
            log.warning("shu: commands of %s (%s) not mounted: %s", entry.name, entry.value, error)
            continue
        mounted.append(entry.name)
    return mounted
