"""The EmbeddingGemma graph Shu writes without torch, checked two ways: on a tiny random model of
the same architecture against a plain NumPy forward pass written from transformers' Gemma3 code
(runs everywhere, in a second), and on the real model against sentence-transformers' own vectors
(tests/models/test_gemma.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from safetensors.numpy import save_file

from shu.errors import EmbedderError
from shu.models.embed.gemma_graph import GemmaConfig, build_graph, graph_file

TINY = {
    "model_type": "gemma3_text",
    "use_bidirectional_attention": True,
    "hidden_size": 16,
    "intermediate_size": 24,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 8,
    "rms_norm_eps": 1e-6,
    "query_pre_attn_scalar": 8,
    "rope_local_base_freq": 10000.0,
    "rope_theta": 1000000.0,
    "sliding_window": 8,  # transformers' bidirectional window: distance < 8 // 2 + 1 = 5
    "layer_types": ["sliding_attention", "full_attention"],
    "vocab_size": 40,
}


def tiny_folder(folder: Path, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    h, f, d, n = 16, 24, 8, 40

    def w(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.3, shape).astype(np.float32)

    weights = {"embed_tokens.weight": w(n, h), "norm.weight": w(h)}
    for i in range(2):
        p = f"layers.{i}."
        weights |= {
            p + "input_layernorm.weight": w(h),
            p + "post_attention_layernorm.weight": w(h),
            p + "pre_feedforward_layernorm.weight": w(h),
            p + "post_feedforward_layernorm.weight": w(h),
            p + "self_attn.q_proj.weight": w(2 * d, h),
            p + "self_attn.k_proj.weight": w(d, h),
            p + "self_attn.v_proj.weight": w(d, h),
            p + "self_attn.o_proj.weight": w(h, 2 * d),
            p + "self_attn.q_norm.weight": w(d),
            p + "self_attn.k_norm.weight": w(d),
            p + "mlp.gate_proj.weight": w(f, h),
            p + "mlp.up_proj.weight": w(f, h),
            p + "mlp.down_proj.weight": w(h, f),
        }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(TINY))
    modules = [
        {"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
        {"idx": 3, "path": "3_Dense", "type": "sentence_transformers.models.Dense"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    save_file({"model." + k: v for k, v in weights.items()}, str(folder / "model.safetensors"))
    for module, shape in (("2_Dense", (32, h)), ("3_Dense", (h, 32))):
        (folder / module).mkdir()
        dense = w(*shape)
        save_file({"linear.weight": dense}, str(folder / module / "model.safetensors"))
        weights[module] = dense
    return weights


def reference(weights: dict[str, np.ndarray], ids: list[int], window: int = 5) -> np.ndarray:
    """transformers' Gemma3TextModel (bidirectional) + mean pooling + the Dense modules, in NumPy."""
    x = weights["embed_tokens.weight"][ids] * np.float32(16**0.5)
    t = len(ids)

    def rms(v: np.ndarray, weight: np.ndarray) -> np.ndarray:
        return v / np.sqrt((v * v).mean(-1, keepdims=True) + 1e-6) * (1 + weight)

    def rope(v: np.ndarray, base: float) -> np.ndarray:
        inv = 1.0 / base ** (np.arange(0, 8, 2) / 8)
        angles = np.arange(t)[:, None] * inv[None, :]
        angles = np.concatenate([angles, angles], -1)
        turned = np.concatenate([-v[..., 4:], v[..., :4]], -1)
        return v * np.cos(angles) + turned * np.sin(angles)

    def gelu(v: np.ndarray) -> np.ndarray:
        return 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v**3)))

    for i, sliding in enumerate((True, False)):
        p = f"layers.{i}."
        h = rms(x, weights[p + "input_layernorm.weight"])
        q = (h @ weights[p + "self_attn.q_proj.weight"].T).reshape(t, 2, 8).transpose(1, 0, 2)
        k = (h @ weights[p + "self_attn.k_proj.weight"].T).reshape(t, 1, 8).transpose(1, 0, 2)
        v = (h @ weights[p + "self_attn.v_proj.weight"].T).reshape(t, 1, 8).transpose(1, 0, 2)
        base = 10000.0 if sliding else 1000000.0
        q = rope(rms(q, weights[p + "self_attn.q_norm.weight"]), base)
        k = rope(rms(k, weights[p + "self_attn.k_norm.weight"]), base)
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(8)
        if sliding:
            far = np.abs(np.arange(t)[:, None] - np.arange(t)[None, :]) >= window
            scores = np.where(far, -np.inf, scores)
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        attn = (probs @ v).transpose(1, 0, 2).reshape(t, 16) @ weights[p + "self_attn.o_proj.weight"].T
        x = x + rms(attn, weights[p + "post_attention_layernorm.weight"])
        h = rms(x, weights[p + "pre_feedforward_layernorm.weight"])
        mlp = gelu(h @ weights[p + "mlp.gate_proj.weight"].T) * (h @ weights[p + "mlp.up_proj.weight"].T)
        mlp = mlp @ weights[p + "mlp.down_proj.weight"].T
        x = x + rms(mlp, weights[p + "post_feedforward_layernorm.weight"])
    pooled = rms(x, weights["norm.weight"]).mean(0)
    out: np.ndarray = pooled @ weights["2_Dense"].T @ weights["3_Dense"].T
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[ort.InferenceSession, dict[str, np.ndarray]]:
    folder = tmp_path_factory.mktemp("tiny-gemma")
    weights = tiny_folder(folder)
    graph = build_graph(folder, graph_file(folder))
    return ort.InferenceSession(str(graph), providers=["CPUExecutionProvider"]), weights


