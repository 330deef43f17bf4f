"""Imports run downward: the format and explainer packages never import the commands built on
them, and no module imports itself through others. The tests mirror the packages.

The import graph is read from the source with `ast` (every `import` and `from ... import`,
module-level or inside a function, relative ones resolved). Imports under `if TYPE_CHECKING:`
count for the layers and for cycles alike: a type-only cycle never runs, but the two modules still
cannot be read, moved or tested one without the other (and `typing.get_type_hints` would run it);
the cure is always cheap, the shared type moves down into a module both import. A cycle that
cannot be cut yet is listed in `KNOWN_CYCLES` with its reason, and the list must stay true.
"""

from __future__ import annotations

import ast
import functools
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import ROOT

PACKAGE = ROOT / "k3diff"
TESTS = ROOT / "tests"
LOWER = ("zip", "wheel", "native", "provenance", "responses")
"""Format knowledge and explainers: they serve the commands and know nothing of them."""
HIGHER = ("wheels", "cli", "report", "bundle")
"""The `wheels` pipeline, the CLI, the renderers and the bundle."""
DOCUMENTS_NEVER_IMPORT = ("cli", "report", "bundle")
"""`documents/` writes and reads the JSON contract from the library packages' results (it
imports `wheels`, `audit`, `triage`, ... for their models), below what consumes it: the
renderers call its writers, the bundle its readers, the CLI both."""


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            package = module.split(".")
            if MODULES[module].name != "__init__.py":
                package = package[:-1]
            base = package[: len(package) - node.level + 1]
            source = ".".join([*base, *([node.module] if node.module else [])])
        else:
            source = node.module or ""
        names = [f"{source}.{alias.name}" for alias in node.names]
        names = [name if name in MODULES else source for name in names]
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            yield name


@functools.cache
def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        graph[module] = {
            target
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for target in _targets(module, node)
        }
    return graph


def _package(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def test_the_graph_is_read() -> None:
    graph = _graph()
    assert "k3diff.wheel.codes" in graph["k3diff.wheels.compare"]
    assert "k3diff.zip.archive" in graph["k3diff.wheel.record"]


@pytest.mark.parametrize("lower", LOWER)
def test_a_lower_package_never_imports_a_higher_one(lower: str) -> None:
    back_edges = sorted(
        f"{module} imports {target}"
        for module, targets in _graph().items()
        if _package(module) == lower
        for target in targets
        if _package(target) in HIGHER
    )
    assert not back_edges


def test_the_documents_sit_below_their_consumers() -> None:
    assert "k3diff.documents.wheels" in _graph()["k3diff.report.wheels"]
    back_edges = sorted(
        f"{module} imports {target}"
        for module, targets in _graph().items()
        if _package(module) == "documents"
        for target in targets
        if _package(target) in DOCUMENTS_NEVER_IMPORT
    )
    assert not back_edges


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


KNOWN_CYCLES: dict[tuple[str, ...], str] = {}
"""Cycles (sorted members) tolerated for now, each with why."""


def test_no_module_imports_itself_through_others() -> None:
    cycles = {tuple(cycle) for cycle in _cycles(_graph())}
    assert sorted(cycles - KNOWN_CYCLES.keys()) == []


def test_every_tolerated_cycle_still_exists() -> None:
    """Once a listed cycle is cut its entry goes, so that it cannot come back unnoticed."""
    cycles = {tuple(cycle) for cycle in _cycles(_graph())}
    assert sorted(KNOWN_CYCLES.keys() - cycles) == []


def test_a_cycle_would_be_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _external_imports(module: str) -> set[str]:
    """The top-level packages outside k3diff that `module` imports (anywhere in it)."""
    tree = ast.parse(MODULES[module].read_text(), str(MODULES[module]))
    names = {
        alias.name if isinstance(node, ast.Import) else node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        and not (isinstance(node, ast.ImportFrom) and node.level)
        for alias in node.names
    }
    return {name.partition(".")[0] for name in names} - {"k3diff", ""}


HEAVY = ("scipy", "numpy", "matplotlib")
"""Libraries only the code that computes a statistic or draws a plot may load."""


def _module_level_imports(module: str) -> tuple[set[str], set[str]]:
    """What `module` imports when it is imported: (k3diff modules, outside top-level packages),
    leaving out imports inside functions and under `if TYPE_CHECKING:`."""
    tree = ast.parse(MODULES[module].read_text(), str(MODULES[module]))
    inner: set[int] = set()
    for node in ast.walk(tree):
        lazy = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or (
            isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        )
        if lazy:
            inner |= {id(child) for child in ast.walk(node) if child is not node}
    ours: set[str] = set()
    theirs: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom) or id(node) in inner:
            continue
        ours |= set(_targets(module, node))
        if isinstance(node, ast.Import):
            theirs |= {alias.name.partition(".")[0] for alias in node.names}
        elif not node.level:
            theirs.add((node.module or "").partition(".")[0])
    return ours, theirs - {"k3diff", ""}


def _parents(module: str) -> set[str]:
    """The package `__init__` modules Python runs before `module`."""
    parts = module.split(".")
    return {".".join(parts[:n]) for n in range(1, len(parts))} & MODULES.keys()


def _loaded_at_import(module: str) -> tuple[set[str], set[str]]:
    """Every k3diff module and outside package importing `module` loads."""
    seen: set[str] = set()
    outside: set[str] = set()
    todo = [module, *_parents(module)]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        ours, theirs = _module_level_imports(current)
        outside |= theirs
        for target in ours:
            todo += [target, *_parents(target)]
    return seen, outside


