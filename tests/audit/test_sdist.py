"""`k3diff audit` reads a `*.tar.gz` as an sdist, as pip unpacks it and PyPI takes it (sdist75:
any such file was hashed only, so each hostile shape below passed, exit 0).

The gzip stream is read whole (A002: cut short, a failed CRC-32, bytes past its end or past the
tar's end); every member header is judged by `tarfile.data_filter`, which pip unpacks through,
and stricter (A129 paths out of the tree, A130 links, A131 devices and FIFOs, A132 names given
twice, A133 members outside the one top directory); PKG-INFO must be there (A134), name the
file's project and version (A135) and be metadata PyPI takes (A122, as a wheel's METADATA).
"""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from cli_support import run_k3diff

from audit.helpers import audit_json, codes
from audit.sdistcraft import PKG_INFO, Member, hardlink, link, make_sdist, tar_bytes


def _built_sdist(root: Path) -> Path:
    """A real sdist, built offline by setuptools from a tiny project."""
    project = root / "project"
    (project / "demo_pkg").mkdir(parents=True)
    (project / "demo_pkg" / "__init__.py").write_text("x = 1\n")
    (project / "setup.py").write_text(
        'from setuptools import setup\nsetup(name="demo-pkg", version="1.0", '
        'packages=["demo_pkg"])\n'
    )
    subprocess.run(
        [sys.executable, "setup.py", "-q", "sdist", "--dist-dir", str(root / "dist")],
        cwd=project,
        check=True,
        capture_output=True,
    )
    (built,) = (root / "dist").iterdir()
    return built


def test_a_real_sdist_is_read_with_its_members_counted(tmp_path: Path) -> None:
    built = _built_sdist(tmp_path)
    code, report = audit_json(built)
    (artifact,) = report["artifacts"]
    assert artifact["kind"] == "sdist"
    # setuptools before 69.3 names it demo-pkg-1.0.tar.gz, which PyPI refuses since October
    # 2025 (sdist76: a warning, exit 0); nothing else is found
    assert code == 1
    assert [(f["code"], f["severity"]) for f in artifact["findings"]] == [("A137", "error")]
    assert "demo_pkg-1.0.tar.gz" in artifact["findings"][0]["detail"]
    with tarfile.open(built) as tar:
        members = tar.getmembers()
    assert artifact["entry_count"] == len(members)
    assert artifact["directories"] == sum(m.isdir() for m in members)


def test_a_crafted_clean_sdist_passes(tmp_path: Path) -> None:
    code, report = audit_json(make_sdist(tmp_path, [Member("demo-1.0/demo/__init__.py", b"")]))
    assert (code, codes(report)) == (0, {})


HOSTILE = {
    "dot-dot path": ([Member("demo-1.0/../../evil.py", b"x")], {"A129", "A133"}),
    "dot-dot inside the tree": ([Member("demo-1.0/a/../b.py", b"x")], {"A129"}),
    "absolute path": ([Member("/etc/evil.py", b"x")], {"A129", "A133"}),
    "drive letter": ([Member("C:/evil.py", b"x")], {"A129", "A133"}),
    # pip strips demo-1.0/ first: on Windows `C:/evil.py` is then a path on drive C
    "drive letter under the top": ([Member("demo-1.0/C:/evil.py", b"x")], {"A129"}),
    "symlink out": ([link("demo-1.0/l", "../../etc")], {"A130"}),
    "absolute symlink": ([link("demo-1.0/l", "/etc")], {"A130"}),
    # pip strips demo-1.0/ first: `l -> ..` then points above the tree it unpacks into
    "symlink to the top's parent": ([link("demo-1.0/l", "..")], {"A130"}),
    "absolute hardlink": ([hardlink("demo-1.0/h", "/etc/passwd")], {"A130"}),
    "hardlink out": ([hardlink("demo-1.0/h", "../etc/passwd")], {"A130"}),
    "written through a link": (
        [link("demo-1.0/l", "sub"), Member("demo-1.0/l/x.py", b"x")],
        {"A130"},
    ),
    "target through a link": ([link("demo-1.0/a", "sub"), link("demo-1.0/c", "a/../x")], {"A130"}),
    "hardlink to a link": (
        [link("demo-1.0/a", "b"), hardlink("demo-1.0/h", "demo-1.0/a")],
        {"A130"},
    ),
    "character device": ([Member("demo-1.0/d", type=tarfile.CHRTYPE)], {"A131"}),
    "block device": ([Member("demo-1.0/d", type=tarfile.BLKTYPE)], {"A131"}),
    "fifo": ([Member("demo-1.0/f", type=tarfile.FIFOTYPE)], {"A131"}),
    "a name given twice": ([Member("demo-1.0/setup.py", b"import os\n")], {"A132"}),
    "a file where a directory was": (
        [Member("demo-1.0/pkg", type=tarfile.DIRTYPE), Member("demo-1.0/pkg", b"x")],
        {"A132"},
    ),
    "a member beside the top directory": ([Member("other/x.py", b"x")], {"A133"}),
    "a file at the top": ([Member("setup.py", b"x")], {"A133"}),
}


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_each_hostile_member_fails(tmp_path: Path, shape: str) -> None:
    members, expected = HOSTILE[shape]
    code, report = audit_json(make_sdist(tmp_path, members))
    assert code == 1
    assert set(codes(report)) == expected
    failing = {f["code"] for f in report["artifacts"][0]["findings"] if f["severity"] == "error"}
    assert failing == expected


