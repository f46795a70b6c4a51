"""The fault suite's short configuration, against the real stores (what `.ci/run` runs; `shu
faults --full` runs the long one): nothing crashes, hangs, is lost or crosses a persona wall."""

from __future__ import annotations

import pytest

from shu_eval.faults.run import SHORT, failures, markdown, run_faults
from tests.store.postgres_server import server_url


@pytest.mark.slow
@pytest.mark.service
def test_the_short_fault_suite_finds_nothing() -> None:
    postgres, why = server_url()
    checks = run_faults(SHORT, postgres)
    table = markdown(checks, SHORT, 0)
    assert failures(checks) == 0, table
    names = [c.name for c in checks]
    assert "kill -9 during ingest (sqlite)" in names and "hostile corpus" in names
    assert "persona and user walls (HTTP, MCP)" in names and "hostile requests (HTTP)" in names
    assert "file swapped for a link mid-read" in names
    if postgres is not None:
        assert "kill -9 during migrate (postgresql)" in names, why
        assert "persona walls (postgresql)" in names and "hostile corpus (postgresql)" in names, why
        assert "persona and user walls (HTTP, MCP) (postgresql)" in names, why
        assert "file swapped for a link mid-read (postgresql)" in names, why
    assert all(c.inputs > 0 for c in checks), table
