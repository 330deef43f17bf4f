"""The audit's verdict line counts the artifacts audited, and says no more of them
(newuser67): a release directory of two wheels, one rebuilt after its manifest was written,
ended `FAIL: 2 errors (2 findings) in 2 artifacts`, though both findings were about the one
wheel; a manifest's finding may even name an artifact that was not audited."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff
from wheel.test_pth_imports import PRECEDENCE
from wheelkit import make_wheel, record_hash


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
    manifest = result.stdout.split("manifest SUMS:")[1].split("\nNext steps\n")[0]
    assert "other-2.0" not in manifest, result.stdout  # its pin holds (its step pins it anew)
    assert result.stdout.splitlines()[-1] == (
        "FAIL: 1 error, 0 warnings; 2 artifacts audited (exit 1)"
    ), result.stdout


def test_the_verdict_counts_errors_warnings_and_waived_findings_apart(tmp_path: Path) -> None:
    """newuser71, on a real setuptools wheel with one .py edited and re-zipped: its two RECORD
    errors and its .pth warning read `FAIL: 2 errors (3 findings)`, the third left to guess;
    with both errors waived, `OK: 1 artifact audited, 3 warnings; 2 findings waived`, the
    waived counted as warnings too. Failed on base71: both lines."""
    original = b"x = 1\n"
    stale = f"demo/__init__.py,{record_hash(original)},{len(original)}"
    files = {
        "demo/__init__.py": b"x = 22\n",
        "demo.pth": PRECEDENCE,
        "_distutils_hack/__init__.py": b"def add_shim():\n    pass\n",
    }
    dist = tmp_path / "dist"
    make_wheel(dist, "demo", "1.0", files, record_overrides={"demo/__init__.py": stale})
    result = run_k3diff("audit", "dist", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert "A103 demo/__init__.py" in result.stdout and "A104 demo/__init__.py" in result.stdout
    assert "A127 (warning) demo.pth" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "FAIL: 2 errors, 1 warning; 1 artifact audited (exit 1)"
    ), result.stdout
    (tmp_path / "w.toml").write_text(
        "".join(
            f'[[waiver]]\ncode = "{code}"\npath = "demo/__init__.py"\nreason = "reviewed"\n'
            for code in ("A103", "A104")
        )
    )
    waived = run_k3diff("audit", "dist", "--waivers", "w.toml", cwd=tmp_path)
    assert waived.exit_code == 0, waived.stdout
    assert waived.stdout.splitlines()[-1].startswith(
        "OK: 1 artifact audited, 1 warning; 2 findings waived: "
    ), waived.stdout
