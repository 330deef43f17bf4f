"""`wheels --source`: hatchling's and maturin's settings, and a project in a subdirectory.

hatchling's `sources` renames a directory (`"src/realname" = "pkg"` ships `src/realname/auth.py`
as `pkg/auth.py`): detection by paths found the package nowhere, every file was `absent` (W402),
and `--source-prefix` could not say it (newuser69); with an old copy kept as `legacy/pkg/`,
detection took that copy and a patch reverting a file to it matched, exit 0. maturin's
`python-source` and hatchling's `packages` were not read either, and neither was a configuration
in a subdirectory (SGLang's `python/pyproject.toml`). They are now read, statically, where
their backend builds, and the place they name must hold the wheel's files or the run stops.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import commit, make_repo

SAFE = b"import hmac\n\ndef check(token, secret):\n    return hmac.compare_digest(token, secret)\n"
OLD = b"def check(token, secret):\n    return True  # 0.9, before the fix\n"
FILES = {"pkg/__init__.py": b"", "pkg/auth.py": SAFE, "pkg/util.py": b"X = 1\n"}
REVERTED = {**FILES, "pkg/auth.py": OLD}

HATCHLING = b'[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
MATURIN = b'[build-system]\nrequires = ["maturin"]\nbuild-backend = "maturin"\n'
TARGET = "[tool.hatch.build.targets.wheel]"

CONFIGURED = {
    "hatchling packages and a renaming source": (
        HATCHLING
        + f'{TARGET}\npackages = ["src/realname"]\n\n{TARGET[:-1]}.sources]\n'.encode()
        + b'"src/realname" = "pkg"\n',
        "src/realname/",
        f"pyproject.toml {TARGET} packages and sources",
    ),
    "hatchling only-include and the build's renaming source": (
        HATCHLING
        + b'[tool.hatch.build.sources]\n"src/realname" = "pkg"\n\n'
        + f'{TARGET}\nonly-include = ["src/realname"]\n'.encode(),
        "src/realname/",
        f"pyproject.toml [tool.hatch.build] sources, {TARGET} only-include",
    ),
    "hatchling sources listed to strip": (
        HATCHLING + f'{TARGET}\nonly-include = ["lib/pkg"]\nsources = ["lib"]\n'.encode(),
        "lib/pkg/",
        f"pyproject.toml {TARGET} only-include and sources",
    ),
    "hatchling packages beside a dead setuptools setting": (
        HATCHLING
        + f'{TARGET}\npackages = ["src/pkg"]\n\n'.encode()
        + b'[tool.setuptools.package-dir]\npkg = "legacy/pkg"\n',
        "src/pkg/",
        f"pyproject.toml {TARGET} packages",
    ),
    "maturin python-source": (
        MATURIN + b'[tool.maturin]\npython-source = "python"\nmodule-name = "pkg._native"\n',
        "python/pkg/",
        "pyproject.toml [tool.maturin] python-source",
    ),
}


def _placed(files: dict[str, bytes], directory: str) -> dict[str, bytes | None]:
    return {directory + path.removeprefix("pkg/"): data for path, data in files.items()}


def _legacy(directory: str = "") -> dict[str, bytes | None]:
    return _placed(REVERTED, directory + "legacy/pkg/")


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


@pytest.mark.parametrize("case", sorted(CONFIGURED))
def test_a_patch_reverting_to_a_legacy_copy_is_held_to_the_configured_package(
    tmp_path: Path, case: str
) -> None:
    """The twin of setuptools' (prov69): the configured place holds the package, so it wins
    over a complete old copy that detection would take (or find as much as it, exit 2)."""
    pyproject, where, origin = CONFIGURED[case]
    repo = tmp_path / "repo"
    make_repo(repo, [{**_placed(FILES, where), **_legacy(), "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/auth.py": ("mismatch", where + "auth.py")}
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["W401"]
    assert report["provenance"]["prefix_from"] == origin


def test_a_renamed_package_matches_and_is_said(tmp_path: Path) -> None:
    """hatchling's `sources` renames `src/realname/` to `pkg/`: every file was `absent`."""
    pyproject, where, origin = CONFIGURED["hatchling packages and a renaming source"]
    repo = tmp_path / "repo"
    first = {**_placed(FILES, where), "pyproject.toml": pyproject}
    make_repo(repo, [first, _placed({"pkg/util.py": b"X = 2\n"}, where)])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 0
    assert _sources(report) == {"pkg/util.py": ("match", "src/realname/util.py")}
    assert (report["provenance"]["prefix"], report["provenance"]["package_dir"]) == (
        "",
        {"pkg/": "src/realname/"},
    )
    text = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")
    assert f"Prefix: src/realname/ for pkg/ (from {origin})" in text.stdout


