"""Imports run downward: the format and explainer packages never import the commands built on
them, and no module imports itself through others.

The import graph is read from the source with `ast` (every `import` and `from ... import`,
module-level or inside a function, relative ones resolved). Imports under `if TYPE_CHECKING:`
count for the layers (a type from a higher package is still a dependency on it) but not for
cycles (they never run).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import ROOT

PACKAGE = ROOT / "k3diff"
LOWER = ("zip", "wheel", "native", "provenance", "responses")
"""Format knowledge and explainers: they serve the commands and know nothing of them."""
HIGHER = ("wheels", "cli", "report", "bundle")
"""The `wheels` pipeline, the CLI, the renderers and the bundle."""


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the import nodes under `if TYPE_CHECKING:`."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found |= {id(inner) for child in node.body for inner in ast.walk(child)}
    return found


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
def _graph(with_type_checking: bool) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        skipped = set() if with_type_checking else _type_checking_nodes(tree)
        graph[module] = {
            target
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skipped
            for target in _targets(module, node)
        }
    return graph


def _package(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def test_the_graph_is_read() -> None:
    graph = _graph(with_type_checking=True)
    assert "k3diff.wheel.codes" in graph["k3diff.wheels.compare"]
    assert "k3diff.zip.archive" in graph["k3diff.wheel.record"]


@pytest.mark.parametrize("lower", LOWER)
def test_a_lower_package_never_imports_a_higher_one(lower: str) -> None:
    back_edges = sorted(
        f"{module} imports {target}"
        for module, targets in _graph(with_type_checking=True).items()
        if _package(module) == lower
        for target in targets
        if _package(target) in HIGHER
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


def test_no_module_imports_itself_through_others() -> None:
    assert not _cycles(_graph(with_type_checking=False))


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


def test_rendering_computes_no_statistics() -> None:
    """Nothing under k3diff/report imports scipy, nor a k3diff module that does: the statistics
    are computed by the library packages and the results carry the numbers."""
    statistics = {module for module in MODULES if "scipy" in _external_imports(module)}
    assert "k3diff.triage.stats" in statistics  # the check sees scipy where it is imported
    offenders = sorted(
        f"{module} imports {target}"
        for module in MODULES
        if _package(module) == "report"
        for target in sorted(_graph(with_type_checking=True)[module] | _external_imports(module))
        if target == "scipy" or target in statistics
    )
    assert not offenders
