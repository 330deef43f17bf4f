"""`wheels --source`: pdm-backend's, poetry-core's and scikit-build-core's places where their
settings say less than they seem to (review71a).

Each case keeps a complete old copy of the package where the setting, read as prov71 read it,
placed it, while the backend builds from `src/pkg/`: a patch reverting `pkg/auth.py` to the old
copy matched, exit 0.

* pdm-backend: ``includes = []`` is no ``includes`` (``if not build_config.includes``): the
  packages are found under ``src/`` where the project has it, not at the root;
* scikit-build-core: an ``[[tool.scikit-build.overrides]]`` entry setting ``wheel.packages``
  replaces the table's where its ``if`` holds (a platform, a Python version, an environment
  variable), which a static reading cannot tell;
* poetry-core and scikit-build-core: an entry shipping a directory inside another entry's
  (``pkg/sub`` from ``legacy/sub`` beside ``pkg`` from ``src/pkg``) ships both directories'
  files there, the one copied last winning (scikit-build-core: the table's order; poetry-core:
  source path order), not the deeper entry's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

SAFE = b"import hmac\n\ndef check(token, secret):\n    return hmac.compare_digest(token, secret)\n"
OLD = b"def check(token, secret):\n    return True  # 0.9, before the fix\n"
FILES = {
    "pkg/__init__.py": b"",
    "pkg/util.py": b"X = 1\n",
    "pkg/sub/__init__.py": b"",
    "pkg/sub/auth.py": SAFE,
}
REVERTED = {**FILES, "pkg/sub/auth.py": OLD}


def _system(requires: str, backend: str) -> bytes:
    return f'[build-system]\nrequires = ["{requires}"]\nbuild-backend = "{backend}"\n\n'.encode()


PDM = _system("pdm-backend", "pdm.backend")
POETRY = _system("poetry-core>=2", "poetry.core.masonry.api")
SKBUILD = _system("scikit-build-core", "scikit_build_core.build")
HATCH = _system("hatchling", "hatchling.build")


def _placed(files: dict[str, bytes], directory: str) -> dict[str, bytes | None]:
    return {directory + path.removeprefix("pkg/"): data for path, data in files.items()}


def _sub(files: dict[str, bytes], directory: str) -> dict[str, bytes | None]:
    return {
        directory + path.removeprefix("pkg/sub/"): data
        for path, data in files.items()
        if path.startswith("pkg/sub/")
    }


OLD_COPY = {
    "pdm includes = []": (PDM + b"[tool.pdm.build]\nincludes = []\n", _placed(REVERTED, "pkg/")),
    "scikit-build-core override": (
        SKBUILD + b'[tool.scikit-build]\nwheel.packages = ["legacy/pkg"]\n\n'
        b'[[tool.scikit-build.overrides]]\nif.platform-system = "linux"\n'
        b'wheel.packages = ["src/pkg"]\n',
        _placed(REVERTED, "legacy/pkg/"),
    ),
    "scikit-build-core nested entry": (
        SKBUILD + b'[tool.scikit-build.wheel.packages]\n"pkg/sub" = "legacy/sub"\n'
        b'pkg = "src/pkg"\n',
        _sub(REVERTED, "legacy/sub/"),
    ),
    "scikit-build-core force-include": (
        SKBUILD + b'[tool.scikit-build.wheel]\npackages = ["legacy/pkg"]\n'
        b'force-include = {"src/pkg/sub/auth.py" = "pkg/sub/auth.py"}\n',
        _placed(REVERTED, "legacy/pkg/"),
    ),
    "poetry nested entry": (
        POETRY + b'[tool.poetry]\npackages = [{include = "pkg", from = "src"}, '
        b'{include = "pkg/sub", from = "legacy"}]\n',
        _sub(REVERTED, "legacy/pkg/sub/"),
    ),
    "hatchling force-include file": (
        HATCH + b'[tool.hatch.build.targets.wheel]\npackages = ["legacy/pkg"]\n\n'
        b'[tool.hatch.build.targets.wheel.force-include]\n"src/pkg/sub/auth.py" = "pkg/sub/auth.py"\n',
        _placed(REVERTED, "legacy/pkg/"),
    ),
    "hatchling build force-include directory": (
        HATCH + b'[tool.hatch.build]\nsources = {"legacy/pkg" = "pkg"}\npackages = ["legacy/pkg"]\n'
        b'force-include = {"src/pkg/sub" = "pkg/sub"}\n',
        _placed(REVERTED, "legacy/pkg/"),
    ),
}


def _wheels(
    tmp_path: Path, patch_files: dict[str, bytes], base_files: dict[str, bytes] = FILES
) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", base_files)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", patch_files)
    return base, patch


@pytest.mark.parametrize("case", sorted(OLD_COPY))
def test_a_patch_reverting_to_an_old_copy_the_setting_seems_to_name_does_not_pass(
    tmp_path: Path, case: str
) -> None:
    pyproject, old_copy = OLD_COPY[case]
    repo = tmp_path / "repo"
    make_repo(repo, [{**_placed(FILES, "src/pkg/"), **old_copy, "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code != 0, result.stdout
    if result.exit_code == 2:  # detection: the old copy and src/pkg/ hold the same paths
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1
        assert "--source-prefix" in result.stderr
    else:
        assert result.exit_code == 1
        assert "W401" in result.stdout
        assert "src/pkg/sub/auth.py" in result.stdout


UNREAD = {
    "scikit-build-core override": (
        SKBUILD + b'[tool.scikit-build]\nwheel.packages = ["src/pkg"]\n\n'
        b'[[tool.scikit-build.overrides]]\nif.env.LEGACY = true\nwheel.packages = ["legacy/pkg"]\n',
        "pyproject.toml [tool.scikit-build] wheel.packages: [[tool.scikit-build.overrides]] "
        "sets it where its if holds, not read",
    ),
    "scikit-build-core nested entry": (
        SKBUILD + b'[tool.scikit-build.wheel.packages]\npkg = "src/pkg"\n'
        b'"pkg/sub" = "legacy/sub"\n',
        "pyproject.toml [tool.scikit-build] wheel.packages ships both src/pkg/sub/ and "
        "legacy/sub/ as pkg/sub/, not read",
    ),
    "scikit-build-core force-include": (
        SKBUILD + b'[tool.scikit-build.wheel]\npackages = ["src/pkg"]\n'
        b'force-include = {"gen/info.py" = "${SKBUILD_PLATLIB_DIR}/pkg/info.py", '
        b'"LICENSE" = "${SKBUILD_DATA_DIR}/share/LICENSE"}\n',
        "pyproject.toml [tool.scikit-build] wheel.packages: wheel.force-include copies "
        "'gen/info.py' to '${SKBUILD_PLATLIB_DIR}/pkg/info.py', whose source the commit holds "
        "no file at: not read",
    ),
    "poetry nested entry": (
        POETRY + b'[tool.poetry]\npackages = [{include = "pkg", from = "src"}, '
        b'{include = "pkg/sub", from = "legacy"}]\n',
        "pyproject.toml [tool.poetry] packages ships both src/pkg/sub/ and legacy/pkg/sub/ as "
        "pkg/sub/, not read",
    ),
    "hatchling force-include": (
        HATCH + b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n'
        b'force-include = {"src/pkg/util.py" = "pkg/util.py", "gen/info.py" = "/src/pkg/info.py"}\n',
        "pyproject.toml [tool.hatch.build.targets.wheel] packages and force-include: "
        "force-include copies 'gen/info.py' to '/src/pkg/info.py', whose source the commit "
        "holds no file at: not read",
    ),
}


@pytest.mark.parametrize("case", sorted(UNREAD))
def test_a_setting_that_does_not_say_where_is_said_not_read(tmp_path: Path, case: str) -> None:
    pyproject, said = UNREAD[case]
    repo = tmp_path / "repo"
    tree = {**_placed(FILES, "src/pkg/"), "pyproject.toml": pyproject}
    make_repo(repo, [tree])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert report["provenance"]["package_dir_unread"] == said
    sources = {e["path"]: e["source"]["status"] for e in report["entries"] if "source" in e}
    assert sources == {"pkg/util.py": "mismatch"}


NESTED_APART = {
    "scikit-build-core": SKBUILD + b'[tool.scikit-build.wheel.packages]\npkg = "src/pkg"\n'
    b'"pkg/ext" = "third_party/ext"\n',
    "poetry": POETRY + b'[tool.poetry]\npackages = [{include = "pkg", from = "src"}, '
    b'{include = "pkg/ext", from = "third_party"}]\n',
}


@pytest.mark.parametrize("case", sorted(NESTED_APART))
def test_an_entry_inside_another_whose_directory_that_one_lacks_is_read(
    tmp_path: Path, case: str
) -> None:
    """`src/pkg/` holds no `ext/`: only the nested entry ships `pkg/ext/`, from its place."""
    repo = tmp_path / "repo"
    ext = "third_party/ext/" if case.startswith("scikit") else "third_party/pkg/ext/"
    tree = {**_placed(FILES, "src/pkg/"), ext + "mod.py": b"Y = 1\n"}
    make_repo(repo, [{**tree, "pyproject.toml": NESTED_APART[case]}])
    files = {**FILES, "pkg/ext/mod.py": b"Y = 1\n"}
    base, patch = _wheels(tmp_path, {**files, "pkg/ext/mod.py": b"Y = 0\n"}, files)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert report["provenance"].get("package_dir_unread") is None
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/ext/mod.py"]["repo_path"] == ext + "mod.py"


FLIT_ROOT = _system("flit_core>=3.4", "flit_core.buildapi") + (
    b'[project]\nname = "tool"\n\n[tool.flit.module]\nname = "mod"\n'
)
SUBPROJECT = _system("setuptools>=61", "setuptools.build_meta")


ROOTS = {
    "flit module file": (FLIT_ROOT, {"src/mod.py": b""}),
    "pdm includes": (
        PDM + b'[tool.pdm.build]\nincludes = ["src/tool", "src/cli.py"]\n',
        {"src/tool/__init__.py": b"", "src/cli.py": b""},
    ),
}


@pytest.mark.parametrize("legacy", [True, False], ids=["legacy copy", "none"])
@pytest.mark.parametrize("root", sorted(ROOTS))
def test_a_root_project_does_not_claim_a_subprojects_package(
    tmp_path: Path, root: str, legacy: bool
) -> None:
    """flit ships `src/mod.py` alone, pdm-backend its `includes`: neither places `pkg/`, which
    `python/` builds (prov71 mapped every wheel path under `src/`, so an old `src/pkg/` there
    was the package, exit 0; without it the root's mapping not holding the package stopped
    the run, exit 2)."""
    repo = tmp_path / "repo"
    pyproject, own = ROOTS[root]
    tree: dict[str, bytes | None] = {"pyproject.toml": pyproject, **own}
    tree["python/pyproject.toml"] = SUBPROJECT
    tree |= _placed(FILES, "python/pkg/")
    if legacy:
        tree |= _placed(REVERTED, "src/pkg/")
    make_repo(repo, [tree])
    base, patch = _wheels(tmp_path, REVERTED if legacy else {**FILES, "pkg/util.py": b"X = 2\n"})

    if legacy:  # src/pkg/ and python/pkg/ hold the same paths: the user names the place
        result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")
        assert (result.exit_code, result.stdout) == (2, ""), result.stdout
        assert "--source-prefix" in result.stderr
        return
    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources == {"pkg/util.py": sources["pkg/util.py"]}
    assert sources["pkg/util.py"]["status"] == "mismatch"
    assert sources["pkg/util.py"]["repo_path"] == "python/pkg/util.py"


@pytest.mark.parametrize("place", ["", "src/"])
def test_a_flit_module_file_is_found_where_flit_takes_it(tmp_path: Path, place: str) -> None:
    repo = tmp_path / "repo"
    module = b"def f():\n    return 1\n"
    tree = {"pyproject.toml": FLIT_ROOT, place + "mod.py": module, "legacy/mod.py": b"OLD = 1\n"}
    make_repo(repo, [tree])
    base = wheelkit.make_wheel(tmp_path / "b", "tool", "1.0", {"mod.py": module})
    patch = wheelkit.make_wheel(tmp_path / "p", "tool", "1.0", {"mod.py": b"OLD = 1\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["mod.py"]["status"] == "mismatch"
    assert sources["mod.py"]["repo_path"] == place + "mod.py"
    assert report["provenance"]["package_dir"] == {"mod.py": place + "mod.py"}


FORCED_TOOL = {
    "hatchling": HATCH + b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n'
    b'force-include = {"scripts/tool.py" = "tool.py"}\n',
    "scikit-build-core": SKBUILD + b'[tool.scikit-build.wheel]\npackages = ["src/pkg"]\n'
    b'force-include = {"scripts/tool.py" = "${SKBUILD_PLATLIB_DIR}/tool.py"}\n',
}


@pytest.mark.parametrize("backend", sorted(FORCED_TOOL))
def test_a_module_forced_in_from_elsewhere_is_not_compared_with_a_stale_one_at_the_root(
    tmp_path: Path, backend: str
) -> None:
    """The build ships `scripts/tool.py` as `tool.py`; the project's root keeps an old
    `tool.py` no build ships, which a path no package covers was compared with (exit 0).
    The entry is mapped from its place (review71d)."""
    repo = tmp_path / "repo"
    fixed, stale = b"def run():\n    return check()\n", b"def run():\n    return True\n"
    tree = {**_placed(FILES, "src/pkg/"), "scripts/tool.py": fixed, "tool.py": stale}
    make_repo(repo, [{**tree, "pyproject.toml": FORCED_TOOL[backend]}])
    base, patch = _wheels(tmp_path, {**FILES, "tool.py": stale}, {**FILES, "tool.py": fixed})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert report["provenance"]["package_dir"]["tool.py"] == "scripts/tool.py"
    assert sources["tool.py"]["status"] == "mismatch"


def test_a_hatchling_force_include_of_the_file_compared_there_keeps_the_layout(
    tmp_path: Path,
) -> None:
    """Forcing `src/pkg/sub/auth.py` in as `pkg/sub/auth.py` ships the file compared there."""
    repo = tmp_path / "repo"
    pyproject = HATCH + (
        b'[tool.hatch.build.targets.wheel]\nsources = {"src/realname" = "pkg"}\n'
        b'packages = ["src/realname"]\n'
        b'force-include = {"src/realname/sub/auth.py" = "src/realname/sub/auth.py"}\n'
    )
    make_repo(repo, [{**_placed(FILES, "src/realname/"), "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert report["provenance"].get("package_dir_unread") is None
    assert report["provenance"]["package_dir"] == {"pkg/": "src/realname/"}
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["repo_path"] == "src/realname/sub/auth.py"
    assert sources["pkg/sub/auth.py"]["status"] == "mismatch"


@pytest.mark.parametrize("package_dir", ["src/", "./src"])
def test_a_pdm_package_dir_not_written_normalised_strips_nothing(
    tmp_path: Path, package_dir: str
) -> None:
    """pdm-backend strips `package-dir` as written, and '/', from each file's normalised path:
    `"src/"` or `"./src"` strips nothing, and the wheel ships `src/pkg/` (prov71 looked every
    wheel path up under `src/`: `src/src/pkg/util.py`, absent, failed a wheel of the commit)."""
    repo = tmp_path / "repo"
    pyproject = PDM + f'[tool.pdm.build]\npackage-dir = "{package_dir}"\n'.encode()
    make_repo(repo, [{**_placed(FILES, "src/pkg/"), "pyproject.toml": pyproject}])
    shipped = {"src/" + path: data for path, data in FILES.items()}
    base, patch = _wheels(tmp_path, shipped, {**shipped, "src/pkg/util.py": b"X = 0\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 0, report["findings"]
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["src/pkg/util.py"]["repo_path"] == "src/pkg/util.py"
    assert sources["src/pkg/util.py"]["status"] == "match"


def test_a_scikit_build_force_include_over_an_old_package_file_does_not_pass_it(
    tmp_path: Path,
) -> None:
    """`src/pkg/sub/auth.py` is the old one; `wheel.force-include` copies the fixed
    `fixes/auth.py` over it. The entry was not read and detection compared the old file: a
    wheel keeping it matched, exit 0 (review71d)."""
    repo = tmp_path / "repo"
    pyproject = SKBUILD + (
        b'[tool.scikit-build.wheel]\npackages = ["src/pkg"]\n'
        b'force-include = {"fixes/auth.py" = "${SKBUILD_PLATLIB_DIR}/pkg/sub/auth.py"}\n'
    )
    tree = {**_placed(REVERTED, "src/pkg/"), "fixes/auth.py": SAFE, "pyproject.toml": pyproject}
    make_repo(repo, [tree])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["repo_path"] == "fixes/auth.py"
    assert sources["pkg/sub/auth.py"]["status"] == "mismatch"
