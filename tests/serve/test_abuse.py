"""The fault suite's row of hostile requests passes against the server as it is."""

from __future__ import annotations

from pathlib import Path

from shu_eval.faults.abuse import server_abuse_check


def test_hostile_requests_find_no_crash_hang_or_breach(tmp_path: Path) -> None:
    check = server_abuse_check(tmp_path)
    assert check.inputs > 200
    assert (check.crashes, check.hangs, check.lost, check.breaches) == (0, 0, 0, 0), check.notes
