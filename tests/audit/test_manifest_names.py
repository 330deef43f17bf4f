"""Names in manifests as `sha256sum` reads and writes them.

A manifest line whose name is escaped (a leading backslash, as GNU coreutils writes a name
holding a backslash or a newline) is read as `sha256sum -c` reads it: only `\\\\`, `\\n` and
`\\r` escape there, and any other escape, or a trailing backslash, makes the line no sha256sum
line (hunt72: k3diff read `a\\xb` as a name and passed the file `a\\xb`, exit 0, where
`sha256sum -c` fails the manifest)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import run_k3diff

pytestmark = pytest.mark.skipif(shutil.which("sha256sum") is None, reason="needs sha256sum")


@pytest.mark.parametrize("name", ["a\\xb", "a\\", "a\\tb"], ids=["x", "trailing", "tab"])
@pytest.mark.parametrize("tag", [False, True], ids=["plain", "tag"])
def test_an_escape_sha256sum_refuses_is_no_manifest_line(
    tmp_path: Path, name: str, tag: bool
) -> None:
    (tmp_path / name).write_bytes(b"release notes\n")
    digest = hashlib.sha256(b"release notes\n").hexdigest()
    line = f"\\SHA256 ({name}) = {digest}\n" if tag else f"\\{digest}  {name}\n"
    (tmp_path / "SUMS").write_text(line)
    checked = subprocess.run(
        ["sha256sum", "-c", "SUMS"], cwd=tmp_path, capture_output=True, check=False
    )
    assert checked.returncode == 1, checked.stdout  # sha256sum: no properly formatted line
    result = run_k3diff("audit", name, "--manifest", "SUMS", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr == (
        "k3diff: error: SUMS:1: not a sha256sum line: a name escaped with a leading backslash "
        "may hold only \\\\, \\n and \\r escapes, as sha256sum -c reads it\n"
    )


@pytest.mark.parametrize("tag", [False, True], ids=["plain", "tag"])
def test_the_escapes_sha256sum_writes_read_back(tmp_path: Path, tag: bool) -> None:
    name = "notes\\one\nline\r.txt"
    (tmp_path / name).write_bytes(b"release notes\n")
    written = subprocess.run(
        ["sha256sum", *(["--tag"] if tag else []), name],
        cwd=tmp_path, capture_output=True, check=True,
    )  # fmt: skip
    (tmp_path / "SUMS").write_bytes(written.stdout)
    assert written.stdout.startswith(b"\\")
    result = run_k3diff("audit", name, "--manifest", "SUMS", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert (
        "1 matched, 0 mismatched, 0 missing (listed, not audited), 0 extra (audited, not listed)"
        in result.stdout
    )


def test_a_name_that_is_no_utf8_is_refused_before_the_audit(tmp_path: Path) -> None:
    """A file name of bytes that are no UTF-8 cannot go into a manifest k3diff writes (and
    reads) as UTF-8 text: exit 2 naming the file, before any work (hunt72: an internal error
    once the audit had passed)."""
    name = os.fsdecode(b"notes-\xff.txt")
    (tmp_path / name).write_bytes(b"release notes\n")
    (tmp_path / "plain.txt").write_bytes(b"plain\n")
    result = run_k3diff("audit", ".", "--write-manifest", "SUMS", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr == (
        "k3diff: error: notes-\\udcff.txt: the file name is not UTF-8 text, and SUMS is "
        "written (and --manifest read) as UTF-8 text: rename the file\n"
    )
    assert not (tmp_path / "SUMS").exists()
    written = run_k3diff("audit", "plain.txt", "--write-manifest", "SUMS", cwd=tmp_path)
    assert written.exit_code == 0, written.stderr


_NAMES = [
    "a\\b", "a\nb", "a\rb", "a\\nb", "\\", "a\\\\b", " lead", "trail ", "*star", "a  b",
    "x) = y", "tab\tname", "ünï", "a\\r", "end\\", "\\n", "a\r", "b\n", "-dash", "(p)",
]  # fmt: skip


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
@pytest.mark.parametrize("tag", [False, True], ids=["plain", "tag"])
def test_k3diff_reads_what_sha256sum_writes_as_sha256sum_c_does(
    tmp_path: Path, tag: bool, crlf: bool
) -> None:
    """Names with backslashes, newlines, CRs, spaces, stars and parentheses, written by
    `sha256sum` (a line each, CRLF ends too): `audit --manifest` passes exactly where
    `sha256sum -c` does, and the line with its leading backslash dropped or added (review72b:
    checked against coreutils 9.1)."""
    for number, name in enumerate(_NAMES):
        place = tmp_path / str(number)
        place.mkdir()
        (place / name).write_bytes(b"release notes\n")
        written = subprocess.run(
            ["sha256sum", *(["--tag"] if tag else []), "--", name],
            cwd=place, capture_output=True, check=True,
        ).stdout  # fmt: skip
        toggled = written[1:] if written.startswith(b"\\") else b"\\" + written
        for line in (written, toggled):
            (place / "SUMS").write_bytes(line[:-1] + b"\r\n" if crlf else line)
            checked = subprocess.run(["sha256sum", "-c", "SUMS"], cwd=place, capture_output=True)
            result = run_k3diff("audit", "--manifest", "SUMS", "--", name, cwd=place)
            assert (result.exit_code == 0) == (checked.returncode == 0), (name, line, result)
