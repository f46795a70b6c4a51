from pathlib import Path

import pytest

from shu.config.settings import load_settings
from shu.errors import ConfigError


def test_defaults_put_the_store_under_the_home(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "h")
    assert settings.db_path == tmp_path / "h" / "shu.db"
    assert settings.embedder.provider == "local"
    assert settings.embedder.model == "all-MiniLM-L6-v2"


def test_file_then_environment_then_dotted_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.json").write_text('{"chunking": {"max_tokens": 100, "overlap_tokens": 10}}')
    monkeypatch.setenv("SHU_CHUNKING__OVERLAP_TOKENS", "20")
    settings = load_settings(tmp_path, ["chunking.max_tokens=300"])
    assert settings.chunking.max_tokens == 300
    assert settings.chunking.overlap_tokens == 20


def test_home_comes_from_shu_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHU_HOME", str(tmp_path / "x"))
    assert load_settings().home == tmp_path / "x"


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("chunking.max_tokens=abc", "chunking.max_tokens"),
        ("nonsense", "expected dotted.key=value"),
        ("embedder.provider=gpt", "embedder.provider"),
        ("chunking.max_token=100", "chunking.max_token: Extra inputs are not permitted"),
        ("embeder.provider=openai", "embeder: Extra inputs are not permitted"),
        (
            "retrieval.personal.now=2025-02-30",
            "retrieval.personal.now: .*'2025-02-30' is not a day of the calendar",
        ),
        ("retrieval.personal.now=2025-2-3", "retrieval.personal.now"),
        ("store.index_build_memory=lots", "store.index_build_memory"),
        ("llm.budget.max_calls=-1", "llm.budget.max_calls"),
        ("llm.budget.max_tokens=many", "llm.budget.max_tokens"),
    ],
)
def test_invalid_overrides_are_named(tmp_path: Path, override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(tmp_path, [override])


def test_broken_config_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{broken")
    with pytest.raises(ConfigError, match=r"config\.json"):
        load_settings(tmp_path)


@pytest.mark.parametrize(("content", "message"), [(b"[1, 2]", "JSON object"), (b"\xff\xfe{", "UTF-8 JSON")])
def test_config_file_of_the_wrong_shape(tmp_path: Path, content: bytes, message: str) -> None:
    (tmp_path / "config.json").write_bytes(content)
    with pytest.raises(ConfigError, match=message):
        load_settings(tmp_path)


def test_the_llm_budget_of_a_question_has_defaults_and_is_set_by_dotted_keys(tmp_path: Path) -> None:
    budget = load_settings(tmp_path).llm.budget
    assert (budget.max_calls, budget.max_tokens, budget.max_json_failures) == (16, 40_000, 2)
    overrides = ["llm.budget.max_calls=4", "llm.budget.max_json_failures=0"]
    set_here = load_settings(tmp_path, overrides).llm.budget
    assert (set_here.max_calls, set_here.max_json_failures) == (4, 0)