def test_a_directory_listed_twice_passes(tmp_path: Path) -> None:
    twice = [Member("demo-1.0/pkg", type=tarfile.DIRTYPE)] * 2
    code, report = audit_json(make_sdist(tmp_path, twice))
    assert (code, codes(report)) == (0, {})


def test_a_link_to_a_link_inside_the_tree_passes(tmp_path: Path) -> None:
    # libfoo.so -> libfoo.so.1 -> libfoo.so.1.0: each resolves inside where it lies
    members = [
        Member("demo-1.0/lib/libfoo.so.1.0", b"\x7fELF"),
        link("demo-1.0/lib/libfoo.so.1", "libfoo.so.1.0"),
        link("demo-1.0/lib/libfoo.so", "libfoo.so.1"),
    ]
    code, report = audit_json(make_sdist(tmp_path, members))
    assert (code, codes(report)) == (0, {})


def test_a_name_given_twice_says_which_one_pip_builds_from(tmp_path: Path) -> None:
    _, report = audit_json(make_sdist(tmp_path, [link("demo-1.0/setup.py", "other.py")]))
    # docs77: the link setuptools would run is unread, its name and version unchecked (A135)
    (finding,) = [f for f in report["artifacts"][0]["findings"] if f["code"] != "A135"]
    assert finding["code"] == "A132"
    assert "2 members write it" in finding["detail"]
    assert "the last (a symbolic link to 'other.py')" in finding["detail"]


def _damaged(tmp_path: Path, damage: str) -> Path:
    clean = make_sdist(tmp_path).read_bytes()
    if damage == "cut short":
        data = clean[:-20]
    elif damage == "crc":
        flipped = bytearray(clean)
        flipped[-6] ^= 1  # the CRC-32 in the gzip trailer
        data = bytes(flipped)
    elif damage == "bytes after the gzip stream":
        data = clean + b"garbage"
    elif damage == "data after the tar's end":
        data = gzip.compress(gzip.decompress(clean) + b"hidden", mtime=0)
    elif damage == "not gzip":
        data = gzip.decompress(clean)  # a plain tar named .tar.gz
    else:
        data = b"no archive at all\n"
    path = tmp_path / "demo-1.0.tar.gz"
    path.write_bytes(data)
    return path


DAMAGES = (
    "cut short",
    "crc",
    "bytes after the gzip stream",
    "data after the tar's end",
    "not gzip",
    "text",
)


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_stream_fails(tmp_path: Path, damage: str) -> None:
    code, report = audit_json(_damaged(tmp_path, damage))
    assert code == 1
    assert codes(report) == {"A002": 1}


def test_pkg_info_must_name_the_file_s_project_and_version(tmp_path: Path) -> None:
    code, report = audit_json(make_sdist(tmp_path, filename="demo-2.0.tar.gz"))
    assert code == 1
    assert codes(report) == {"A133": 1, "A135": 1}  # the top directory is demo-1.0/ too


