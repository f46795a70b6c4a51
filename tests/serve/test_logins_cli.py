"""`shu users add/passwd/access/lock/unlock/logins` through the command line: the password read
from stdin (never printed), one-line errors, the login in the store."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from shu.kb import open_kb
from shu.serve.cli import app
from shu.serve.sessions_http import logins_of

runner = CliRunner()
PASSWORD = "a long enough password"


def shu(home: Path, *args: str, stdin: str = "") -> tuple[int, str]:
    result = runner.invoke(app, ["--home", str(home), *args], input=stdin)
    return result.exit_code, result.output


def test_users_are_added_changed_locked_and_listed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    code, out = shu(home, "users", "add", "root", "--admin", "--password-stdin", stdin=PASSWORD + "\n")
    assert code == 0 and "root: reads every persona (admin)" in out and PASSWORD not in out
    code, out = shu(home, "users", "add", "ana", "--read", "nope", "--password-stdin", stdin=PASSWORD + "\n")
    assert code != 0 and "unknown persona(s) nope" in out and "Traceback" not in out
    code, out = shu(home, "users", "add", "ana", "--password-stdin", stdin="short\n")
    assert code != 0 and "a password has 8–1024 characters" in out
    code, out = shu(home, "users", "add", "root", "--password-stdin", stdin=PASSWORD + "\n")
    assert code != 0 and "can already sign in" in out
    code, out = shu(home, "users", "add", "ana", stdin=f"{PASSWORD}\n{PASSWORD}\n")  # asked twice
    assert code == 0 and "ana: reads no persona" in out and PASSWORD not in out
    assert shu(home, "users", "lock", "ana")[1].strip().endswith("locked")
    assert "locked" not in shu(home, "users", "unlock", "ana")[1]
    code, out = shu(home, "users", "passwd", "ana", "--password-stdin", stdin="another password\n")
    assert code == 0
    code, out = shu(home, "users", "lock", "ghost")
    assert code != 0 and "no user 'ghost'" in out
    code, out = shu(home, "users", "logins")
    assert code == 0 and out.splitlines()[0].startswith("ana:") and "root:" in out
    with open_kb(home) as kb:
        login, _, _ = logins_of(kb).sign_in("ana", "another password")
        assert login.name == "ana"
