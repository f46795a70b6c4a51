"""A document's licence, end to end: read from a source file's frontmatter into the generated
Markdown, kept when a person edits it and the source is converted again, stored, and shown with
every citation — in the answer's citations (Python, HTTP), the terminal's footnotes and the
document listing."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from shu.kb import open_kb
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import PersonaMaker
from tests.serve.test_cli import shu

RAW = (
    "---\nlicense: CC-BY-4.0\n---\n# Field guide\n\n## Compost\n\nThe compost bays are turned every Friday.\n"
)
QUESTION = "When are the compost bays turned?"


def test_a_licence_is_converted_kept_through_reconversion_and_shown_with_citations(
    tmp_path: Path, make_persona: PersonaMaker
) -> None:
    home = tmp_path / "home"
    folder = make_persona("garden", raw={"field-guide.md": RAW})
    code, output = shu(home, "ingest", str(folder))
    assert code == 0, output
    generated = folder / "RAG" / "field-guide.md"
    assert "license: CC-BY-4.0" in generated.read_text()
    # a person corrects the licence by hand; the source changes and is converted again
    generated.write_text(generated.read_text().replace("license: CC-BY-4.0", "license: CC-BY-SA-4.0"))
    (folder / "RAW-DOCS" / "field-guide.md").write_text(
        RAW.replace("every Friday", "every Friday morning").replace("CC-BY-4.0", "CC0-1.0")
    )
    code, output = shu(home, "ingest", str(folder))
    assert code == 0, output
    text = generated.read_text()
    assert "license: CC-BY-SA-4.0" in text and "every Friday morning" in text, "the curated licence stays"

    code, output = shu(home, "ask", QUESTION, "-p", "garden")
    assert code == 0 and "every Friday morning" in output
    assert "(licence: CC-BY-SA-4.0)" in output, output
    code, output = shu(home, "--set", "answer.citation_style=keys", "ask", QUESTION, "-p", "garden")
    assert "Licence: CC-BY-SA-4.0." in output, output
    code, output = shu(home, "--json", "docs", "-p", "garden")
    assert [d["license"] for d in json.loads(output)] == ["CC-BY-SA-4.0"]

    kb = open_kb(home)
    try:
        answer = kb.ask(QUESTION, persona="garden", use_cache=False)
        assert [c.license for c in answer.citations] == ["CC-BY-SA-4.0"]
        assert kb.store.get_document("field-guide").license == "CC-BY-SA-4.0"  # type: ignore[union-attr]
        with running(create_app(kb)) as url:
            asked = httpx.post(f"{url}/v1/ask", json={"question": QUESTION, "persona": "garden"}, timeout=60)
            assert [c["license"] for c in asked.json()["citations"]] == ["CC-BY-SA-4.0"]
            view = httpx.get(f"{url}/v1/documents/field-guide", params={"persona": "garden"}).json()
            assert view["document"]["license"] == "CC-BY-SA-4.0"
    finally:
        kb.close()
