"""Which names in another case some system a wheel installs on reads as code
(`extplatforms.case_rule`): bytecode (`read_blind`), a `sitecustomize` or `usercustomize`
module (`customize_module`)."""

from __future__ import annotations

import posixpath

from k3diff.wheel.extplatforms import CaseRule

_CUSTOMIZE = ("sitecustomize", "usercustomize")


def customize_module(inner: str, case: CaseRule) -> bool:
    """Whether `site` may import the file at `inner` (under site-packages) as `sitecustomize` or
    `usercustomize`: a package's file, or a module file whose suffix some system the wheel
    installs on matches as written (`listed_name`); the loaders' suffixes are lower case, and
    Windows alone lowers a file's (`case.suffix_blind`), so a Linux or macOS wheel's
    `sitecustomize.PY` is data."""
    top, below, _ = inner.partition("/")
    name, _, suffix = listed_name(top, case).partition(".")
    return name in _CUSTOMIZE and (bool(below) or suffix == suffix.lower())


def listed_name(filename: str, case: CaseRule) -> str:
    """A file's name as the import system of `case` lists it to match a module's: its suffix,
    after the first dot, lowered where it lowers one (Windows: `FileFinder._fill_cache`), as
    written elsewhere."""
    if not case.suffix_blind:
        return filename
    name, dot, suffix = filename.partition(".")
    return f"{name}{dot}{suffix.lower()}"


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
