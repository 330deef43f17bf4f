"""setup.cfg read as setuptools reads it, by the one reader (`provenance.setupcfg`) that the
layout, the version and versioneer's settings share (cleanup75: three configparser readers,
none interpolating, each naming options its own way).

setuptools opens it as UTF-8, parses it strictly with `%(name)s` interpolation and option names
as written, then names them its way (dashes as underscores, lower case in ``[metadata]``, the
later of two winning). A file setuptools fails on is said not read, why.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json

from k3diff.provenance.setupcfg import read_setup_cfg
from provenance.repokit import make_repo

SAFE = b"import hmac\n\ndef check(token, secret):\n    return hmac.compare_digest(token, secret)\n"
OLD = b"def check(token, secret):\n    return True  # 0.9, before the fix\n"
FILES = {"pkg/__init__.py": b"", "pkg/auth.py": SAFE, "pkg/util.py": b"X = 1\n"}
MAPPED = {"src/realname/" + p.removeprefix("pkg/"): d for p, d in FILES.items()}
LEGACY = {"legacy/" + p: d for p, d in {**FILES, "pkg/auth.py": OLD}.items()}
SETUPTOOLS = b'[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'


def _layout(tmp_path: Path, setup_cfg: bytes) -> tuple[int, dict[str, Any]]:
    """A patch reverting pkg/auth.py to the legacy copy, checked against a commit whose
    setup.cfg maps pkg to src/realname/."""
    repo = tmp_path / "repo"
    make_repo(repo, [{**MAPPED, **LEGACY, "setup.cfg": setup_cfg}])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {**FILES, "pkg/auth.py": OLD})
    return run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")


@pytest.mark.parametrize(
    "options",
    [
        b"[options]\npackages = pkg\npackage-dir =\n    pkg = src/realname\n",
        b"[options]\nroot = src\npackages = pkg\npackage_dir =\n    pkg = %(root)s/realname\n",
        b"[options]\nPackages = pkg\nPackage_Dir =\n    pkg = src/realname\n",
        b"[options]\npackages = pkg\npackage_dir = pkg = src/realname, pkg.x = src/realname/x\n",
        b"[options]\rpackages = pkg\rpackage_dir =\r    pkg = src/realname\r",
    ],
    ids=["dash-separated name", "interpolated", "upper case", "one line, commas", "CR endings"],
)
def test_package_dir_is_read_as_setuptools_reads_it(tmp_path: Path, options: bytes) -> None:
    """setuptools reads ``package-dir`` as ``package_dir`` and interpolates ``%(root)s``; read
    neither way (before), detection found the legacy copy, which matched: exit 0. So did
    ``Package_Dir`` (setuptools 80 and later lower an ``[options]`` name: review75c, read as
    65 reads it), a one-line ``package_dir`` of commas (setuptools' ``_parse_list``: one item,
    ``src/realname, pkg.x = …`` the root) and a file of ``\r`` line endings (one line)."""
    if b"\r" in options:
        options = b"[metadata]\rname = pkg\r" + options
    else:
        options = b"[metadata]\nname = pkg\n" + options
    code, report = _layout(tmp_path, options)

    assert report["provenance"]["package_dir"]["pkg/"] == "src/realname/"
    assert report["provenance"]["prefix_from"] == "setup.cfg [options] package_dir"
    assert code == 1
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["W401"]


def _version(tmp_path: Path, setup_cfg: bytes, version: str) -> tuple[int, dict[str, Any]]:
    """A wheel at `version` of a commit whose setup.cfg states the project's version."""
    package = {"engine/__init__.py": b"", "engine/core.py": b"STEP = 1\n"}
    repo = tmp_path / "repo"
    (b,) = make_repo(repo, [{**package, "pyproject.toml": SETUPTOOLS, "setup.cfg": setup_cfg}])
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "2.2.0", package)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", version, package)
    return run_json("wheels", base, patch, "--source", repo, "--commit", b)


