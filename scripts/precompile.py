"""Byte-compile the k3diff package a benchmark runs, as `pip install` does, before it is timed.

An installed k3diff (`pip install k3diff`, or a regular `pip install .`) has its bytecode written
at install time, like click, packaging and every other dependency in the same environment. A
development checkout installed editable has none until an import writes it, and never where
`PYTHONDONTWRITEBYTECODE` is set (as on the development machine): every timed run then compiles
every k3diff module it imports from source (≈ 70 ms CPU for `audit`'s, ≈ 25 % of its
start-up), a cost no user pays and its baselines (standard library, dependencies) do not
carry. `compileall` writes `__pycache__/` beside the sources (ignored by git) whatever that
variable says; a later edit makes a stale file, which the interpreter detects by the source's
modification time and then compiles in memory, as before.
"""

from __future__ import annotations

import compileall
import importlib.util
from pathlib import Path


def compile_k3diff() -> str:
    """Byte-compile the k3diff package that `python -m k3diff` would import; the line to print."""
    spec = importlib.util.find_spec("k3diff")
    if spec is None or spec.origin is None:
        raise SystemExit("k3diff is not importable from this interpreter")
    package = Path(spec.origin).parent
    if not compileall.compile_dir(package, quiet=1):
        raise SystemExit(f"byte-compiling {package} failed")
    return f"k3diff byte-compiled as an install would be ({package})"
