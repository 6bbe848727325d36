#!/usr/bin/env python3
"""Embeds exported chunks with MiniLM on a GPU, into Fathom's disk cache.

Embedding every chunk of the localisation set's 93 trees takes the CLI
tens of minutes on a small CPU; a GPU takes seconds. `fathom-eval locate`
with `FATHOM_EVAL_CHUNKS=FILE` writes each distinct chunk once (its cache
key and the text Fathom embeds). This script reads that file (gzipped or
not) and the model asset `make model` writes (the fp16 weights and the
tokenizer), runs the same model as `fathom_embed` (BERT, at most 256 word
pieces, mean pooling over the mask, unit length) with torch, and writes
the vectors as the disk cache's records (`fathom_embed::cache`: a 16-byte
key, then 384 little-endian floats), in parts small enough to copy back:

    python3 scripts/dev/embed-chunks.py CHUNKS ASSET_DIR OUT_DIR

Join the parts into a cache file with `--join OUT_DIR CACHE_FILE`. The
cache's magic comes first; records follow in any order.
"""
import gzip
import json
import os
import sys

DIM = 384
MAX_TOKENS = 256
MAGIC = b"FTHMEMB1"
RECORD = 16 + DIM * 4
PART_BYTES = 15 * 1024 * 1024


def read_chunks(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def embed(chunks, asset, out_dir):
    import numpy as np
    import torch
    from safetensors.torch import load_file
    from tokenizers import Tokenizer
    from transformers import BertConfig, BertModel

    tokenizer = Tokenizer.from_file(os.path.join(asset, "minilm-l6-v2.tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.no_padding()
    config = BertConfig(vocab_size=30522, hidden_size=DIM, num_hidden_layers=6, num_attention_heads=12,
                        intermediate_size=1536, max_position_embeddings=512, type_vocab_size=2,
                        hidden_act="gelu", layer_norm_eps=1e-12)
    model = BertModel(config, add_pooling_layer=False)
    weights = {k: v.float() for k, v in load_file(os.path.join(asset, "minilm-l6-v2.f16.safetensors")).items()}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    missing = [m for m in missing if "position_ids" not in m]
    assert not missing and not [u for u in unexpected if not u.startswith("pooler.")], (missing, unexpected)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = model.to(device).eval()

    ids = [e.ids for e in tokenizer.encode_batch([c["text"] for c in chunks])]
    order = sorted(range(len(chunks)), key=lambda i: len(ids[i]))
    vectors = np.zeros((len(chunks), DIM), dtype="<f4")
    batch = 256
    with torch.inference_mode():
        for start in range(0, len(order), batch):
            part = order[start:start + batch]
            width = max(len(ids[i]) for i in part)
            tokens = torch.zeros((len(part), width), dtype=torch.long)
            mask = torch.zeros((len(part), width), dtype=torch.long)
            for row, i in enumerate(part):
                tokens[row, :len(ids[i])] = torch.tensor(ids[i])
                mask[row, :len(ids[i])] = 1
            tokens, mask = tokens.to(device), mask.to(device)
            hidden = model(input_ids=tokens, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).float()
            pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
            pooled = torch.nn.functional.normalize(pooled, dim=-1)
            vectors[part] = pooled.cpu().numpy()
    os.makedirs(out_dir, exist_ok=True)
    per_part = PART_BYTES // RECORD
    for n, start in enumerate(range(0, len(chunks), per_part)):
        with open(os.path.join(out_dir, f"part{n:02}.bin"), "wb") as f:
            for i in range(start, min(start + per_part, len(chunks))):
                f.write(bytes.fromhex(chunks[i]["key"]))
                f.write(vectors[i].tobytes())
    print(f"embedded {len(chunks)} chunks on {device}")


def join(parts_dir, cache_file):
    with open(cache_file, "wb") as out:
        out.write(MAGIC)
        for name in sorted(os.listdir(parts_dir)):
            if name.startswith("part") and name.endswith(".bin"):
                data = open(os.path.join(parts_dir, name), "rb").read()
                assert len(data) % RECORD == 0, name
                out.write(data)


if __name__ == "__main__":
    if sys.argv[1] == "--join":
        join(sys.argv[2], sys.argv[3])
    else:
        embed(read_chunks(sys.argv[1]), sys.argv[2], sys.argv[3])
