"""A tiny, randomly initialised cross-encoder written as a real ONNX model plus a real
`tokenizer.json`: the loading and scoring path of `CrossEncoderReranker`, without weights that
no PyPI package ships. Its scores mean nothing; its shape and determinism are what is tested."""

from __future__ import annotations

from pathlib import Path

import numpy as np

WORDS = (
    "the a pro plan costs per seat month team starter enterprise sso saml okta azure alerts "
    "threshold metric api requests minute limit price how much does what is"
).split()


def build_tiny_cross_encoder(folder: Path, dim: int = 8, seed: int = 7) -> Path:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {token: i for i, token in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tokenizer.save(str(folder / "tokenizer.json"))

    rng = np.random.default_rng(seed)
    weights = {
        "words": rng.normal(size=(len(vocab), dim)).astype(np.float32),
        "types": rng.normal(size=(2, dim)).astype(np.float32),
        "out": rng.normal(size=(dim, 1)).astype(np.float32),
        "bias": np.zeros((1,), dtype=np.float32),
        "axis": np.array([1], dtype=np.int64),
    }
    nodes = [
        helper.make_node("Gather", ["words", "input_ids"], ["word_vectors"]),
        helper.make_node("Gather", ["types", "token_type_ids"], ["type_vectors"]),
        helper.make_node("Add", ["word_vectors", "type_vectors"], ["token_vectors"]),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask", "minus_one"], ["mask3"]),
        helper.make_node("Mul", ["token_vectors", "mask3"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "axis"], ["pooled"], keepdims=0),
        helper.make_node("MatMul", ["pooled", "out"], ["projected"]),
        helper.make_node("Add", ["projected", "bias"], ["logits"]),
    ]
    weights["minus_one"] = np.array([-1], dtype=np.int64)
    graph = helper.make_graph(
        nodes,
        "tiny-cross-encoder",
        [
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
            for name in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[numpy_helper.from_array(value, name) for name, value in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    return folder
