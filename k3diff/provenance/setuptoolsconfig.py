"""setuptools' `package_dir`, read statically from the three files setuptools reads it from.

* ``pyproject.toml``: ``[tool.setuptools.package-dir]``, and ``[tool.setuptools.packages.find]``
  ``where`` (one directory: the root of every package found there);
* ``setup.cfg`` (`setupcfg`, as setuptools reads it): ``[options] package_dir``, and
  ``[options.packages.find] where`` with ``packages = find:`` (or ``find_namespace:``);
* ``setup.py`` (`ast`): a ``setup(...)`` call's ``package_dir=`` when it is a literal dict of
  strings, never evaluated otherwise.

Each reader gets the file's repository path (`label`, ``python/setup.py``) for what it says.
A mapping that cannot be read (not literal, not a dict of strings, a directory that leaves the
project) is `Unread`, said with the reason; so are `setup()` calls of one setup.py that differ
(one without ``package_dir`` included: which runs is not read).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping

from k3diff.provenance import setupcfg
from k3diff.provenance.packagedirs import PackageDirs, Stated, Unread, checked_dirs, one
from k3diff.provenance.setupcfg import read_setup_cfg
from k3diff.provenance.setuppykeywords import SETUP_CALLS_CAP, calls_capped, setup_keywords
from k3diff.provenance.setuppyparse import parsed_setup_py


def from_pyproject(document: Mapping[str, object], label: str) -> Stated:
    """`[tool.setuptools]`'s `package-dir`, or `packages.find`'s `where`, of a parsed
    pyproject.toml."""
    tool = document.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    if not isinstance(setuptools, dict):
        return None
    if "package-dir" in setuptools:
        return checked_dirs(setuptools["package-dir"], label, "[tool.setuptools.package-dir]")
    packages = setuptools.get("packages")
    find = packages.get("find") if isinstance(packages, dict) else None
    if isinstance(find, dict) and "where" in find:
        return _where(find["where"], label, "[tool.setuptools.packages.find] where")
    return None


def from_setup_cfg(data: bytes, label: str) -> Stated:
    """`[options] package_dir`, or `[options.packages.find] where` under `find:`."""
    return from_setup_config(read_setup_cfg(data, label), label)


def from_setup_config(config: setupcfg.SetupCfg | str, label: str) -> Stated:
    """`from_setup_cfg` of the file read (`read_setup_cfg`), or why it is not."""
    if isinstance(config, str):
        return Unread(config)
    value = config.get("options", "package_dir")
    if value is not None:
        pairs = [item.partition("=") for item in _parse_list(value)]
        if any(not sep for _, sep, _ in pairs):
            return Unread(f"{label}'s [options] package_dir is not a list of NAME = DIR")
        mapping = {key.strip(): target.strip() for key, _, target in pairs}
        return checked_dirs(mapping, label, "[options] package_dir")
    finds = (config.get("options", "packages") or "").strip() in ("find:", "find_namespace:")
    where = config.get("options.packages.find", "where")
    if finds and where is not None:
        return _where(where.split(), label, "[options.packages.find] where")
    return None


def _parse_list(value: str) -> list[str]:
    """`value` as setuptools' ``_parse_list`` splits a list: by lines where it has several, else
    by commas (review75c: ``package_dir = =src, tools = tools`` was one item, ``src, tools =
    tools`` the package root)."""
    items = value.splitlines() if "\n" in value else value.split(",")
    return [item.strip() for item in items if item.strip()]


def from_setup_py(data: bytes, label: str) -> Stated:
    """The `package_dir=` of every `setup()` call, which must agree."""
    module = parsed_setup_py(data, label)
    if module is None:
        return Unread(f"{label} cannot be parsed")
    names, modules = setup_names(module)
    found: list[PackageDirs | Unread] = []
    calls = 0
    for node in ast.walk(module):
        if not (isinstance(node, ast.Call) and names_setup(node.func, names, modules)):
            continue
        calls += 1
        if calls > SETUP_CALLS_CAP:  # caps80: each call's ** mapping read again
            return Unread(calls_capped(label))
        keywords = setup_keywords(node, module)  # source78: setup(**{…}) read where literal
        if keywords is None:  # package_dir= beside a ** mapping: the mapping cannot hold one
            keywords = {k.arg: k.value for k in node.keywords if k.arg == "package_dir"} or None
        if keywords is None:  # setup(**options) may carry one
            found.append(Unread(f"{label} passes setup() a ** mapping, which may hold package_dir"))
        elif "package_dir" in keywords:
            try:
                value = ast.literal_eval(keywords["package_dir"])
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                value = None
            found.append(checked_dirs(value, label, "setup(package_dir=…)"))
    if found and calls > len(found):  # one call states none: which runs is not read (review69b)
        return Unread(f"{label} calls setup() {calls} times, not all with package_dir")
    return one(found)


def setup_names(module: ast.Module) -> tuple[set[str], set[str]]:
    """The names `setup` is called by (``from setuptools import setup as build``: ``build``),
    and those of the modules it is an attribute of (``import setuptools as st``: ``st``)."""
    names, modules = {"setup"}, {"setuptools", "distutils.core", "core"}
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "setup":
                    names.add(alias.asname or "setup")
                elif alias.name == "core" and node.module == "distutils":
                    modules.add(alias.asname or "core")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in ("setuptools", "distutils.core") and alias.asname:
                    modules.add(alias.asname)
    return names, modules


def names_setup(func: ast.expr, names: Collection[str], modules: Collection[str]) -> bool:
    """A call of setuptools' (or distutils') `setup`, by a name or as a module's attribute."""
    if isinstance(func, ast.Name):
        return func.id in names
    return (
        isinstance(func, ast.Attribute) and func.attr == "setup" and _dotted(func.value) in modules
    )


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` of a chain of attributes of a name, else None (a loop: a chain of thousands
    parses, and recursion on it would overflow)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _where(value: object, label: str, setting: str) -> PackageDirs | Unread:
    origin = f"{label} {setting}"
    if isinstance(value, list) and len(value) == 1:
        return checked_dirs({"": value[0]}, label, setting)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return Unread(f"{origin} names {len(value)} directories (one is read)")
    return Unread(f"{origin} is not a list of directories")
