"""The search list the loader uses: DT_RUNPATH where an object has one, else DT_RPATH (elf77).

glibc drops DT_RPATH beside DT_RUNPATH as it reads the tables (`elf/get-dynamic-info.h`; musl
reads DT_RUNPATH in its place). A native with RUNPATH `$ORIGIN` beside RPATH `/tmp/...`,
rebuilt without its RUNPATH, makes the loader search `/tmp/...`: `wheels --allow-native-changes`
judged both tags' strings of both sides, found the patch's RPATH already in the base, and
passed it, exit 0. Held to the real loader here (`LD_DEBUG=libs`): the base's RPATH is never
tried, the patch's runs the library planted there."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from wheel.test_installed_view import audit_code, codes, wheels_json

from audit.test_rpath_hijack import demo_wheel
from audit.test_rpath_loader_reads import ALLOW, EXPLAIN, _dynamic, _helper, _loads_planted, _user

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

DT_SONAME, DT_RPATH, DT_RUNPATH = 14, 15, 29


def _retagged(data: bytes, swaps: dict[int, int]) -> bytes:
    """`data` with each dynamic entry whose tag is a key of `swaps` given that value instead."""
    patched = bytearray(data)
    for at, tag, _value in _dynamic(data):
        if tag in swaps:
            struct.pack_into("<q", patched, at, swaps[tag])
    return bytes(patched)


def _both_and_rpath_alone(tmp_path: Path) -> tuple[bytes, bytes, Path]:
    """A library needing `libhelper.so` with RUNPATH `$ORIGIN` and RPATH `planted` (its
    DT_SONAME string, retagged), and the same library with the RUNPATH entry retagged to
    DT_SONAME: RPATH `planted` alone."""
    planted = tmp_path / "planted"  # under /tmp: world-writable
    helper = _helper(planted)
    built = _user(tmp_path, "$ORIGIN", helper, soname=str(planted))
    both = _retagged(built, {DT_SONAME: DT_RPATH})
    alone = _retagged(both, {DT_RUNPATH: DT_SONAME})
    return both, alone, planted


def _trace(data: bytes, where: Path) -> str:
    """`LD_DEBUG=libs` of loading `data` with ctypes from a clean directory (it may fail)."""
    where.mkdir()
    (where / "loaded.so").write_bytes(data)
    load = f"import ctypes\ntry: ctypes.CDLL({str(where / 'loaded.so')!r})\nexcept OSError: pass"
    run = subprocess.run(
        [sys.executable, "-c", load], cwd=where, capture_output=True, text=True,
        errors="replace", env={**os.environ, "LD_DEBUG": "libs"},
    )  # fmt: skip
    assert "PLANTED LIBRARY RAN" not in run.stdout
    return run.stderr


def test_a_dropped_runpath_that_makes_an_old_rpath_searched_fails(tmp_path: Path) -> None:
    both, alone, planted = _both_and_rpath_alone(tmp_path)
    trace = _trace(both, tmp_path / "b")
    assert "RUNPATH from file" in trace and str(planted) not in trace  # RPATH never tried
    _loads_planted(alone, tmp_path)  # the RPATH alone: the planted library runs
    base = demo_wheel(tmp_path / "w1", "1.0", {"demo/_ext.so": both})
    patch = demo_wheel(tmp_path / "w2", "2.0", {"demo/_ext.so": alone})
    for options in (ALLOW, EXPLAIN):
        exit_code, report = wheels_json(base, patch, *options)
        (finding,) = (f for f in report["findings"] if f["code"] == "W632")
        assert exit_code == 1, (options, report["findings"])
        assert finding["detail"].startswith(f"RPATH component '{planted}'"), finding
    # the reverse: a RUNPATH added hides the RPATH the base searched: nothing new to judge
    for options in (ALLOW, EXPLAIN):
        exit_code, report = wheels_json(patch, base, *options)
        assert exit_code == 0 and not codes(report) & {"W632", "W633"}, report["findings"]


def test_audit_judges_the_list_the_loader_searches(tmp_path: Path) -> None:
    """An RPATH beside a RUNPATH is never searched: `audit` no longer fails it (A139, exit 1
    before); the same RPATH alone fails."""
    both, alone, _planted = _both_and_rpath_alone(tmp_path)
    assert audit_code(demo_wheel(tmp_path / "w1", "1.0", {"demo/_ext.so": both})) == (0, set())
    alone_wheel = demo_wheel(tmp_path / "w2", "1.0", {"demo/_ext.so": alone})
    assert audit_code(alone_wheel) == (1, {"A139"})
