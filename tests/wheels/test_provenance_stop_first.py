"""`wheels --source`: a build setup the check cannot read stops the run before the wheels are
compared (holds75: vLLM's ``setup.py`` running CMake stopped only after the whole comparison,
~19 s), with the same exit code and line as before."""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import make_repo

from k3diff.wheels.facts import read_facts

from .test_provenance_backend_places import FILES, REVERTED, SAFE
from .test_provenance_cmake_install import TOP
from .test_provenance_setuppy_cmake import BUILD_EXT, RUNS, SETUP


def _recorded(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The wheel pairs the comparison reads the facts of, as it reads them."""
    compared: list[object] = []

    def recorded(*args: object) -> object:
        compared.append(args)
        return read_facts(*args)  # type: ignore[arg-type]

    monkeypatch.setattr("k3diff.wheels.compare.read_facts", recorded)
    return compared


STOP = "setup.py runs CMake (line 11), whose CMake installs files into the wheel, not read"


@pytest.mark.parametrize("given", [(), ("--source-prefix", "src/")], ids=["", "prefix"])
@pytest.mark.parametrize(
    "revision", [("--commit", "HEAD"), ("--commits", "HEAD~1..HEAD")], ids=["commit", "range"]
)
def test_a_setup_py_running_cmake_stops_before_comparing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    revision: tuple[str, str],
    given: tuple[str, ...],
) -> None:
    """The wheels are opened (a wheel that is no wheel still says so first) but not compared;
    with ``--source-prefix`` too (vllm76: there it never stopped, and the wheel matched)."""
    args = (*revision, *given)
    tree: dict[str, bytes | None] = {
        "src/pkg/" + path.removeprefix("pkg/"): data for path, data in REVERTED.items()
    }
    tree |= {"fixes/auth.py": SAFE, "CMakeLists.txt": TOP}
    setup_py = BUILD_EXT + RUNS["a list (vLLM)"] + SETUP
    make_repo(tmp_path / "repo", [tree, tree | {"setup.py": setup_py}])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)
    compared = _recorded(monkeypatch)

    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", *args)

    assert (result.exit_code, result.stdout) == (2, "")
    assert STOP in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert compared == []
    # a wheel that is no zip is said first, as before
    broken = tmp_path / "p" / "pkg-1.0-py3-none-any.whl"
    broken.write_bytes(b"not a zip")
    result = run_k3diff("wheels", base, broken, "--source", tmp_path / "repo", *args)
    assert result.exit_code == 2 and STOP not in result.stderr, result.stderr


def test_a_bad_revision_with_a_prefix_stops_before_comparing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--source-prefix`` the root's setup is not read, but the revision is resolved
    before the wheels are compared (setupstop76: it was after the whole comparison)."""
    tree: dict[str, bytes | None] = {"src/" + path: data for path, data in FILES.items()}
    make_repo(tmp_path / "repo", [tree])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)
    compared = _recorded(monkeypatch)
    repo = tmp_path / "repo"

    result = run_k3diff(
        "wheels", base, patch, "--source", repo, "--commit", "nosuch", "--source-prefix", "src"
    )

    assert (result.exit_code, result.stdout, compared) == (2, "", [])
    assert "revision 'nosuch' is not a commit in this repository" in result.stderr
