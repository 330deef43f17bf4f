"""Golden outputs of `k3diff wheels BASE_DIR PATCH_DIR` (text and Markdown) on a small release
set built in code. Regenerate with `make golden` and review the diff."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import Golden, run_k3diff

from .wheelset_support import release_sets

CASES = {
    "set-text": ["base", "patch"],
    "set-markdown": ["base", "patch", "--format", "markdown"],
    "set-allow-unpaired-text": ["base", "patch", "--allow-unpaired", "--allow-native-changes"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_wheelset_golden(tmp_path: Path, golden: Golden, case: str) -> None:
    release_sets(tmp_path, native_change=True)
    result = run_k3diff("wheels", *CASES[case], cwd=tmp_path)
    golden.check("wheelset", case, result)
