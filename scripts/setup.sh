#!/usr/bin/env bash
# Installs whatever the build and the tests need and is missing. Idempotent:
# on a machine that has everything, it only checks and prints nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

llvm=19
say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The Rust target for the browser core.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# clang and llvm-ar compile the tree-sitter grammars (C) for wasm32;
# Debian's Chromium runs the browser tests.
missing=()
command -v "clang-$llvm" >/dev/null || missing+=("clang-$llvm")
command -v "wasm-ld-$llvm" >/dev/null || missing+=("lld-$llvm")
command -v "llvm-ar-$llvm" >/dev/null || missing+=("llvm-$llvm")
command -v chromium >/dev/null || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} from Debian"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (found: ${have:-none})"
  # The CLI's own lockfile may pin a crate the registry no longer serves;
  # then its dependencies are resolved afresh, the CLI version staying exact.
  cargo install --locked --quiet wasm-bindgen-cli --version "=$want" \
    || cargo install --quiet --force wasm-bindgen-cli --version "=$want"
fi

# The web toolchain, exactly as package-lock.json pins it.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error --ignore-scripts
fi
