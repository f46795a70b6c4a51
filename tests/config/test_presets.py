"""Named presets as files: the product's (`shu.config.presets`) laid under the settings, and the
measuring package's read with the same reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shu.config.presets import PRESETS, lay_under, preset_names, read_preset, read_presets
from shu.config.settings import Settings, load_settings
from shu.errors import ConfigError
from shu.serve.cli import app
from shu_eval.configs import ANSWER_PRESETS, PRESETS_DIR, answer_settings
from shu_eval.configs import PRESETS as EVAL_PRESETS


def test_every_shipped_preset_names_real_settings_with_valid_values() -> None:
    assert "local" in preset_names()
    for name in preset_names():
        preset = read_preset(name)
        assert preset.description and preset.settings
        lay_under(Settings(), preset.settings)  # an unknown setting or a bad value raises
    for name, values in ANSWER_PRESETS.items():
        lay_under(Settings(), values)
        assert read_presets(PRESETS_DIR / "answers")[name]["description"]
    assert {"default", "as-ingested", "bm25", "bm25+rm3", "hybrid"} <= set(EVAL_PRESETS)
    assert EVAL_PRESETS["bm25+rm3"].retrieval.feedback_docs == 10 and EVAL_PRESETS["bm25"].retriever == "bm25"
    assert EVAL_PRESETS["default"].model_dump(exclude={"name", "description"}) == {
        "retriever": "pipeline",
        "retrieval": EVAL_PRESETS["default"].retrieval.model_dump(),
        "pipeline": Settings().retrieval.model_dump(),
        "enrich": Settings().enrich.model_copy(update={"enabled": False}).model_dump(),
    }, "`default` is exactly what a user gets"


def test_a_named_preset_lies_under_what_the_user_sets(tmp_path: Path) -> None:
    local = read_preset("local").settings
    plain = load_settings(tmp_path)
    assert plain.answer.max_tokens != local["answer"]["max_tokens"] and plain.preset == ""
    named = load_settings(tmp_path, ["preset=local", "answer.max_tokens=512"])
    assert named.llm.provider != "local", "named, the preset applies without the local model"
    assert named.answer.max_tokens == 512, "a setting given wins over the preset's"
    assert named.answer.context_tokens == local["answer"]["context_tokens"]
    assert named.verify.method == "rules" and named.enrich.method == "extractive"
    (tmp_path / "config.json").write_text(json.dumps({"answer": {"max_sections": 9}}))
    implied = load_settings(tmp_path, ["llm.provider=local"])
    assert implied.answer.max_sections == 9 and implied.answer.max_tokens == local["answer"]["max_tokens"]


def test_an_unknown_preset_or_a_bad_preset_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown preset 'fast' \(known: .*local"):
        load_settings(tmp_path, ["preset=fast"])
    (tmp_path / "typo.json").write_text(
        json.dumps({"description": "x", "settings": {"answer": {"max_tokes": 1}}})
    )
    (tmp_path / "wrong.json").write_text(
        json.dumps({"description": "x", "settings": {"answer": {"max_tokens": "many"}}})
    )
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ConfigError, match=r"broken\.json: not valid UTF-8 JSON"):
        read_preset("typo", tmp_path)
    (tmp_path / "broken.json").unlink()
    with pytest.raises(ConfigError, match=r"'answer.max_tokes': no such setting"):
        lay_under(Settings(), read_preset("typo", tmp_path).settings)
    with pytest.raises(ConfigError, match=r"'answer.max_tokens': Input should be a valid integer"):
        lay_under(Settings(), read_preset("wrong", tmp_path).settings)
    with pytest.raises(ConfigError, match="preset 'nothing': Field required"):
        (tmp_path / "nothing.json").write_text("{}")
        read_preset("nothing", tmp_path)


def test_the_eval_answer_presets_lie_over_the_configured_settings(tmp_path: Path) -> None:
    configured = load_settings(tmp_path, ["verify.enabled=true", "agent.mode=always"])
    plain = answer_settings(configured, "plain")
    assert not plain.verify.enabled and plain.agent.mode == "never" and not plain.agent.learn
    assert answer_settings(configured, "configured").agent.mode == "always"


def test_the_cli_lists_presets_and_takes_one(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["--json", "presets"])
    assert listed.exit_code == 0 and "local" in [p["name"] for p in json.loads(listed.output)]
    assert {p.name for p in PRESETS.glob("*.json")} == {"local.json"}
    refused = runner.invoke(app, ["--home", str(tmp_path), "--preset", "fast", "stats"])
    assert refused.exit_code != 0 and "unknown preset 'fast'" in refused.output
