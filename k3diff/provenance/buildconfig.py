"""Where the build configuration at a commit says the packages live (setuptools' `package_dir`).

A wheel ships `pkg/auth.py` from wherever the configuration maps package `pkg`: with
``package_dir = {"pkg": "src/realname"}`` from ``src/realname/auth.py``. Detection by paths
cannot see that mapping, and took a complete old copy kept as ``legacy/pkg/`` for the package
(prov69: a patch reverting a file to the legacy copy matched). So the configuration at the
repository's root is read, statically, from the commit's own blobs (nothing of the repository
runs, no build backend is called):

* ``pyproject.toml``: ``[tool.setuptools.package-dir]``, and ``[tool.setuptools.packages.find]``
  ``where`` (one directory: the root of every package found there);
* ``setup.cfg`` (`configparser`, no interpolation): ``[options] package_dir``, and
  ``[options.packages.find] where`` with ``packages = find:`` (or ``find_namespace:``);
* ``setup.py`` (`ast`): a ``setup(...)`` call's ``package_dir=`` when it is a literal dict of
  strings, never evaluated otherwise.

A mapping that cannot be read (not literal, not a dict of strings, a directory that leaves the
repository, a file past `CONFIG_CAP`, a configuration file that is a symbolic link) is `Unread`,
said with the reason; files that state different mappings are `Unread` too, and so are
`setup()` calls of one setup.py that differ (one without ``package_dir`` included: which runs
is not read). No setuptools statement at all is None: detection decides.

These are setuptools' settings only: where ``pyproject.toml`` names another build backend
(``hatchling.build``, ``flit_core.buildapi``, or one of its own by ``backend-path``), setuptools
never reads them, so a statement found is `Unread` (review69b: a ``[tool.setuptools.package-dir]``
or ``setup.py`` left beside hatchling's ``packages`` chose a legacy copy, which matched, exit 0).
"""

from __future__ import annotations

import ast
import configparser
import posixpath
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs

CONFIG_CAP = 256 * 1024
"""Largest configuration file read (bytes); a larger one is not read (`ast` on it is slow)."""

_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
SETUPTOOLS_BACKENDS = frozenset({"setuptools.build_meta", "setuptools.build_meta:__legacy__"})
"""`[build-system] build-backend` values that are setuptools; none given is setuptools too
(PEP 517's legacy path, `setup.py`)."""


@dataclass(frozen=True)
class PackageDirs:
    """The packages' directories the configuration states."""

    dirs: tuple[tuple[str, str], ...]
    """(dotted package name, repository directory ending in '/' or ''), as setuptools reads
    them: ``''`` names the root of every package no longer name covers."""
    origin: str
    """Where it was read: ``pyproject.toml [tool.setuptools.package-dir]`` …"""


@dataclass(frozen=True)
class Unread:
    """A configuration that states a mapping k3diff cannot read."""

    reason: str
    """``setup.py's package_dir is not a literal dict`` …"""


def read_package_dirs(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str] = ()
) -> PackageDirs | Unread | None:
    """The mapping the root's configuration files state at the commit whose files are `tree`
    (path -> blob id; `links`: its symbolic links); `Unread` when one cannot be read, two differ
    or the build backend is not setuptools; None when none states one."""
    linked = [name for name in _FILES if name in links]
    if linked:
        return Unread(f"{linked[0]} is a symbolic link, not read")
    present = {name: tree[name] for name in _FILES if name in tree}
    if not present:
        return None
    sizes = blob_sizes(git, present.values())
    found: list[PackageDirs | Unread] = []
    readable = {}
    for name, oid in present.items():
        if sizes[oid] > CONFIG_CAP:
            found.append(Unread(f"{name} is over {CONFIG_CAP // 1024} KiB, not read"))
        else:
            readable[oid] = name
    contents = dict(iter_blobs(git, sorted(readable)))
    for oid, name in sorted(readable.items(), key=lambda item: _FILES.index(item[1])):
        stated = _READERS[name](contents[oid])
        if stated is not None:
            found.append(stated)
    result = _one(found)
    if isinstance(result, PackageDirs) and "pyproject.toml" in present:
        pyproject = present["pyproject.toml"]
        backend = _backend(contents[pyproject]) if pyproject in contents else None
        if backend is not None:
            return Unread(
                f"{result.origin} is setuptools', but pyproject.toml builds with {backend}: not read"
            )
    return result


