"""A generated version module's tuple and commit id are what setuptools-scm writes (prov71).

prov70c held `__version__` to the wheel's METADATA Version but let `__version_tuple__` /
`version_tuple` be any tuple of numbers and strings: a module saying `version_tuple = (9, 9)`,
which code comparing `pkg._version.version_tuple` reads, passed `generated`, exit 0. The tuple
must now be what setuptools-scm writes for the version stated, by one of its rules:

* from 8.2.1 (`_version_as_tuple`): the release as ints, then `N!`, the pre-release, `postN`,
  `devN` and the local part as strings; a real build with setuptools-scm 10.3.4 of a commit
  after tag `v0.11.0rc1` wrote `(0, 11, 0, 'rc2', 'dev1', 'g75c804988')`;
* 6.1 to 8.2.0: the release, then `devN` and the local part (no pre-release, post or epoch);
* 5.x and 6.0: the version split at each dot, each part an int where `int()` reads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json

from provenance.repokit import make_repo
from provenance.versiontemplates import SCM_6, SCM_10, scm_module, scm_pyproject

PYPROJECT = scm_pyproject("src/engine/_version.py")


def _run(tmp_path: Path, module: Any) -> tuple[int, dict[str, Any], str]:
    """Commits A and B; the patch, built from B at the version `module(b)` returns with its
    `engine/_version.py`, checked against B."""
    sources = {
        "pyproject.toml": PYPROJECT,
        ".gitignore": b"src/engine/_version.py\n",
        "src/engine/__init__.py": b"",
        "src/engine/core.py": b"STEP = 1\n",
    }
    _a, b = make_repo(tmp_path / "repo", [sources, {"src/engine/core.py": b"STEP = 2\n"}])
    version, patch_module = module(b)
    base_files = {"engine/__init__.py": b"", "engine/core.py": b"STEP = 1\n"}
    base = wheelkit.make_wheel(
        tmp_path / "base", "engine", "1.0", {**base_files, "engine/_version.py": scm_module("1.0")}
    )
    patch_files = {**base_files, "engine/core.py": b"STEP = 2\n"}
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "engine", version, {**patch_files, "engine/_version.py": patch_module}
    )
    code, report = run_json("wheels", base, patch, "--source", tmp_path / "repo", "--commit", b)
    return code, report, b


def _status(report: dict[str, Any]) -> str:
    (entry,) = [e for e in report["entries"] if e["path"] == "engine/_version.py"]
    status: str = entry["source"]["status"]
    return status


def _failing(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["detail"]) for f in report["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize(
    ("template", "name"), [(SCM_10, "__version_tuple__"), (SCM_6, "version_tuple")]
)
@pytest.mark.parametrize(
    "forged",
    [
        lambda node: (9, 9),
        lambda node: ("1", "1", "dev1", node),  # the release as strings
        lambda node: (1, 1, "dev1"),  # the local part dropped
        lambda node: (1, 1, "dev1", node, "cu128"),  # a part the version does not have
        lambda node: (1, 2, "dev1", node),
    ],
)
def test_a_version_tuple_setuptools_scm_does_not_write_fails(
    tmp_path: Path, template: str, name: str, forged: Any
) -> None:
    def module(b: str) -> tuple[str, bytes]:
        version = f"1.1.dev1+g{b[:9]}"
        return version, scm_module(version, template, f"g{b[:9]}", forged(f"g{b[:9]}"))

    code, report, b = _run(tmp_path, module)

    assert code == 1
    assert _status(report) == "absent"
    ((finding_code, detail),) = _failing(report)
    assert finding_code == "W402"
    version, node = f"1.1.dev1+g{b[:9]}", f"g{b[:9]}"
    assert detail.endswith(
        f"is not what it writes: {name} is {forged(node)!r}, not (1, 1, 'dev1', '{node}') as "
        f"setuptools-scm writes for {version}"
    )


@pytest.mark.parametrize(
    ("version", "rules"),
    [
        # (8.2.1 on, 6.1 to 8.2.0, 5.x and 6.0), each written out from the tool's source
        (
            "0.11.0rc2.dev1+g{node}",
            [
                (0, 11, 0, "rc2", "dev1", "g{node}"),
                (0, 11, 0, "dev1", "g{node}"),
                (0, 11, "0rc2", "dev1+g{node}"),
            ],
        ),
        (
            "1!2.0.post3.dev4+cu128.precompiled",
            [
                ("1!", 2, 0, "post3", "dev4", "cu128.precompiled"),
                (2, 0, "dev4", "cu128.precompiled"),
                ("1!2", 0, "post3", "dev4+cu128", "precompiled"),
            ],
        ),
    ],
)
def test_each_setuptools_scm_rule_s_tuple_holds(
    tmp_path: Path, version: str, rules: list[tuple[int | str, ...]]
) -> None:
    for index, rule in enumerate(rules):

        def module(b: str) -> tuple[str, bytes]:
            node = b[:9]
            stated = version.format(node=node)
            parts = rule  # noqa: B023 (called at once, in this iteration)
            values = tuple(v.format(node=node) if isinstance(v, str) else v for v in parts)
            return stated, scm_module(stated, SCM_10, f"g{node}", values)

        code, report, _b = _run(tmp_path / str(index), module)

        assert code == 0, _failing(report)
        assert _status(report) == "generated"


@pytest.mark.parametrize("commit_id", ["unknown", "main", "", "gxyz123456", "g1a2b3c4d; x"])
def test_a_commit_id_that_is_no_git_node_fails(tmp_path: Path, commit_id: str) -> None:
    """setuptools-scm writes `commit_id` as git's node (`g` and hex) or None: hex is held to
    the source check's commit (W408); anything else was said as no commit id, and passed."""

    def module(b: str) -> tuple[str, bytes]:
        version = f"1.1.dev1+g{b[:9]}"
        return version, scm_module(version, SCM_10, commit_id)

    code, report, _b = _run(tmp_path, module)

    assert code == 1
    assert _status(report) == "absent"
    ((finding_code, detail),) = _failing(report)
    assert finding_code == "W402"
    assert detail.endswith(f"__commit_id__ = {commit_id!r}, not what it writes")
