#!/usr/bin/env bash
# Fetches the pinned real-world corpora used by the precision tests (and, later,
# the benchmarks) into a cache outside the clone. Idempotent.
set -euo pipefail
dest=${FATHOM_CORPORA:-$HOME/.cache/fathom/corpora}
mkdir -p "$dest"
cd "$dest"

if [ ! -d flask-3.0.3 ]; then
  echo "corpora: Flask 3.0.3 (PyPI sdist)"
  pip download --quiet --no-deps --no-binary :all: flask==3.0.3 -d .
  tar xzf flask-3.0.3.tar.gz
fi
if [ ! -d rxjs-7.8.1 ]; then
  echo "corpora: rxjs 7.8.1 (npm tarball)"
  npm pack --silent rxjs@7.8.1 >/dev/null
  rm -rf package && tar xzf rxjs-7.8.1.tgz && mv package rxjs-7.8.1
fi
if [ "${1:-}" = "--bench" ] && [ ! -d Django-5.0.6 ]; then
  echo "corpora: Django 5.0.6 (PyPI sdist)"
  pip download --quiet --no-deps --no-binary :all: django==5.0.6 -d .
  tar xzf Django-5.0.6.tar.gz
fi
