#!/usr/bin/env bash
# `make eval`'s resolver set: pinned real projects and the SCIP indexes that
# the pinned indexers make of them, all cached outside the clone
# ($FATHOM_CORPORA/scip). The indexers come from npm and are used here
# only: the product never needs them. Idempotent; a project or an index
# that cannot be had is left out, and `fathom-eval resolver` says so.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpora=${FATHOM_CORPORA:-$HOME/.cache/fathom/corpora}
tools=${SCIP_TOOLS:-$HOME/.cache/fathom/scip-tools}
dest="$corpora/scip"
mkdir -p "$dest" "$tools"
cd "$dest"
say() { printf 'scip-corpora: %s\n' "$*"; }

if [ ! -x "$tools/node_modules/.bin/scip-python" ] || [ ! -x "$tools/node_modules/.bin/scip-typescript" ]; then
  say "installing scip-python 0.6.6 and scip-typescript 0.4.0 into $tools"
  npm install --prefix "$tools" --no-audit --no-fund --legacy-peer-deps --loglevel=error \
    @sourcegraph/scip-python@0.6.6 @sourcegraph/scip-typescript@0.4.0 >/dev/null
fi

# A PyPI sdist unpacked as NAME: sdist PACKAGE VERSION NAME.
sdist() {
  [ -d "$3" ] && return
  say "$3 (PyPI sdist)"
  rm -rf .unpack && mkdir .unpack
  pip download --quiet --no-deps --no-binary :all: "$1==$2" -d .unpack
  tar xzf .unpack/*.tar.gz -C .unpack
  mv "$(find .unpack -mindepth 1 -maxdepth 1 -type d | head -n 1)" "$3"
  rm -rf .unpack
}
# An npm package's tarball unpacked as NAME: npmpack SPEC NAME.
npmpack() {
  [ -d "$2" ] && return
  say "$2 (npm tarball)"
  rm -rf .unpack && mkdir .unpack
  (cd .unpack && npm pack --silent "$1" >/dev/null && tar xzf ./*.tgz)
  mv .unpack/package "$2"
  rm -rf .unpack
}

# Indexes a copy of the project (so the indexer's configuration stays out
# of the tree Fathom reads): python NAME [SOURCE_ROOT], typescript NAME.
python_index() {
  [ -f "$1.scip" ] && return
  say "indexing $1 with scip-python"
  work=$(mktemp -d)
  cp -r "$1" "$work/project"
  # Offline: an empty environment keeps it from asking pip; a src layout
  # is named as a root of imports.
  echo '[]' >"$work/environment.json"
  if [ -n "${2:-}" ]; then printf '{"extraPaths": ["%s"]}\n' "$2" >"$work/project/pyrightconfig.json"; fi
  if (cd "$work/project" && timeout 1200 "$tools/node_modules/.bin/scip-python" index --quiet \
    --project-name "$1" --project-version 0 --environment ../environment.json --output ../index.scip); then
    mv "$work/index.scip" "$1.scip"
  else
    say "scip-python failed on $1; it is left out"
  fi
  rm -rf "$work"
}
typescript_index() {
  [ -f "$1.scip" ] && return
  say "indexing $1 with scip-typescript"
  work=$(mktemp -d)
  cp -r "$1" "$work/project"
  infer=()
  [ -f "$work/project/tsconfig.json" ] || infer=(--infer-tsconfig)
  if (cd "$work/project" && timeout 1200 "$tools/node_modules/.bin/scip-typescript" index "${infer[@]}" --output ../index.scip >/dev/null); then
    mv "$work/index.scip" "$1.scip"
  else
    say "scip-typescript failed on $1; it is left out"
  fi
  rm -rf "$work"
}

# tests/eval/resolver.json lists the projects; each line: language package version name [source root].
python3 - "$root/tests/eval/resolver.json" <<'PY' | while read -r language package version name srcroot; do
import json, sys
for p in json.load(open(sys.argv[1]))["projects"]:
    print(p["language"], p["package"], p["version"], p["name"], p.get("source_root", ""))
PY
  case "$language" in
    python) sdist "$package" "$version" "$name" && python_index "$name" "$srcroot" ;;
    typescript) npmpack "$package@$version" "$name" && typescript_index "$name" ;;
  esac || say "$name could not be had; it is left out"
done
