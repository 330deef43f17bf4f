"""An audit made with `--manifest` records the manifest's SHA-256, so `report` ties the
document to the manifest it checked (lmrep68): a manifest changed since, or missing beside the
audited wheels, is named among the inputs changed, with the command that brings the document
up to date; given unchanged with the wheels, audit runs again against it. A document written
before the SHA-256 was recorded still reads, and the bundle says "manifest not recorded"."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_k3diff


def _audited(tmp_path: Path) -> tuple[str, str]:
    """A wheel audited against a manifest pinning it (`m.json`, exit 0); the wheel and its
    digest."""
    files = {"demo/__init__.py": b"", "demo/m.py": b"print('m')\n"}
    wheel = wheelkit.make_wheel(tmp_path / "dist", "demo", "1.0", files)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (tmp_path / "SHA256SUMS").write_text(f"{digest}  {wheel.name}\n")
    name = str(wheel.relative_to(tmp_path))
    made = run_k3diff(
        "audit", name, "--manifest", "SHA256SUMS", "--format", "json", "-o", "m.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    return name, digest


def _report(tmp_path: Path, *inputs: str) -> Any:
    return run_k3diff("report", *inputs, "--out", "b", cwd=tmp_path)


def _summary(tmp_path: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((tmp_path / "b" / "summary.json").read_text())
    return summary


def test_the_manifest_checked_is_recorded_by_its_sha256(tmp_path: Path) -> None:
    _audited(tmp_path)
    document = json.loads((tmp_path / "m.json").read_text())
    recorded = hashlib.sha256((tmp_path / "SHA256SUMS").read_bytes()).hexdigest()
    assert (document["manifest"]["path"], document["manifest"]["sha256"]) == (
        "SHA256SUMS",
        recorded,
    )
    schema = run_k3diff("schema", "audit")
    assert json.loads(schema.stdout)["properties"]["manifest"]["properties"]["sha256"]


def test_a_manifest_changed_since_is_named_with_the_command_that_remakes_the_audit(
    tmp_path: Path,
) -> None:
    """Failed on base68: the manifest given was no document to report (exit 2, "not a k3diff
    JSON document"), and beside the wheel the audit was refused as made with --manifest: the
    manifest changed since went unsaid, and alone the audit read as current."""
    wheel, digest = _audited(tmp_path)
    (tmp_path / "SHA256SUMS").write_text(f"{'0' * 64}  {Path(wheel).name}\n")
    now = hashlib.sha256((tmp_path / "SHA256SUMS").read_bytes()).hexdigest()
    command = f"`k3diff audit {wheel} --manifest SHA256SUMS --format json -o m.json`"
    for inputs in (("m.json", "SHA256SUMS"), ("m.json", wheel, "SHA256SUMS")):
        result = _report(tmp_path, *inputs)
        assert result.exit_code == 2, result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith(
            "k3diff: error: SHA256SUMS: changed since m.json recorded it as its manifest "
            f"(SHA-256 {json.loads((tmp_path / 'm.json').read_text())['manifest']['sha256'][:16]}"
            f"… recorded, {now[:16]}… now)"
        ), result.stderr
        assert command in result.stderr
    # Beside its wheel, a manifest not given is missing: audit cannot be run again without it.
    result = _report(tmp_path, "m.json", wheel)
    assert result.exit_code == 2, result.stderr
    assert "SHA256SUMS: missing (m.json records it as its manifest" in result.stderr
    assert command in result.stderr
    assert digest  # the wheel itself is unchanged: only the manifest is named
    assert f"{wheel}: changed" not in result.stderr


def test_an_unchanged_manifest_is_run_again_against_and_listed(tmp_path: Path) -> None:
    """Failed on base68: refused (exit 2) as made with --manifest, given with or without the
    wheel."""
    wheel, _ = _audited(tmp_path)
    result = _report(tmp_path, "m.json", wheel, "SHA256SUMS")
    assert result.exit_code == 0, result.stderr
    rows = {row["name"]: row for row in _summary(tmp_path)["inputs"]}
    assert rows["SHA256SUMS"]["schema"] == "sha256sum manifest (k3diff audit run again against it)"
    assert rows[wheel]["schema"] == "wheel (k3diff audit run again on it)"
    result = _report(tmp_path, "m.json", "SHA256SUMS")  # tied by its bytes, judged alone
    assert result.exit_code == 0, result.stderr
    # left68: accepted, and listed nowhere among the bundle's inputs.
    rows = {row["name"]: row for row in _summary(tmp_path)["inputs"]}
    assert sorted(rows) == ["SHA256SUMS", "m.json"]
    assert rows["m.json"]["judged_alone"] is True
    recorded = json.loads((tmp_path / "m.json").read_text())["manifest"]["sha256"]
    assert (rows["SHA256SUMS"]["sha256"], rows["SHA256SUMS"]["cross_checked"]) == (recorded, False)
    assert rows["SHA256SUMS"]["schema"] == (
        "sha256sum manifest (the one m.json records; audit not run again)"
    )
    assert (
        "| SHA256SUMS | sha256sum manifest (the one m.json records"
        in (tmp_path / "b" / "REPORT.md").read_text()
    )
    # A forged manifest check (another digest said matched) no longer follows from the files.
    document = json.loads((tmp_path / "m.json").read_text())
    document["manifest"]["matched"] = ["other.whl"]
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = _report(tmp_path, "forged.json", wheel, "SHA256SUMS")
    assert result.exit_code == 2, result.stderr
    assert "forged.json: does not follow from the wheels given with it" in result.stderr


def test_a_document_that_records_no_manifest_digest_says_so(tmp_path: Path) -> None:
    """A document written before audit recorded the manifest still reads, alone, and the bundle
    says the manifest is not recorded; given with its wheel it cannot be run again."""
    wheel, _ = _audited(tmp_path)
    document = json.loads((tmp_path / "m.json").read_text())
    del document["manifest"]["sha256"]
    (tmp_path / "old.json").write_text(json.dumps(document))
    result = _report(tmp_path, "old.json")
    assert result.exit_code == 0, result.stderr
    qualifications = _summary(tmp_path)["qualifications"]
    assert any(q.startswith("manifest not recorded: old.json") for q in qualifications)
    assert "manifest not recorded" in (tmp_path / "b" / "REPORT.md").read_text()
    refused = _report(tmp_path, "old.json", wheel)
    assert refused.exit_code == 2
    assert "old.json: made with --manifest, and the manifest is not recorded" in refused.stderr
    # left68: its manifest given with it read "not a k3diff JSON document".
    for inputs in (("old.json", "SHA256SUMS"), ("old.json", wheel, "SHA256SUMS")):
        refused = _report(tmp_path, *inputs)
        assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert refused.stderr.startswith(
            "k3diff: error: SHA256SUMS: the manifest old.json checked, which it does not record "
            "by SHA-256 (written before k3diff audit recorded it), so it cannot be tied to the "
            "document: give report old.json alone (without its manifest or wheels: judged from "
            "the document), or run `"
        ), refused.stderr
        assert f"audit {wheel} --manifest SHA256SUMS --format json -o old.json` again" in (
            refused.stderr
        )


def test_an_old_document_s_manifest_under_another_name_is_said_to_be_one(tmp_path: Path) -> None:
    """Failed on base69: the manifest given under another file name (`sums.txt`) read "not a
    k3diff JSON document (line 1: Extra data)", which says neither what the file is nor what to
    do."""
    wheel, _ = _audited(tmp_path)
    document = json.loads((tmp_path / "m.json").read_text())
    del document["manifest"]["sha256"]
    (tmp_path / "old.json").write_text(json.dumps(document))
    (tmp_path / "sums.txt").write_bytes((tmp_path / "SHA256SUMS").read_bytes())
    for inputs in (("old.json", "sums.txt"), ("old.json", wheel, "sums.txt")):
        refused = _report(tmp_path, *inputs)
        assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert refused.stderr.startswith(
            "k3diff: error: sums.txt: a SHA-256 manifest old.json does not record (it names the "
            "manifest it checked, SHA256SUMS, without its SHA-256: written before k3diff audit "
            "recorded it), so it cannot be tied to the document: give report old.json alone "
            "(without its manifest or wheels: judged from the document), or run `"
        ), refused.stderr
        assert f"audit {wheel} --manifest sums.txt --format json -o old.json` again" in (
            refused.stderr
        )
        assert "not a k3diff JSON document" not in refused.stderr
