"""`wheels --source`: the build configuration at the commit says where a package lives.

setuptools' `package_dir` ships `src/realname/` as `pkg/`; detection by paths cannot see that,
and a complete old copy kept as `legacy/pkg/` was taken for the package (`Prefix: legacy/
(detected)`): a patch reverting a file to the legacy copy matched, exit 0 (prov69). The mapping
is now read statically from pyproject.toml, setup.cfg or setup.py (never run) and used; where it
does not hold the wheel's files the run stops.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import commit, make_repo

SAFE = b"import hmac\n\ndef check(token, secret):\n    return hmac.compare_digest(token, secret)\n"
OLD = b"def check(token, secret):\n    return True  # 0.9, before the fix\n"
FILES = {"pkg/__init__.py": b"", "pkg/auth.py": SAFE, "pkg/util.py": b"X = 1\n"}
LEGACY = {
    "legacy/pkg/__init__.py": b"",
    "legacy/pkg/auth.py": OLD,
    "legacy/pkg/util.py": b"X = 1\n",
}

PYPROJECT = b'[build-system]\nrequires = ["setuptools"]\n\n[tool.setuptools.package-dir]\npkg = "src/realname"\n'
SETUP_CFG = (
    b"[metadata]\nname = pkg\n\n[options]\npackages = pkg\npackage_dir =\n    pkg = src/realname\n"
)
SETUP_PY = b'from setuptools import setup\n\nsetup(name="pkg", packages=["pkg"], package_dir={"pkg": "src/realname"})\n'
CONFIGS = {
    "pyproject.toml": (PYPROJECT, "pyproject.toml [tool.setuptools.package-dir]"),
    "setup.cfg": (SETUP_CFG, "setup.cfg [options] package_dir"),
    "setup.py": (SETUP_PY, "setup.py setup(package_dir=…)"),
}


def _renamed(files: dict[str, bytes]) -> dict[str, bytes | None]:
    return {"src/realname/" + path.removeprefix("pkg/"): data for path, data in files.items()}


def _wheels(tmp_path: Path, patch_files: dict[str, bytes]) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", patch_files)
    return base, patch


def _sources(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {
        e["path"]: (e["source"]["status"], e["source"]["repo_path"])
        for e in report["entries"]
        if "source" in e
    }


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_a_patch_reverting_to_a_legacy_copy_is_held_to_the_mapped_package(
    tmp_path: Path, config: str
) -> None:
    repo = tmp_path / "repo"
    data, origin = CONFIGS[config]
    make_repo(repo, [{**_renamed(FILES), **LEGACY, config: data}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/auth.py": OLD})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/auth.py": ("mismatch", "src/realname/auth.py")}
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["W401"]
    provenance = report["provenance"]
    assert (provenance["prefix"], provenance["package_dir"]) == ("", {"pkg/": "src/realname/"})
    assert provenance["prefix_from"] == origin
    text = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")
    assert f"Prefix: src/realname/ for pkg/ (from {origin})" in text.stdout


def test_the_mapped_package_matches(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    first = {**_renamed(FILES), **LEGACY, "pyproject.toml": PYPROJECT}
    make_repo(repo, [first, _renamed({"pkg/util.py": b"X = 2\n"})])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 0
    assert _sources(report) == {"pkg/util.py": ("match", "src/realname/util.py")}


def test_a_where_of_one_directory_is_the_root_of_its_packages(tmp_path: Path) -> None:
    """`[tool.setuptools.packages.find] where = ["src"]`: the packages found there are built
    from there, whatever else holds a copy (here the repository root's old `pkg/`)."""
    repo = tmp_path / "repo"
    pyproject = b'[tool.setuptools.packages.find]\nwhere = ["src"]\n'
    old_at_root = {**FILES, "pkg/auth.py": OLD}
    make_repo(
        repo,
        [{**{"src/" + p: d for p, d in FILES.items()}, **old_at_root, "pyproject.toml": pyproject}],
    )
    base, patch = _wheels(tmp_path, old_at_root)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/auth.py": ("mismatch", "src/pkg/auth.py")}
    assert report["provenance"]["prefix"] == "src/"


def test_a_configuration_that_does_not_hold_the_package_stops_the_run(tmp_path: Path) -> None:
    """The mapping read names a directory without the wheel's files (a stale or foreign
    configuration): the place detection finds is not taken over it, exit 2 naming both."""
    repo = tmp_path / "repo"
    make_repo(repo, [{**LEGACY, "pyproject.toml": PYPROJECT}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/auth.py": OLD})

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "pyproject.toml [tool.setuptools.package-dir] places the package at" in result.stderr
    assert "src/realname/ for pkg/" in result.stderr
    assert "at most 0 of 3" in result.stderr
    assert "detection by paths finds them under 'legacy/'" in result.stderr
    assert "--source-prefix" in result.stderr


def test_a_package_dir_that_is_not_a_literal_is_not_run_and_is_said(tmp_path: Path) -> None:
    """setup.py is never executed: a computed `package_dir` is unknown, detection decides, and
    the Prefix line says what was not read."""
    repo = tmp_path / "repo"
    setup_py = (
        b'import os\nfrom setuptools import setup\nsetup(package_dir={"": os.environ["SRC"]})\n'
    )
    make_repo(repo, [{**{"src/" + p: d for p, d in FILES.items()}, "setup.py": setup_py}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert report["provenance"]["prefix"] == "src/"
    assert report["provenance"]["prefix_from"] is None
    assert "not a literal" in report["provenance"]["package_dir_unread"]
    text = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")
    assert "Prefix: src/ (detected; setup.py's package_dir is not a literal" in text.stdout


def test_a_given_prefix_still_wins(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{**_renamed(FILES), **LEGACY, "pyproject.toml": PYPROJECT}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/auth.py": OLD})

    code, report = run_json(
        "wheels", base, patch, "--source", repo, "--commit", "HEAD", "--source-prefix", "legacy"
    )  # fmt: skip

    assert code == 0
    assert _sources(report) == {"pkg/auth.py": ("match", "legacy/pkg/auth.py")}
    assert report["provenance"]["prefix_from"] is None


def test_bytecode_is_named_where_the_mapping_puts_its_package(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{**_renamed(FILES), "pyproject.toml": PYPROJECT}])
    cached = "pkg/__pycache__/auth.cpython-312.pyc"
    base, patch = _wheels(tmp_path, {**FILES, cached: b"\x00" * 16})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {
        cached: ("unverifiable", "src/realname/__pycache__/auth.cpython-312.pyc")
    }


def test_a_document_written_before_the_configuration_was_read_is_run_again(
    tmp_path: Path,
) -> None:
    """A `--source` document an older k3diff wrote lacks `prefix_from`, `package_dir` and
    `package_dir_unread`: `report` runs it again and compares it without them."""
    repo = tmp_path / "repo"
    make_repo(repo, [{**{"src/" + p: d for p, d in FILES.items()}, "setup.cfg": b"[metadata]\n"}])
    base, patch = _wheels(tmp_path, FILES)
    code, document = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")
    assert code == 0
    # and `head_commit`, added after them (setupstop76): a document that old lacks it too
    for field in ("prefix_from", "package_dir", "package_dir_unread", "head_commit"):
        del document["provenance"][field]
    (tmp_path / "old.json").write_text(json.dumps(document))

    result = run_k3diff(
        "report", tmp_path / "old.json", base, patch, repo, "--out", tmp_path / "bundle"
    )

    assert result.exit_code == 0, result.stderr


HATCH = b'[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n'
FLIT = b'[build-system]\nrequires = ["flit_core"]\nbuild-backend = "flit_core.buildapi"\n'
SRC_AND_LEGACY = {**{"src/" + p: d for p, d in FILES.items()}, **LEGACY}
DEAD_CONFIGS = {
    "pyproject under flit": {
        "pyproject.toml": FLIT + b'\n[tool.setuptools.package-dir]\npkg = "legacy/pkg"\n'
    },
    "setup.py beside flit": {
        "pyproject.toml": FLIT,
        "setup.py": b'from setuptools import setup\nsetup(package_dir={"pkg": "legacy/pkg"})\n',
    },
    "a second setup() that states none": {
        "setup.py": b'from setuptools import setup\nif False:\n    setup(package_dir={"pkg": "legacy/pkg"})\nsetup(name="pkg", packages=["pkg"])\n',
        **{p: d for p, d in FILES.items()},
    },
    "setup imported under another name": {
        "setup.py": b'from setuptools import setup as build\nfrom distutils.core import setup\nif False:\n    setup(package_dir={"pkg": "legacy/pkg"})\nbuild(name="pkg", package_dir={"": "src"})\n',
    },
}


@pytest.mark.parametrize("case", sorted(DEAD_CONFIGS))
def test_a_setuptools_setting_the_build_never_reads_does_not_place_the_package(
    tmp_path: Path, case: str
) -> None:
    """setuptools' settings where another backend builds (flit here; the project's own, by
    `backend-path`, stops: test_provenance_unread_backends), or a `setup()` call beside the
    one that runs: the build takes the package from elsewhere, so the legacy copy the dead
    setting names is not compared. It was, and a patch reverting a file to it matched, exit 0
    (review69b); detection decides, as before prov69, and the copies' difference stops the
    run."""
    repo = tmp_path / "repo"
    make_repo(repo, [{**SRC_AND_LEGACY, **DEAD_CONFIGS[case]}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/auth.py": OLD})

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout
    assert "hold different versions of pkg/auth.py" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_setuptools_setting_under_another_backend_is_said_not_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{**FILES, **DEAD_CONFIGS["pyproject under flit"]}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/util.py": ("mismatch", "pkg/util.py")}
    assert report["provenance"]["prefix_from"] is None
    assert report["provenance"]["package_dir_unread"] == (
        "pyproject.toml [tool.setuptools.package-dir] is setuptools', but pyproject.toml "
        "builds with 'flit_core.buildapi': not read"
    )


def test_a_configuration_file_that_is_a_symbolic_link_stops_the_check(tmp_path: Path) -> None:
    """git stores a link's target as its blob, and the file it names says which backend
    builds: a pyproject.toml linked to hatchling's configuration left setup.cfg's setting,
    which hatchling never reads, to choose the legacy copy, exit 0 (review69b); then, said
    not read, it left detection to decide (exit 0 where it named py-build-cmake running CMake
    over the package); it stops the check now, with or without another file beside it
    (cmake77)."""
    repo = tmp_path / "repo"
    setup_cfg = b"[options]\npackage_dir =\n    pkg = legacy/pkg\n"
    make_repo(repo, [{**SRC_AND_LEGACY, "build/pyproject.toml": HATCH, "setup.cfg": setup_cfg}])
    (repo / "pyproject.toml").symlink_to("build/pyproject.toml")
    commit(repo, {}, "link")
    base, patch = _wheels(tmp_path, {**FILES, "pkg/auth.py": OLD})

    for alone in (False, True):
        if alone:
            (repo / "setup.cfg").unlink()
            commit(repo, {"legacy/pkg/auth.py": None}, "no legacy copy")
        result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

        assert (result.exit_code, result.stdout) == (2, "")
        assert len(result.stderr.splitlines()) == 1
        assert ": pyproject.toml is a symbolic link, not read: how the project builds " in (
            result.stderr
        )


SETUP_FORMS = {
    "module alias": b'import setuptools as st\nst.setup(package_dir={"pkg": "src/realname"})\n',
    "other setup methods": (
        b'from setuptools import setup\nsetup(package_dir={"pkg": "src/realname"})\n'
        b"class Hook:\n    def run(self):\n        self.setup()\n"
        + b"x"
        + b".a" * 2000
        + b".setup()\n"  # a chain that parses, too deep to recurse on
    ),
}


@pytest.mark.parametrize("form", sorted(SETUP_FORMS))
def test_setup_py_read_through_its_imports(tmp_path: Path, form: str) -> None:
    """`setup` called through a module alias is read; a `.setup()` of anything else (a hook's
    own method, a long attribute chain) is no second `setup()` call."""
    repo = tmp_path / "repo"
    make_repo(repo, [{**_renamed(FILES), **LEGACY, "setup.py": SETUP_FORMS[form]}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/auth.py": OLD})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/auth.py": ("mismatch", "src/realname/auth.py")}


def test_a_long_configured_directory_is_said_shortened(tmp_path: Path) -> None:
    """setup.py may name a directory of 100,000 characters (fuzz71: the whole of it was said,
    a 200 KB error line); the line stays one a terminal shows."""
    repo = tmp_path / "repo"
    setup_py = SETUP_PY.replace(b"src/realname", b"x" * 100_000)
    make_repo(repo, [{**LEGACY, "setup.py": setup_py}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/auth.py": OLD})

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert "setup.py setup(package_dir=…) places the package at xxx" in line
    assert len(line) < 1000, len(line)
