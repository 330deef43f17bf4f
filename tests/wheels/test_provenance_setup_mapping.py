"""`wheels --source --commit`: ``setup(**{…})``, the keywords of a mapping ``setup.py`` spreads.

``setup(**{"version": "2.3.0"})`` and ``OPTIONS = dict(version="2.3.0"); setup(**OPTIONS)`` build
2.3.0 (setuptools 84 builds ``engine-2.3.0``): the mapping was not read, the version said "set
by code", and a 9.9 wheel passed, exit 0 (source78). A literal mapping is read; one changed or
built by code is still said not checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import make_repo

HEAD = b"from setuptools import setup\n"
FILES = {"engine/__init__.py": b"X = 1\n", "engine/a.py": b"A = 1\n"}
READ = {
    "a dict display": b'setup(name="engine", packages=["engine"], **{"version": "2.3.0"})\n',
    "a name for a dict": b'OPTIONS = {"version": "2.3.0", "packages": ["engine"]}\n'
    b'setup(name="engine", **OPTIONS)\n',
    "dict() of a name": b'BASE = dict(version="2.3.0")\nOPTIONS = {**BASE, "name": "engine"}\n'
    b'setup(packages=["engine"], **OPTIONS)\n',
}
NOT_READ = {
    "changed after": b'OPTIONS = {"version": "2.3.0"}\nOPTIONS["version"] = "9.9"\n'
    b'setup(name="engine", packages=["engine"], **OPTIONS)\n',
    "updated": b'OPTIONS = {"version": "2.3.0"}\nOPTIONS.update(version="9.9")\n'
    b'setup(name="engine", packages=["engine"], **OPTIONS)\n',
    "built by a call": b'import json\nOPTIONS = json.loads(\'{"version": "9.9"}\')\n'
    b'setup(name="engine", packages=["engine"], **OPTIONS)\n',
    "dict rebound": b"dict = lambda **k: {'version': '9.9'}\n"
    b'setup(name="engine", packages=["engine"], **dict(version="2.3.0"))\n',
    # review78f: each was read as the literal 2.3.0 (a 9.9 wheel W413, a 2.3.0 one "checked")
    "a match capture": b'OPTIONS = {"version": "2.3.0"}\nmatch {"version": "9.9"}:\n'
    b'    case OPTIONS:\n        pass\nsetup(name="engine", packages=["engine"], **OPTIONS)\n',
    "a match mapping's rest": b'OPTIONS = {"version": "2.3.0"}\nmatch {"version": "9.9"}:\n'
    b'    case {**OPTIONS}:\n        pass\nsetup(name="engine", packages=["engine"], **OPTIONS)\n',
    "globals()": b'OPTIONS = {"version": "2.3.0"}\nglobals()["OPTIONS"] = {"version": "9.9"}\n'
    b'setup(name="engine", packages=["engine"], **OPTIONS)\n',
    "exec": b'OPTIONS = {"version": "2.3.0"}\nexec("OPTIONS = {\'version\': \'9.9\'}")\n'
    b'setup(name="engine", packages=["engine"], **OPTIONS)\n',
}


def _run(tmp_path: Path, setup_py: bytes, version: str) -> tuple[int, str]:
    repo = tmp_path / "repo"
    make_repo(repo, [{"setup.py": HEAD + setup_py, **FILES}])
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", version, FILES)
    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")
    return result.exit_code, result.stdout + result.stderr


@pytest.mark.parametrize("shape", list(READ), ids=list(READ))
def test_a_literal_mapping_states_the_version(tmp_path: Path, shape: str) -> None:
    code, said = _run(tmp_path / "a", READ[shape], "9.9")
    built, _ = _run(tmp_path / "b", READ[shape], "2.3.0")

    assert (code, built) == (1, 0), said
    assert "the patch wheel's METADATA Version is 9.9, but commit" in said
    assert "builds 2.3.0 (setup.py line" in said


@pytest.mark.parametrize("shape", list(NOT_READ), ids=list(NOT_READ))
def test_a_mapping_changed_or_computed_is_not_read(tmp_path: Path, shape: str) -> None:
    code, said = _run(tmp_path, NOT_READ[shape], "9.9")

    assert code == 0, said
    assert "is not checked against the version commit" in said
    assert "setup() may set it by code" in said
