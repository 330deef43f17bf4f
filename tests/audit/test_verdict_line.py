"""The audit's verdict line counts the artifacts audited, and says no more of them
(newuser67): a release directory of two wheels, one rebuilt after its manifest was written,
ended `FAIL: 2 errors (2 findings) in 2 artifacts`, though both findings were about the one
wheel; a manifest's finding may even name an artifact that was not audited."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff
from wheelkit import make_wheel


def test_the_failing_verdict_counts_the_artifacts_audited_not_those_at_fault(
    tmp_path: Path,
) -> None:
    make_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": b"x = 1\n"})
    make_wheel(tmp_path, "other", "2.0", {"other/__init__.py": b"y = 2\n"})
    written = run_k3diff("audit", ".", "--write-manifest", "SUMS", cwd=tmp_path)
    assert written.exit_code == 0, written.stderr
    make_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": b"x = 2\n"})  # rebuilt since

    result = run_k3diff("audit", ".", "--manifest", "SUMS", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert "A201 demo-1.0-py3-none-any.whl: " in result.stdout, result.stdout
    assert "other-2.0" not in result.stdout.split("manifest SUMS:")[1], result.stdout
    assert result.stdout.splitlines()[-1] == (
        "FAIL: 1 error (1 finding); 2 artifacts audited (exit 1)"
    ), result.stdout