def test_names_are_compared_normalised(tmp_path: Path) -> None:
    pkg_info = b"Metadata-Version: 2.1\nName: Demo.Pkg\nVersion: 1.0.0\n"
    path = make_sdist(
        tmp_path, filename="demo_pkg-1.0.tar.gz", pkg_info=pkg_info, top="Demo-Pkg-1.0"
    )
    code, report = audit_json(path)
    assert (code, codes(report)) == (0, {})


@pytest.mark.parametrize("filename", ["Demo-1.0.tar.gz", "demo-01.0.tar.gz", "demo-1.0.TAR.GZ"])
def test_a_file_name_pep_625_spells_otherwise_fails(tmp_path: Path, filename: str) -> None:
    # PyPI refuses each on upload since October 2025 (`Filename 'Demo-1.0.tar.gz' is invalid,
    # should be 'demo-1.0.tar.gz'`); sdist76: a warning, exit 0
    top = filename[: -len(".tar.gz")]
    code, report = audit_json(make_sdist(tmp_path, filename=filename, top=top))
    assert code == 1
    (finding,) = report["artifacts"][0]["findings"]
    assert (finding["code"], finding["severity"]) == ("A137", "error")
    # polish76: the detail said "PyPI refuses" a second time after the title, and quoted
    # PyPI's message as `Filename ... is invalid`; it names the file name to use, once
    assert finding["detail"].startswith("the name to use is demo-1.0.tar.gz, PEP 625's spelling")
    assert "PyPI" not in finding["detail"] and "..." not in finding["detail"]


def test_a_file_name_pep_625_spells_otherwise_is_told_to_rebuild(tmp_path: Path) -> None:
    result = run_k3diff("audit", make_sdist(tmp_path, filename="Demo-1.0.tar.gz", top="Demo-1.0"))
    assert result.exit_code == 1, result.stderr
    (step,) = [line for line in result.stdout.splitlines() if "1 × A137" in line]
    assert "rebuild it with a current build backend" in step and "setuptools 69.3" in step
    # polish76: A137 alone was told the sdist "is not laid out as PEP 625 and PyPI ask (one top
    # directory NAME-VERSION/ …)"; only its file name is wrong, which a rename does not fix
    assert step.startswith("  1 × A137: the sdist's file name is not PEP 625's spelling")
    assert "renaming the file is not enough" in step and "top directory NAME" not in step
    # newuser76: the waiver step called the sdist's A137 "about the wheel as a whole"
    assert "A137, about the sdist as a whole, is waived by" in result.stdout
    assert "wheel" not in result.stdout


def test_a_misnamed_file_with_another_layout_finding_is_told_the_layout(tmp_path: Path) -> None:
    path = make_sdist(tmp_path, filename="Demo-1.0.tar.gz", top="other-1.0")
    result = run_k3diff("audit", path)
    assert result.exit_code == 1, result.stderr
    (step,) = [line for line in result.stdout.splitlines() if "× A137" in line]
    assert "A133" in step and "not laid out as PEP 625 and PyPI ask" in step


