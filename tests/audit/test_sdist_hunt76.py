"""sdist76: sdist shapes the sdist reader passed, exit 0.

A gzip header's file name or comment of megabytes (`gzip` reads it a byte at a time: 20 MB took
3 s, in pip as in the audit), names that are one file on macOS or Windows (`pkg/Mod.py` beside
`pkg/mod.py`, NFC beside NFD), and a `pyproject.toml` naming another project or version than
the file and its PKG-INFO (pip builds what pyproject.toml names; `pip install demo` from an
index then refuses the sdist as inconsistent).
"""

from __future__ import annotations

import gzip
import tarfile
import time
import unicodedata
from pathlib import Path

import pytest

from audit.helpers import audit_json, codes
from audit.sdistcraft import PKG_INFO, Member, make_sdist, tar_bytes

_FNAME, _FCOMMENT = 0x08, 0x10


def _with_field(tmp_path: Path, flag: int, field: bytes) -> Path:
    """demo-1.0.tar.gz whose gzip header holds `field` (NUL-terminated) under `flag`."""
    body = gzip.compress(tar_bytes([Member("demo-1.0/PKG-INFO", PKG_INFO)]), mtime=0)
    header = body[:3] + bytes([body[3] | flag]) + body[4:10]
    path = tmp_path / "demo-1.0.tar.gz"
    path.write_bytes(header + field + b"\0" + body[10:])
    return path


@pytest.mark.parametrize("flag", [_FNAME, _FCOMMENT], ids=["fname", "fcomment"])
def test_a_megabyte_gzip_header_field_fails_unread(tmp_path: Path, flag: int) -> None:
    start = time.monotonic()
    code, report = audit_json(_with_field(tmp_path, flag, b"A" * (4 << 20)))
    assert time.monotonic() - start < 10  # 4 MiB read a byte at a time took about 0.8 s
    assert (code, codes(report)) == (1, {"A002": 1})
    detail = report["artifacts"][0]["findings"][0]["detail"]
    assert "over 65,536 bytes of a gzip header's file name or comment" in detail


def test_a_file_name_in_the_gzip_header_passes(tmp_path: Path) -> None:
    # gzip and tarfile write the archive's name there: no finding
    code, report = audit_json(_with_field(tmp_path, _FNAME, b"demo-1.0.tar" + b"x" * 4000))
    assert (code, codes(report)) == (0, {})


def test_megabytes_of_nuls_after_the_gzip_stream_fail(tmp_path: Path) -> None:
    path = make_sdist(tmp_path)
    path.write_bytes(path.read_bytes() + b"\0" * (1 << 20))
    code, report = audit_json(path)
    assert (code, codes(report)) == (1, {"A002": 1})
    assert "NULs after a gzip member" in report["artifacts"][0]["findings"][0]["detail"]


@pytest.mark.parametrize(
    ("first", "second", "where"),
    [
        ("demo-1.0/pkg/mod.py", "demo-1.0/pkg/Mod.py", "case-insensitive file systems"),
        ("demo-1.0/PKG/util.py", "demo-1.0/pkg/util.py", "case-insensitive file systems"),
        (
            unicodedata.normalize("NFC", "demo-1.0/pkg/caf\u00e9.py"),
            unicodedata.normalize("NFD", "demo-1.0/pkg/caf\u00e9.py"),
            "on macOS",
        ),
        ("demo-1.0/pkg/mod.py", "demo-1.0/pkg/mod.py.", "on Windows"),
    ],
    ids=["case", "case-directory", "nfc-nfd", "trailing-dot"],
)
def test_names_one_file_on_macos_or_windows_fail(
    tmp_path: Path, first: str, second: str, where: str
) -> None:
    members = [Member(first, b"a = 1\n"), Member(second, b"a = 2\n")]
    code, report = audit_json(make_sdist(tmp_path, members))
    assert (code, codes(report)) == (1, {"A132": 1})
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] == second  # the last written: what pip builds from there
    assert f"{first!r}, {second!r} are one file" in finding["detail"]
    assert where in finding["detail"]


def test_directories_alike_but_for_case_pass(tmp_path: Path) -> None:
    # a directory given twice in two cases is one directory: nothing is lost
    members = [
        Member("demo-1.0/pkg", type=b"5"),
        Member("demo-1.0/PKG", type=b"5"),
        Member("demo-1.0/pkg/a.py", b"a = 1\n"),
        Member("demo-1.0/PKG/b.py", b"b = 1\n"),
    ]
    code, report = audit_json(make_sdist(tmp_path, members))
    assert (code, codes(report)) == (0, {})


def _pyproject(project: str) -> Member:
    return Member(
        "demo-1.0/pyproject.toml",
        b'[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        + b"[project]\n"
        + project.encode(),
    )


