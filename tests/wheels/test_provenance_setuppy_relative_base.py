"""`wheels --source`: a module's relative imports, from the package it is imported as.

``setup.py`` putting ``tools/`` on ``sys.path`` (for a helper of its own) and importing
``tools.m``, or ``setup.cfg`` naming the command class ``tools.m.Build``: Python runs
``tools/m.py`` as the module ``tools.m``, whose ``from . import cm`` runs ``tools/cm.py``,
and its CMake installs over the package. k3diff took ``tools/m.py`` for a top-level module
(``tools/`` being on ``sys.path``), whose relative imports fail, read no ``cm.py``, and a
wheel keeping the package's old file passed, exit 0 (review79d). The packages a name imports
it as are each followed now.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_install import _stopped_at
from .test_provenance_cmake_unread import SETUP_PY
from .test_provenance_config_stops import CM, SETUP_CFG
from .test_provenance_setuppy_nested_imports import HEAD, _repo

TOOLS = {
    "tools/__init__.py": b"",
    "tools/m.py": b"from . import cm\n\n\nclass Build:\n    pass\n",
    "tools/cm.py": CM,
}
ON_PATH = HEAD + b"sys.path.insert(0, 'tools')\n"
SHAPES = {
    "setup.py imports tools.m": {"setup.py": ON_PATH + b"import tools.m\n" + SETUP_PY},
    "setup.cfg cmdclass tools.m.Build": {
        "setup.py": ON_PATH + SETUP_PY,
        "setup.cfg": SETUP_CFG + b"cmdclass =\n    build_py = tools.m.Build\n",
    },
}


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_a_relative_import_of_a_module_on_sys_path_as_a_package_stops_the_check(
    tmp_path: Path, shape: str
) -> None:
    stopped = _stopped_at(tmp_path, _repo(tmp_path, TOOLS | SHAPES[shape]), REVERTED)

    assert "tools/cm.py, which tools/m.py imports, runs CMake (line 8)" in stopped
