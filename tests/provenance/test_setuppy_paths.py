"""The ``sys.path`` entries a ``setup.py`` adds, as `setuppylocal` looks its imports up there
(cmake77: grpcio's ``src/python/grpcio``)."""

from __future__ import annotations

import ast

from k3diff.provenance.setuppypaths import ENTRIES_CAP, path_entries


def _entries(source: str, directory: str = "") -> list[str] | str:
    return path_entries(ast.parse(source), directory)


def test_entries_read_from_strings_names_and_os_path() -> None:
    source = (
        "import os, sys\n"
        "STEM = os.path.join('src', 'python', 'grpcio')\n"
        "HERE = os.path.dirname(os.path.abspath(__file__))\n"
        "sys.path.insert(0, os.path.abspath(STEM))\n"
        "sys.path.append(os.path.join(HERE, 'tools'))\n"
        "sys.path.append('.')\n"
    )
    assert _entries(source) == ["", "src/python/grpcio/", "tools/"]
    assert _entries(source, "a/") == ["a/", "a/src/python/grpcio/", "a/tools/"]


def test_entries_computed_otherwise_or_leaving_the_repository_are_not_read() -> None:
    """``"sr" + "c"``, a name bound twice, an absolute path and one above the repository."""
    source = (
        "import os, sys\nD = 'src'\nD = 'lib'\n"
        "sys.path.insert(0, 'sr' + 'c')\nsys.path.insert(0, D)\n"
        "sys.path.append('/usr/lib')\nsys.path.append('../..')\n"
    )
    assert _entries(source) == []
    assert _entries("import sys\nsys.path.append('..')\n", "a/") == [""]


def test_too_many_entries_are_not_read() -> None:
    source = "import sys\n" + "".join(f"sys.path.append('d{n}')\n" for n in range(ENTRIES_CAP + 1))
    said = _entries(source)
    assert isinstance(said, str)
    assert f"over {ENTRIES_CAP}" in said
