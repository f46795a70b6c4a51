"""`GET /v1/personas/{p}/suggested-config` over a real server: the CLI's `--json` object, 404 for
an unknown persona, 403 for a key that does not reach the persona or may only read it; nothing
written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import CountingEmbedder, PersonaMaker, doc

RPO = doc(
    "recovery",
    "Recovery",
    "# Recovery\n\n## Targets\n\nOur recovery point objective (RPO) is one hour.",
    tags=["backups"],
)
RESTORE = doc(
    "restore", "Restore", "# Restore\n\n## Steps\n\nRestore from last night's copy.", tags=["backups"]
)
SECRET = doc("secret", "Board secrets", "# Board\n\n## Deal\n\nThe acquisition price is 9 million.")


@pytest.fixture
def served(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> Iterator[dict[str, Any]]:
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false", "answer.scope=false"])
    kb = KnowledgeBase(settings, embedder=embedder)
    folder = make_persona("ops", tags=["uptime"], rag={"recovery.md": RPO, "restore.md": RESTORE})
    make_persona("board", rag={"secret.md": SECRET})
    assert not kb.ingest(folder.parent).failed
    with running(create_app(kb)) as url:
        yield {"url": url, "kb": kb, "folder": folder}
    kb.close()


def test_the_suggested_config_is_the_clis_json(served: dict[str, Any]) -> None:
    url, kb, folder = served["url"], served["kb"], served["folder"]
    before = sorted(p.name for p in folder.iterdir())
    response = httpx.get(f"{url}/v1/personas/ops/suggested-config", timeout=30)
    assert response.status_code == 200, response.text
    found = response.json()
    assert found == kb.suggest_persona_config("ops").as_json()
    assert found["config"]["tags"] == ["uptime", "backups", "RPO", "recovery point objective"]
    assert found["config"]["aliases"] == {"RPO": "recovery point objective"}
    assert found["reasons"]["tags"]["backups"]["documents"] == 2
    assert found["reasons"]["tags"]["uptime"]["source"] == "curated"
    assert sorted(p.name for p in folder.iterdir()) == before, "nothing written"


def test_an_unknown_persona_is_not_found(served: dict[str, Any]) -> None:
    missing = httpx.get(f"{served['url']}/v1/personas/nobody/suggested-config", timeout=30)
    assert missing.status_code == 404 and "unknown persona 'nobody'" in missing.json()["detail"]


def test_a_key_reads_the_suggestion_of_its_own_personas_only(served: dict[str, Any]) -> None:
    url, kb = served["url"], served["kb"]
    token = kb.accounts.create_key("ana", ["ops"], writes=["ops"])[1]
    headers = {"Authorization": f"Bearer {token}"}
    assert (
        httpx.get(f"{url}/v1/personas/ops/suggested-config", headers=headers, timeout=30).status_code == 200
    )
    reader = {"Authorization": f"Bearer {kb.accounts.create_key('bo', ['ops'])[1]}"}
    refused = httpx.get(f"{url}/v1/personas/ops/suggested-config", headers=reader, timeout=30)
    assert refused.status_code == 403 and "may not change persona 'ops'" in refused.json()["detail"]
    walled = httpx.get(f"{url}/v1/personas/board/suggested-config", headers=headers, timeout=30)
    assert walled.status_code == 403 and "does not reach persona 'board'" in walled.json()["detail"]
    assert httpx.get(f"{url}/v1/personas/board/suggested-config", timeout=30).status_code == 401
