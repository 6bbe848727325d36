#!/usr/bin/env bash
# Makes tests/fixtures/scip-python/index.scip again with scip-python, pinned,
# installed outside the clone (the product never needs it). Offline: an empty
# environment list keeps it from asking pip.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=${SCIP_TOOLS:-$HOME/.cache/fathom/scip-tools}
[ -x "$tools/node_modules/.bin/scip-python" ] ||
  npm install --prefix "$tools" --no-audit --no-fund --legacy-peer-deps @sourcegraph/scip-python@0.6.6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/tests/fixtures/scip-python/shop" "$work/"
echo '[]' >"$work/environment.json"
(cd "$work" && "$tools/node_modules/.bin/scip-python" index --quiet --project-name scip-python \
  --project-version 0.1.0 --environment environment.json --output index.scip)
cp "$work/index.scip" "$root/tests/fixtures/scip-python/index.scip"
echo "wrote tests/fixtures/scip-python/index.scip"
