"""``setup.py`` parsed by `ast` once per run, for each reader of it.

The layout reader (`setuptoolsconfig`: ``setup(package_dir=…)``) and the version module reader
(`setuppyscm`: ``get_version(write_to=…)``) both read a commit's ``setup.py``, which may be
256 KiB: each parsed it (src72: vLLM's, which names setuptools-scm, was parsed twice).
"""

from __future__ import annotations

import ast
import functools


@functools.lru_cache(maxsize=2)
def parsed_setup_py(data: bytes, label: str) -> ast.Module | None:
    """The module `data` (a ``setup.py``, `label` its path) parses to, shared by its readers,
    which only walk it; None where it does not parse. Two are kept: the root's and a
    subproject's, each read by both readers."""
    try:
        return ast.parse(data, label)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