def _backend(data: bytes) -> str | None:
    """What builds the project if not setuptools (``'hatchling.build'``, ``its own backend
    (backend-path)``), None for setuptools. A pyproject.toml that is no TOML is `Unread`
    already, by its reader."""
    try:
        system = tomllib.loads(data.decode("utf-8")).get("build-system", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None
    if not isinstance(system, dict):
        return "a [build-system] that is not a table"
    backend = system.get("build-backend")
    if "backend-path" in system:
        return f"its own backend {backend!r} (backend-path)"
    if backend is None or backend in SETUPTOOLS_BACKENDS:
        return None
    return repr(backend)


def _one(found: list[PackageDirs | Unread]) -> PackageDirs | Unread | None:
    unread = [f for f in found if isinstance(f, Unread)]
    if unread:
        return unread[0]
    stated = [f for f in found if isinstance(f, PackageDirs)]
    if len({s.dirs for s in stated}) > 1:
        return Unread(f"{stated[0].origin} and {stated[1].origin} differ")
    return stated[0] if stated else None


def _from_pyproject(data: bytes) -> PackageDirs | Unread | None:
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return Unread("pyproject.toml is not valid TOML")
    tool = document.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    if not isinstance(setuptools, dict):
        return None
    if "package-dir" in setuptools:
        return _checked(setuptools["package-dir"], "pyproject.toml [tool.setuptools.package-dir]")
    packages = setuptools.get("packages")
    find = packages.get("find") if isinstance(packages, dict) else None
    if isinstance(find, dict) and "where" in find:
        return _where(find["where"], "pyproject.toml [tool.setuptools.packages.find] where")
    return None


def _from_setup_cfg(data: bytes) -> PackageDirs | Unread | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(data.decode("utf-8"))
    except (UnicodeDecodeError, configparser.Error):
        return Unread("setup.cfg cannot be read (configparser)")
    if parser.has_option("options", "package_dir"):
        value = parser.get("options", "package_dir")
        pairs = [line.partition("=") for line in value.splitlines() if line.strip()]
        if any(not sep for _, sep, _ in pairs):
            return Unread("setup.cfg's [options] package_dir is not a list of NAME = DIR")
        mapping = {key.strip(): target.strip() for key, _, target in pairs}
        return _checked(mapping, "setup.cfg [options] package_dir")
    finds = parser.get("options", "packages", fallback="").strip() in ("find:", "find_namespace:")
    if finds and parser.has_option("options.packages.find", "where"):
        where = parser.get("options.packages.find", "where").split()
        return _where(where, "setup.cfg [options.packages.find] where")
    return None


def _from_setup_py(data: bytes) -> PackageDirs | Unread | None:
    try:
        module = ast.parse(data, "setup.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Unread("setup.py cannot be parsed")
    names, modules = _setup_names(module)
    found: list[PackageDirs | Unread] = []
    calls = 0
    for node in ast.walk(module):
        if not (isinstance(node, ast.Call) and _names_setup(node.func, names, modules)):
            continue
        calls += 1
        given = [k for k in node.keywords if k.arg == "package_dir"]
        if given:
            try:
                value = ast.literal_eval(given[0].value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                value = None
            found.append(_checked(value, "setup.py setup(package_dir=…)"))
        elif any(k.arg is None for k in node.keywords):  # setup(**options) may carry one
            found.append(Unread("setup.py passes setup() a ** mapping, which may hold package_dir"))
    if found and calls > len(found):  # one call states none: which runs is not read (review69b)
        return Unread(f"setup.py calls setup() {calls} times, not all with package_dir")
    return _one(found)


def _setup_names(module: ast.Module) -> tuple[set[str], set[str]]:
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


def _names_setup(func: ast.expr, names: Collection[str], modules: Collection[str]) -> bool:
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


def _where(value: object, origin: str) -> PackageDirs | Unread:
    if isinstance(value, list) and len(value) == 1:
        return _checked({"": value[0]}, origin)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return Unread(f"{origin} names {len(value)} directories (one is read)")
    return Unread(f"{origin} is not a list of directories")


def _checked(value: object, origin: str) -> PackageDirs | Unread:
    """`value` as package -> directory, or why it is not one this check can use."""
    name = origin.partition(" ")[0]
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        return Unread(f"{name}'s package_dir is not a literal dict of strings, not read")
    dirs = []
    for package, directory in value.items():
        cleaned = _directory(directory)
        if cleaned is None:
            return Unread(f"{name} maps {package or 'the root'!r} outside the repository")
        dirs.append((package.strip(), cleaned))
    return PackageDirs(tuple(sorted(dirs)), origin)


def _directory(text: str) -> str | None:
    """A repository directory ('' or ending in '/'); None for one outside the repository."""
    if text.startswith("/") or "\\" in text or "\0" in text:
        return None
    cleaned = posixpath.normpath(text.strip() or ".")
    if cleaned == ".":
        return ""
    if cleaned == ".." or cleaned.startswith("../"):
        return None
    return cleaned + "/"


_READERS = {
    "pyproject.toml": _from_pyproject,
    "setup.cfg": _from_setup_cfg,
    "setup.py": _from_setup_py,
}
