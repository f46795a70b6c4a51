"""How embeddinggemma-reference.json was made: sentence-transformers 5.7 on torch 2.13 (CPU), in a
separate virtualenv (Shu never needs torch), over the installed model folder:

    python embeddinggemma-reference.py ~/.cache/shu/models/embeddinggemma-300m/model_download

The texts carry the model's prompts already; one of 1,149 tokens crosses the sliding window."""

import json
import sys

import torch
from sentence_transformers import SentenceTransformer

torch.set_num_threads(2)
model = SentenceTransformer(sys.argv[1], device="cpu")
QUERY, DOCUMENT = "task: search result | query: ", "title: none | text: "
LONG = " ".join(
    f"Clause {i}: the courier collects parcels from the depot at {i % 12 + 1} o'clock and the invoice "
    f"is due within {i % 30 + 1} days."
    for i in range(40)
)
texts = [
    QUERY + "How long are workspace backups kept?",
    DOCUMENT + "Backups of every workspace are kept for 35 days, then overwritten.",
    DOCUMENT + "Café prices: €380 for the espresso machine — 数据 🙂",
    QUERY + "x",
    DOCUMENT + LONG,
]
tokens = [len(model.tokenizer(t)["input_ids"]) for t in texts]
model.max_seq_length = 2048
vectors = model.encode(texts, normalize_embeddings=True, batch_size=8)
with open("embeddinggemma-reference.json", "w") as out:
    rows = [[round(float(x), 6) for x in row] for row in vectors]
    json.dump({"model": "embeddinggemma-300m", "texts": texts, "tokens": tokens, "vectors": rows}, out)
