"""Which names in another case some system a wheel installs on reads as code
(`extplatforms.case_rule`): bytecode (`read_blind`), a `sitecustomize` or `usercustomize`
module (`customize_module`)."""

from __future__ import annotations

import posixpath

from k3diff.wheel.extplatforms import CaseRule

_CUSTOMIZE = ("sitecustomize", "usercustomize")


def customize_module(inner: str, case: CaseRule) -> bool:
    """Whether `site` may import the file at `inner` (under site-packages) as `sitecustomize` or
    `usercustomize`, or the package it imports so may run it: a file of package `sitecustomize/`
    (the directory's name as the finder matches it, as written: `sitecustomize.py/x` is none),
    any of whose files its `__init__`, this wheel's or another's, may import, so every file
    there counts (`sitecustomize/__INIT__.py` too, which is a package's `__init__` where paths
    open in any case and a module of the package elsewhere); or a module file, whose suffix some
    system the wheel installs on loads (`_LOADED`, an ABI-named extension's; the loaders'
    suffixes are lower case, and Windows alone lowers a file's, `case.suffix_blind`, and lists
    `.pyw`), so a Linux or macOS wheel's `sitecustomize.PY`, and any wheel's
    `sitecustomize.txt` or `sitecustomize.py.orig`, is data (w629c: the last two were W702);
    a Windows debug build's `sitecustomize_d.pyd` is a module (it was data)."""
    top, below, _ = inner.partition("/")
    if below:
        return top in _CUSTOMIZE
    name, _, suffix = top.partition(".")
    if name not in _CUSTOMIZE:  # a Windows debug build's `sitecustomize_d.pyd` is its module
        return name.removesuffix("_d") in _CUSTOMIZE and suffix.lower().endswith("pyd")
    return _loaded(suffix) or (
        case.suffix_blind and (_loaded(suffix.lower()) or suffix.lower() == "pyw")
    )


_LOADED = ("py", "pyc", "so", "pyd")
"""A module file's suffix (after its name's first dot) some import system loads as written: a
source, sourceless bytecode, an extension of no ABI's name."""


def _loaded(suffix: str) -> bool:
    """Whether some import system loads a module file of that suffix, an ABI's included
    (`cpython-312-x86_64-linux-gnu.so`, `abi3.so`, `cp312-win_amd64.pyd`)."""
    from k3diff.wheel.extsuffix import file_abi

    return suffix in _LOADED or (
        suffix.endswith(_LOADED[2:]) and file_abi(f"m.{suffix}") is not None
    )


def read_blind(path: str, case: CaseRule) -> bool | None:
    """Whether some system `case` describes reads the file at `path` as bytecode: True as a
    cache under a `__pycache__` in any case, where paths open in any case (its source found in
    any case too); False as written (`.pyc`, `.pyo`, which no Python since 3.5 opens: PEP 488;
    a legacy `m.PYC` where suffixes are lowered); None when none does (`.PYC` on Linux alone)."""
    suffix = path[-4:]
    if suffix == ".pyo":
        return False
    if suffix.lower() != ".pyc":
        return None
    if case.path_blind and cache_directory(path).lower() == "__pycache__":
        return True
    return False if suffix == ".pyc" or case.suffix_blind else None


def cache_directory(path: str) -> str:
    """The name of the directory holding `path`."""
    return posixpath.basename(posixpath.dirname(path))
