"""`wheels --source`: flit's, pdm-backend's, poetry-core's and scikit-build-core's places (prov71).

Each says where the package is built from (`[tool.flit.module] name` under the root or `src/`,
`[tool.pdm.build] package-dir`, `[tool.poetry] packages = [{include, from}]`, `[tool.scikit-build]
wheel.packages`), which detection by paths cannot see: with an old copy kept as `legacy/pkg/`,
detection took it, and a patch reverting a file to the legacy copy matched, exit 0 (as for
hatchling and setuptools, prov69/newuser69). They are now read, statically, where their backend
builds, and the place they name must hold the wheel's files or the run stops.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

SAFE = b"import hmac\n\ndef check(token, secret):\n    return hmac.compare_digest(token, secret)\n"
OLD = b"def check(token, secret):\n    return True  # 0.9, before the fix\n"
FILES = {"pkg/__init__.py": b"", "pkg/auth.py": SAFE, "pkg/util.py": b"X = 1\n"}
REVERTED = {**FILES, "pkg/auth.py": OLD}


def _system(requires: str, backend: str) -> bytes:
    return f'[build-system]\nrequires = ["{requires}"]\nbuild-backend = "{backend}"\n\n'.encode()


FLIT = _system("flit_core>=3.4", "flit_core.buildapi") + b'[project]\nname = "engine"\n\n'
PDM = _system("pdm-backend", "pdm.backend")
POETRY = _system("poetry-core>=2", "poetry.core.masonry.api")
SKBUILD = _system("scikit-build-core", "scikit_build_core.build")

CONFIGURED = {
    "flit module under src": (
        FLIT + b'[tool.flit.module]\nname = "pkg"\n',
        "src/pkg/",
        "pyproject.toml [tool.flit.module] name",
        {"pkg/": "src/pkg/"},
    ),
    "pdm package-dir": (
        PDM + b'[tool.pdm.build]\npackage-dir = "lib"\n',
        "lib/pkg/",
        "pyproject.toml [tool.pdm.build] package-dir",
        {"": "lib/"},
    ),
    "pdm includes under src": (
        PDM + b'[tool.pdm.build]\nincludes = ["src/pkg"]\n',
        "src/pkg/",
        "pyproject.toml [tool.pdm.build] includes",
        {"pkg/": "src/pkg/"},
    ),
    "poetry include from": (
        POETRY + b'[[tool.poetry.packages]]\ninclude = "realname"\nfrom = "src"\nto = ""\n\n'
        b'[[tool.poetry.packages]]\ninclude = "pkg"\nfrom = "src/v2"\nformat = ["wheel"]\n\n'
        b'[[tool.poetry.packages]]\ninclude = "pkg"\nformat = "sdist"\n',
        "src/v2/pkg/",
        "pyproject.toml [tool.poetry] packages",
        {"pkg/": "src/v2/pkg/", "realname/": "src/realname/"},
    ),
    "scikit-build-core wheel.packages": (
        SKBUILD
        + b'[tool.scikit-build]\nwheel.packages = ["python/pkg"]\nwheel.install-dir = "x"\n',
        "python/pkg/",
        "pyproject.toml [tool.scikit-build] wheel.packages",
        {"pkg/": "python/pkg/"},
    ),
    "scikit-build-core wheel.packages table": (
        SKBUILD + b'[tool.scikit-build.wheel.packages]\npkg = "python/realname"\n',
        "python/realname/",
        "pyproject.toml [tool.scikit-build] wheel.packages",
        {"pkg/": "python/realname/"},
    ),
}


def _placed(files: dict[str, bytes], directory: str) -> dict[str, bytes | None]:
    return {directory + path.removeprefix("pkg/"): data for path, data in files.items()}


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


def _tree(case: str) -> dict[str, bytes | None]:
    pyproject, where, _, _ = CONFIGURED[case]
    tree = {**_placed(FILES, where), **_placed(REVERTED, "legacy/pkg/")}
    if case.startswith("poetry"):
        tree["src/realname/__init__.py"] = b""
    return {**tree, "pyproject.toml": pyproject}


@pytest.mark.parametrize("case", sorted(CONFIGURED))
def test_a_patch_reverting_to_a_legacy_copy_is_held_to_the_configured_package(
    tmp_path: Path, case: str
) -> None:
    _, where, origin, package_dir = CONFIGURED[case]
    repo = tmp_path / "repo"
    make_repo(repo, [_tree(case)])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/auth.py": ("mismatch", where + "auth.py")}
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["W401"]
    assert report["provenance"]["prefix_from"] == origin
    provenance = report["provenance"]
    assert {**provenance["package_dir"], "": provenance["prefix"]} == {"": "", **package_dir}


@pytest.mark.parametrize("case", sorted(CONFIGURED))
def test_the_configured_package_matches(tmp_path: Path, case: str) -> None:
    _, _where, origin, _ = CONFIGURED[case]
    repo = tmp_path / "repo"
    make_repo(repo, [_tree(case)])
    base, patch = _wheels(tmp_path, FILES)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 0, result.stdout
    assert f"(from {origin})" in result.stdout


@pytest.mark.parametrize("case", sorted(CONFIGURED))
def test_a_configuration_that_does_not_hold_the_package_stops_the_run(
    tmp_path: Path, case: str
) -> None:
    """The configured place lacks the wheel's files: detection's legacy copy is not taken."""
    pyproject, _, origin, _ = CONFIGURED[case]
    repo = tmp_path / "repo"
    tree = {**_placed(REVERTED, "legacy/pkg/"), "pyproject.toml": pyproject}
    if case.startswith("flit"):
        tree["src/pkg.py"] = b""  # flit's one place, not the package
    make_repo(repo, [tree])
    base, patch = _wheels(tmp_path, REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert origin in result.stderr


UNREAD = {
    "flit module in two places": (
        FLIT + b'[tool.flit.module]\nname = "pkg"\n',
        {"pkg/__init__.py": b""},
        "pyproject.toml [tool.flit.module] name: the commit holds 2 of pkg/, pkg.py, src/pkg/ "
        "or src/pkg.py (flit needs one), not read",
    ),
    "flit name not a module": (
        FLIT + b'[tool.flit.module]\nname = "../pkg"\n',
        {},
        "pyproject.toml [tool.flit.module] name is not a module name, not read",
    ),
    "pdm include outside package-dir": (
        PDM + b'[tool.pdm.build]\npackage-dir = "src"\nincludes = ["src/pkg", "tools"]\n',
        {},
        "pyproject.toml [tool.pdm.build] package-dir and includes: includes 'tools' outside "
        "package-dir 'src/', which ships at its own path: not read",
    ),
    "poetry pattern": (
        POETRY + b'[tool.poetry]\npackages = [{include = "pkg*", from = "src"}]\n',
        {},
        "pyproject.toml [tool.poetry] packages: include 'pkg*' is a pattern, not read",
    ),
    "scikit-build-core module file": (
        SKBUILD + b'[tool.scikit-build]\nwheel.packages = ["src/hello.py"]\n',
        {"src/hello.py": b""},
        "pyproject.toml [tool.scikit-build] wheel.packages selects the file src/hello.py, not read",
    ),
    "poetry under another backend": (
        FLIT + b'[tool.poetry]\npackages = [{include = "pkg", from = "legacy"}]\n',
        {},
        "pyproject.toml [tool.poetry] packages is poetry-core's, but pyproject.toml builds with "
        "'flit_core.buildapi': not read",
    ),
}


@pytest.mark.parametrize("case", sorted(UNREAD))
def test_a_setting_k3diff_cannot_place_is_said_and_detection_decides(
    tmp_path: Path, case: str
) -> None:
    pyproject, extra, said = UNREAD[case]
    repo = tmp_path / "repo"
    make_repo(repo, [{**_placed(FILES, "src/pkg/"), **extra, "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report)["pkg/util.py"] == ("mismatch", "src/pkg/util.py")
    assert report["provenance"]["package_dir_unread"] == said
