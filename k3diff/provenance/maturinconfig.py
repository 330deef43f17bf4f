"""Where maturin takes a mixed Rust/Python project's Python package from.

``[tool.maturin] python-source = "python"`` puts the package's directory (named for the first
part of ``module-name``, ``pkg`` for ``pkg._native``) and every one ``python-packages`` adds
under ``python/``: each wheel path is looked up under that directory, whichever package it is
in, so ``module-name`` moves nothing. Without ``python-source`` maturin looks in the project's
root, or in ``src/`` when that holds the package: detection by paths decides.
"""

from __future__ import annotations

from collections.abc import Mapping

from k3diff.provenance.packagedirs import PackageDirs, Stated, Unread, clean_directory


def from_maturin(document: Mapping[str, object], label: str) -> Stated:
    """`[tool.maturin] python-source` as the directory of every wheel path."""
    tool = document.get("tool")
    maturin = tool.get("maturin") if isinstance(tool, dict) else None
    if not isinstance(maturin, dict) or "python-source" not in maturin:
        return None
    origin = f"{label} [tool.maturin] python-source"
    source = maturin["python-source"]
    if not isinstance(source, str):
        return Unread(f"{origin} is not a string, not read")
    directory = clean_directory(source)
    if directory is None:
        return Unread(f"{origin} names a directory outside its project, not read")
    return PackageDirs((("", directory),), origin)
