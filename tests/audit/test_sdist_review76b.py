"""review76b: shapes the sdist76 checks passed, or crashed on.

A zip end record whose ZIP64 locator names several disks (`zipfile.is_zipfile` raises
`BadZipFile` there, so pip's unpacking stops; the audit's polyglot check did too: an internal
error, exit 2), and a `pyproject.toml` naming another project that A135 did not read: written
with bare CRs (pip, hatchling and flit-core read it as text, universal newlines), a hard link
to another member, or over 16 MiB (exit 0).
"""

from __future__ import annotations

import gzip
import struct
import tarfile
from pathlib import Path

import pytest
from cli_support import run_k3diff

from audit.helpers import audit_json, codes
from audit.sdistcraft import PKG_INFO, Member, hardlink, link, make_sdist, tar_bytes

_FEXTRA = 0x04
_OTHER = b'[project]\nname = "other"\nversion = "2.0"\n'
_END = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0, 0, 0, 0, 0)
_SEVERAL_DISKS = struct.pack("<4sLQL", b"PK\x06\x07", 0, 0, 2)


def _with_extra(tmp_path: Path, extra: bytes) -> Path:
    """demo-1.0.tar.gz, sound but for its gzip header's FEXTRA field holding `extra`."""
    body = gzip.compress(tar_bytes([Member("demo-1.0/PKG-INFO", PKG_INFO)]), mtime=0)
    header = body[:3] + bytes([body[3] | _FEXTRA]) + body[4:10]
    path = tmp_path / "demo-1.0.tar.gz"
    path.write_bytes(header + struct.pack("<H", len(extra)) + extra + body[10:])
    return path


@pytest.mark.parametrize(
    ("extra", "said"),
    [(_SEVERAL_DISKS + _END, "refuses it (zipfiles that span"), (_END, "as a zip archive too")],
    ids=["zip64-several-disks", "zip-end-record"],
)
def test_a_zip_end_record_in_a_gzip_header_fails(tmp_path: Path, extra: bytes, said: str) -> None:
    code, report = audit_json(_with_extra(tmp_path, extra))
    assert (code, codes(report)) == (1, {"A002": 1})
    assert said in report["artifacts"][0]["findings"][0]["detail"]


def test_a_gzip_extra_field_without_a_zip_end_record_passes(tmp_path: Path) -> None:
    assert audit_json(_with_extra(tmp_path, b"AC\x04\x00k3df"))[0] == 0


@pytest.mark.parametrize(
    ("members", "said"),
    [
        ([Member("demo-1.0/pyproject.toml", _OTHER.replace(b"\n", b"\r"))], "says 'other' '2.0'"),
        (
            [
                Member("demo-1.0/x.toml", _OTHER),
                hardlink("demo-1.0/pyproject.toml", "demo-1.0/x.toml"),
            ],
            "pyproject.toml is not a regular file",
        ),
        (
            [Member("demo-1.0/pyproject.toml", _OTHER + b"#" * (17 << 20) + b"\n")],
            "pyproject.toml of 17,825,834 bytes, over k3diff's cap",
        ),
    ],
    ids=["bare-cr", "hard-link", "over-16-mib"],
)
def test_a_pyproject_naming_another_project_unread_fails(
    tmp_path: Path, members: list[Member], said: str
) -> None:
    code, report = audit_json(make_sdist(tmp_path, members))
    assert (code, codes(report)) == (1, {"A135": 1})
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] == "demo-1.0/pyproject.toml"
    assert said in finding["detail"]


def test_a_pyproject_with_crlf_naming_the_project_passes(tmp_path: Path) -> None:
    ours = b'[project]\r\nname = "demo"\r\nversion = "1.0"\r\n'
    members = [Member("demo-1.0/pyproject.toml", ours, tarfile.REGTYPE)]
    assert audit_json(make_sdist(tmp_path, members))[0] == 0


def _members_after(tmp_path: Path, member: bytes, count: int) -> Path:
    """demo-1.0.tar.gz, its tar in one gzip member, then `count` copies of `member`."""
    body = gzip.compress(tar_bytes([Member("demo-1.0/PKG-INFO", PKG_INFO)]), mtime=0)
    path = tmp_path / "demo-1.0.tar.gz"
    path.write_bytes(body + member * count)
    return path


_EMPTY = gzip.compress(b"", mtime=0)
_COMMENTED = _EMPTY[:3] + bytes([_EMPTY[3] | 0x10]) + _EMPTY[4:10] + b"A" * 60_000 + b"\0"


@pytest.mark.parametrize(
    ("member", "count"),
    [(_COMMENTED + _EMPTY[10:], 60), (_EMPTY, 200_000)],
    ids=["comments-under-64-kib", "empty-members"],
)
def test_megabytes_of_gzip_inflating_to_nothing_fail(
    tmp_path: Path, member: bytes, count: int
) -> None:
    # sdist76 capped one run of one-byte reads: 60 KiB comments, or empty members, passed
    # (18 MB of comments: 12 s, exit 0)
    code, report = audit_json(_members_after(tmp_path, member, count))
    assert (code, codes(report)) == (1, {"A002": 1})
    detail = report["artifacts"][0]["findings"][0]["detail"]
    assert "over 1,048,576 bytes of the gzip file past what its tar inflates to" in detail


def test_a_few_empty_gzip_members_pass(tmp_path: Path) -> None:
    assert audit_json(_members_after(tmp_path, _EMPTY, 1000))[0] == 0


def test_a_pyproject_nested_past_tomllib_exits_2_naming_the_file(tmp_path: Path) -> None:
    nested = b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n" + _OTHER
    path = make_sdist(tmp_path, [Member("demo-1.0/pyproject.toml", nested)])
    result = run_k3diff("audit", str(path))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert f"{path}: demo-1.0/pyproject.toml is nested too deeply for tomllib" in result.stderr


@pytest.mark.parametrize(
    ("members", "path", "said"),
    [
        (
            [Member("demo-1.0/x.toml", _OTHER), link("demo-1.0/pyproject.toml", "x.toml")],
            "demo-1.0/pyproject.toml",
            "pyproject.toml is not a regular file",
        ),
        (
            [Member("demo-1.0/PyProject.toml", _OTHER)],
            "demo-1.0/PyProject.toml",
            "pip finds this name as pyproject.toml on macOS and Windows",
        ),
    ],
    ids=["symbolic-link", "case"],
)
def test_a_pyproject_pip_finds_otherwise_fails(
    tmp_path: Path, members: list[Member], path: str, said: str
) -> None:
    code, report = audit_json(make_sdist(tmp_path, members))
    assert (code, codes(report)) == (1, {"A135": 1})
    (finding,) = report["artifacts"][0]["findings"]
    assert (finding["path"], said in finding["detail"]) == (path, True)


def test_a_pyproject_alike_but_for_case_naming_the_project_passes(tmp_path: Path) -> None:
    ours = Member("demo-1.0/PyProject.toml", b'[project]\nname = "demo"\nversion = "1.0"\n')
    assert audit_json(make_sdist(tmp_path, [ours]))[0] == 0
