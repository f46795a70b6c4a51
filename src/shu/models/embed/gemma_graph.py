"""EmbeddingGemma as an ONNX graph, written from its sentence-transformers folder without torch.

Google publishes EmbeddingGemma-300M as safetensors for transformers. Shu runs every embedder on
onnxruntime, and exporting through torch would make torch an install-time dependency of a
1.2 GB download; so the graph is written here, operator by operator, from the folder's
`config.json` and weights. It follows transformers' `Gemma3TextModel` with
`use_bidirectional_attention` and the sentence-transformers modules after it:

- token embeddings scaled by sqrt(hidden) (folded into the table);
- per layer: RMSNorm with `1 + weight`, grouped-query attention with RMSNorm on each head's
  queries and keys, rotary positions (base `rope_local_base_freq` on sliding layers,
  `rope_theta` on full ones), softmax scale `query_pre_attn_scalar ** -0.5`; sliding layers see
  keys at distance < `sliding_window // 2 + 1` (transformers' bidirectional window), padding is
  never seen; the attention and the gated tanh-GELU MLP are each normed before and after and
  added to the residual;
- a final RMSNorm, mean pooling over the attention mask, then the Dense modules (768 → 3072 →
  768, no bias, identity activation). The L2 normalisation (and Matryoshka truncation) is left to
  the caller.

Checked against sentence-transformers' own vectors (tests/models/test_gemma.py): cosine ≥ 0.9999
on texts of 10 to 1,149 tokens, one batch padded to the longest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from shu.errors import EmbedderError

_NEEDS = "the EmbeddingGemma graph is written with {0}: pip install {0}"

GRAPH_VERSION = 1
"""Bumped when the graph written here changes; the file name carries it, so an old graph is
rebuilt rather than used."""

OPSET = 20  # Gelu with approximate="tanh"
_NEG = -1e9  # an additive mask value: exp() of it is 0 in float32, and it never makes a NaN


@dataclass(frozen=True)
class GemmaConfig:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    eps: float
    scale: float
    rope_local: float
    rope_global: float
    window: int
    sliding: tuple[bool, ...]
    dense: tuple[str, ...]

    @classmethod
    def read(cls, folder: Path) -> GemmaConfig:
        try:
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EmbedderError(f"{folder} is not a sentence-transformers folder: {exc}") from exc
        if config.get("model_type") != "gemma3_text" or not config.get("use_bidirectional_attention"):
            raise EmbedderError(f"{folder} does not hold an EmbeddingGemma model (model_type gemma3_text)")
        layers = int(config["num_hidden_layers"])
        types = config.get("layer_types") or [
            "full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(layers)
        ]
        return cls(
            hidden=int(config["hidden_size"]),
            layers=layers,
            heads=int(config["num_attention_heads"]),
            kv_heads=int(config["num_key_value_heads"]),
            head_dim=int(config["head_dim"]),
            eps=float(config["rms_norm_eps"]),
            scale=float(config["query_pre_attn_scalar"]) ** -0.5,
            rope_local=float(config["rope_local_base_freq"]),
            rope_global=float(config["rope_theta"]),
            window=int(config["sliding_window"]) // 2 + 1,
            sliding=tuple(kind == "sliding_attention" for kind in types),
            dense=tuple(m["path"] for m in modules if str(m["type"]).endswith("Dense")),
        )


def graph_file(folder: Path) -> Path:
    """Where the graph made from `folder` is kept (beside the weights it was made from)."""
    return folder / f"shu-embeddinggemma-v{GRAPH_VERSION}.onnx"


def build_graph(folder: Path, target: Path) -> Path:
    """Write the ONNX graph for the model in `folder` to `target`, its weights beside it
    (`<target>.data`)."""
    try:
        import onnx
    except ImportError as exc:
        raise EmbedderError(_NEEDS.format("onnx")) from exc

    model = _Builder(GemmaConfig.read(folder), _Weights(folder)).model()
    location = target.name + ".data"
    onnx.save_model(
        model, str(target), save_as_external_data=True, all_tensors_to_one_file=True, location=location
    )
    return target


class _Weights:
    """The transformer's and the Dense modules' tensors, as float32 numpy arrays."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def transformer(self) -> dict[str, np.ndarray]:
        return self._load(self.folder / "model.safetensors")

    def dense(self, module: str) -> np.ndarray:
        tensors = self._load(self.folder / module / "model.safetensors")
        weights = [v for k, v in tensors.items() if k.endswith("weight")]
        if len(weights) != 1 or any(k.endswith("bias") for k in tensors):
            raise EmbedderError(f"{self.folder / module}: expected one weight and no bias")
        return weights[0]

    @staticmethod
    def _load(path: Path) -> dict[str, np.ndarray]:
        try:
            from safetensors import SafetensorError
            from safetensors.numpy import load_file
        except ImportError as exc:
            raise EmbedderError(_NEEDS.format("safetensors")) from exc

        try:
            tensors = load_file(str(path))
        except (OSError, ValueError, SafetensorError) as exc:  # a damaged file: `shu models verify`
            raise EmbedderError(f"cannot read the weights {path}: {exc}; run `shu models verify`") from exc
        return {k.removeprefix("model."): v.astype(np.float32, copy=False) for k, v in tensors.items()}