@pytest.mark.parametrize(
    ("project", "said"),
    [
        ('name = "other"\nversion = "1.0"\n', "says 'other' '1.0'"),
        ('name = "demo"\nversion = "2.0"\n', "says 'demo' '2.0'"),
        ('name = "demo"\nversion = 1\n', "says 'demo' 1"),
    ],
    ids=["name", "version", "not-text"],
)
def test_pyproject_naming_another_project_fails(tmp_path: Path, project: str, said: str) -> None:
    code, report = audit_json(make_sdist(tmp_path, [_pyproject(project)]))
    assert (code, codes(report)) == (1, {"A135": 1})
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] == "demo-1.0/pyproject.toml"
    assert said in finding["detail"] and "pip install demo" in finding["detail"]


@pytest.mark.parametrize(
    "project",
    [
        'name = "Demo"\nversion = "1.0.0"\n',  # normalised alike: PEP 503 name, PEP 440 version
        'name = "demo"\ndynamic = ["version"]\n',
    ],
    ids=["normalised", "dynamic-version"],
)
def test_pyproject_naming_the_file_s_project_passes(tmp_path: Path, project: str) -> None:
    code, report = audit_json(make_sdist(tmp_path, [_pyproject(project)]))
    assert (code, codes(report)) == (0, {})


def _sparse_sdist(tmp_path: Path) -> Path:
    """demo-1.0.tar.gz holding `demo-1.0/big.py` as a GNU sparse member (tarfile writes none)."""
    tar = tar_bytes([Member("demo-1.0/PKG-INFO", PKG_INFO)]).rstrip(b"\0")
    sparse = tarfile.TarInfo("demo-1.0/big.py")
    sparse.type = tarfile.GNUTYPE_SPARSE
    tar += b"\0" * (-len(tar) % tarfile.BLOCKSIZE) + sparse.tobuf(format=tarfile.GNU_FORMAT)
    path = tmp_path / "demo-1.0.tar.gz"
    path.write_bytes(gzip.compress(tar + b"\0" * 1024, mtime=0))
    return path


def test_a_sparse_member_fails(tmp_path: Path) -> None:
    # pip 26 unpacks it; PyPI refuses it (`Sparse members are not allowed`)
    code, report = audit_json(_sparse_sdist(tmp_path))
    assert (code, codes(report)) == (1, {"A131": 1})
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] == "demo-1.0/big.py" and "PyPI refuses" in finding["detail"]


_LICENSED = PKG_INFO.replace(b"2.1", b"2.4") + b"License-File: LICENSE\n"


def test_a_license_file_the_sdist_lacks_fails(tmp_path: Path) -> None:
    # PyPI refuses the upload: `License-File LICENSE does not exist in distribution file`
    code, report = audit_json(make_sdist(tmp_path, pkg_info=_LICENSED))
    assert (code, codes(report)) == (1, {"A122": 1})
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] == "demo-1.0/PKG-INFO"
    assert "'LICENSE' names demo-1.0/LICENSE, which the sdist does not hold" in finding["detail"]


@pytest.mark.parametrize(
    ("pkg_info", "members"),
    [
        (_LICENSED, [Member("demo-1.0/LICENSE", b"MIT\n")]),
        (PKG_INFO + b"License-File: LICENSE\n", []),  # before 2.4: twine drops it on upload
    ],
    ids=["held", "metadata-2.1"],
)
def test_a_license_file_pypi_finds_or_never_reads_passes(
    tmp_path: Path, pkg_info: bytes, members: list[Member]
) -> None:
    code, report = audit_json(make_sdist(tmp_path, members, pkg_info=pkg_info))
    assert (code, codes(report)) == (0, {})


def _zip_too(comment_length: int) -> bytes:
    """demo-1.0.tar.gz, stored (gzip level 0), holding a zip end record whose comment runs
    `comment_length` bytes on."""
    end = b"PK\x05\x06" + b"\0" * 16 + comment_length.to_bytes(2, "little")
    members = [Member("demo-1.0/PKG-INFO", PKG_INFO), Member("demo-1.0/zip.bin", end)]
    return gzip.compress(tar_bytes(members), compresslevel=0, mtime=0)


def test_an_sdist_that_is_a_zip_too_fails(tmp_path: Path) -> None:
    # PyPI refuses it (`File is both a zip and a tar file`); pip unzips a download the index
    # serves as application/zip
    first = _zip_too(0)
    comment = len(first) - first.rfind(b"PK\x05\x06") - 22  # to the end of the file
    path = tmp_path / "demo-1.0.tar.gz"
    path.write_bytes(_zip_too(comment))
    code, report = audit_json(path)
    assert (code, codes(report)) == (1, {"A002": 1})
    assert "reads as a zip archive too" in report["artifacts"][0]["findings"][0]["detail"]
