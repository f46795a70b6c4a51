"""Property-based fuzzing of the HTTP API from its own OpenAPI schema (schemathesis) against a
real uvicorn server, once open and once behind keys: whatever a request holds, the server answers
with a status and a message, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import CountingEmbedder, doc

schemathesis = pytest.importorskip("schemathesis")
GenerationMode = schemathesis.GenerationMode

pytestmark = pytest.mark.slow

PRICING = doc("pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
EXAMPLES = 30


@pytest.fixture(scope="module", params=["open", "keyed"])
def api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, minilm: Any
) -> Iterator[tuple[Any, str, dict[str, str]]]:
    tmp = tmp_path_factory.mktemp("fuzz")
    overrides = ["enrich.enabled=false", "answer.scope=false", "agent.mode=never"]
    kb = KnowledgeBase(load_settings(tmp / "home", overrides), embedder=CountingEmbedder(minilm))
    folder = tmp / "personas" / "lumen"
    (folder / "RAG").mkdir(parents=True)
    (folder / "persona.config.json").write_text('{"slug": "lumen", "display_name": "Lumen"}')
    (folder / "RAG" / "pricing.md").write_text(PRICING)
    assert not kb.ingest(folder.parent).failed
    headers = {}
    if request.param == "keyed":
        headers["Authorization"] = f"Bearer {kb.accounts.create_key('ana', ['lumen'])[1]}"
    with running(create_app(kb)) as url:
        yield schemathesis.openapi.from_url(f"{url}/openapi.json"), url, headers
    kb.close()


def test_no_request_is_a_server_error(api: tuple[Any, str, dict[str, str]]) -> None:
    schema, url, headers = api
    failures: list[str] = []
    statuses: list[int] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 14, "every route of the API is in its schema"
    last = [op for op in operations if op.method.upper() == "DELETE"]  # forgetting oneself ends the key
    for operation in [op for op in operations if op not in last] + last:
        _fuzzed(operation, url, headers, failures, statuses)()
    assert failures == []
    assert len(statuses) >= 5 * len(operations), "each operation got several generated requests"
    assert {200, 422} <= set(statuses), "both accepted and refused requests were generated"


def _fuzzed(
    operation: Any, url: str, headers: dict[str, str], failures: list[str], statuses: list[int]
) -> Any:
    """A Hypothesis test sending `EXAMPLES` generated requests to one operation, valid ones and
    ones that break the schema."""

    modes = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    cases = st.one_of(*(operation.as_strategy(generation_mode=mode) for mode in modes))

    @given(case=cases)
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    def call(case: Any) -> None:
        response = case.call(base_url=url, headers=headers, timeout=60)
        statuses.append(response.status_code)
        if response.status_code >= 500:
            failures.append(f"{operation.method.upper()} {operation.path}: {response.text[:200]}")

    return call