TEXT_PATH = ("k3diff.cli", "k3diff.report", "k3diff.documents.read", "k3diff.output")
"""What `--help`, the text and Markdown renderers and the document readers import."""


@pytest.mark.parametrize("prefix", TEXT_PATH)
def test_the_text_path_loads_no_heavy_library(prefix: str) -> None:
    offenders = sorted(
        f"{module} loads {library}"
        for module in MODULES
        if module == prefix or module.startswith(prefix + ".")
        for library in sorted(_loaded_at_import(module)[1] & set(HEAVY))
    )
    assert not offenders


def test_a_heavy_import_through_a_facade_would_be_found() -> None:
    loaded, _ = _loaded_at_import("k3diff.triage.stats")
    assert "k3diff.triage" in loaded  # its package facade runs first


def _reachable(module: str) -> set[str]:
    seen: set[str] = set()
    todo = list(_graph()[module])
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo += _graph()[current]
    return seen


def _room(module: str) -> str:
    """The package a module lives in, or the top-level module itself (`k3diff.output`)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


KNOWN_PACKAGE_CYCLES: dict[tuple[str, ...], str] = {}
"""Package cycles (sorted rooms) not cut yet, each with why; the list must stay true."""


def _package_cycles() -> set[tuple[str, ...]]:
    rooms: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        room = _room(module)
        rooms.setdefault(room, set()).update(_room(t) for t in targets if _room(t) != room)
    return {tuple(sorted(cycle)) for cycle in _cycles(rooms)}


def test_no_package_imports_itself_through_others() -> None:
    """Every package (and top-level module) sits on a floor: imports only run downward, so no
    chain of imports leads from a package back to itself (`output.py` importing `report/`
    while `report/` imports `output.py` would be one)."""
    assert sorted(_package_cycles() - KNOWN_PACKAGE_CYCLES.keys()) == []


def test_every_tolerated_package_cycle_still_exists() -> None:
    assert sorted(KNOWN_PACKAGE_CYCLES.keys() - _package_cycles()) == []


TOP_LEVEL_TESTS = frozenset({"test_layering.py", "test_docs.py"})
"""Test modules allowed directly in tests/: checks of the whole tree, not of one package."""
OTHER_TEST_FOLDERS = frozenset({"integration"})
"""Test folders that are no k3diff package: the suite against a real inference server."""


def _misplaced(tests: Path, packages: set[str]) -> list[str]:
    """Test modules (pytest's `test_*.py` and `*_test.py`) outside `tests/<package>/`, and
    test folders without `__init__.py` (two `test_cli.py` in such folders would clash)."""
    found: list[str] = []
    for path in sorted({*tests.rglob("test_*.py"), *tests.rglob("*_test.py")}):
        parts = path.relative_to(tests).parts
        if len(parts) == 1:
            if parts[0] not in TOP_LEVEL_TESTS:
                found.append(f"{parts[0]} is not in a package folder")
        elif parts[0] not in packages | OTHER_TEST_FOLDERS:
            found.append(f"{'/'.join(parts)}: k3diff has no package {parts[0]!r}")
        elif not (path.parent / "__init__.py").exists():
            found.append(f"{'/'.join(parts[:-1])} has no __init__.py")
    return found


def test_test_modules_mirror_the_packages() -> None:
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert not _misplaced(TESTS, packages)


def test_a_misplaced_test_module_would_be_found(tmp_path: Path) -> None:
    for name in (
        "test_layering.py",
        "test_new.py",
        "zip/test_a.py",
        "zap/test_b.py",
        "wheel/c_test.py",
    ):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "zip/__init__.py").write_text("")
    assert _misplaced(tmp_path, {"zip", "wheel"}) == [
        "test_new.py is not in a package folder",
        "wheel has no __init__.py",
        "zap/test_b.py: k3diff has no package 'zap'",
    ]


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_no_tracked_file_name_holds_a_control_character() -> None:
    """newuser62: `/bin/sh` running an ELF's bytes as a script (tests/wheels, run from the
    repository root) wrote four empty files named by those bytes there, and a commit took them
    in; a fresh clone showed them beside README.md."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    names = [name for name in listed.stdout.split(b"\0") if name]
    assert names
    assert [name for name in names if any(b < 0x20 or b == 0x7F for b in name)] == []


ROOT_FILES = frozenset(
    {
        ".gitignore",
        ".pre-commit-hooks.yaml",
        "Makefile",
        "README.md",
        "action.yml",
        "pyproject.toml",
    }
)
"""The files README's layout puts at the repository's top level (folders aside)."""


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_no_stray_file_at_the_top_level() -> None:
    """stop 63: a file named `args` (a shell line pasted into a file by mistake) was committed
    beside README.md; a fresh clone showed it. A new top-level file is added here on purpose."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    names = {name.decode() for name in listed.stdout.split(b"\0") if name and b"/" not in name}
    assert names - ROOT_FILES == set()


MODULE_LINES = 400
"""STYLE.md: modules stay small and named for what they do; none above this many lines."""


def test_no_module_is_longer_than_the_house_limit() -> None:
    """stop 65: `wheel/installable.py` reached 403 lines and passed lint and CI; nothing checked
    the limit. A module that outgrows it is split along what it does."""
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert len(sizes) > 100
    assert {name: n for name, n in sizes.items() if n > MODULE_LINES} == {}
