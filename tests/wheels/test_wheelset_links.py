"""A symbolic link among a release directory's files is refused by `wheels` (exit 2, one line
naming the link and its target), as `audit` refuses it: `dist/*` would take the file it points
to, which may lie outside the directory and which the link can name anew after the comparison.
`wheels` followed it (a link to a wheel elsewhere was compared as the release's own, exit 0)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .wheelset_support import SOLO, release_sets, write


@pytest.mark.parametrize("target", ["wheel", "directory"])
def test_a_link_in_a_release_directory_is_refused(tmp_path: Path, target: str) -> None:
    release_sets(tmp_path, solo=False)
    elsewhere = tmp_path / "elsewhere"
    solo = write(elsewhere, "solo", "1.0", "py3-none-any", {"solo.py": b"pass\n"})
    link = tmp_path / "patch" / (SOLO if target == "wheel" else "more")
    link.symlink_to(solo if target == "wheel" else elsewhere)
    if target == "wheel":
        shutil.copy(solo, tmp_path / "base" / SOLO)  # so the link's wheel pairs
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr == (
        f"k3diff: error: patch/{link.name}: a symbolic link (to {link.readlink()}) in a release "
        "directory: wheels does not follow links there, as the link can be pointed elsewhere "
        "after the comparison; give the file it points to with --base/--patch, or replace the "
        "link with it\n"
    )


def test_a_link_given_as_a_file_is_read_as_asked(tmp_path: Path) -> None:
    """As in `audit`, a link named on the command line is the file it points to."""
    release_sets(tmp_path, solo=False)
    solo = write(tmp_path / "elsewhere", "solo", "1.0", "py3-none-any", {"solo.py": b"pass\n"})
    (tmp_path / "link.whl").symlink_to(solo)
    (tmp_path / SOLO).symlink_to(solo)
    result = run_k3diff("wheels", "--base", SOLO, "--patch", "link.whl", cwd=tmp_path)
    assert result.exit_code == 2 and "not a wheel filename" in result.stderr
    (tmp_path / "patch" / SOLO).write_bytes(solo.read_bytes())
    given = run_k3diff("wheels", "--base", SOLO, "--patch", f"patch/{SOLO}", cwd=tmp_path)
    assert given.exit_code == 0, given.stdout + given.stderr