@pytest.mark.parametrize(
    ("pkg_info", "expected"),
    [
        (None, {"A134": 1}),
        (b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n\xff\n", {"A134": 1}),
        (b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: ][\n", {"A122": 1}),
    ],
    ids=["missing", "not utf-8", "refused by PyPI"],
)
def test_pkg_info_is_read(tmp_path: Path, pkg_info: bytes | None, expected: dict[str, int]) -> None:
    code, report = audit_json(make_sdist(tmp_path, pkg_info=pkg_info))
    assert (code, codes(report)) == (1, expected)


def test_refused_pkg_info_is_fixed_by_rebuilding_the_sdist(tmp_path: Path) -> None:
    """newuser75: attrs 24.2.0's sdist (License-Expression under Metadata-Version 2.3) was told
    to rebuild with `python -m build --wheel`, which writes no sdist."""
    pkg_info = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: ][\n"
    result = run_k3diff("audit", str(make_sdist(tmp_path, pkg_info=pkg_info)))
    assert result.exit_code == 1, result.stderr
    (step,) = [line for line in result.stdout.splitlines() if "1 × A122" in line]
    assert "rebuild (python -m build --sdist)" in step
    assert "--wheel" not in step
    (finding,) = [line for line in result.stdout.splitlines() if line.startswith("  A122 ")]
    assert finding.endswith(
        "(PyPI and twine refuse it on upload today; files uploaded before are still served)"
    )


def test_a_pkg_info_that_is_a_link_is_no_pkg_info(tmp_path: Path) -> None:
    members = [link("demo-1.0/PKG-INFO", "setup.py")]
    code, report = audit_json(make_sdist(tmp_path, members, pkg_info=None))
    assert (code, codes(report)) == (1, {"A134": 1})


@pytest.mark.parametrize("suffix", [".zip", ".tar.bz2", ".tar.xz", ".tgz", ".tar"])
def test_other_source_archives_are_named_not_read(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"demo-1.0{suffix}"
    path.write_bytes(b"anything")
    code, report = audit_json(path)
    assert code == 1
    (artifact,) = report["artifacts"]
    assert artifact["kind"] == "file"
    assert codes(report) == {"A136": 1}


def test_a_pax_header_over_the_cap_is_exit_2(tmp_path: Path) -> None:
    info = tarfile.TarInfo("demo-1.0/PKG-INFO")
    info.size = len(PKG_INFO)
    info.pax_headers = {"comment": "x" * (2 << 20)}
    path = tmp_path / "demo-1.0.tar.gz"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(info, io.BytesIO(PKG_INFO))
    result = run_k3diff("audit", path)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert str(path) in result.stderr and "cap" in result.stderr


def test_a_compression_bomb_is_not_read_through(tmp_path: Path) -> None:
    zeros = Member("demo-1.0/zeros", b"\0" * (80 << 20))
    path = tmp_path / "demo-1.0.tar.gz"
    path.write_bytes(gzip.compress(tar_bytes([Member("demo-1.0/PKG-INFO", PKG_INFO), zeros]), 9))
    code, report = audit_json(path)
    assert code == 1
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["code"] == "A002" and "compression bomb" in finding["detail"]


def test_report_takes_an_audit_of_a_hostile_sdist(tmp_path: Path) -> None:
    sdist = make_sdist(tmp_path, [link("demo-1.0/l", "/etc")])
    document = tmp_path / "audit.json"
    assert run_k3diff("audit", sdist, "--format", "json", "--output", document).exit_code == 1
    result = run_k3diff("report", document, "--out", tmp_path / "bundle")
    assert result.exit_code == 1, result.stderr
    assert "A130" in (tmp_path / "bundle" / "REPORT.md").read_text()


def test_a_waiver_does_not_take_a_link_out_of_the_tree(tmp_path: Path) -> None:
    sdist = make_sdist(tmp_path, [link("demo-1.0/l", "/etc")])
    waivers = tmp_path / "waivers.toml"
    waivers.write_text(
        '[[waiver]]\ncode = "A130"\npath = "demo-1.0/l"\nartifact = "demo-1.0.tar.gz"\n'
        'reason = "reviewed by the release team"\n'
    )
    result = run_k3diff("audit", sdist, "--waivers", waivers)
    assert result.exit_code == 2
    assert "A130 (sdist link" in result.stderr and "cannot be waived" in result.stderr


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_every_member_pip_refuses_fails_the_audit(tmp_path: Path, shape: str) -> None:
    """pip's own unpacker on the same file (pip 26, `tarfile.data_filter` on this Python): each
    member it refuses is a failing finding, never a pass."""
    unpacking = pytest.importorskip("pip._internal.utils.unpacking")
    exceptions = pytest.importorskip("pip._internal.exceptions")
    sdist = make_sdist(tmp_path, HOSTILE[shape][0])
    try:
        unpacking.untar_file(str(sdist), str(tmp_path / "unpacked"))
    except (exceptions.InstallationError, OSError):
        refused = True
    else:
        refused = False
    code, _ = audit_json(sdist)
    assert code == 1 or not refused
