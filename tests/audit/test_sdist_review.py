"""review75d: sdist shapes the first sdist reader passed (exit 0) or hung on.

A symbolic link that resolves through a link written after it, a tar header `tarfile` cannot
read hiding a member other tools extract, and a pax header whose parsing by `tarfile` (Python
before 3.11.10) is quadratic in its size.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import time
from pathlib import Path

import pytest
from cli_support import run_k3diff

from audit.helpers import audit_json, codes
from audit.sdistcraft import PKG_INFO, Member, hardlink, link, tar_bytes


def _sdist(tmp_path: Path, tar: bytes) -> Path:
    path = tmp_path / "demo-1.0.tar.gz"
    path.write_bytes(gzip.compress(tar, mtime=0))
    return path


def _base() -> list[Member]:
    return [Member("demo-1.0/PKG-INFO", PKG_INFO), Member("demo-1.0/setup.py", b"x")]


def test_a_link_through_a_link_written_after_it_fails(tmp_path: Path) -> None:
    # the data filter passes both as pip extracts them; on disk `l` then resolves to the
    # parent of the tree pip unpacks into
    members = [*_base(), link("demo-1.0/d/l", "sub/../.."), link("demo-1.0/d/sub", ".")]
    code, report = audit_json(_sdist(tmp_path, tar_bytes(members)))
    assert (code, codes(report)) == (1, {"A130": 1})
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] == "demo-1.0/d/l" and "demo-1.0/d/sub" in finding["detail"]


def _without_end(members: list[Member]) -> bytes:
    """The tar of `members` without its end-of-archive blocks."""
    tar = tar_bytes(members).rstrip(b"\0")
    return tar + b"\0" * (-len(tar) % tarfile.BLOCKSIZE)


def test_a_header_tarfile_cannot_read_hides_no_member(tmp_path: Path) -> None:
    # GNU tar extracts `evil -> /etc/passwd` (and warns on the uid); tarfile stops at it
    hidden = tarfile.TarInfo("demo-1.0/evil")
    hidden.type, hidden.linkname = tarfile.SYMTYPE, "/etc/passwd"
    header = bytearray(hidden.tobuf(format=tarfile.USTAR_FORMAT))
    header[108:116] = b"zzzzzzz\0"
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % sum(header)
    tar = _without_end(_base()) + bytes(header) + b"\0" * 1024
    code, report = audit_json(_sdist(tmp_path, tar))
    assert (code, codes(report)) == (1, {"A002": 1})


def test_a_tar_cut_inside_a_header_fails(tmp_path: Path) -> None:
    tar = _without_end(_base()) + tarfile.TarInfo("demo-1.0/more.py").tobuf()[:300]
    code, report = audit_json(_sdist(tmp_path, tar))
    assert (code, codes(report)) == (1, {"A002": 1})


def _pax_tar(records: bytes) -> bytes:
    """A tar of one pax extended header holding `records` as written, then PKG-INFO."""
    pax = tarfile.TarInfo("././@PaxHeader")
    pax.type, pax.size = tarfile.XHDTYPE, len(records)
    padding = b"\0" * (-len(records) % tarfile.BLOCKSIZE)
    tail = tar_bytes([Member("demo-1.0/PKG-INFO", PKG_INFO)])
    return pax.tobuf(format=tarfile.USTAR_FORMAT) + records + padding + tail


def _timed_exit_2(path: Path) -> str:
    start = time.monotonic()
    result = run_k3diff("audit", path)
    assert time.monotonic() - start < 10
    assert result.exit_code == 2, result.stdout
    assert result.stderr.count("\n") == 1 and str(path) in result.stderr
    return result.stderr


def test_a_pax_header_of_digits_is_refused_unparsed(tmp_path: Path) -> None:
    # 1 MiB of digits, 1 KB compressed: tarfile of Python 3.11.7 took half an hour on it
    assert "pax header" in _timed_exit_2(_sdist(tmp_path, _pax_tar(b"1" * 1_000_000)))


def test_a_pax_record_with_a_long_run_of_digits_is_refused(tmp_path: Path) -> None:
    info = tarfile.TarInfo("demo-1.0/PKG-INFO")
    info.size = len(PKG_INFO)
    info.pax_headers = {"comment": "1" * 200_000}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(info, io.BytesIO(PKG_INFO))
    assert "digits in a row" in _timed_exit_2(_sdist(tmp_path, buffer.getvalue()))


def test_records_without_their_equals_sign_are_refused(tmp_path: Path) -> None:
    # every record's keyword scanned to the one '=' at the end: quadratic again
    records = b"4 a\n" * 200_000 + b"6 a=b\n"
    assert "pax" in _timed_exit_2(_sdist(tmp_path, _pax_tar(records)))


def test_a_pax_path_record_still_passes(tmp_path: Path) -> None:
    members = [*_base(), Member("demo-1.0/" + "long/" * 30 + "name_2024_01_01.py", b"x")]
    code, report = audit_json(_sdist(tmp_path, tar_bytes(members)))
    assert (code, codes(report)) == (0, {})


def test_a_hard_link_to_a_member_written_after_it_fails(tmp_path: Path) -> None:
    # pip 26 stops with KeyError: tarfile looks for the target among the members before it
    members = [*_base(), hardlink("demo-1.0/h", "demo-1.0/z"), Member("demo-1.0/z", b"z")]
    code, report = audit_json(_sdist(tmp_path, tar_bytes(members)))
    assert (code, codes(report)) == (1, {"A130": 1})


def test_a_hard_link_to_an_earlier_member_passes(tmp_path: Path) -> None:
    members = [*_base(), hardlink("demo-1.0/h", "demo-1.0/setup.py")]
    code, report = audit_json(_sdist(tmp_path, tar_bytes(members)))
    assert (code, codes(report)) == (0, {})


def test_a_dot_above_the_top_directory_fails(tmp_path: Path) -> None:
    # `tar czf demo-1.0.tar.gz ./demo-1.0`: pip strips `.`, then finds no project to build
    members = [Member("./demo-1.0/PKG-INFO", PKG_INFO), Member("./demo-1.0/setup.py", b"x")]
    code, report = audit_json(_sdist(tmp_path, tar_bytes(members)))
    assert (code, codes(report)) == (1, {"A133": 1})


@pytest.mark.parametrize(
    "extra",
    [
        [Member("demo-1.0", b"x")],
        [Member("demo-1.0/a", b"x"), Member("demo-1.0/a/b.py", b"y")],
        [Member("demo-1.0/a/b.py", b"y"), Member("demo-1.0/a", b"x")],
    ],
    ids=["the top directory as a file", "a file then under it", "under a file then the file"],
)
def test_a_file_where_members_need_a_directory_fails(tmp_path: Path, extra: list[Member]) -> None:
    # pip 26 stops with IsADirectoryError or NotADirectoryError on each
    code, report = audit_json(_sdist(tmp_path, tar_bytes([*_base(), *extra])))
    assert (code, codes(report)) == (1, {"A132": 1})


def test_a_member_of_negative_size_fails(tmp_path: Path) -> None:
    # a base-256 size of -1: tarfile lists the member, pip 26 stops ("unexpected end of data")
    header = bytearray(tarfile.TarInfo("demo-1.0/x").tobuf(format=tarfile.GNU_FORMAT))
    header[124:136] = b"\xff" * 12
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % sum(header)
    tar = _without_end(_base()) + bytes(header) + b"\0" * 1024
    code, report = audit_json(_sdist(tmp_path, tar))
    assert (code, codes(report)) == (1, {"A002": 1})
    assert "negative size" in report["artifacts"][0]["findings"][0]["detail"]
