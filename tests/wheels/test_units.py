"""Direct tests of the small decisions the wheels verdict rests on: the policy, pairing by path
and by normalised key, and the one magic sniffer."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import wheelkit

from k3diff.native.sniff import SNIFF_BYTES, Magic, is_native_magic, sniff_magic
from k3diff.paths import normalized_key
from k3diff.wheel.codes import (
    AUDIT_CODES,
    FAILING_BY_DEFAULT,
    NATIVE_CODES,
    WHEELS_CODES,
    Code,
    Finding,
    Severity,
    parse_codes,
)
from k3diff.wheel.kinds import EntryKind, kind_from_path
from k3diff.wheel.policy import AUDIT_POLICY, Policy
from k3diff.wheels.pairing import pair_entries
from k3diff.zip.archive import ZipArchive


def test_default_policy_reports_everything_and_fails_native_changes() -> None:
    policy = Policy()
    assert all(policy.reports(code) for code in Code)
    assert policy.fails(Code.W101) and policy.fails(Code.W302)
    assert not policy.fails(Code.W201)


def test_allow_native_changes_relaxes_only_native_codes() -> None:
    policy = Policy(allow_native_changes=True)
    assert not any(policy.fails(code) for code in NATIVE_CODES)
    assert all(policy.fails(code) for code in FAILING_BY_DEFAULT - NATIVE_CODES)


def test_ignore_wins_over_select_and_dropped_findings_are_not_kept() -> None:
    policy = Policy(select=parse_codes(["W1"]), ignore=parse_codes(["W102"]))
    assert policy.reports(Code.W101) and not policy.reports(Code.W102)
    assert not policy.reports(Code.W201)
    gone, changed = Finding(Code.W102, "a.so", "gone"), Finding(Code.W101, "a.so", "changed")
    assert policy.kept([gone, changed]) == (changed,)
    assert policy.failing([gone, changed]) == (changed,)
    assert policy.severity(Code.W101) is Severity.ERROR
    assert policy.severity(Code.W201) is Severity.INFO


def test_parse_codes_takes_families_and_refuses_unknown_codes() -> None:
    assert parse_codes(["w6, W101"]) >= {Code.W601, Code.W606, Code.W101}
    with pytest.raises(ValueError, match="W999"):
        parse_codes(["W999"])
    # A codes are audit's only: `wheels --select A1` could never fire, so it is refused.
    with pytest.raises(ValueError, match="A1"):
        parse_codes(["A1"])
    assert parse_codes(["A1"], family=AUDIT_CODES) == {c for c in Code if c.name[:2] == "A1"}


def test_one_code_family_keeps_every_code_and_message() -> None:
    assert [c.name for c in WHEELS_CODES + AUDIT_CODES] == [c.name for c in Code]
    assert len(Code) == len(Code.__members__)  # no code an alias of another
    assert len({Code.A112, Code.W618}) == 2 and Code.A112.message == Code.W618.message
    assert Code.A112.message == "RECORD lists a path more than once"
    assert Code.W608.message == "duplicate entry name"


def test_audit_policy_fails_every_code_but_the_five_warnings() -> None:
    passing = {code for code in AUDIT_CODES if not AUDIT_POLICY.fails(code)}
    warnings = {Code.A120, Code.A121, Code.A127, Code.A138, Code.A140}
    assert passing == warnings
    assert all(AUDIT_POLICY.reports(code) for code in Code)


def _entries(path: Path, names: list[str]) -> ZipArchive:
    wheelkit.write_zip(path, {name: b"x" for name in names})
    return ZipArchive.open(path)


def test_pairing_by_path_then_by_unique_normalised_key(tmp_path: Path) -> None:
    base_names = ["pkg/a.py", "pkg-1.0.dist-info/METADATA", "pkg.libs/libgomp-a34b3233.so.1"]
    patch_names = ["pkg/a.py", "pkg-1.1.dist-info/METADATA", "pkg.libs/libgomp-6e1a1e6f.so.1"]
    with (
        _entries(tmp_path / "b.zip", base_names) as base,
        _entries(tmp_path / "p.zip", [*patch_names, "pkg/new.py"]) as patch,
    ):
        pairs = pair_entries(base.entries, patch.entries)
    by_path = {pair.path: pair for pair in pairs}
    assert len(pairs) == 4
    assert all(by_path[name].base is not None for name in patch_names)
    assert by_path["pkg/new.py"].base is None


def test_ambiguous_keys_stay_unpaired(tmp_path: Path) -> None:
    base_names = ["x.libs/libfoo-0123abcd.so.1", "x.libs/libfoo-4567abcd.so.1"]
    patch_names = ["x.libs/libfoo-89abcdef.so.1"]
    with (
        _entries(tmp_path / "b.zip", base_names) as base,
        _entries(tmp_path / "p.zip", patch_names) as patch,
    ):
        pairs = pair_entries(base.entries, patch.entries)
    assert sorted((p.base is None, p.patch is None) for p in pairs) == [
        (False, True),
        (False, True),
        (True, False),
    ]
    assert normalized_key(base_names[0]) == normalized_key(base_names[1])


def _elf(machine: int) -> bytes:
    return b"\x7fELF\x02\x01\x01" + bytes(11) + struct.pack("<H", machine) + bytes(44)


@pytest.mark.parametrize(
    ("head", "magic"),
    [
        (_elf(62), Magic.ELF),
        (_elf(190), Magic.CUBIN),
        (b"\x50\xed\x55\xba" + bytes(60), Magic.CUDA_FATBIN),
        (b"\xb1\x43\x62\x46" + bytes(60), Magic.CUDA_FATBIN_WRAPPER),
        (b"!<arch>\n" + bytes(56), Magic.AR),
        (b"\xcf\xfa\xed\xfe" + bytes(60), Magic.MACH_O),
        (b"\xca\xfe\xba\xbe" + struct.pack(">I", 2) + bytes(56), Magic.MACH_O),
        (b"MZ" + bytes(0x3A) + struct.pack("<I", 0x80), Magic.PE),
        (b"\xca\xfe\xba\xbe" + struct.pack(">I", 52) + bytes(56), None),  # a Java class file
        (b"MZ" + bytes(62), None),  # "MZ" text, no PE header offset
        (b"#!/bin/sh\n" + bytes(54), None),
        (b"", None),
    ],
)
def test_sniff_magic(head: bytes, magic: Magic | None) -> None:
    assert len(head) <= SNIFF_BYTES
    assert sniff_magic(head) == magic
    assert is_native_magic(head) == (magic is not None)


def test_path_decides_before_magic() -> None:
    assert kind_from_path("pkg-1.0.dist-info/RECORD") is EntryKind.METADATA
    assert kind_from_path("pkg/_C.cpython-311-x86_64-linux-gnu.so") is EntryKind.NATIVE
    assert kind_from_path("pkg/libfoo.so.1.2") is EntryKind.NATIVE
    assert kind_from_path("pkg/mod.pyi") is EntryKind.PYTHON
    assert kind_from_path("pkg/bin/tool") is None  # sniffed by content


def test_entries_phrase_groups_digits_and_names_directories() -> None:
    from k3diff.report.entries import entries_phrase

    assert entries_phrase(13043, 782) == "13,043 entries (782 directories)"
    assert entries_phrase(1, 0) == "1 entry"
    assert entries_phrase(5, 1, noun=False) == "5 (1 directory)"
