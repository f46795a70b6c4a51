"""`shu personas` lists as it did; `shu personas suggest` proposes a config from the documents,
and `--write` puts it beside `persona.config.json`, which stays byte for byte as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shu.types import PersonaConfig
from tests.conftest import PersonaMaker, doc
from tests.serve.test_cli import home, shu

__all__ = ["home"]  # the fixture, shared with the other command-line tests

SSO = doc(
    "sso",
    "Single sign-on",
    "# Single sign-on\n\n## Turning it on\n\nTurn on single sign-on (SSO) for the team; SSO uses SAML.",
    tags=["security", "admin"],
)
PRICING = doc(
    "pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat.", tags=["billing", "admin"]
)
REFUNDS = doc("refunds", "Refunds", "# Refunds\n\n## Asking\n\nWrite to us within 30 days.", tags=["billing"])


@pytest.fixture
def lumen(home: Path, make_persona: PersonaMaker) -> Path:
    folder = make_persona(
        "lumen",
        tags=["SAML"],
        rag={"sso.md": SSO, "pricing.md": PRICING, "refunds.md": REFUNDS},
        retrieval={"vector_threshold": 0.35, "max_chunks": 8},
    )
    make_persona("empty")
    code, output = shu(home, "ingest", str(folder.parent))
    assert code == 0, output
    return folder


def test_personas_still_lists_the_personas(home: Path, lumen: Path) -> None:
    code, output = shu(home, "personas")
    assert code == 0 and "lumen" in output and "SAML" in output and "empty" in output
    code, output = shu(home, "--json", "personas")
    listed = {p["slug"]: p for p in json.loads(output)}
    assert code == 0 and listed["lumen"]["documents"] == 3 and listed["empty"]["documents"] == 0
    assert listed["lumen"]["config"]["tags"] == ["SAML"] and listed["lumen"]["display_name"] == "Lumen"


def test_suggest_proposes_tags_and_aliases_with_why(home: Path, lumen: Path) -> None:
    code, output = shu(home, "--json", "personas", "suggest", "lumen")
    assert code == 0, output
    found = json.loads(output)
    config = found["config"]
    assert config["tags"] == ["SAML", "billing", "admin", "SSO", "single sign-on"]
    assert config["aliases"] == {"SSO": "single sign-on"}
    assert config["retrieval"] == {"vector_threshold": 0.35, "max_chunks": 8}, "curated, nothing invented"
    reasons = found["reasons"]
    assert reasons["tags"]["billing"] == {
        "source": "frontmatter",
        "added": True,
        "documents": 2,
        "examples": ["pricing", "refunds"],
    }
    assert "security" not in reasons["tags"], "one document carries it"
    assert reasons["aliases"]["SSO"]["examples"] == ["sso"]
    code, output = shu(home, "personas", "suggest", "lumen")
    assert code == 0 and '"aliases": {' in output
    assert "billing" in output and "frontmatter" in output and "SSO → single sign-on" in output


def test_write_puts_the_suggestion_beside_the_config_and_never_changes_it(home: Path, lumen: Path) -> None:
    curated = lumen / "persona.config.json"
    before = curated.read_bytes()
    (lumen / "persona.config.suggested.json").symlink_to(curated)  # replaced, never written through
    code, output = shu(home, "personas", "suggest", "lumen", "--write")
    assert code == 0 and "persona.config.suggested.json" in output
    assert curated.read_bytes() == before
    written = lumen / "persona.config.suggested.json"
    assert written.is_file() and not written.is_symlink()
    config = PersonaConfig.model_validate(json.loads(written.read_text(encoding="utf-8")))
    assert config.aliases == {"SSO": "single sign-on"} and config.tags[0] == "SAML"
    assert [p.name for p in lumen.iterdir() if p.name.startswith(".")] == [], "no temporary file left"


def test_an_unknown_persona_and_a_persona_without_documents(home: Path, lumen: Path) -> None:
    code, output = shu(home, "personas", "suggest", "nobody")
    assert code == 2 and "unknown persona 'nobody'" in output
    code, output = shu(home, "personas", "suggest", "empty")
    assert code == 0 and "has no documents" in output and "nothing added" in output
    code, output = shu(home, "--json", "personas", "suggest", "empty")
    found = json.loads(output)
    assert found["config"]["tags"] == [] and found["config"].get("aliases", {}) == {}
    assert found["reasons"] == {"tags": {}, "aliases": {}}
