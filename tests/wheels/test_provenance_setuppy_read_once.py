"""`wheels --source`: each module a build imports read once a run, under one budget.

The modules ``setup.py`` imports, those each ``cmdclass`` setting names and those each
``attr:`` version imports were read apart, each reading parsing and walking them again with a
budget of its own: five readings naming one module of a million words took ~9.9 s
(review78i, stop 78's note), and five readings of modules just under the words cap each
passed where all of them together were five times it. A module is now parsed once a run, and
its words count once against one budget.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_install import _stopped_at
from .test_provenance_cmake_unread import SETUP_PY, _passes_with
from .test_provenance_config_stops import SETUP_CFG
from .test_provenance_setuppy_cmake import SETUPTOOLS
from .test_provenance_setuppy_nested_imports import HEAD, _repo

HELPERS = b"import os\nVERSION = '.'.join(['1', '0'])\n\n\nclass Build:\n    pass\n"
FIVE = {  # setup.py's imports, two cmdclass settings, two `attr:` versions: all helpers.py
    "setup.py": HEAD + b"import helpers\n" + SETUP_PY,
    "setup.cfg": SETUP_CFG.replace(
        b"name = pkg\n", b"name = pkg\nversion = attr: helpers.VERSION\n"
    )
    + b"cmdclass =\n    build_ext = helpers.Build\n",
    "helpers.py": HELPERS,
}
PYPROJECT = SETUPTOOLS + (
    b'[project]\nname = "pkg"\ndynamic = ["version"]\n'
    b'[tool.setuptools.dynamic]\nversion = {attr = "helpers.VERSION"}\n'
    b'[tool.setuptools.cmdclass]\nbuild_py = "helpers.Build"\n'
)


def test_a_module_five_readings_name_is_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: Counter[str] = Counter()
    parse = ast.parse

    def counting(source: str | bytes, filename: str = "<unknown>", **kw: Any) -> Any:
        parsed[filename] += 1
        return parse(source, filename, **kw)

    monkeypatch.setattr(ast, "parse", counting)

    _passes_with(tmp_path / "a", PYPROJECT, **FIVE)

    assert parsed["helpers.py"] == 1


def test_readings_past_the_words_cap_together_stop_the_check(tmp_path: Path) -> None:
    """Five modules of some 242,000 words, one a reading: each reading under the cap of
    1,000,000 words, passed, exit 0; together they are over it."""
    body = (b"x=" + b"+".join([b"a"] * 60) + b"\n") * 2000  # 121 words a line, 244 KB
    big = {f"h{n}.py": body + b"\n\nclass Build:\n    pass\n" for n in range(5)}
    files = {
        "setup.py": HEAD + b"import h0\n" + SETUP_PY,
        "setup.cfg": SETUP_CFG.replace(b"name = pkg\n", b"name = pkg\nversion = attr: h1.V\n")
        + b"cmdclass =\n    build_ext = h2.Build\n",
        "pyproject.toml": SETUPTOOLS
        + b'[project]\nname = "pkg"\ndynamic = ["version"]\n'
        + b'[tool.setuptools.dynamic]\nversion = {attr = "h3.V"}\n'
        + b'[tool.setuptools.cmdclass]\nbuild_py = "h4.Build"\n',
        **big,
    }
    files |= {f"h{n}.py": big[f"h{n}.py"] + b"V = '.'.join(['1', '0'])\n" for n in (1, 3)}

    stopped = _stopped_at(tmp_path, _repo(tmp_path, files), REVERTED)

    assert "are over 1,000,000 words together with those read before them, not read" in stopped
