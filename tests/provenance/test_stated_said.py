"""What a wheel states about its commit is said even where nothing checks it: `--source` given
without a revision names the commit the patch states (for the reviewer to judge, never taken as
the revision), and a value a version file gives in a commit's place that is no commit id is one
informational line, escaped and capped, never a finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from provenance.repokit import make_repo

FILES = {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 1\n"}


def _pair(tmp_path: Path, extra: dict[str, bytes], **patch: str) -> list[Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    made = wheelkit.make_wheel(tmp_path / "patch", "engine", patch.pop("version", "1.0"),
                               {**FILES, **extra}, **patch)  # type: ignore[arg-type]  # fmt: skip
    return [base, made]


def test_source_without_a_revision_names_the_commit_the_patch_states(tmp_path: Path) -> None:
    (a,) = make_repo(tmp_path / "repo", [FILES])
    name = "engine-1.0+g" + a[:9] + "-py3-none-any.whl"
    wheels = _pair(tmp_path, {}, filename=name.replace("engine-", "engine\x1b[2J-", 1))
    result = run_k3diff("wheels", *wheels, "--source", tmp_path / "repo")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "k3diff: error: --source needs exactly one of --commit REV or --commits OLD..NEW; the "
        f"patch wheel states commit {a[:9]} (read from engine\\x1b[2J-1.0+g{a[:9]}-py3-none-any"
        ".whl file name): judge it, then pass it as --commit (it is never taken as the "
        "revision: the wheel would choose what it is checked against)\n"
    )
    result = run_k3diff("wheels", *_pair(tmp_path / "none", {}), "--source", tmp_path / "repo")
    assert result.exit_code == 2
    assert result.stderr.endswith("OLD..NEW; the patch wheel states no commit\n")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("Unknown", "'Unknown'"),
        ("xyz\x1b[31m", "'xyz\\x1b[31m'"),  # repr's escape: no raw escape byte is printed
        ("v" * 200, repr("v" * 80 + "…")),
    ],
)
def test_a_version_file_value_that_is_no_commit_id_is_said_once(
    tmp_path: Path, value: str, said: str
) -> None:
    module = {"pkg/version.py": f"__version__ = '1.0'\ngit_version = {value!r}\n".encode()}
    wheels = _pair(tmp_path, module)
    result = run_k3diff("wheels", *wheels)
    assert result.exit_code == 0, result.stdout
    lines = [line for line in result.stdout.splitlines() if "not a commit id" in line]
    assert lines == [f"  states {said} in pkg/version.py git_version: not a commit id"]
    assert "\x1b" not in result.stdout
    document = json.loads(run_k3diff("wheels", *wheels, "--format", "json").stdout)
    cut = value[:80] + ("…" if len(value) > 80 else "")
    assert document["patch"]["not_commits"] == [
        {"value": cut, "path": "pkg/version.py", "field": "git_version"}
    ]
    assert document["patch"]["stated_commits"] == [] and document["base"]["not_commits"] == []
    markdown = run_k3diff("wheels", *wheels, "--format", "markdown").stdout
    assert "patch states " in markdown and "git\\_version: not a commit id" in markdown


def test_sglang_s_setuptools_scm_version_file_is_read(tmp_path: Path) -> None:
    """SGLang builds with setuptools-scm writing ``sglang/_version.py`` (pyproject
    ``[tool.setuptools_scm] version_file``): its ``__commit_id__ = commit_id = 'g<hex>'`` is
    the commit stated, as for any setuptools-scm wheel."""
    scm = "__version__ = version = '0.5.0'\n__commit_id__ = commit_id = 'g1a2b3c4d'\n"
    wheels = _pair(tmp_path, {"sglang/_version.py": scm.encode()})
    document = json.loads(run_k3diff("wheels", *wheels, "--format", "json").stdout)
    assert document["patch"]["stated_commits"] == [
        {"commit": "1a2b3c4d", "path": "sglang/_version.py", "field": "__commit_id__",
         "dirty": False}
    ]  # fmt: skip


def test_a_name_that_states_no_commit_does_not_hide_the_next_one(tmp_path: Path) -> None:
    """Every name a version module assigns is read (each value once): `git_version = 'Unknown'`
    is said, and the `__commit_id__` after it is still the commit stated (base68 stopped at the
    first name present, so the module stated nothing)."""
    module = "git_version = 'Unknown'\n__commit_id__ = commit_id = 'g1a2b3c4d'\n"
    wheels = _pair(tmp_path, {"pkg/version.py": module.encode()})
    document = json.loads(run_k3diff("wheels", *wheels, "--format", "json").stdout)
    assert [c["commit"] for c in document["patch"]["stated_commits"]] == ["1a2b3c4d"]
    assert [c["value"] for c in document["patch"]["not_commits"]] == ["Unknown"]
