#!/usr/bin/env bash
# Keeps the build cache from filling the disk. Cargo never deletes old
# artifacts, so a cache shared by many clones (CI's included) only grows; when
# the disk holding it has less than FATHOM_MIN_FREE_GB free (default 20), the
# native debug artifacts and incremental state are dropped and rebuilt. The
# wasm build, the slowest to redo, is kept.
set -euo pipefail
target=${CARGO_TARGET_DIR:?CARGO_TARGET_DIR is not set}
min_free_gb=${FATHOM_MIN_FREE_GB:-20}
mkdir -p "$target"
free_gb=$(( $(df --output=avail -k "$target" | tail -1) / 1024 / 1024 ))
if (( free_gb < min_free_gb )); then
  echo "disk-guard: ${free_gb} GB free under $target (want ${min_free_gb}); dropping the native debug build cache"
  rm -rf "$target/debug" "$target/release/incremental" "$target/wasm32-unknown-unknown/release/incremental"
  echo "disk-guard: $(( $(df --output=avail -k "$target" | tail -1) / 1024 / 1024 )) GB free now"
fi
