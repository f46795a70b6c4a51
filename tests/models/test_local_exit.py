"""A process that ran the in-process model exits quietly: its models are closed at exit, while
llama.cpp's bindings are whole, never by `Llama.__del__` in the interpreter's teardown (which
printed "Exception ignored in: <function Llama.__del__ …> TypeError: 'NoneType' object is not
callable"); a model in use is left alone."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shu.models.llm import local
from shu.models.llm.local import LocalOptions, close_all, load
from tests.conftest import smollm2_gguf

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
from shu.config.settings import LLMSettings
from shu.models.llm.base import Message
from shu.models.llm.factory import create_llm

settings = LLMSettings(provider="local", model_path={gguf!r}, model="smollm2", n_ctx=512)
client = create_llm(settings)
print(client.chat([Message(role="user", content="Say hi.")], max_tokens=8).text)

from llama_cpp import Llama  # imported after Shu loaded the model (it sets OMP_WAIT_POLICY first)

closing = Llama.close

def close(self, open=open, finalizing=sys.is_finalizing):  # still at hand in the teardown
    with open({marks!r}, "a") as marks:  # when the model is freed: at exit, or in the teardown
        marks.write("teardown\\n" if finalizing() else "at exit\\n")
    closing(self)

Llama.close = close
"""


@pytest.mark.slow
def test_the_process_exits_without_noise_and_the_model_is_closed_before_teardown(tmp_path: Path) -> None:
    marks = tmp_path / "closed.txt"
    script = textwrap.dedent(SCRIPT.format(marks=str(marks), gguf=str(smollm2_gguf())))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "the model answered"
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert marks.read_text().splitlines()[0] == "at exit", "closed by the exit handler, not in teardown"


@pytest.mark.slow
def test_closing_forgets_idle_models_and_leaves_one_in_use() -> None:
    options = LocalOptions(n_ctx=512)
    loaded = load(smollm2_gguf(), options)
    try:
        with loaded.lock:  # as while another thread generates
            close_all()
            assert loaded in local._loaded.values(), "a model in use is not freed under it"
        close_all()
        assert loaded not in local._loaded.values()
        assert load(smollm2_gguf(), options) is not loaded, "the next call loads it again"
    finally:
        close_all()