def run(session: ort.InferenceSession, rows: list[list[int]]) -> np.ndarray:
    width = max(map(len, rows))
    ids = np.array([r + [0] * (width - len(r)) for r in rows], np.int64)
    mask = np.array([[1] * len(r) + [0] * (width - len(r)) for r in rows], np.int64)
    (out,) = session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})
    return np.asarray(out)


def test_the_graph_computes_what_transformers_does(
    tiny: tuple[ort.InferenceSession, dict[str, np.ndarray]],
) -> None:
    session, weights = tiny
    # 12 tokens: the sliding layer (distance < 5) sees only part of the sequence, the full one all
    rows = [[2, 7, 11, 3, 39, 5, 5, 8, 13, 21, 34, 1], [2, 9, 1], [2, 30]]
    got = run(session, rows)
    for row, vector in zip(rows, got, strict=True):
        assert np.allclose(vector, reference(weights, row), rtol=1e-4, atol=1e-4)


def test_padding_never_changes_a_vector(tiny: tuple[ort.InferenceSession, dict[str, np.ndarray]]) -> None:
    session, _ = tiny
    alone = run(session, [[2, 9, 1]])[0]
    padded = run(session, [[2, 9, 1], [2, *list(range(3, 30)), 1]])[0]
    assert np.allclose(alone, padded, atol=1e-5)


def test_the_sliding_window_is_transformers_bidirectional_one(
    tiny: tuple[ort.InferenceSession, dict[str, np.ndarray]],
) -> None:
    """config.json says 8; transformers keeps keys at distance < 8 // 2 + 1 on both sides."""
    session, weights = tiny
    row = [2, *range(3, 20), 1]
    got = run(session, [row])[0]
    assert np.allclose(got, reference(weights, row, window=5), rtol=1e-4, atol=1e-4)
    assert not np.allclose(got, reference(weights, row, window=8), rtol=1e-3, atol=1e-3)


def test_a_folder_of_another_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (tmp_path / "modules.json").write_text("[]")
    with pytest.raises(EmbedderError, match="not hold an EmbeddingGemma"):
        GemmaConfig.read(tmp_path)
    with pytest.raises(EmbedderError, match="not a sentence-transformers folder"):
        GemmaConfig.read(tmp_path / "missing")


def test_unexpected_weights_are_refused(tmp_path: Path) -> None:
    weights = tiny_folder(tmp_path)
    extra = {"model." + k: v for k, v in weights.items() if not k.endswith("Dense")}
    extra["model.layers.9.mystery.weight"] = np.zeros(3, np.float32)
    save_file(extra, str(tmp_path / "model.safetensors"))
    with pytest.raises(EmbedderError, match="unexpected weights"):
        build_graph(tmp_path, tmp_path / "g.onnx")


def test_damaged_weights_are_a_clear_error_and_leave_nothing(tmp_path: Path) -> None:
    from shu.models.embed.gemma import ensure_graph

    tiny_folder(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    (tmp_path / "model.safetensors").write_bytes(b"\xff" * 100)
    with pytest.raises(EmbedderError, match=r"cannot read the weights .*run `shu models verify`"):
        ensure_graph(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "no graph and no work folder left"