class _Builder:
    """Appends nodes and initializers; each helper returns the name of its output."""

    def __init__(self, config: GemmaConfig, weights: _Weights) -> None:
        self.c = config
        self.w = weights
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._n = 0

    def model(self) -> Any:
        from onnx import TensorProto, helper

        c = self.c
        tensors = self.w.transformer()
        table = tensors.pop("embed_tokens.weight") * np.float32(c.hidden**0.5)
        x = self.op("Gather", [self.const("embed", table), "input_ids"])
        cos_local, sin_local, cos_global, sin_global, key_bias, window_bias = self._positions()
        for i in range(c.layers):
            prefix = f"layers.{i}."

            def weight(name: str, prefix: str = prefix) -> np.ndarray:
                return tensors.pop(prefix + name)

            h = self.rms(x, weight("input_layernorm.weight"), f"l{i}.in")
            rope = (cos_local, sin_local) if c.sliding[i] else (cos_global, sin_global)
            bias = window_bias if c.sliding[i] else key_bias
            attn = self.attention(h, i, weight, rope, bias)
            x = self.op("Add", [x, self.rms(attn, weight("post_attention_layernorm.weight"), f"l{i}.pa")])
            h = self.rms(x, weight("pre_feedforward_layernorm.weight"), f"l{i}.pf")
            gate = self.linear(h, weight("mlp.gate_proj.weight"), f"l{i}.gate")
            up = self.linear(h, weight("mlp.up_proj.weight"), f"l{i}.up")
            act = self.op("Mul", [self.op("Gelu", [gate], approximate="tanh"), up])
            down = self.linear(act, weight("mlp.down_proj.weight"), f"l{i}.down")
            x = self.op("Add", [x, self.rms(down, weight("post_feedforward_layernorm.weight"), f"l{i}.po")])
        x = self.rms(x, tensors.pop("norm.weight"), "final")
        if tensors:
            raise EmbedderError(f"unexpected weights in the model: {sorted(tensors)[:5]}")
        # mean over the tokens the mask keeps
        mask = self.op(
            "Unsqueeze", [self.op("Cast", ["attention_mask"], to=TensorProto.FLOAT), self.ints([2])]
        )
        total = self.op("ReduceSum", [self.op("Mul", [x, mask]), self.ints([1])], keepdims=0)
        count = self.op("ReduceSum", [mask, self.ints([1])], keepdims=0)
        y = self.op("Div", [total, self.op("Max", [count, self.f32("one", 1.0)])])
        for module in c.dense:
            y = self.linear(y, self.w.dense(module), module)
        self.nodes.append(helper.make_node("Identity", [y], ["embedding"]))
        graph = helper.make_graph(
            self.nodes,
            "embeddinggemma",
            [
                helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
                helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
            ],
            [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", None])],
            self.inits,
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="shu")

    # --- pieces -------------------------------------------------------------------------------

    def _positions(self) -> tuple[str, str, str, str, str, str]:
        """Rotary cos/sin for both bases ([tokens, head_dim]), the padding mask as an additive bias
        ([batch, 1, 1, tokens]) and that bias plus the sliding window ([batch, 1, tokens, tokens])."""
        from onnx import TensorProto

        c = self.c
        length = self.op("Gather", [self.op("Shape", ["input_ids"]), self.i64("i1", 1)])
        steps = self.op("Range", [self.i64("i0", 0), length, self.i64("i1b", 1)])
        pos = self.op("Cast", [steps], to=TensorProto.FLOAT)
        column = self.op("Unsqueeze", [pos, self.ints([1])])  # [T, 1]
        tables = []
        for base, tag in ((c.rope_local, "local"), (c.rope_global, "global")):
            exponents = np.arange(0, c.head_dim, 2, dtype=np.int64).astype(np.float32) / np.float32(
                c.head_dim
            )
            inverse = (1.0 / (np.float32(base) ** exponents)).astype(np.float32)[None, :]  # [1, head_dim/2]
            freqs = self.op("MatMul", [column, self.const(f"inv_{tag}", inverse)])
            angles = self.op("Concat", [freqs, freqs], axis=-1)
            tables += [self.op("Cos", [angles]), self.op("Sin", [angles])]
        keep = self.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
        drop = self.op("Sub", [self.f32("onef", 1.0), keep])
        key_bias = self.op("Unsqueeze", [self.op("Mul", [drop, self.f32("neg", _NEG)]), self.ints([1, 2])])
        row = self.op("Unsqueeze", [pos, self.ints([0])])  # [1, T]
        distance = self.op("Abs", [self.op("Sub", [column, row])])  # [T, T]
        inside = self.op("Less", [distance, self.f32("window", float(c.window))])
        window = self.op("Where", [inside, self.f32("zero", 0.0), self.f32("neg2", _NEG)])
        window_bias = self.op("Add", [key_bias, window])
        return tables[0], tables[1], tables[2], tables[3], key_bias, window_bias

    def attention(self, h: str, i: int, weight: Any, rope: tuple[str, str], bias: str) -> str:
        c = self.c
        q = self.heads(self.linear(h, weight("self_attn.q_proj.weight"), f"l{i}.q"), c.heads)
        k = self.heads(self.linear(h, weight("self_attn.k_proj.weight"), f"l{i}.k"), c.kv_heads)
        v = self.heads(self.linear(h, weight("self_attn.v_proj.weight"), f"l{i}.v"), c.kv_heads)
        q = self.rotate(self.rms(q, weight("self_attn.q_norm.weight"), f"l{i}.qn"), rope)
        k = self.rotate(self.rms(k, weight("self_attn.k_norm.weight"), f"l{i}.kn"), rope)
        # [B, H, T, D] x [B, 1, D, T]: the one key/value head is shared by every query head
        scores = self.op("MatMul", [q, self.op("Transpose", [k], perm=[0, 1, 3, 2])])
        scores = self.op("Add", [self.op("Mul", [scores, self.f32(f"l{i}.scale", c.scale)]), bias])
        mixed = self.op("MatMul", [self.op("Softmax", [scores], axis=-1), v])  # [B, H, T, D]
        merged = self.op("Reshape", [self.op("Transpose", [mixed], perm=[0, 2, 1, 3]), self.ints([0, 0, -1])])
        return self.linear(merged, weight("self_attn.o_proj.weight"), f"l{i}.o")

    def heads(self, x: str, count: int) -> str:
        """[B, T, count*D] → [B, count, T, D]."""
        split = self.op("Reshape", [x, self.ints([0, 0, count, self.c.head_dim])])
        return self.op("Transpose", [split], perm=[0, 2, 1, 3])

    def rotate(self, x: str, rope: tuple[str, str]) -> str:
        cos, sin = rope
        half = self.c.head_dim // 2
        first, second = self.ops("Split", [x, self.ints([half, half])], 2, axis=-1)
        turned = self.op("Concat", [self.op("Neg", [second]), first], axis=-1)
        return self.op("Add", [self.op("Mul", [x, cos]), self.op("Mul", [turned, sin])])

    def rms(self, x: str, weight: np.ndarray, tag: str) -> str:
        square = self.op("Mul", [x, x])
        mean = self.op("ReduceMean", [square, self.ints([-1])], keepdims=1)
        root = self.op("Sqrt", [self.op("Add", [mean, self.f32(f"{tag}.eps", self.c.eps)])])
        scaled = self.op("Div", [x, root])
        return self.op("Mul", [scaled, self.const(f"{tag}.w", (1.0 + weight).astype(np.float32))])

    def linear(self, x: str, weight: np.ndarray, tag: str) -> str:
        """torch's Linear without bias: x @ weight.T, the transpose stored contiguous."""
        return self.op("MatMul", [x, self.const(f"{tag}.wt", np.ascontiguousarray(weight.T))])

    # --- plumbing ------------------------------------------------------------------------------

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def f32(self, name: str, value: float) -> str:
        return self.const(name, np.array(value, np.float32))

    def i64(self, name: str, value: int) -> str:
        return self.const(name, np.array(value, np.int64))

    def ints(self, values: list[int]) -> str:
        self._n += 1
        return self.const(f"ints{self._n}", np.array(values, np.int64))

    def op(self, kind: str, inputs: list[str], **attrs: Any) -> str:
        return self.ops(kind, inputs, 1, **attrs)[0]

    def ops(self, kind: str, inputs: list[str], outputs: int, **attrs: Any) -> list[str]:
        from onnx import helper

        names = [self._name(kind) for _ in range(outputs)]
        self.nodes.append(helper.make_node(kind, inputs, names, **attrs))
        return names

    def _name(self, kind: str) -> str:
        self._n += 1
        return f"{kind.lower()}{self._n}"
