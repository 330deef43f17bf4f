"""JSON is written one way: plain functions called by name (docs/architecture.md, "Writing
JSON"). No module dispatches a writer on the value's type or registers one by being imported."""

from __future__ import annotations

import ast
from pathlib import Path

from cli_support import ROOT

PACKAGE = ROOT / "k3diff"


def _dispatch(source: str, name: str) -> list[str]:
    """Where `source` dispatches on a type: `singledispatch` used, or a `.register` decorator."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Name | ast.Attribute):
            ident = node.id if isinstance(node, ast.Name) else node.attr
            if ident in ("singledispatch", "singledispatchmethod"):
                found.append(f"{name}:{node.lineno}: {ident}")
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(target, ast.Attribute) and target.attr == "register":
                    found.append(f"{name}:{decorator.lineno}: @{ast.unparse(target)}")
    return found


def _side_effect_imports(source: str, name: str) -> list[str]:
    """Modules of k3diff imported and never used by name (imported for what importing does)."""
    tree = ast.parse(source, name)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if alias.name.startswith("k3diff.") and bound not in used:
                    found.append(f"{name}:{node.lineno}: import {alias.name}")
    return found


def _modules() -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def test_no_writer_is_dispatched_on_a_type() -> None:
    assert [hit for name, source in _modules() for hit in _dispatch(source, name)] == []


def test_no_module_is_imported_for_its_side_effect() -> None:
    found = [hit for name, source in _modules() for hit in _side_effect_imports(source, name)]
    assert found == []


def test_a_registration_would_be_found() -> None:
    planted = (
        "from functools import singledispatch\n"
        "import k3diff.documents.native\n"
        "@singledispatch\n"
        "def to_json(value): ...\n"
        "@to_json.register\n"
        "def _json(value: int): ...\n"
    )
    assert sorted(_dispatch(planted, "x.py")) == [
        "x.py:3: singledispatch",
        "x.py:5: @to_json.register",
    ]
    assert _side_effect_imports(planted, "x.py") == ["x.py:2: import k3diff.documents.native"]
    assert _side_effect_imports("import k3diff.ids\nk3diff.ids.WHEELS\n", "y.py") == []


def test_the_writers_are_reached_by_name() -> None:
    """What the old dispatch held is now a function each caller names."""
    from k3diff.documents import native, provenance, responses, surfaces, wheels

    for module, names in (
        (native, ("explanation_json", "platform_needs_json")),
        (provenance, ("file_source_json", "provenance_json")),
        (surfaces, ("surface_json", "surfaces_json", "sboms_json")),
        (wheels, ("document", "kind_counts_json", "write", "chunks")),
        (responses, ("overview_json", "record_line", "chunks")),
    ):
        assert all(callable(getattr(module, name)) for name in names), module.__name__
    assert not (Path(native.__file__).parent / "jsonable.py").exists()
