"""The version a build backend reads from a file of the commit, read as that backend reads it.

Each reader takes the file's bytes and returns the version text it yields, or why none can be
had without running code (a `Said`). Nothing here runs the file: a module is parsed by `ast`,
a text file searched with the backend's own default pattern (a pattern the project sets is a
regular expression from the input: not run), a ``Cargo.toml`` parsed as the
layout's reader parses TOML (`configdocuments.toml_document`, its dotted keys capped).

* setuptools' ``attr:`` (`setuptools.config.expand.StaticModule`): the first top-level
  assignment to the name, ``ast.literal_eval``-ed; a tuple or list is joined with dots
  (``expand.version``); anything else makes setuptools import the module: not read;
* flit (``flit_core.common.get_docstring_and_version_via_ast``): the first top-level
  ``__version__`` set to a constant in each of ``__version__.py``, ``_version.py``,
  ``version.py`` and ``__init__.py``, the last found winning; none makes flit import it;
* hatchling's ``regex`` source, scikit-build-core's ``regex`` provider and pdm-backend's
  ``file`` source: their default patterns, searched line by line (``re.MULTILINE``);
* maturin: ``Cargo.toml``'s ``[package] version`` (a ``version.workspace = true`` is the
  workspace's: not read).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass

HATCH_PATTERN = re.compile(r'(?i)^(__version__|VERSION) *= *([\'"])v?(?P<version>.+?)\2', re.M)
"""hatchling's `DEFAULT_PATTERN` (``hatchling.version.core``)."""
SKBUILD_PATTERN = re.compile(
    r'(?i)^(__version__|VERSION)(?: ?\: ?str)? *= *([\'"])v?(?P<version>.+?)\2', re.M
)
"""scikit-build-core's regex provider's default (``scikit_build_core.metadata.regex``)."""
PDM_PATTERN = re.compile(
    r"^(?:__version__|VERSION)\s*=\s*[\"'](?P<version>.+?)[\"']\s*(?:#.*)?$", re.M
)
"""pdm-backend's ``file`` source's default (``pdm.backend.hooks.version``)."""
FLIT_FILES = ("__version__.py", "_version.py", "version.py", "__init__.py")
"""The files of a package flit reads ``__version__`` from, the last holding one winning."""


@dataclass(frozen=True)
class Said:
    """Why a file yields no version k3diff can state: ``it sets __version__ by a call``."""

    reason: str


def module_attribute(data: bytes, name: str) -> str | Said:
    """`name` of a module as setuptools' ``attr:`` reads it without importing it."""
    module = _parsed(data)
    if isinstance(module, Said):
        return module
    for node in module.body:
        value = _assigned(node, name)
        if value is None:
            continue
        try:
            found = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return Said(f"it sets {name} to what is no literal, which setuptools imports it for")
        if isinstance(found, str):
            return found
        if isinstance(found, tuple | list) and all(isinstance(p, int | str) for p in found):
            return ".".join(str(part) for part in found)
        return Said(f"it sets {name} to {type(found).__name__}, not a version")
    return Said(f"it sets no {name} at its top level, which setuptools imports it for")


def flit_version(modules: list[bytes]) -> str | Said:
    """``__version__`` as flit reads it from `modules` (in `FLIT_FILES` order)."""
    version: str | None = None
    for data in modules:
        module = _parsed(data)
        if isinstance(module, Said):
            return module
        for node in module.body:
            value = _assigned(node, "__version__")
            if isinstance(value, ast.Constant):
                if not isinstance(value.value, str):
                    return Said("its __version__ is not a string")
                version = value.value
                break
    if version is None:
        return Said("no module states __version__ as a constant, which flit imports it for")
    return version


def pattern_version(data: bytes, pattern: re.Pattern[str]) -> str | Said:
    """The ``version`` group of `pattern`'s first match in `data`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Said("it is not UTF-8")
    match = pattern.search(text)
    if match is None:
        return Said("it states no version as __version__ = '…' or VERSION = '…'")
    return match["version"]


def cargo_version(document: Mapping[str, object]) -> str | Said:
    """``[package] version`` of a parsed ``Cargo.toml``."""
    package = document.get("package")
    version = package.get("version") if isinstance(package, dict) else None
    if isinstance(version, dict):
        return Said("its [package] version is the workspace's, which k3diff does not read")
    if not isinstance(version, str):
        return Said("it has no [package] version")
    return version


def _parsed(data: bytes) -> ast.Module | Said:
    try:
        return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Said("it is not Python that parses")


def _assigned(node: ast.stmt, name: str) -> ast.expr | None:
    """The value `node` (a top-level statement) assigns to `name`, else None."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return None
    named = any(isinstance(target, ast.Name) and target.id == name for target in targets)
    return node.value if named else None