def _errors(report: dict[str, Any]) -> list[str]:
    return [f["code"] for f in report["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize(
    "metadata",
    [
        b"[metadata]\nname = engine\nmajor = 2.3\nversion = %(major)s.0\n",
        b"[DEFAULT]\nmajor = 2.3\n[metadata]\nname = engine\nversion = %(major)s.0\n",
        b"[metadata]\nname = engine\nversion = 2.2.0\nVersion = 2.3.0\n",
        b"[metadata]\rname = engine\rversion = 2.3.0\r",
        b"[metadata]\r\nname = engine\r\nversion = 2.3.0\r\n",
    ],
    ids=["interpolated", "interpolated from DEFAULT", "upper case, later", "CR", "CRLF"],
)
def test_the_version_is_read_as_setuptools_reads_it(tmp_path: Path, metadata: bytes) -> None:
    """``%(major)s.0`` builds 2.3.0 (it was read as written); of ``version`` and ``Version``,
    setuptools builds the later (it was two of one option, the version unchecked, exit 0 for
    any wheel); setuptools opens the file in text mode, ``\r`` ending a line (review75c: a
    file of ``\r`` endings was one line, ``[metadata]``, no version: unchecked, exit 0)."""
    code, report = _version(tmp_path / "built", metadata, "2.3.0")
    assert (code, _errors(report)) == (0, [])

    code, report = _version(tmp_path / "other", metadata, "2.4.0")

    assert (code, _errors(report)) == (1, ["W413"])
    (finding,) = [f for f in report["findings"] if f["code"] == "W413"]
    assert finding["detail"].endswith("builds 2.3.0 (setup.cfg [metadata] version)")


@pytest.mark.parametrize(
    ("setup_cfg", "said"),
    [
        (
            b"[metadata]\nname = engine\n[metadata]\nversion = 2.3.0\n",
            "setup.cfg states [metadata] twice",
        ),
        (
            b"[metadata]\nname = engine\nversion = 2.3.0\nversion = 2.4.0\n",
            "setup.cfg states [metadata] version twice",
        ),
        (
            b"[metadata]\nname = engine\nversion = 2.3.0\ndescription = 100% static\n",
            "setup.cfg's [metadata] description cannot be interpolated as setuptools does",
        ),
        (
            b"\xef\xbb\xbf[metadata]\nname = engine\nversion = 2.3.0\n",
            "setup.cfg starts with a byte-order mark (EF BB BF)",
        ),
        (
            b"[metadata]\nname = engine\nversion = 2.3.0\nauthor = Jos\xe9\n",
            "setup.cfg is not UTF-8",
        ),
    ],
    ids=["duplicate section", "duplicate option", "lone %", "byte-order mark", "not UTF-8"],
)
def test_a_setup_cfg_setuptools_fails_on_is_said_not_read(
    tmp_path: Path, setup_cfg: bytes, said: str
) -> None:
    """setuptools' build fails on each (a lone ``%`` was read as text, the version checked);
    the version is said unchecked, with the reason."""
    code, report = _version(tmp_path, setup_cfg, "2.3.0")

    assert (code, _errors(report)) == (0, [])
    (note,) = [n for n in report["provenance"]["notes"] if "METADATA Version" in n["message"]]
    assert "is not checked against the version commit" in note["message"]
    assert said in note["message"]


def test_versioneer_settings_are_interpolated() -> None:
    """versioneer's ``[versioneer]`` (its names in lower case, as its own reader has them)."""
    config = read_setup_cfg(
        b"[versioneer]\nVCS = git\npkg = engine\nversionfile_build = %(pkg)s/_version.py\n",
        "setup.cfg",
    )

    assert not isinstance(config, str)
    assert config.sections["versioneer"]["versionfile_build"] == "engine/_version.py"


@pytest.mark.parametrize("fan_out", [2_000, 1])
def test_interpolation_that_expands_past_the_cap_is_not_read(fan_out: int) -> None:
    """Ten levels of ``%(l0)s`` × 2,000 (121 KB) expand to 2,000¹⁰ KB: bounded before any
    value is got, at once; so is a loop (configparser fails on it)."""
    lines = ["[x]", "l0 = " + "y" * 1000]
    lines += [f"l{i} = " + f"%(l{i - 1})s" * fan_out for i in range(1, 11)]
    if fan_out == 1:
        lines[1] = "l0 = %(l10)s"
    started = time.monotonic()

    said = read_setup_cfg("\n".join(lines).encode(), "setup.cfg")

    assert said == "setup.cfg's %(name)s interpolation expands past 1024 KiB (or loops), not read"
    assert time.monotonic() - started < 2


def test_many_sections_of_many_defaults_are_not_read() -> None:
    """Each section holds each ``[DEFAULT]`` option: 2,000 of each (25 KB) are 4 × 10⁶ values,
    each got and interpolated (review75c: 128 KiB of each ran past two minutes); not read, at
    once."""
    defaults = "".join(f"d{i} =\n" for i in range(2_000))
    sections = "".join(f"[s{i}]\n" for i in range(2_000))
    started = time.monotonic()

    said = read_setup_cfg(f"[DEFAULT]\n{defaults}{sections}".encode(), "setup.cfg")

    assert said == (
        "setup.cfg has 2,000 sections each holding its 2,000 [DEFAULT] options, over 20,000 "
        "values, not read"
    )
    assert time.monotonic() - started < 2
