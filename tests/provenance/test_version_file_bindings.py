"""A version module the build writes binds each name once, as its tool does (review70c).

prov70c held a `generated` version module to its tool's literal assignments, but let a name be
assigned twice: Python keeps the last, while the stated-commit reader took the first, so a
second versioneer `version_json` saying `"dirty": true` and another commit, or a second
`__commit_id__`, passed, exit 0, and `get_versions()` of the installed module said what no
check read. `from __future__ import annotations as __getattr__` bound the module's
`__getattr__` (every `getattr(module, name, default)` of a missing name raised TypeError), and
`__all__` could name a name the module does not assign (`from pkg._version import *` raised
AttributeError): both passed. Each is now not the template: W401/W402, exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json

from provenance.repokit import make_repo
from provenance.versiontemplates import SCM_6, SCM_10, scm_module, scm_pyproject, versioneer_module

SCM_PYPROJECT = scm_pyproject("src/engine/_version.py")
VERSIONEER_CFG = b"""\
[metadata]
name = engine

[versioneer]
VCS = git
style = pep440
versionfile_source = src/engine/_version.py
versionfile_build = engine/_version.py
"""
ELSEWHERE = "f" * 40
"""A commit id in no repository of these tests."""


def _run(tmp_path: Path, versioneer: bool, module: Any) -> tuple[int, dict[str, Any], str]:
    """Commits A and B (STEP = 2); the base built from A at 1.0, the patch from B shipping
    `module(b)` -> (version, bytes) as `engine/_version.py`."""
    if versioneer:
        sources = {
            "setup.cfg": VERSIONEER_CFG,
            "setup.py": b"import versioneer\n",
            "versioneer.py": b"# versioneer 0.29\n",
            "src/engine/_version.py": b"def get_versions():\n    return {}\n",
        }
    else:
        sources = {"pyproject.toml": SCM_PYPROJECT, ".gitignore": b"src/engine/_version.py\n"}
    sources |= {"src/engine/__init__.py": b"", "src/engine/core.py": b"STEP = 1\n"}
    a, b = make_repo(tmp_path / "repo", [sources, {"src/engine/core.py": b"STEP = 2\n"}])
    version, patch_module = module(b)
    base_module = versioneer_module("1.0", a) if versioneer else scm_module("1.0")
    base = wheelkit.make_wheel(
        tmp_path / "base",
        "engine",
        "1.0",
        {
            "engine/__init__.py": b"",
            "engine/core.py": b"STEP = 1\n",
            "engine/_version.py": base_module,
        },
    )
    patch = wheelkit.make_wheel(
        tmp_path / "patch",
        "engine",
        version,
        {
            "engine/__init__.py": b"",
            "engine/core.py": b"STEP = 2\n",
            "engine/_version.py": patch_module,
        },
    )
    code, report = run_json("wheels", base, patch, "--source", tmp_path / "repo", "--commit", b)
    return code, report, b


def _errors(report: dict[str, Any]) -> dict[str, str]:
    """Code -> detail of each failing finding on engine/_version.py."""
    return {
        f["code"]: f["detail"]
        for f in report["findings"]
        if f["severity"] == "error" and f["path"] == "engine/_version.py"
    }


def _status(report: dict[str, Any]) -> str:
    (entry,) = [e for e in report["entries"] if e["path"] == "engine/_version.py"]
    status: str = entry["source"]["status"]
    return status


def _scm(b: str) -> str:
    return f"1.1.dev1+g{b[:9]}"


def test_a_second_version_json_is_not_versioneer_s_and_is_the_one_read(tmp_path: Path) -> None:
    """The second says a dirty build of another commit: Python's `get_versions()` returns it."""

    def module(b: str) -> tuple[str, bytes]:
        version = f"1.0+1.g{b[:7]}"
        second = {"version": version, "dirty": True, "full-revisionid": ELSEWHERE}
        return version, versioneer_module(version, b) + (
            f"version_json = {json.dumps(second)!r}\n".encode()
        )

    code, report, _b = _run(tmp_path, True, module)

    assert code == 1
    errors = _errors(report)
    assert _status(report) == "mismatch"
    assert "not what it writes: line 22: a second assignment to version_json" in errors["W401"]
    assert ELSEWHERE in errors["W408"]  # the commit get_versions() states
    assert ELSEWHERE in errors["W411"]  # and its dirty work tree


@pytest.mark.parametrize("statement", ["__commit_id__ = commit_id = {!r}", "commit_id: str = {!r}"])
def test_a_second_commit_id_is_not_setuptools_scm_s_and_is_the_one_read(
    tmp_path: Path, statement: str
) -> None:
    def module(b: str) -> tuple[str, bytes]:
        later = statement.format(f"g{ELSEWHERE}") + "\n"
        return _scm(b), scm_module(_scm(b), SCM_10, f"g{b[:9]}") + later.encode()

    code, report, _b = _run(tmp_path, False, module)

    assert code == 1
    errors = _errors(report)
    assert _status(report) == "absent"
    assert ": a second assignment to " in errors["W402"]
    assert ELSEWHERE in errors["W408"]


def test_an_annotated_commit_id_is_read_as_the_commit_stated(tmp_path: Path) -> None:
    """Assigned once, with an annotation: the template's, and the commit it states is held to
    the source commit (it was not read: another commit passed), as the stated commit (W408)
    and as what the build wrote (review71a: the module's commit is the one built)."""

    def module(b: str) -> tuple[str, bytes]:
        return _scm(b), scm_module(
            _scm(b), SCM_6
        ) + f"__commit_id__: str = 'g{ELSEWHERE}'\n".encode()

    code, report, _b = _run(tmp_path, False, module)

    assert code == 1
    assert _status(report) == "absent"
    assert sorted(_errors(report)) == ["W402", "W408"]
    assert ELSEWHERE in _errors(report)["W408"]
    assert _errors(report)["W402"].endswith(
        f"__commit_id__ is 'g{ELSEWHERE}', not the source commit"
    )


@pytest.mark.parametrize(
    ("head", "tail", "said"),
    [
        (
            "from __future__ import annotations as __getattr__\n",
            "",
            "line 1: an import",
        ),
        ("from __future__ import annotations, generator_stop\n", "", "line 1: an import"),
        (
            "",
            '__all__ = ["__version__", "version"]\n',
            "__all__ names __version__, which it does not assign",
        ),
    ],
)
def test_bindings_the_template_does_not_make_fail(
    tmp_path: Path, head: str, tail: str, said: str
) -> None:
    def module(b: str) -> tuple[str, bytes]:
        return _scm(b), head.encode() + scm_module(_scm(b), SCM_6) + tail.encode()

    code, report, _b = _run(tmp_path, False, module)

    assert code == 1
    assert _status(report) == "absent"
    assert list(_errors(report)) == ["W402"]
    assert _errors(report)["W402"].endswith(f"but this is not what it writes: {said}")


def test_the_template_with_future_annotations_and_its_all_still_holds(tmp_path: Path) -> None:
    """vcs-versioning's template (`from __future__ import annotations`, `__all__` of the six
    names it assigns) is still generated."""

    def module(b: str) -> tuple[str, bytes]:
        return _scm(b), scm_module(_scm(b), SCM_10, f"g{b[:9]}")

    code, report, _b = _run(tmp_path, False, module)

    assert code == 0, _errors(report)
    assert _status(report) == "generated"
