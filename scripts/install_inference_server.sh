#!/usr/bin/env bash
# Installs the real inference server that tests/integration/ runs against: CPU torch and
# Hugging Face transformers with its `serving` extra (`transformers serve`), into a venv of its
# own so the project's venv stays small. Idempotent: a stamp file naming the pinned versions
# makes a second run return at once. Prints the venv's path as its last line.
#
#   K3DIFF_SERVE_VENV  where the venv goes (default: ~/.cache/k3diff/serve-venv)
#   PYTHON             the interpreter to build it from (default: python3)
set -euo pipefail

VENV="${K3DIFF_SERVE_VENV:-$HOME/.cache/k3diff/serve-venv}"
PYTHON="${PYTHON:-python3}"
# torch==2.13.0 exactly: pip takes the CPU wheel that lies on this machine's disk; a bare
# `torch` or an open range would download a multi-GB CUDA build.
TORCH_VERSION="2.13.0"
TRANSFORMERS_VERSION="5.18.0"
# The stamp names this script's own digest: any change to what it installs reinstalls.
RECIPE="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
STAMP="$VENV/.k3diff-serve-torch-$TORCH_VERSION-transformers-$TRANSFORMERS_VERSION-$RECIPE"

pip_install() {
    # pip warns once per package about this machine's empty local index folders: drop those.
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@" \
        2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}

mkdir -p "$(dirname "$VENV")"
# Several pytest workers (or engineers) may ask at once: one installs, the others wait.
exec 9>"$VENV.lock"
flock 9

if [ ! -f "$STAMP" ]; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    pip_install "torch==$TORCH_VERSION"
    # torch is named again so that no extra's requirement can swap it for another build.
    # requests: the `transformers` CLI imports it (cli/chat.py) but no extra requires it.
    pip_install "torch==$TORCH_VERSION" "transformers[serving]==$TRANSFORMERS_VERSION" \
        "requests>=2.31"
    "$VENV/bin/python" -c "import torch, transformers, tokenizers, fastapi, uvicorn, requests" >&2
    touch "$STAMP"
fi
echo "$VENV"
