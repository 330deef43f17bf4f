"""`wheels --source`: Python files of the commit that its build leaves out of the wheel (src72).

A real build (hatchling 1.33) of a commit whose `exclude` names `src/pkg/testing` shipped no
`pkg/testing/`, and none of a tracked `src/pkg/_local.py` its `.gitignore` names. A patch wheel
adding the commit's `pkg/testing/fake_auth.py` (`BYPASS = True`) matched, exit 0: it is W412
now (failing, waivable). The wheel the commit builds, after a base that shipped them, failed
W410 for each: not said now where the configuration leaves the module out whatever directory
the build runs in (a `.gitignore` hatchling reads only where none of its patterns names the
build's own directory, so W410 stands for it).
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

FILES = {
    "pkg/__init__.py": b"",
    "pkg/util.py": b"X = 1\n",
    "pkg/testing/__init__.py": b"",
    "pkg/testing/fake_auth.py": b"BYPASS = True\n",
}
BUILT = {"pkg/__init__.py": b"", "pkg/util.py": b"X = 2\n"}
HATCH = (
    b'[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
    b'[project]\nname = "pkg"\nversion = "1.0"\n\n[tool.hatch.build.targets.wheel]\n'
    b'packages = ["src/pkg"]\n'
)
SKBUILD = (
    b'[build-system]\nrequires = ["scikit-build-core"]\n'
    b'build-backend = "scikit_build_core.build"\n\n[project]\nname = "pkg"\nversion = "1.0"\n\n'
    b'[tool.scikit-build]\nwheel.packages = ["src/pkg"]\n'
)
SETTINGS: dict[str, tuple[bytes, dict[str, bytes | None]]] = {
    "hatchling exclude": (HATCH + b'exclude = ["src/pkg/testing"]\n', {}),
    "hatchling build exclude": (HATCH + b'\n[tool.hatch.build]\nexclude = ["testing/"]\n', {}),
    "hatchling only-packages": (
        HATCH + b"only-packages = true\n",
        {"src/pkg/testing/__init__.py": None},  # no package: left out
    ),
    "scikit-build-core wheel.exclude": (SKBUILD + b'wheel.exclude = ["pkg/testing/"]\n', {}),
}


def _check(
    tmp_path: Path,
    pyproject: bytes,
    base: dict[str, bytes],
    patch: dict[str, bytes],
    later: dict[str, bytes | None] | None = None,
) -> tuple[int, dict[str, Any]]:
    """The commit (HEAD: `later`'s edits on the first) checked between `base` and `patch`."""
    tree: dict[str, bytes | None] = {"src/" + path: data for path, data in FILES.items()}
    tree |= {"src/pkg/util.py": b"X = 2\n", "pyproject.toml": pyproject}
    make_repo(tmp_path / "repo", [tree, later or {}])
    base_wheel = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", base)
    patch_wheel = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", patch)
    repo = tmp_path / "repo"
    return run_json("wheels", base_wheel, patch_wheel, "--source", repo, "--commit", "HEAD")


def _failing(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize("case", sorted(SETTINGS))
def test_a_patch_shipping_a_file_the_build_leaves_out_fails(tmp_path: Path, case: str) -> None:
    pyproject, later = SETTINGS[case]
    patch = {**BUILT, "pkg/testing/fake_auth.py": FILES["pkg/testing/fake_auth.py"]}

    code, report = _check(tmp_path, pyproject, BUILT, patch, later)

    assert code == 1
    assert _failing(report) == [("W412", "pkg/testing/fake_auth.py")]
    (finding,) = [f for f in report["findings"] if f["code"] == "W412"]
    assert finding["detail"].startswith("src/pkg/testing/fake_auth.py is at the source commit, ")
    assert finding["detail"].endswith("the patch wheel ships it")


@pytest.mark.parametrize("case", sorted(SETTINGS))
def test_the_wheel_the_commit_builds_drops_what_it_leaves_out(tmp_path: Path, case: str) -> None:
    pyproject, later = SETTINGS[case]
    base = {p: d for p, d in FILES.items() if later.get("src/" + p, d) is not None}

    code, report = _check(tmp_path, pyproject, base, BUILT, later)

    assert code == 0, _failing(report)


def test_a_gitignored_file_is_w412_but_its_absence_stays_w410(tmp_path: Path) -> None:
    """hatchling reads `.gitignore` unless a pattern names the build's own directory; the
    file was committed before the `.gitignore` naming it, and stays tracked."""
    later: dict[str, bytes | None] = {".gitignore": b"*.egg-info/\nfake_auth.py\n"}

    code, report = _check(tmp_path, HATCH, BUILT, {**FILES, **BUILT}, later)

    assert code == 1
    assert _failing(report) == [("W412", "pkg/testing/fake_auth.py")]
    (finding,) = [f for f in report["findings"] if f["code"] == "W412"]
    assert "hatchling, by .gitignore, leaves it out" in finding["detail"]
    assert "(unless a pattern names the build's own directory)" in finding["detail"]
    code, report = _check(tmp_path / "dropped", HATCH, FILES, BUILT, later)
    assert ("W410", "pkg/testing/fake_auth.py") in _failing(report)


UNCLAIMED = {
    "negation": b'exclude = ["src/pkg/testing", "!fake_auth.py"]\n',
    "range": b'exclude = ["src/pkg/[a-z]esting"]\n',
    "artifacts": b'exclude = ["src/pkg/testing"]\nartifacts = ["*.py"]\n',
    "custom hook": b'exclude = ["src/pkg/testing"]\n\n[tool.hatch.build.hooks.custom]\n',
}


@pytest.mark.parametrize("case", sorted(UNCLAIMED))
def test_what_k3diff_does_not_read_is_claimed_neither_way(tmp_path: Path, case: str) -> None:
    """A negation may take the match back; a range k3diff does not read; an artifact pattern
    brings a file back; a build hook may force it in: W410 stands, and no W412."""
    pyproject = HATCH + UNCLAIMED[case]

    code, report = _check(tmp_path, pyproject, FILES, BUILT)

    assert code == 1
    assert ("W410", "pkg/testing/fake_auth.py") in _failing(report)
    assert not [f for f in report["findings"] if f["code"] == "W412"]


def test_a_gitignore_line_is_split_where_hatchling_splits_it(tmp_path: Path) -> None:
    """hatchling reads `.gitignore` with `readlines` (a line ends at `\\n`, `\\r\\n` or `\\r`):
    `build\\x85src/pkg/testing` is one pattern, which names no file here, and the wheel the
    commit builds ships `pkg/testing/` (review72a: split at `\\x85` as `str.splitlines` does,
    `src/pkg/testing` was read from it, and that wheel failed W412)."""
    later: dict[str, bytes | None] = {".gitignore": "build\x85src/pkg/testing\n".encode()}
    code, report = _check(tmp_path, HATCH, BUILT, {**FILES, **BUILT}, later)

    assert code == 0, _failing(report)
    assert not [f for f in report["findings"] if f["code"] == "W412"]


def test_a_pattern_that_backtracks_is_matched_in_bounded_time(tmp_path: Path) -> None:
    """`*a*a*a*a*a*a*a*a*b` against a 100-character name took pathspec's regex, and k3diff's
    translation of it, minutes (review72a: 6 stars, 120 characters, over a minute); each part
    is now matched where it first can be: the check ends within seconds."""
    name = "a" * 100
    pyproject = HATCH + b'exclude = ["' + b"*a" * 8 + b'*b"]\n'
    later: dict[str, bytes | None] = {f"src/pkg/{name}.py": b"X = 1\n"}
    patch = {**BUILT, f"pkg/{name}.py": b"X = 1\n"}

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError("the check took over 20 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(20)
    try:
        code, report = _check(tmp_path, pyproject, BUILT, patch, later)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

    assert code == 0, _failing(report)


def test_the_next_step_says_what_to_do_about_a_file_the_build_leaves_out(tmp_path: Path) -> None:
    """newuser72: the text report's next steps offered only a waiver for W412, while the source
    table beside it read `match` for the file: it now says what the finding means and what to
    run, and the waiver is the alternative."""
    pyproject, _ = SETTINGS["hatchling exclude"]
    tree: dict[str, bytes | None] = {"src/" + path: data for path, data in FILES.items()}
    make_repo(
        tmp_path / "repo", [tree | {"src/pkg/util.py": b"X = 2\n", "pyproject.toml": pyproject}]
    )
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", BUILT)
    patch = {**BUILT, "pkg/testing/fake_auth.py": FILES["pkg/testing/fake_auth.py"]}
    patched = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", patch)
    result = run_k3diff("wheels", base, patched, "--source", tmp_path / "repo", "--commit", "HEAD")
    assert result.exit_code == 1, result.stderr
    steps = result.stdout.split("\nNext steps\n", 1)[1]
    assert steps.startswith(
        "  1 × W412 on 1 file: the patch wheel ships a file its commit's build configuration "
        "leaves out (its content is the commit's: 'left out' in the source table), "
        "so the wheel was not built from that commit as configured, or a step after the build "
        "added the file: build the wheel from the commit and compare it with this one (k3diff "
        "wheels BUILT.whl PATCH.whl, where the file reads as added)"
    ), steps
    assert "\n  or accept each reviewed file with a waiver" in steps
    # The bundle names the same step, the waiver as the alternative.
    args = (base, patched, "--source", tmp_path / "repo", "--commit", "HEAD")
    written = run_k3diff("wheels", *args, "--format", "json", "-o", tmp_path / "w.json")
    assert written.exit_code == 1, written.stderr
    bundle = run_k3diff(
        "report", tmp_path / "w.json", *args[:2], tmp_path / "repo", "--out", tmp_path / "bundle"
    )
    assert bundle.exit_code == 1, bundle.stderr
    said = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "1 × W412 on 1 file: the patch wheel ships a file its commit's build" in said
    assert "w.json): or accept each reviewed file with a waiver" in said
