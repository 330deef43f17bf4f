"""`wheels --source`: a ``setup.py`` calling ``setup`` more than `SETUP_CALLS_CAP` times.

Every ``setup(**O)`` call expands the mapping ``O`` again for each reader of its keywords (its
``cmdclass``, ``version`` and ``package_dir``), so the work was the calls times the mapping's
keys: 10,000 calls of a 10,000-key mapping, a 238 KB ``setup.py``, took 60 s of CPU a reader
(caps80). Past the cap its readers stop, exit 2 naming the file and the cap; at the cap it is
read as before.
"""

from __future__ import annotations

from pathlib import Path

import wheelkit
from cli_support import run_k3diff

from k3diff.provenance.setuppykeywords import SETUP_CALLS_CAP

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_install import _stopped_at
from .test_provenance_setuppy_nested_imports import HEAD, _repo

OPTIONS = b'O = {"name": "pkg", "packages": ["pkg", "pkg.sub"], "package_dir": {"": "src"}}\n'


def test_a_setup_py_of_too_many_setup_calls_stops(tmp_path: Path) -> None:
    setup_py = HEAD + OPTIONS + b"setup(**O)\n" * (SETUP_CALLS_CAP + 1)

    stopped = _stopped_at(tmp_path, _repo(tmp_path, {"setup.py": setup_py}), REVERTED)

    assert stopped.endswith(
        f"repo: setup.py calls setup() more than {SETUP_CALLS_CAP} times; k3diff reads the "
        f"keywords of at most {SETUP_CALLS_CAP}, so a cmdclass from an installed package is not "
        "ruled out: a file it installs may stand at any wheel path, over the package's: compare "
        "a wheel built from the commit with this one (k3diff wheels BUILT RELEASED)\n"
    )


def test_a_setup_py_of_as_many_calls_as_the_cap_is_read(tmp_path: Path) -> None:
    setup_py = HEAD + OPTIONS + b"setup(**O)\n" * SETUP_CALLS_CAP
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", REVERTED)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)
    repo = _repo(tmp_path, {"setup.py": setup_py})

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 0, result.stderr
