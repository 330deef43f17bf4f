"""Build backends other than scikit-build-core's own whose CMake installs files into the wheel:
py-build-cmake (``build-backend = "py_build_cmake.build"`` with a ``cmake`` table, or its
settings files, or ``py_build_cmake.build_component``), scikit-build-core's setuptools plugin
(`PLUGIN`) and classic scikit-build (a ``setup.py`` importing ``skbuild``, which setuptools
runs).

Each runs ``cmake --install`` into the wheel's staging directory after (py-build-cmake:
``copy_pkg_source_to``, then ``cmaker.install()``) or beside the package's own files, so a file
CMake installs ships over the package's: real builds (py-build-cmake 0.5.1, scikit-build
0.18.1, CMake 3.25.1, ``python -m build --no-isolation``) of ``install(FILES fixes/auth.py
DESTINATION …)`` shipped the fix as ``pkg/sub/auth.py``, while k3diff read the package's
directory alone, compared the old ``src/pkg/sub/auth.py`` and a wheel reverting to it matched,
exit 0 (cmake75). Their install places are not read here: the source check stops.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from k3diff.errors import SourceError
from k3diff.provenance.setuppycmake import cmake_line
from k3diff.provenance.setuppyparse import parsed_setup_py

PY_BUILD_CMAKE = "py_build_cmake.build"
PLUGIN = "scikit_build_core.setuptools.build_meta"
"""scikit-build-core's setuptools backend: its ``build_cmake`` step (a setuptools plugin,
registered wherever scikit-build-core is installed, so under ``setuptools.build_meta`` too
where ``[build-system] requires`` it) configures and installs the CMake of
``setup(cmake_source_dir=…)`` into the wheel: review75a, a real build (scikit-build-core
1.1.2) of ``install(FILES fixes/auth.py DESTINATION pkg/sub)`` shipped the fix, exit 0."""
COMPONENT = "py_build_cmake.build_component"
"""py-build-cmake's backend building a wheel of what one CMake component installs, always."""
ADVICE = (
    "a file it installs may stand at any wheel path, over the package's: compare a wheel "
    "built from the commit with this one (k3diff wheels BUILT RELEASED)"
)
_PLATFORMS = ("linux", "windows", "mac", "pyodide", "cross")
"""py-build-cmake's tables overriding its settings for one platform (``[tool.py-build-cmake.
linux.cmake]``), or for cross-compiling."""
_LOCAL = tuple(f"py-build-cmake.{k}.{e}" for k in ("local", "cross") for e in ("toml", "pbc"))
"""Files beside ``pyproject.toml`` py-build-cmake reads its settings from too (0.5.1,
``check_if_local_configs_exist``): review75a, a real build of a project whose
``pyproject.toml`` has no ``cmake`` table and whose ``py-build-cmake.local.toml`` has one
ran its CMake, which installed ``fixes/auth.py`` as ``pkg/sub/auth.py``, exit 0."""


def py_build_cmake_runs(
    document: Mapping[str, object], is_file: Callable[[str], bool]
) -> str | None:
    """Where py-build-cmake, building the project of `document` (its ``pyproject.toml``; its
    other files' `is_file`), may be told to run CMake: a ``cmake`` table of
    ``[tool.py-build-cmake]`` or of a platform's table (``""``), or a settings file of
    `_LOCAL` (its name); None where neither (it ships the module's files alone)."""
    tool = document.get("tool")
    table = tool.get("py-build-cmake") if isinstance(tool, dict) else None
    table = table if isinstance(table, dict) else {}
    tables = [table, *(table.get(platform) for platform in _PLATFORMS)]
    if any(isinstance(t, dict) and "cmake" in t for t in tables):
        return ""
    return next((name for name in _LOCAL if is_file(name)), None)


def other_cmake(
    directory: str,
    document: Mapping[str, object],
    builder: str | None,
    setup_py: Callable[[], ast.Module | None],
    is_file: Callable[[str], bool],
) -> str | None:
    """What runs CMake building the project in `directory` (its ``pyproject.toml``
    `document`, its backend `builder` as `buildconfig` says it, None for setuptools; its
    parsed ``setup.py``; `is_file`: whether it holds a file), other than scikit-build-core's
    own backend: ``pyproject.toml builds with py-build-cmake, whose CMake``; or None."""
    told = py_build_cmake_runs(document, is_file) if builder == repr(PY_BUILD_CMAKE) else None
    if told is not None or builder == repr(COMPONENT):
        told = f" ({directory}{told} may give it a cmake table)" if told else ""
        return f"{directory}pyproject.toml builds with py-build-cmake{told}, whose CMake"
    if builder == repr(PLUGIN) or (builder is None and _requires_plugin(document)):
        return f"{directory}pyproject.toml builds with scikit-build-core's setuptools plugin, whose CMake"
    if builder is None and imports_skbuild(setup_py()):
        return f"{directory}setup.py builds with scikit-build (skbuild), whose CMake"
    return None


def stop_other_cmake(
    label: str,
    directory: str,
    document: Mapping[str, object],
    builder: str | None,
    setup_py: bytes | None,
    is_file: Callable[[str], bool],
) -> None:
    """Stop (`SourceError`) where another backend than scikit-build-core's own builds the
    project in `directory` and runs CMake (`other_cmake`), or its ``setup.py`` runs CMake
    itself (`setuppycmake`): k3diff does not read what that CMake installs (`is_file`:
    whether the project holds a file)."""

    def module() -> ast.Module | None:
        return None if setup_py is None else parsed_setup_py(setup_py, directory + "setup.py")

    what = other_cmake(directory, document, builder, module, is_file)
    line = cmake_line(module()) if what is None and builder is None else None
    if line is not None:
        what = f"{directory}setup.py runs CMake (line {line}), whose CMake"
    if what is not None:
        raise SourceError(f"{label}: {what} installs files into the wheel, not read: {ADVICE}")


def _requires_plugin(document: Mapping[str, object]) -> bool:
    """Whether `document`'s ``[build-system] requires`` names scikit-build-core."""
    system = document.get("build-system")
    requires = system.get("requires") if isinstance(system, dict) else None
    for requirement in requires if isinstance(requires, list) else ():
        try:
            name = Requirement(requirement).name if isinstance(requirement, str) else ""
        except InvalidRequirement:
            continue  # no build installs it
        if canonicalize_name(name) == "scikit-build-core":
            return True
    return False


def imports_skbuild(module: ast.Module | None) -> bool:
    """Whether a parsed ``setup.py`` imports scikit-build's ``skbuild`` (or a module of it),
    anywhere: its ``setup()`` runs CMake and installs what CMake installs. A ``setup.py``
    that does not parse (None) is read elsewhere."""
    return module is not None and skbuild_imported(ast.walk(module))


def skbuild_imported(nodes: Iterable[ast.AST]) -> bool:
    """Whether any of `nodes` is an import of ``skbuild`` or a module of it."""
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        if any(name == "skbuild" or name.startswith("skbuild.") for name in names):
            return True
    return False
