"""newuser78: what `k3diff wheels` says of the source archives in release directories, in plain
words: a base or patch directory holding only sdists says to build wheels or audit the sdist,
and the cap's refusal counts archives, not "wheels", where some are sdists."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_k3diff

from .test_wheelset_sources import _sdist
from .wheelset_support import CP312, LIB, _engine, write


def test_a_directory_of_sdists_only_says_what_to_do(tmp_path: Path) -> None:
    write(tmp_path / "patch", "engine", "1.1", CP312, _engine("1.1", LIB))
    _sdist(tmp_path / "base", "engine", "1.0")
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        "k3diff: error: base: no wheel files (*.whl named by PEP 427) in the base, only a "
        "source archive: k3diff wheels compares built wheels; build them first (python -m "
        "build --wheel), or check the sdist with k3diff audit base/engine-1.0.tar.gz\n"
    )


def test_the_cap_counts_source_archives_as_archives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("k3diff.wheels.competing.MAX_CHECKS", 1)
    write(tmp_path / "base", "engine", "1.0", CP312, _engine("1.0", LIB))
    write(tmp_path / "patch", "engine", "1.1", CP312, _engine("1.1", LIB))
    for version in ("1.0", "0.9", "0.8"):
        _sdist(tmp_path / "base", "engine", version)
    _sdist(tmp_path / "patch", "engine", "1.1")
    refused = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    assert "project engine: its 6 archives (2 wheels, 4 source archives) tell " in (
        refused.stderr
    ), refused.stderr
