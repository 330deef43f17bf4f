"""Tables read where the loader reads them, and paths the loader opens unsearched (review76g).

glibc maps each PT_LOAD in turn, MAP_FIXED, a page at least: a later PT_LOAD whose pages
overlap an earlier one's replaces its bytes. k3diff took an address's bytes from the first
PT_LOAD holding it, so a second PT_LOAD over the first page showed the loader a RUNPATH of
/tmp where k3diff read `$ORIGIN/...`: `audit` and `wheels --allow-native-changes` passed, exit 0.
PT_LOAD pages shared from different file places (no linker writes them) are unreadable now:
A116 (fails), W632 "search paths unchecked" (W713 under `--explain`)."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

from wheel.test_installed_view import audit_code, codes, wheels_json

from audit.test_rpath_hijack import demo_wheel, library
from audit.test_rpath_loader_reads import (
    ALLOW,
    EXPLAIN,
    PLANTED,
    USES,
    _helper,
    _loads_planted,
    _user,
)

PAGE = 0x1000


def _headers(data: bytes | bytearray) -> list[tuple[int, ...]]:
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    return [struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize) for i in range(phnum)]


def _overlaid(data: bytes, benign: str, hostile: str) -> bytes:
    """A second PT_LOAD (in place of a PT_NOTE) mapping, over the first one's page, a copy of
    it whose RUNPATH string reads `hostile` instead of `benign`."""
    headers = _headers(data)
    first = next(h for h in headers if h[0] == 1)
    note = next(h for h in headers if h[0] == 4)
    at = (len(data) + PAGE - 1) // PAGE * PAGE
    evil = (1, 4, at, first[3], first[4], first[5], first[6], PAGE)
    rest = [h for h in headers if h is not first and h is not note]
    ordered = [first, evil, *rest]
    patched = bytearray(data) + bytes(at - len(data))
    phoff = struct.unpack_from("<Q", data, 32)[0]
    for index, header in enumerate(ordered):
        struct.pack_into("<IIQQQQQQ", patched, phoff + index * 56, *header)
    page = bytearray(patched[first[2] : first[2] + first[5]])
    where = page.index(benign.encode() + b"\0")
    page[where : where + len(benign)] = hostile.encode().ljust(len(benign), b"\0")
    return bytes(patched + page)


def assert_unreadable(tmp_path: Path, data: bytes) -> None:
    """A wheel holding `data` fails `audit` (A116 alone) and, as a changed native,
    `wheels --allow-native-changes` with or without `--explain` (W632; W713 under `--explain`)."""
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": data})
    assert audit_code(wheel) == (1, {"A116"})
    base = demo_wheel(tmp_path / "b", "0.9", {"demo/_ext.so": library(tmp_path / "p", None)})
    for options in (ALLOW, EXPLAIN):
        exit_code, report = wheels_json(base, wheel, *options)
        found = codes(report) & {"W632", "W713"}  # --explain: its reading unchecked, W713
        assert exit_code == 1 and found, (options, report["findings"])


def test_a_later_load_segment_over_the_first_is_not_read_past(tmp_path: Path) -> None:
    planted = tmp_path / "planted"  # under /tmp: world-writable
    helper = _helper(planted)
    benign = "$ORIGIN/" + "a" * (len(str(planted)) - 8)
    data = _overlaid(_user(tmp_path, benign, helper), benign, str(planted))
    trace = _loads_planted(data, tmp_path)  # glibc: the later PT_LOAD's page, RUNPATH = planted
    assert f"trying file={planted}/libhelper.so" in trace
    assert_unreadable(tmp_path, data)


def _nameless_helper(tmp_path: Path) -> Path:
    """`planted/libh.so` under /tmp, no DT_SONAME, whose constructor says it ran."""
    (tmp_path / "planted").mkdir()
    (tmp_path / "h.c").write_text(PLANTED)
    helper = tmp_path / "planted" / "libh.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-o", str(helper), str(tmp_path / "h.c")],
        check=True,
        capture_output=True,
    )
    return helper


def test_a_needed_path_under_tmp_fails(tmp_path: Path) -> None:
    """A library linked by path against one without DT_SONAME records NEEDED `/tmp/.../libh.so`:
    glibc opens that path, searching nothing, and runs what another party planted there;
    `audit` and `wheels --allow-native-changes` (with `--explain` too) passed it, exit 0."""
    helper = _nameless_helper(tmp_path)
    (tmp_path / "m.c").write_text(USES)
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            "-o",
            str(tmp_path / "m.so"),
            str(tmp_path / "m.c"),
            str(helper),
        ],
        check=True,
        capture_output=True,
    )
    data = (tmp_path / "m.so").read_bytes()
    _loads_planted(data, tmp_path)  # glibc opens the NEEDED path itself
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": data})
    assert audit_code(wheel) == (1, {"A139"})
    base = demo_wheel(tmp_path / "b", "0.9", {"demo/_ext.so": library(tmp_path / "p", None)})
    for options in (ALLOW, EXPLAIN):
        exit_code, report = wheels_json(base, wheel, *options)
        (finding,) = (f for f in report["findings"] if f["code"] == "W632")
        assert exit_code == 1 and finding["detail"].startswith("NEEDED '/tmp/"), options


def test_an_auxiliary_filtee_under_tmp_fails(tmp_path: Path) -> None:
    """`-Wl,-f,/tmp/.../libh.so` writes DT_AUXILIARY: glibc opens that path when the library
    loads, runs what was planted there, and ignores it when absent (no trace); `audit` and
    `wheels --allow-native-changes` passed it, exit 0. DT_FILTER (`-F`) alike."""
    helper = _nameless_helper(tmp_path)
    for flag in ("-f", "-F"):
        data = library(tmp_path / flag, None, links=(f"-Wl,{flag},{helper}",))
        _loads_planted(data, tmp_path)
        wheel = demo_wheel(tmp_path / f"w{flag}", "1.0", {"demo/_ext.so": data})
        assert audit_code(wheel) == (1, {"A139"}), flag
        base = demo_wheel(tmp_path / "b", "0.9", {"demo/_ext.so": library(tmp_path / "p", None)})
        for options in (ALLOW, EXPLAIN):
            exit_code, report = wheels_json(base, wheel, *options)
            (finding,) = (f for f in report["findings"] if f["code"] == "W632")
            assert exit_code == 1 and finding["detail"].startswith("FILTEE '/tmp/"), options


def test_load_maps_the_loader_reads_alike_pass_and_others_are_refused() -> None:
    """Real layouts pass (gcc's separate-code, old binutils' 2 MiB shift, segments sharing a
    page at one shift); a page mapped from elsewhere, out-of-order segments, and overlapping
    ranges at one shift (the later bss zeroed over the earlier's bytes) are refused."""
    from k3diff.native.loadmap import loads_disagree

    gcc = [(0, 0, 0x5A0, 0x5A0), (0x1000, 0x1000, 0x200, 0x200), (0x2E10, 0x3E10, 0x300, 0x300)]
    assert loads_disagree(gcc, PAGE) is None
    assert loads_disagree([(0, 0, 0x7AC, 0x7AC), (0xE10, 0x200E10, 0x300, 0x300)], PAGE) is None
    assert loads_disagree([(0, 0, 0x800, 0x800), (0x900, 0x900, 0x2000, 0x2000)], PAGE) is None
    assert loads_disagree([(0, 0, 0x5A0, 0x5A0), (0x5000, 0, 0x5A0, 0x5A0)], PAGE) is not None
    assert loads_disagree([(0x2000, 0x2000, 0x100, 0x100), (0, 0, 0x100, 0x100)], PAGE) is not None
    assert loads_disagree([(0, 0, 0x800, 0x800), (0x400, 0x400, 0x2000, 0x2000)], PAGE) is not None
    # review78d: p_memsz 0 (or below p_filesz) is no empty segment: glibc maps its file bytes
    assert loads_disagree([(0, 0, 0x5A0, 0x5A0), (0x5000, 0, 0x5A0, 0)], PAGE) is not None
    assert loads_disagree([(0, 0, 0x5A0, 0x5A0), (0x1000, 0x1000, 0, 0)], PAGE) is None