def test_a_hatchling_configuration_that_does_not_hold_the_package_stops_the_run(
    tmp_path: Path,
) -> None:
    """The configuration names a place without the wheel's files: detection's legacy copy is
    not taken instead (it was, and the reverted file matched, exit 0)."""
    pyproject, _, origin = CONFIGURED["hatchling packages and a renaming source"]
    repo = tmp_path / "repo"
    make_repo(repo, [{**_legacy(), "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert f"{origin} places the package at src/realname/ for pkg/" in result.stderr
    assert "detection by paths finds them under 'legacy/'" in result.stderr


SUBPROJECTS = {
    "hatchling": (
        "python/pyproject.toml",
        HATCHLING
        + f'{TARGET}\nonly-include = ["srt"]\n\n{TARGET[:-1]}.sources]\n"srt" = "pkg"\n'.encode(),
        "python/srt/",
        f"python/pyproject.toml {TARGET} only-include and sources",
    ),
    "setuptools": (
        "python/setup.py",
        b'from setuptools import setup\nsetup(packages=["pkg"], package_dir={"pkg": "srt"})\n',
        "python/srt/",
        "python/setup.py setup(package_dir=…)",
    ),
}


@pytest.mark.parametrize("backend", sorted(SUBPROJECTS))
def test_a_configuration_in_a_subdirectory_is_read(tmp_path: Path, backend: str) -> None:
    """SGLang keeps its build configuration in `python/`: detection places the package there
    (here under the legacy copy `python/legacy/pkg/`, the only one by its wheel paths), and the
    configuration of the directory above it says where the package is really built from."""
    name, config, where, origin = SUBPROJECTS[backend]
    repo = tmp_path / "repo"
    tree = {**_placed(FILES, where), **_legacy("python/"), name: config, "README.md": b"x\n"}
    make_repo(repo, [tree])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/auth.py": ("mismatch", where + "auth.py")}
    assert report["provenance"]["package_dir"] == {"pkg/": where}
    assert report["provenance"]["prefix"] == "python/"  # what no entry maps is the project's
    text = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")
    assert f"Prefix: {where} for pkg/, python/ otherwise (from {origin})" in text.stdout


ROOT_PROJECTS = {
    "setuptools": b'[tool.setuptools.packages.find]\nwhere = ["src"]\n',
    "hatchling": HATCHLING + f'{TARGET}\npackages = ["src/devtools"]\n'.encode(),
}


@pytest.mark.parametrize("root", sorted(ROOT_PROJECTS))
def test_a_subproject_is_read_where_the_root_builds_another_package(
    tmp_path: Path, root: str
) -> None:
    """The root's configuration builds its own package (`src/devtools/`), which does not hold
    the wheel's files: the subproject detection places them in is read (it stopped the run,
    exit 2, for setuptools' root; hatchling's was not read)."""
    name, config, where, origin = SUBPROJECTS["hatchling"]
    repo = tmp_path / "repo"
    tree = {
        "pyproject.toml": ROOT_PROJECTS[root],
        "src/devtools/__init__.py": b"",
        **_placed(FILES, where),
        **_legacy("python/"),
        name: config,
    }
    make_repo(repo, [tree])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/auth.py": ("mismatch", where + "auth.py")}
    assert report["provenance"]["prefix_from"] == origin


def test_a_subproject_stating_no_mapping_beside_a_configured_root_is_detected(
    tmp_path: Path,
) -> None:
    """SGLang's shape under a root that is a hatchling project of its own: the package is
    where detection finds it, and the Prefix line says why the root's mapping was not used."""
    repo = tmp_path / "repo"
    tree = {
        "pyproject.toml": ROOT_PROJECTS["hatchling"],
        "src/devtools/__init__.py": b"",
        **_placed(FILES, "python/pkg/"),
        "python/pyproject.toml": b'[project]\nname = "pkg"\n',
    }
    make_repo(repo, [tree])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/util.py": ("mismatch", "python/pkg/util.py")}
    assert report["provenance"]["package_dir_unread"] == (
        f"pyproject.toml {TARGET} packages builds the root's project, and python/ is a project "
        "of its own"
    )


def test_a_subdirectory_configuration_that_is_a_link_stops_the_check(tmp_path: Path) -> None:
    """A link is not followed, so which backend builds ``python/`` is not known: detection
    decided and the check went on (exit 1 here, 0 for a wheel matching detection's place while
    the linked configuration named py-build-cmake running CMake over it); it stops now (cmake77)."""
    repo = tmp_path / "repo"
    _, config, _, _ = SUBPROJECTS["hatchling"]
    make_repo(repo, [{**_placed(FILES, "python/pkg/"), "build/pyproject.toml": config}])
    (repo / "python" / "pyproject.toml").symlink_to("../build/pyproject.toml")
    commit(repo, {}, "link")
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert (result.exit_code, result.stdout) == (2, "")
    assert ": python/pyproject.toml is a symbolic link, not read: how the project builds " in (
        result.stderr
    )


UNREAD = {
    "sources without a selection": (
        f'{TARGET}\nsources = ["src"]\n',
        f"pyproject.toml {TARGET} sources without packages or only-include: hatchling selects "
        "the files by the project's name, which is not read",
    ),
    "two directories shipped as one": (
        f'{TARGET}\npackages = ["src/pkg", "old/pkg"]\n',
        f"pyproject.toml {TARGET} packages ships both old/pkg/ and src/pkg/ as pkg/: not read",
    ),
    "a selected file": (
        f'{TARGET}\nonly-include = ["src/pkg/auth.py"]\n',
        f"pyproject.toml {TARGET} only-include selects the file src/pkg/auth.py, not a "
        "directory: not read",
    ),
    "a path leaving the project": (
        f'{TARGET}\npackages = ["../pkg"]\n',
        f"pyproject.toml {TARGET} packages: packages names '../pkg', not a directory in the "
        "project",
    ),
    "a path past the cap": (
        f'{TARGET}\npackages = ["src/{"p" * 5000}"]\n',
        f"pyproject.toml {TARGET} packages: packages names a path over 4,096 characters",
    ),
}


@pytest.mark.parametrize("case", sorted(UNREAD))
def test_hatchling_settings_that_cannot_be_read_are_said(tmp_path: Path, case: str) -> None:
    """Detection decides, and the Prefix line says what was not read."""
    settings, reason = UNREAD[case]
    repo = tmp_path / "repo"
    tree = {**_placed(FILES, "src/pkg/"), "pyproject.toml": HATCHLING + settings.encode()}
    make_repo(repo, [tree])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/util.py": ("mismatch", "src/pkg/util.py")}
    assert report["provenance"]["prefix_from"] is None
    assert report["provenance"]["package_dir_unread"] == reason


PDM = b'[build-system]\nrequires = ["pdm-backend"]\nbuild-backend = "pdm.backend"\n'
DEAD = {
    "hatchling's under pdm": (
        PDM + f'{TARGET}\npackages = ["legacy/pkg"]\n'.encode(),
        f"pyproject.toml {TARGET} packages is hatchling's, but pyproject.toml builds with "
        "'pdm.backend': not read",
    ),
    "maturin's under hatchling": (
        HATCHLING + b'[tool.maturin]\npython-source = "legacy"\n',
        "pyproject.toml [tool.maturin] python-source is maturin's, but pyproject.toml builds "
        "with 'hatchling.build': not read",
    ),
}


@pytest.mark.parametrize("case", sorted(DEAD))
def test_a_setting_of_a_backend_that_does_not_build_is_said_not_read(
    tmp_path: Path, case: str
) -> None:
    """As setuptools' settings under another backend are: they were passed over silently."""
    pyproject, unread = DEAD[case]
    repo = tmp_path / "repo"
    make_repo(repo, [{**FILES, "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/util.py": ("mismatch", "pkg/util.py")}
    assert report["provenance"]["prefix_from"] is None
    assert report["provenance"]["package_dir_unread"] == unread
    text = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")
    assert f"Prefix: (repository root) (detected; {unread})" in text.stdout
