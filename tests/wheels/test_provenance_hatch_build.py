"""`wheels --source`: what hatchling ships beyond its file selection (review71d).

* a ``force-include`` entry ships its file (or each file of its directory) at its wheel path,
  over the selected one there: compared with its own place, not with the package's;
* a build hook (custom ``hatch_build.py``, a plugin) runs code that may force-include files,
  add artifacts or rewrite them: the settings are not read, and detection decides;
* ``hatch.toml`` beside ``pyproject.toml`` replaces ``[tool.hatch]``'s tables with its own.

Each wrong reading compared a wheel reverting ``pkg/sub/auth.py`` to an old copy with that old
copy, while hatchling built the fixed one, and the wheel passed, exit 0.
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
HATCH = b'[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
FORCING_HOOK = b"""\
from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        build_data["force_include"]["src/pkg/sub/auth.py"] = "pkg/sub/auth.py"
"""


def _placed(files: dict[str, bytes], directory: str) -> dict[str, bytes | None]:
    return {directory + path.removeprefix("pkg/"): data for path, data in files.items()}


def _wheels(
    tmp_path: Path, patch_files: dict[str, bytes], base_files: dict[str, bytes] = FILES
) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", base_files)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", patch_files)
    return base, patch


HOOKS = {
    "custom hook": (b"[tool.hatch.build.hooks.custom]\n", "hatch_build.py"),
    "wheel target's custom hook at a path": (
        b'[tool.hatch.build.targets.wheel.hooks.custom]\npath = "tools/hooks.py"\n',
        "tools/hooks.py",
    ),
    "hook enabled by the build's environment": (
        b"[tool.hatch.build.hooks.custom]\nenable-by-default = false\n",
        "hatch_build.py",
    ),
    "plugin hook": (
        b'[tool.hatch.build.hooks.jupyter-builder]\nbuild-function = "hatch_jupyter_builder.npm_builder"\n',
        "hatch_build.py",
    ),
}


@pytest.mark.parametrize("case", sorted(HOOKS))
def test_a_build_hook_forcing_the_fixed_file_over_a_legacy_copy_does_not_pass_it(
    tmp_path: Path, case: str
) -> None:
    """`packages` names the legacy copy; the hook forces the fixed `src/pkg/sub/auth.py` over
    its `auth.py`, so hatchling ships the fix: the layout read without the hook compared the
    legacy copy, and a wheel reverting to it matched (exit 0)."""
    table, hook_path = HOOKS[case]
    pyproject = HATCH + b'[tool.hatch.build.targets.wheel]\npackages = ["legacy/pkg"]\n\n' + table
    tree = {**_placed(FILES, "src/pkg/"), **_placed(REVERTED, "legacy/pkg/")}
    tree |= {"pyproject.toml": pyproject, hook_path: FORCING_HOOK}
    make_repo(tmp_path / "repo", [tree])
    base, patch = _wheels(tmp_path, REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout  # detection: legacy/ and src/ differ at auth.py
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "--source-prefix" in result.stderr


@pytest.mark.parametrize("case", sorted(HOOKS))
def test_a_build_hook_is_said_to_leave_the_settings_unread(tmp_path: Path, case: str) -> None:
    table, hook_path = HOOKS[case]
    pyproject = HATCH + b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n\n' + table
    tree = {**_placed(FILES, "src/pkg/"), "pyproject.toml": pyproject, hook_path: FORCING_HOOK}
    make_repo(tmp_path / "repo", [tree])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD"
    )

    assert code == 1
    unread = report["provenance"]["package_dir_unread"]
    assert "configures a build hook" in unread
    assert table.decode().splitlines()[0].strip("[]") in unread
    sources = {e["path"]: e["source"]["status"] for e in report["entries"] if "source" in e}
    assert sources == {"pkg/util.py": "mismatch"}


def test_hatch_vcs_version_file_hook_keeps_the_layout(tmp_path: Path) -> None:
    """hatch-vcs' hook writes its version file only, which is read as a module the build
    writes: the renamed package stays mapped."""
    pyproject = HATCH.replace(b'"hatchling"', b'"hatchling", "hatch-vcs"') + (
        b'[tool.hatch.build.targets.wheel]\nsources = {"src/realname" = "pkg"}\n'
        b'packages = ["src/realname"]\n\n'
        b'[tool.hatch.build.hooks.vcs]\nversion-file = "src/realname/_version.py"\n'
    )
    tree = {**_placed(FILES, "src/realname/"), **_placed(REVERTED, "legacy/pkg/")}
    make_repo(tmp_path / "repo", [{**tree, "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD"
    )

    assert code == 1
    assert report["provenance"].get("package_dir_unread") is None
    assert report["provenance"]["package_dir"] == {"pkg/": "src/realname/"}
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["status"] == "mismatch"


FORCED = {
    "file": (b'"fixes/auth.py" = "pkg/sub/auth.py"', "fixes/auth.py"),
    "directory": (b'"fixes/sub" = "pkg/sub"', "fixes/sub/auth.py"),
}


@pytest.mark.parametrize("case", sorted(FORCED))
def test_a_forced_file_over_an_old_package_file_is_compared_with_the_forced_one(
    tmp_path: Path, case: str
) -> None:
    """`src/pkg/sub/auth.py` is the old one; force-include ships the fixed file in its place.
    The entry was not read and detection compared `src/pkg/sub/auth.py`: a wheel keeping the
    old file matched, exit 0."""
    entry, place = FORCED[case]
    pyproject = HATCH + (
        b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n\n'
        b"[tool.hatch.build.targets.wheel.force-include]\n" + entry + b"\n"
    )
    tree = {**_placed(REVERTED, "src/pkg/"), place: SAFE, "pyproject.toml": pyproject}
    make_repo(tmp_path / "repo", [tree])
    base, patch = _wheels(tmp_path, REVERTED, FILES)

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD"
    )

    assert code == 1
    assert report["provenance"]["package_dir"]["pkg/sub/auth.py"] == place
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["repo_path"] == place
    assert sources["pkg/sub/auth.py"]["status"] == "mismatch"


@pytest.mark.parametrize("case", sorted(FORCED))
def test_a_wheel_shipping_the_forced_file_matches(tmp_path: Path, case: str) -> None:
    entry, place = FORCED[case]
    pyproject = HATCH + (
        b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n'
        b"force-include = {" + entry + b"}\n"
    )
    tree = {**_placed(REVERTED, "src/pkg/"), place: SAFE, "pyproject.toml": pyproject}
    make_repo(tmp_path / "repo", [tree])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 1\n"})

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD", "--source-all"
    )

    assert code == 0, report["findings"]
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["status"] == "match"
    assert sources["pkg/sub/__init__.py"]["repo_path"] == "src/pkg/sub/__init__.py"


def test_hatch_toml_build_table_replaces_the_pyproject_one(tmp_path: Path) -> None:
    """hatchling reads `hatch.toml` over `[tool.hatch]`: its `[build]` builds `src/pkg`, not
    the legacy copy `pyproject.toml` names, which was compared (exit 0)."""
    pyproject = HATCH + b'[tool.hatch.build.targets.wheel]\npackages = ["legacy/pkg"]\n'
    hatch_toml = b'[build.targets.wheel]\npackages = ["src/pkg"]\n'
    tree = {**_placed(FILES, "src/pkg/"), **_placed(REVERTED, "legacy/pkg/")}
    tree |= {"pyproject.toml": pyproject, "hatch.toml": hatch_toml}
    make_repo(tmp_path / "repo", [tree])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD"
    )

    assert code == 1
    assert report["provenance"]["package_dir"] == {"pkg/": "src/pkg/"}
    assert "hatch.toml" in report["provenance"]["prefix_from"]
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["repo_path"] == "src/pkg/sub/auth.py"
    assert sources["pkg/sub/auth.py"]["status"] == "mismatch"


def test_hatch_toml_without_build_keeps_the_pyproject_layout(tmp_path: Path) -> None:
    pyproject = HATCH + b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n'
    hatch_toml = b'[envs.default]\ndependencies = ["pytest"]\n'
    tree = {**_placed(FILES, "src/pkg/"), "pyproject.toml": pyproject, "hatch.toml": hatch_toml}
    make_repo(tmp_path / "repo", [tree])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD"
    )

    assert code == 1
    assert report["provenance"]["package_dir"] == {"pkg/": "src/pkg/"}
    assert report["provenance"].get("package_dir_unread") is None


def test_a_build_hook_in_hatch_toml_leaves_the_settings_unread(tmp_path: Path) -> None:
    pyproject = HATCH + b'[tool.hatch.build.targets.wheel]\npackages = ["legacy/pkg"]\n'
    hatch_toml = b'[build.targets.wheel]\npackages = ["legacy/pkg"]\n\n[build.hooks.custom]\n'
    tree = {**_placed(FILES, "src/pkg/"), **_placed(REVERTED, "legacy/pkg/")}
    tree |= {"pyproject.toml": pyproject, "hatch.toml": hatch_toml, "hatch_build.py": FORCING_HOOK}
    make_repo(tmp_path / "repo", [tree])
    base, patch = _wheels(tmp_path, REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout
    assert "--source-prefix" in result.stderr


def test_a_forced_file_stands_over_detection_where_the_selection_is_not_read(
    tmp_path: Path,
) -> None:
    """hatchling selects `src/pkg/` by the project's name (not read: detection finds `src/`),
    and force-include ships the fixed `fixes/auth.py` over its old `auth.py`: the entry was
    not read with the rest, and a wheel keeping the old file matched, exit 0."""
    pyproject = HATCH + (
        b'[project]\nname = "pkg"\nversion = "1.0"\n\n'
        b'[tool.hatch.build.targets.wheel.force-include]\n"fixes/auth.py" = "pkg/sub/auth.py"\n'
    )
    tree = {**_placed(REVERTED, "src/pkg/"), "fixes/auth.py": SAFE, "pyproject.toml": pyproject}
    make_repo(tmp_path / "repo", [tree])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD", "--source-all"
    )

    assert code == 1
    assert "without packages or only-include" in report["provenance"]["package_dir_unread"]
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["repo_path"] == "fixes/auth.py"
    assert sources["pkg/sub/auth.py"]["status"] == "mismatch"
    assert sources["pkg/util.py"]["repo_path"] == "src/pkg/util.py"
