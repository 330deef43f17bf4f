"""`k3diff responses` refuses BASE, PATCH or --base-rerun naming one file (hunt72b).

Before, `responses base.jsonl base.jsonl` (or a hard link of it) read "no paired record
differs (exit 0)": a pass that compared nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .fixtures import write_jsonl
from .lm_eval_logs import generate_current


def _log(path: Path) -> Path:
    return write_jsonl(
        path, [generate_current(n, f"Q{n}", ["42"], "42", "none", 1.0) for n in range(8)]
    )


@pytest.mark.parametrize("how", ["same-path", "hard-link", "symlink", "dot-slash"])
def test_base_and_patch_one_file_exit_2(how: str, k3diff_cli: Any, tmp_path: Path) -> None:
    base = _log(tmp_path / "base.jsonl")
    patch = {
        "same-path": "base.jsonl",
        "dot-slash": "./base.jsonl",
        "hard-link": "link.jsonl",
        "symlink": "sym.jsonl",
    }[how]
    if how == "hard-link":
        os.link(base, tmp_path / patch)
    if how == "symlink":
        (tmp_path / patch).symlink_to(base)
    result = k3diff_cli("responses", "base.jsonl", patch, cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "are the same file: nothing would be compared" in result.stderr


@pytest.mark.parametrize("rerun_of", ["base.jsonl", "patch.jsonl"])
def test_base_rerun_one_file_with_a_side_exit_2(
    rerun_of: str, k3diff_cli: Any, tmp_path: Path
) -> None:
    _log(tmp_path / "base.jsonl")
    _log(tmp_path / "patch.jsonl")
    os.link(tmp_path / rerun_of, tmp_path / "rerun.jsonl")
    result = k3diff_cli(
        "responses", "base.jsonl", "patch.jsonl", "--base-rerun", "rerun.jsonl", cwd=tmp_path
    )
    assert result.exit_code == 2
    assert "and --base-rerun rerun.jsonl are the same file" in result.stderr


def test_a_copy_is_compared(k3diff_cli: Any, tmp_path: Path) -> None:
    _log(tmp_path / "base.jsonl")
    _log(tmp_path / "patch.jsonl")
    assert k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path).exit_code == 0
