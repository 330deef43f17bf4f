"""Base 1 out-of-memory line, patch 3 of the same message: not new, so exit 0 (the documented
rule: two runs' counts are no rates), but the OK verdict names the rise, never reading like
"no more than the base" (fix58: the logs leftover)."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff

from .logs_support import OOM, clean, write


def test_an_error_the_patch_logs_more_often_passes_but_the_verdict_names_it(
    tmp_path: Path,
) -> None:
    base = write(tmp_path / "b.log", clean() + OOM.format(pid=11, mib=20))
    patch = write(
        tmp_path / "p.log",
        clean() + "".join(OOM.format(pid=12, mib=mib) for mib in (20, 40, 80)),
    )
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 0, result.stdout
    verdict = result.stdout.splitlines()[-1]
    assert "more often on the patch than on the base: out-of-memory 1 → 3" in verdict, verdict
    same = run_k3diff("logs", base, write(tmp_path / "again.log", base.read_text()))
    assert "more often" not in same.stdout.splitlines()[-1]
    assert run_k3diff("logs", base, patch, "--strict").exit_code == 1
