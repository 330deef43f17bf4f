"""A ``setup.py`` command class from an installed package: code the commit does not hold.

``from cmake_build_extension import BuildExtension`` and ``setup(cmdclass={"build_ext":
BuildExtension}, …)``: the package is installed when the project builds (its
``[build-system] requires``), so its ``build_ext`` runs code k3diff never sees, and
cmake-build-extension's runs CMake, whose ``install()`` writes into the wheel. Only ``cmake``
itself was recognised as such an import, and a wheel keeping the package's old file passed,
exit 0 (source78). A command class of ``setup(cmdclass=…)`` (a literal mapping, `setuppykeywords`)
imported from a module the commit holds no file of stops the run, unless that package's is
known to run no CMake (`KNOWN`: setuptools' (pkg_resources too) and distutils' own, Cython's,
pybind11's, numpy's, wheel's, setuptools-rust's, PyTorch's C++ extension builder, Sphinx's,
Babel's, Pythran's, IPython's (none), and the freezers cx_Freeze and py2exe, whose classes versioneer's ``setup.py`` helper
subclasses where they are imported: review78f, llvmlite).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from k3diff.escape import shortened
from k3diff.provenance.setuppykeywords import SETUP_CALLS_CAP, calls_capped, setup_keywords
from k3diff.provenance.setuptoolsconfig import names_setup, setup_names

KNOWN = frozenset(
    {
        "setuptools",
        "pkg_resources",
        "distutils",
        "Cython",
        "pybind11",
        "numpy",
        "wheel",
        "setuptools_rust",
        "torch",
        "sphinx",
        "babel",
        "cx_Freeze",
        "py2exe",
        "pythran",
        "IPython",
    }
)
"""Top-level packages whose command classes run no CMake (build extensions, documents, message
catalogs or frozen executables), or which hold none: Pythran's ``PythranBuildExt`` compiles
with setuptools' compiler, IPython has no command class (its ``Magics`` are shell commands);
pythran 0.19.0's and IPython 9.19.1's wheels hold no module naming CMake. Cython 3.2.1's
compiler imports both (``pythran.config.make_extension()`` for its ``np_pythran`` directive,
IPython's ``Magics`` for its ``%%cython``), which stopped its check (cython80)."""


def installed_command(module: ast.Module, held: Callable[[str], bool]) -> str | None:
    """The first command class the parsed ``setup.py`` passes ``setup(cmdclass=…)`` from an
    installed package (a module `held` says the commit holds no file of, not of `KNOWN`),
    said as ``setup.py line 9: cmdclass build_ext is BuildExtension, from
    cmake_build_extension; cmake_build_extension is a package …`` (`unread_package`);
    None where there is none."""
    origins = import_origins(module)
    names, modules = setup_names(module)
    calls = 0
    for node in ast.walk(module):
        if not (isinstance(node, ast.Call) and names_setup(node.func, names, modules)):
            continue
        calls += 1
        if calls > SETUP_CALLS_CAP:  # caps80: each call's ** mapping read again
            capped = calls_capped("setup.py")
            return f"{capped}, so a cmdclass from an installed package is not ruled out"
        keywords = setup_keywords(node, module) or {}
        classes = keywords.get("cmdclass")
        for key, value in _entries(classes, module):
            base = value
            while isinstance(base, ast.Attribute):
                base = base.value
            found = sorted(origins.get(base.id, ())) if isinstance(base, ast.Name) else []
            origin = next((m for m in found if m.split(".")[0] not in KNOWN and not held(m)), None)
            if origin is None:
                continue
            shown = shortened(ast.unparse(value), 100)
            fact = f"setup.py line {node.lineno}: cmdclass {shortened(key, 100)} is {shown}"
            return unread_package(f"{fact}, from {shortened(origin, 100)}", origin)
    return None


def unread_package(fact: str, module: str) -> str:
    """`fact` (where a file of the commit takes a name from the module `module`) and why what
    the build does with it is not proven: ``…; cmake_build_extension is a package the commit
    holds no file of (it comes from the build's environment, if there at all), so k3diff reads
    none of its code, which may run CMake that installs files into the wheel``. stop 78's ``…,
    a package the commit does not hold (installed when it builds), …, not read, and may run
    CMake`` read as if the project's module were unread and it ran CMake (newuser78b)."""
    top = shortened(module.split(".")[0], 100)
    return (
        f"{fact}; {top} is a package the commit holds no file of (it comes from the build's "
        "environment, if there at all), so k3diff reads none of its code, which may run CMake "
        "that installs files into the wheel"
    )


def _entries(classes: ast.expr | None, module: ast.Module) -> list[tuple[str, ast.expr]]:
    """(command, class) of a ``cmdclass`` mapping that is literal (`setuppykeywords`)."""
    if classes is None:
        return []
    call = ast.Call(ast.Name("setup", ast.Load()), [], [ast.keyword(None, classes)])
    read = setup_keywords(call, module)
    return list(read.items()) if read is not None else []


def import_origins(module: ast.Module) -> dict[str, set[str]]:
    """Name -> every module it is imported from (``from a.b import C as D``: D -> ``a.b``;
    ``import a.b as m``: m -> ``a.b``; ``import a.b``: a -> ``a``), and ``NAME=setup`` ->
    the modules ``setup`` is imported from as NAME; relative imports aside. The one reading
    of a ``setup.py``'s imports for its command classes and factories (`setuppyfactories`)."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(module):
        note_import(node, found)
    return found


def note_import(node: ast.AST, found: dict[str, set[str]]) -> None:
    """Add to `found` what the import `node` binds (`import_origins`); nothing where it is
    no import."""
    if isinstance(node, ast.ImportFrom) and not node.level and node.module:
        for alias in node.names:
            bound = alias.asname or alias.name
            found.setdefault(bound, set()).add(node.module)
            if alias.name == "setup":
                found.setdefault(f"{bound}=setup", set()).add(node.module)
    elif isinstance(node, ast.Import):
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            found.setdefault(bound, set()).add(alias.name if alias.asname else bound)


def installed_class(
    setting: str, name: str, files: Iterable[str], held: Callable[[str], bool]
) -> str | None:
    """Why the command class `name` a ``cmdclass`` `setting` names (``setup.cfg [options]
    cmdclass``) is an installed package's: none of the `files` setuptools may load it from is
    `held` by the commit, and its package is not of `KNOWN`; None where it is not (source78:
    ``build_ext = cmake_build_extension.BuildExtension`` passed, exit 0)."""
    module = name.rpartition(".")[0]
    if not module or module.split(".")[0] in KNOWN or any(map(held, files)):
        return None
    return unread_package(
        f"{setting} names {shortened(name, 200)}, from {shortened(module, 200)}", module
    )
