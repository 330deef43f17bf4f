"""Manifests k3diff writes verify with the real `sha256sum -c`, and ones `sha256sum` writes
(plain or `--tag`) verify with k3diff: mismatched, missing and extra artifacts each fail."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from wheel.rawwheel import write_wheel
from wheelkit import make_wheel

from audit.helpers import audit_json, codes

pytestmark = pytest.mark.skipif(shutil.which("sha256sum") is None, reason="needs sha256sum")


def _release(tmp_path: Path) -> list[str]:
    make_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": b"x = 1\n"})
    make_wheel(tmp_path, "other", "2.0", {"other/__init__.py": b"y = 2\n"})
    (tmp_path / "notes with space.txt").write_text("release notes\n")
    return sorted(p.name for p in tmp_path.iterdir())


def _sha256sum(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sha256sum", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def _audit(cwd: Path, *args: str) -> tuple[int, dict[str, Any]]:
    import json

    result = run_k3diff("audit", *args, "--format", "json", cwd=cwd)
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def test_written_manifest_verifies_with_sha256sum(tmp_path: Path) -> None:
    names = _release(tmp_path)
    code, report = _audit(tmp_path, *names, "--write-manifest", "SHA256SUMS")
    assert code == 0
    assert report["written_manifest"] == "SHA256SUMS"
    checked = _sha256sum(tmp_path, "-c", "SHA256SUMS")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count(": OK") == 3
    (tmp_path / names[0]).write_bytes(b"tampered")
    assert _sha256sum(tmp_path, "-c", "SHA256SUMS").returncode == 1


def test_a_failing_audit_writes_no_manifest_and_says_so(tmp_path: Path) -> None:
    """A manifest pins what was released: never an artifact the audit failed. The run says so
    in one line on stderr; a manifest already there is left as it was."""
    names = _release(tmp_path)
    bad = write_wheel(tmp_path, "bad", "1.0", {"bad/__init__.py": b""}, meta=b"Version: 1.0\n")
    (tmp_path / "SHA256SUMS").write_text("old\n")
    result = run_k3diff(
        "audit", *names, bad.name, "--write-manifest", "SHA256SUMS", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    assert (tmp_path / "SHA256SUMS").read_text() == "old\n"
    assert result.stderr == (
        "k3diff: note: SHA256SUMS not written: the audit failed, and a manifest never pins a "
        "failing artifact (an existing file is left as it was)\n"
    )
    import json

    assert json.loads(result.stdout)["written_manifest"] is None
    written = run_k3diff(
        "audit", *names, bad.name, "--write-manifest", "SHA256SUMS", "-o", "a.txt", cwd=tmp_path
    )  # newuser80b: the note came before the report, scrolled away above a long one
    assert written.stderr.index("report written to a.txt") < written.stderr.index("not written")
    (tmp_path / "SHA256SUMS").unlink()
    passing = run_k3diff("audit", *names, "--write-manifest", "SHA256SUMS", cwd=tmp_path)
    assert passing.exit_code == 0 and (tmp_path / "SHA256SUMS").exists()
    assert "not written" not in passing.stderr


@pytest.mark.parametrize("tag", [False, True], ids=["plain", "tag"])
def test_sha256sum_manifest_verifies(tmp_path: Path, tag: bool) -> None:
    names = _release(tmp_path)
    written = _sha256sum(tmp_path, *(["--tag"] if tag else []), *names)
    (tmp_path / "SUMS").write_text(written.stdout)
    code, report = _audit(tmp_path, *names, "--manifest", "SUMS")
    assert code == 0
    manifest = report["manifest"]
    assert isinstance(manifest, dict)
    assert sorted(manifest["matched"]) == names
    assert manifest["mismatched"] == manifest["missing"] == manifest["extra"] == []


def test_mismatched_missing_and_extra_fail(tmp_path: Path) -> None:
    names = _release(tmp_path)
    demo, notes, other = names
    written = _sha256sum(tmp_path, demo, other)
    (tmp_path / "SUMS").write_text(written.stdout + f"{'0' * 64}  gone-1.0-py3-none-any.whl\n")
    make_wheel(tmp_path, "other", "2.0", {"other/__init__.py": b"y = 3\n"})  # rebuilt: new hash
    code, report = _audit(tmp_path, *names, "--manifest", "SUMS")
    assert code == 1
    assert codes(report) == {"A201": 1, "A202": 1, "A203": 1}
    manifest = report["manifest"]
    assert isinstance(manifest, dict)
    assert [m["name"] for m in manifest["mismatched"]] == [other]
    assert manifest["missing"] == ["gone-1.0-py3-none-any.whl"]
    assert manifest["extra"] == [notes]


def test_manifest_matches_by_file_name(tmp_path: Path) -> None:
    names = _release(tmp_path)
    (tmp_path / "SUMS").write_text(_sha256sum(tmp_path, *names).stdout)
    code, report = audit_json(*(tmp_path / n for n in names), "--manifest", tmp_path / "SUMS")
    assert code == 0
    assert report["manifest"]["missing"] == report["manifest"]["extra"] == []


def test_unreadable_manifest_exits_2(tmp_path: Path) -> None:
    names = _release(tmp_path)
    (tmp_path / "SUMS").write_text("this is not a manifest\n")
    result = run_k3diff("audit", *names, "--manifest", "SUMS", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "SUMS:1: not a sha256sum line" in result.stderr


def test_missing_artifact_exits_2(tmp_path: Path) -> None:
    names = _release(tmp_path)
    result = run_k3diff("audit", *names, "absent.whl", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.strip() == "k3diff: error: absent.whl: no such file"
    (tmp_path / "sub").mkdir()
    missing = run_k3diff("audit", "sub", cwd=tmp_path)  # a directory stands for its files
    assert missing.exit_code == 2
    assert "sub: no files to audit" in missing.stderr


def test_manifest_options_are_exclusive(tmp_path: Path) -> None:
    names = _release(tmp_path)
    result = run_k3diff("audit", *names, "--manifest", "A", "--write-manifest", "B", cwd=tmp_path)
    assert result.exit_code == 2
    assert "not both" in result.stderr


def test_write_manifest_dash_is_refused_not_a_file_named_dash(tmp_path: Path) -> None:
    # Found by the new-user trial: `--write-manifest -` (sha256sum prints to stdout) wrote a
    # file named "-" beside the artifacts; stdout carries the report, so it is refused.
    names = _release(tmp_path)
    result = run_k3diff("audit", *names, "--write-manifest", "-", cwd=tmp_path)
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("k3diff: error: --write-manifest -: ")
    assert not (tmp_path / "-").exists()


def test_write_manifest_never_replaces_an_artifact(tmp_path: Path) -> None:
    names = _release(tmp_path)
    before = (tmp_path / names[0]).read_bytes()
    result = run_k3diff("audit", *names, "--write-manifest", names[0], cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"k3diff: error: --write-manifest {names[0]} is the artifact")
    assert "--output" not in result.stderr
    assert (tmp_path / names[0]).read_bytes() == before


def test_report_never_replaces_a_manifest(tmp_path: Path) -> None:
    names = _release(tmp_path)
    (tmp_path / "SUMS").write_text(_sha256sum(tmp_path, *names).stdout)
    before = (tmp_path / "SUMS").read_text()
    result = run_k3diff("audit", *names, "--manifest", "SUMS", "-o", "SUMS", cwd=tmp_path)
    assert result.exit_code == 2
    assert "--output SUMS is the manifest SUMS" in result.stderr
    assert (tmp_path / "SUMS").read_text() == before
    both = run_k3diff("audit", *names, "--write-manifest", "OUT", "-o", "OUT", cwd=tmp_path)
    assert both.exit_code == 2
    assert "--output OUT is the --write-manifest file OUT" in both.stderr
    assert not (tmp_path / "OUT").exists()


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda path: None, "no such file"),
        (lambda path: path.mkdir(), "is a directory"),
        (lambda path: path.write_bytes(b"\x96\x00 binary"), "not a sha256sum manifest"),
        (
            lambda path: path.write_bytes(f"{'0' * 64}  a.whl\n".encode() + b"\xff\n"),
            "not a sha256sum manifest (line 2 is not UTF-8 text)",
        ),
    ],
    ids=["missing", "directory", "binary", "binary-line-2"],
)
def test_unreadable_manifest_is_one_line_in_one_style(
    tmp_path: Path, make: Callable[[Path], object], problem: str
) -> None:
    names = _release(tmp_path)
    make(tmp_path / "SUMS.whl")
    result = run_k3diff("audit", *names, "--manifest", "SUMS.whl", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"k3diff: error: SUMS.whl: {problem}")
    assert result.stderr.count("\n") == 1
    assert "Errno" not in result.stderr and "codec" not in result.stderr


def test_text_and_markdown_name_the_verdict(tmp_path: Path) -> None:
    names = _release(tmp_path)
    text = run_k3diff("audit", *names, cwd=tmp_path)
    assert text.exit_code == 0
    assert text.stdout.splitlines()[-1] == "OK: 3 artifacts audited, 0 warnings (exit 0)"
    markdown = run_k3diff("audit", *names, "--format", "markdown", cwd=tmp_path)
    assert markdown.stdout.startswith("# k3diff audit")
    assert "`notes with space.txt`" in markdown.stdout


def test_report_bundle_counts_each_audit_finding_once(tmp_path: Path) -> None:
    import json

    names = _release(tmp_path)
    (tmp_path / "SUMS").write_text(f"{'0' * 64}  gone.whl\n")
    make_wheel(
        tmp_path,
        "bad",
        "1.0",
        {"bad/__init__.py": b"x\n"},
        record_overrides={"bad/__init__.py": None},
    )
    bad = "bad-1.0-py3-none-any.whl"
    audited = run_k3diff(
        "audit",
        *names,
        bad,
        "--manifest",
        "SUMS",
        "--format",
        "json",
        "-o",
        "audit.json",
        cwd=tmp_path,
    )
    assert audited.exit_code == 1, audited.stderr
    bundle = run_k3diff("report", "audit.json", "--out", "bundle", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    text = json.dumps(summary, ensure_ascii=False)
    # A105 for bad's file, A202 for gone.whl, A203 for each of the 4 audited artifacts.
    assert "6 findings (1 × A105, 1 × A202, 4 × A203)" in text


def test_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "pipe.whl")
    result = run_k3diff("audit", "pipe.whl", cwd=tmp_path)
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == "k3diff: error: pipe.whl: is a FIFO (named pipe), not a regular artifact; refused"
    )


def test_mismatch_names_the_artifact_as_given_and_the_manifest_line(tmp_path: Path) -> None:
    names = _release(tmp_path)
    demo = names[0]
    listed = f"/opt/wheels/{demo}"
    given = str(Path(tmp_path.name) / demo)  # relative to the parent: not the manifest's path
    (tmp_path / "SUMS").write_text(f"{'0' * 64}  {listed}\n")
    result = run_k3diff(
        "audit", given, "--manifest", tmp_path / "SUMS", "--format", "json", cwd=tmp_path.parent
    )
    assert result.exit_code == 1
    import json

    report = json.loads(result.stdout)
    (a201,) = [f for f in report["findings"] if f["code"] == "A201"]
    assert a201["path"] == given
    assert listed in a201["detail"] and a201["detail"].startswith(f"{tmp_path / 'SUMS'} lists")
    (mismatch,) = report["manifest"]["mismatched"]
    assert mismatch["name"] == listed
    assert mismatch["artifact"] == given
    text = run_k3diff("audit", given, "--manifest", tmp_path / "SUMS", cwd=tmp_path.parent)
    assert text.exit_code == 1
    assert f"A201 {given}: " in text.stdout
    assert f"A201 {listed}" not in text.stdout


def test_entry_count_says_how_many_are_directories(tmp_path: Path) -> None:
    import json
    import zipfile

    names = _release(tmp_path)
    wheel = tmp_path / names[0]
    with zipfile.ZipFile(wheel, "a") as archive:
        for name in ("demo/", "demo/sub/"):
            archive.writestr(zipfile.ZipInfo(name), b"")
    with zipfile.ZipFile(wheel) as archive:
        total = len(archive.infolist())
    result = run_k3diff("audit", names[0], "--format", "json", cwd=tmp_path)
    artifact = json.loads(result.stdout)["artifacts"][0]
    assert (artifact["entry_count"], artifact["directories"]) == (total, 2)
    text = run_k3diff("audit", names[0], cwd=tmp_path)
    assert f", {total} entries (2 directories), sha256" in text.stdout
    markdown = run_k3diff("audit", names[0], "--format", "markdown", cwd=tmp_path)
    assert f"{total} (2 directories)" in markdown.stdout


def test_ignore_missing_checks_a_subset_like_sha256sum(tmp_path: Path) -> None:
    """`--ignore-missing` audits two wheels against the whole release's manifest (as
    `sha256sum --ignore-missing -c`); the unaudited names are listed, a wrong hash still fails,
    and a run that verified nothing fails."""
    names = _release(tmp_path)
    (tmp_path / "SHA256SUMS").write_text(_sha256sum(tmp_path, *names).stdout)
    wheel = next(n for n in names if n.startswith("demo"))
    strict, _ = _audit(tmp_path, wheel, "--manifest", "SHA256SUMS")
    assert strict == 1  # the others are missing
    code, doc = _audit(tmp_path, wheel, "--manifest", "SHA256SUMS", "--ignore-missing")
    assert code == 0, doc
    manifest = doc["manifest"]
    assert manifest["matched"] == [wheel] and manifest["ignore_missing"] is True
    assert len(manifest["missing"]) == len(names) - 1
    assert _sha256sum(tmp_path, "--ignore-missing", "-c", "SHA256SUMS").returncode == 0
    (tmp_path / "unlisted.txt").write_text("x")
    none, doc = _audit(tmp_path, "unlisted.txt", "--manifest", "SHA256SUMS", "--ignore-missing")
    assert none == 1
    assert any("nothing was verified" in f["detail"] for f in doc["findings"])
    usage = run_k3diff("audit", wheel, "--ignore-missing", cwd=tmp_path)
    assert usage.exit_code == 2 and "--ignore-missing applies to --manifest" in usage.stderr


def test_name_and_dot_slash_name_with_two_hashes_is_refused(tmp_path: Path) -> None:
    """sha256sum checks `NAME` and `./NAME` as one file and fails the wrong line; matching one
    line and leaving the other as missing passed the wrong hash under --ignore-missing."""
    wheel = make_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": b"x = 1\n"}).name
    right = _sha256sum(tmp_path, wheel).stdout.split()[0]
    (tmp_path / "SHA256SUMS").write_text(f"{'0' * 64}  {wheel}\n{right}  ./{wheel}\n")
    assert _sha256sum(tmp_path, "--ignore-missing", "-c", "SHA256SUMS").returncode == 1
    result = run_k3diff(
        "audit", wheel, "--manifest", "SHA256SUMS", "--ignore-missing", cwd=tmp_path
    )
    assert result.exit_code == 2
    assert "listed twice with different hashes" in result.stderr
    (tmp_path / "SHA256SUMS").write_text(f"{right}  {wheel}\n{right}  .//{wheel}\n")
    code, doc = _audit(tmp_path, wheel, "--manifest", "SHA256SUMS")
    assert code == 0 and doc["manifest"]["missing"] == []


@pytest.mark.parametrize("separator", ["\u2028", "\x85", "\x0c", "\x1e"])
def test_a_written_manifest_reads_back_whatever_the_name_holds(
    tmp_path: Path, separator: str
) -> None:
    """Lines end at a newline, as sha256sum reads them: a name with a character
    `str.splitlines` breaks at (sha256sum writes it raw) still reads back."""
    folder = tmp_path / f"d{separator}x"
    wheel = make_wheel(folder, "demo", "1.0", {"demo/__init__.py": b"x = 1\n"})
    given = f"{folder.name}/{wheel.name}"
    code, _ = _audit(tmp_path, given, "--write-manifest", "SHA256SUMS")
    assert code == 0
    assert _sha256sum(tmp_path, "-c", "SHA256SUMS").returncode == 0
    code, doc = _audit(tmp_path, given, "--manifest", "SHA256SUMS")
    assert code == 0 and doc["manifest"]["matched"] == [given]
    (tmp_path / "CRLF").write_bytes((tmp_path / "SHA256SUMS").read_bytes().replace(b"\n", b"\r\n"))
    code, doc = _audit(tmp_path, given, "--manifest", "CRLF")
    assert code == 0 and doc["manifest"]["matched"] == [given]


@pytest.mark.parametrize(
    "spelling", ["dist//{}", "dist/./{}", "./dist//./{}", "sub/../dist/{}", "{cwd}/dist/{}"]
)
def test_one_file_under_another_spelling_with_another_hash_is_refused(
    tmp_path: Path, spelling: str
) -> None:
    """`dist//NAME`, `dist/./NAME`, `sub/../dist/NAME` and `$PWD/dist/NAME` are `dist/NAME` to
    sha256sum, which fails the line with the other hash; matching one line and leaving the
    other as missing passed under --ignore-missing."""
    (tmp_path / "sub").mkdir()
    wheel = make_wheel(tmp_path / "dist", "demo", "1.0", {"demo/__init__.py": b"x = 1\n"}).name
    right = _sha256sum(tmp_path, f"dist/{wheel}").stdout.split()[0]
    other = spelling.replace("{cwd}", str(tmp_path)).format(wheel)
    (tmp_path / "SHA256SUMS").write_text(f"{right}  dist/{wheel}\n{'0' * 64}  {other}\n")
    assert _sha256sum(tmp_path, "--ignore-missing", "-c", "SHA256SUMS").returncode == 1
    result = run_k3diff(
        "audit", f"dist/{wheel}", "--manifest", "SHA256SUMS", "--ignore-missing", cwd=tmp_path
    )
    assert result.exit_code == 2, result.stdout
    assert f"{other!r} is listed twice with different hashes" in result.stderr
    (tmp_path / "SHA256SUMS").write_text(f"{right}  {other}\n")
    code, doc = _audit(tmp_path, f"dist/{wheel}", "--manifest", "SHA256SUMS")
    assert code == 0 and doc["manifest"]["matched"] == [other]
