#!/usr/bin/env bash
# The documentation generators the docs-site recipes are tested with, kept
# outside the clone (~/.cache/fathom/docs-sites), made once with pinned
# versions: Material for MkDocs in a virtualenv from PyPI, and Docusaurus
# from npm (scripts/docusaurus/, with its lockfile). `make test` runs this
# before the browser tests.
set -euo pipefail

ROOT="${FATHOM_CACHE_DIR:-$HOME/.cache/fathom}/docs-sites"
MKDOCS_PINNED=(mkdocs==1.6.1 mkdocs-material==9.8.2)

if ! "$ROOT/mkdocs/bin/mkdocs" --version >/dev/null 2>&1; then
  echo "docs-sites: Material for MkDocs into $ROOT/mkdocs (once)"
  python3 -m venv "$ROOT/mkdocs"
  "$ROOT/mkdocs/bin/pip" install --quiet --disable-pip-version-check "${MKDOCS_PINNED[@]}"
fi

# Docusaurus, from the lockfile beside this script (scripts/docusaurus/).
DOCUSAURUS="$ROOT/docusaurus"
HERE="$(cd "$(dirname "$0")" && pwd)"
if ! cmp -s "$HERE/docusaurus/package-lock.json" "$DOCUSAURUS/package-lock.json" || [ ! -x "$DOCUSAURUS/node_modules/.bin/docusaurus" ]; then
  echo "docs-sites: Docusaurus into $DOCUSAURUS (once; about 270 MB)"
  mkdir -p "$DOCUSAURUS"
  cp "$HERE/docusaurus/package.json" "$HERE/docusaurus/package-lock.json" "$DOCUSAURUS/"
  (cd "$DOCUSAURUS" && npm ci --no-audit --no-fund --loglevel=error)
fi
