"""`k3diff report` runs `k3diff audit` again on the wheels an audit document audited when they
are given beside it, tied by SHA-256 (review62). An A103 (an entry's content does not match its
RECORD hash) deleted, with the verdict's counts edited to pass, agrees with itself: read with
the wheels comparison, the bundle said `a.json (cross-checked)` of it, because the audit was
tied to the wheels compared, and its row passed. Now an audit not run again is judged alone,
and one given with its wheels is run again and refused where it does not follow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_k3diff

MODULE = b"print('m')\n"


def _forged_audit(tmp_path: Path) -> tuple[str, str, dict[str, Any]]:
    """Two wheels compared (`w.json`), the patch's RECORD lying about `demo/m.py`; the patch
    audited (A103, exit 1) and the audit forged into a pass."""
    files = {"demo/__init__.py": b"", "demo/m.py": MODULE}
    stale = f"demo/m.py,sha256=AAAA{wheelkit.record_hash(MODULE)[11:]},{len(MODULE)}"
    base, patch = (
        str(wheelkit.make_wheel(tmp_path / v, "demo", v, files, tool="zip", record_overrides=o))
        for v, o in (("1.0", None), ("2.0", {"demo/m.py": stale}))
    )
    run_k3diff("wheels", base, patch, "--format", "json", "-o", "w.json", cwd=tmp_path)
    made = run_k3diff("audit", patch, "--format", "json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    audit = json.loads(made.stdout)
    (artifact,) = audit["artifacts"]
    assert [f["code"] for f in artifact["findings"]] == ["A103"]
    artifact["findings"] = []
    audit["verdict"].update(ok=True, exit_code=0, errors=0)
    return base, patch, audit


def _report(tmp_path: Path, *inputs: str) -> Any:
    return run_k3diff("report", *inputs, "--out", "b", cwd=tmp_path)


def _audit_row(tmp_path: Path) -> dict[str, Any]:
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    row: dict[str, Any] = next(r for r in summary["matrix"] if r["evidence"] == "audit")
    return row


def test_an_a103_deleted_is_judged_alone_and_refused_beside_the_wheel(tmp_path: Path) -> None:
    base, patch, forged = _forged_audit(tmp_path)
    (tmp_path / "a.json").write_text(json.dumps(forged))
    alone = _report(tmp_path, "a.json")
    assert alone.exit_code == 0, alone.stderr  # all the document shows
    assert [d["label"] for d in _audit_row(tmp_path)["documents"]] == [
        "a.json (judged alone: self-consistent)"
    ]
    tied = _report(tmp_path, "w.json", "a.json")  # tied to the patch by SHA-256, not run again
    assert [d["label"] for d in _audit_row(tmp_path)["documents"]] == [
        "a.json (judged alone: self-consistent)"
    ]
    assert tied.exit_code == 1, tied.stderr  # the wheels comparison's own W302
    for inputs in (("a.json", patch), ("w.json", "a.json", base, patch)):
        result = _report(tmp_path, *inputs)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "a.json: does not follow from the wheels given with it (audit run again on" in (
            result.stderr
        )
        assert "artifacts[0].findings: 0 items, run again 1" in result.stderr


def test_a_genuine_audit_run_again_lists_its_wheel_and_its_manifest(
    tmp_path: Path,
) -> None:
    _, patch, _ = _forged_audit(tmp_path)
    made = run_k3diff("audit", patch, "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    result = _report(tmp_path, "a.json", patch)
    assert result.exit_code == 1, result.stderr
    row = _audit_row(tmp_path)
    assert [d["label"] for d in row["documents"]] == ["a.json (cross-checked; audit run again)"]
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    wheel = next(i for i in summary["inputs"] if i["name"] == patch)
    assert wheel["schema"] == "wheel (k3diff audit run again on it)"
    (tmp_path / "SHA256SUMS").write_text(f"{wheel['sha256']}  {Path(patch).name}\n")
    made = run_k3diff(
        "audit", patch, "--manifest", "SHA256SUMS", "--format", "json", "-o", "m.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    refused = _report(tmp_path, "m.json", patch)
    assert refused.exit_code == 2, refused.stderr
    # The manifest is recorded by SHA-256 (lmrep68): not given, it is missing, and given,
    # audit runs again against it.
    assert "SHA256SUMS: missing (m.json records it as its manifest" in refused.stderr
    again = _report(tmp_path, "m.json", patch, "SHA256SUMS")
    assert again.exit_code == 1, again.stderr
    assert [d["label"] for d in _audit_row(tmp_path)["documents"]] == [
        "m.json (cross-checked; audit run again)"
    ]


def test_an_audited_directory_given_to_report_says_to_give_its_files(tmp_path: Path) -> None:
    """`report audit.json dist/`, the directory as it was audited, is refused (exit 2) with the
    way to give an audit's artifacts: each as a file (newuser80b: it was told only to give a
    wheels document made with --source); with no audit document the line says nothing of one."""
    dist = tmp_path / "dist"
    wheelkit.make_wheel(dist, "demo", "1.0", {"demo/__init__.py": b""}, tool="zip")
    made = run_k3diff("audit", "dist", "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    refused = _report(tmp_path, "a.json", "dist")
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "an audit document's artifacts are given each as a file (dist/*)" in refused.stderr
    other = wheelkit.make_wheel(tmp_path / "old", "demo", "0.9", {"demo/__init__.py": b""})
    (wheel,) = dist.glob("*.whl")
    made = run_k3diff("wheels", other, wheel, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    alone = _report(tmp_path, "w.json", "dist")
    assert alone.exit_code == 2 and "dist: a directory, read only as" in alone.stderr
    assert "audit document" not in alone.stderr, alone.stderr
    files = [str(p.relative_to(tmp_path)) for p in dist.glob("*.whl")]
    assert _report(tmp_path, "a.json", *files).exit_code == 0
