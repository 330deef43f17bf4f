"""`k3diff report` on a real `k3diff.wheelset/1` document: every pair's wheels become evidence,
the unpaired wheel is named, and the set's failure is the bundle's."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff
from wheels.wheelset_support import SOLO, release_sets


def _wheelset(tmp_path: Path, *extra: str) -> int:
    result = run_k3diff(
        "wheels", "base", "patch", "--format", "json", "-o", "set.json", *extra, cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code


def test_a_failing_release_set_goes_through_the_bundle(tmp_path: Path) -> None:
    release_sets(tmp_path, native_change=True)
    assert _wheelset(tmp_path) == 1
    result = run_k3diff("report", "set.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "bundle/summary.json").read_text())
    assert summary["verdict"]["ok"] is False
    report = (tmp_path / "bundle/REPORT.md").read_text()
    assert f"base/{SOLO}" in report
    assert "engine/\\_C.so" in report  # `_` escaped in a Markdown cell
    # The set's own row counts its pairs (three), not the stages each pair adds to the matrix.
    assert "release set: 3 wheel pairs; 1 wheel unpaired" in report
    # One document fails once, however many of its pairs and unpaired wheels fail.
    assert summary["bottom_line"][0] == "FAIL: artifact identity (set.json) fails its policy"
    hashed = {a["name"] for a in summary["artifacts"]}
    assert len(hashed) == 6  # both wheels of each of the three pairs
    assert "patch/engine-1.1-cp312-cp312-manylinux_2_17_x86_64.whl" in hashed


def test_a_passing_release_set_passes_the_bundle(tmp_path: Path) -> None:
    release_sets(tmp_path, solo=False)
    assert _wheelset(tmp_path) == 0
    result = run_k3diff("report", "set.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


def test_a_set_failing_only_for_a_misnamed_whl_fails_the_bundle(tmp_path: Path) -> None:
    """Every pair passes, yet the set fails for `patch/copy.whl`: the bundle must not pass."""
    release_sets(tmp_path, solo=False)
    wheel = next((tmp_path / "patch").glob("*.whl"))
    (tmp_path / "patch" / "copy.whl").write_bytes(wheel.read_bytes())
    assert _wheelset(tmp_path) == 1
    result = run_k3diff("report", "set.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "bundle/summary.json").read_text())
    assert summary["verdict"]["ok"] is False
    assert "patch/copy.whl" in (tmp_path / "bundle/REPORT.md").read_text()


def test_the_set_row_counts_pairs_when_each_pair_adds_a_source_stage(tmp_path: Path) -> None:
    """With --source each pair adds two rows (identity and source match); the set's own row
    still says how many wheel pairs it compared."""
    import wheelkit

    from bundle.helpers import pkg_source_repo

    pkg_source_repo(tmp_path)
    files = {"pkg/__init__.py": b""}
    for name in ("pkg", "pkg_extra"):
        wheelkit.make_wheel(tmp_path / "base", name, "1.0", files)
        wheelkit.make_wheel(tmp_path / "patch", name, "1.0", files)
    wheelkit.make_wheel(tmp_path / "base", "solo", "1.0", {"solo.py": b"pass\n"})
    assert _wheelset(tmp_path, "--source", "src", "--commit", "HEAD", "--allow-unpaired") == 0
    result = run_k3diff("report", "set.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    report = (tmp_path / "bundle/REPORT.md").read_text()
    assert "release set: 2 wheel pairs; 1 wheel unpaired" in report, report


def test_the_audit_row_counts_the_wheels_of_a_set_it_audits(tmp_path: Path) -> None:
    # Found by the new-user trial: an audit of two base wheels of a release set read "audits
    # the base wheel compared"; each role is counted when the set gives it more than one wheel.
    release_sets(tmp_path, solo=False)
    assert _wheelset(tmp_path) == 0
    bases = sorted(p.name for p in (tmp_path / "base").glob("*.whl"))[:2]
    patches = sorted(p.name for p in (tmp_path / "patch").glob("*.whl"))
    audited = [f"base/{name}" for name in bases] + [f"patch/{name}" for name in patches]
    audit = run_k3diff("audit", *audited, "--format", "json", "-o", "audit.json", cwd=tmp_path)
    assert audit.exit_code in (0, 1), audit.stderr
    run_k3diff("report", "set.json", "audit.json", "--out", "bundle", cwd=tmp_path)
    report = (tmp_path / "bundle/REPORT.md").read_text()
    assert f"audits {len(patches)} patch wheels and 2 base wheels compared (by SHA-256)" in report
    assert "audits the" not in report


def test_an_unpaired_wheel_says_whether_it_fails_the_set(tmp_path: Path) -> None:
    """newuser63: a set whose pairs all pass, failing only for one unpaired wheel, read
    "FAIL: artifact identity" over "1 wheel unpaired: …" with no word that this is the failure
    (wheels itself says "not compared, so they fail the run"); and an allowed one read "they do
    not fail the set" of one wheel."""
    release_sets(tmp_path, solo=True, native_change=False)
    assert _wheelset(tmp_path) == 1
    result = run_k3diff("report", "set.json", "base", "patch", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    report = (tmp_path / "bundle/REPORT.md").read_text()
    line = f"1 wheel unpaired: base/{SOLO} (not compared, so it fails the set; --allow-unpaired"
    assert line + " accepts it)" in report, report
    assert _wheelset(tmp_path, "--allow-unpaired") == 0
    result = run_k3diff("report", "set.json", "base", "patch", "--out", "allowed", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    report = (tmp_path / "allowed/REPORT.md").read_text()
    assert f"1 wheel unpaired: base/{SOLO} (--allow-unpaired: it does not fail the set)" in report
