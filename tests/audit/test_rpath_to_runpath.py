"""DT_RPATH turned into a DT_RUNPATH of the same directories: nothing new searched (elf78).

glibc searches an object's DT_RPATH for its own DT_NEEDED and, unless they have a DT_RUNPATH of
their own, for those its libraries need in turn (`man ld.so`); its DT_RUNPATH for its own only,
after LD_LIBRARY_PATH. So RPATH `x` made RUNPATH `x` searches `x` for fewer libraries, never
more: `wheels --allow-native-changes` held the change, W632 (exit 1), for a component the base
already searched. The reverse, RUNPATH `x` made RPATH `x`, makes `x` searched for the
libraries' libraries too: still W632. Both held to the real loader (`LD_DEBUG=libs`): a library
found in `x` that needs a planted `libhelper.so` there loads it through the RPATH only."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from wheel.test_installed_view import codes, wheels_json

from audit.test_rpath_beside_runpath import DT_RPATH, _retagged, _trace
from audit.test_rpath_hijack import demo_wheel, library
from audit.test_rpath_loader_reads import ALLOW, EXPLAIN, _helper, _loads_planted
from audit.test_rpath_table_past_load import DT_RUNPATH

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

MIDDLE = "extern int helper(void);\nint middle(void) { return helper(); }\n"


def _rpath_and_runpath(tmp_path: Path) -> tuple[bytes, bytes, Path]:
    """A library with RPATH `planted` (under /tmp: world-writable) needing `libmiddle.so`, which
    lies there and needs the planted `libhelper.so` (no search path of its own); the same
    library with the entry retagged DT_RUNPATH."""
    planted = tmp_path / "planted"
    helper = _helper(planted)
    (planted / "middle.c").write_text(MIDDLE)
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-Wl,-soname,libmiddle.so", "-o", str(planted / "libmiddle.so"),
         str(planted / "middle.c"), f"-L{helper.parent}", "-lhelper"],
        check=True, capture_output=True,
    )  # fmt: skip
    links = (f"-L{planted}", "-lmiddle")
    uses = "extern int middle(void);\nint use(void) { return middle(); }\n"
    rpath = library(tmp_path / "r", str(planted), source=uses, links=links)
    return rpath, _retagged(rpath, {DT_RPATH: DT_RUNPATH}), planted


def test_an_rpath_made_a_runpath_of_the_same_directory_passes(tmp_path: Path) -> None:
    rpath, runpath, planted = _rpath_and_runpath(tmp_path)
    _loads_planted(rpath, tmp_path)  # libmiddle's libhelper.so searched in the RPATH
    trace = _trace(runpath, tmp_path / "runpath")  # the RUNPATH only for its own libmiddle.so
    assert f"trying file={planted}/libmiddle.so" in trace, trace[-2000:]
    assert f"trying file={planted}/libhelper.so" not in trace, trace[-2000:]
    base = demo_wheel(tmp_path / "b", "1.0", {"demo/_ext.so": rpath})
    patch = demo_wheel(tmp_path / "p", "2.0", {"demo/_ext.so": runpath})
    for options in (ALLOW, EXPLAIN):
        exit_code, report = wheels_json(base, patch, *options)
        assert exit_code == 0, (options, report["findings"])  # W632 before, exit 1
        assert not codes(report) & {"W632", "W633"}, report["findings"]
    for options in (ALLOW, EXPLAIN):  # the reverse searches the planted tree for more
        exit_code, report = wheels_json(patch, base, *options)
        (finding,) = (f for f in report["findings"] if f["code"] == "W632")
        assert exit_code == 1 and finding["detail"].startswith(f"RPATH component '{planted}'")


def test_a_leftover_rpath_made_a_runpath_is_no_new_warning(tmp_path: Path) -> None:
    """The same for a build machine's directory (W633, a warning)."""
    rpath = library(tmp_path / "r", "/opt/_internal/lib")
    runpath = _retagged(rpath, {DT_RPATH: DT_RUNPATH})
    base = demo_wheel(tmp_path / "b", "1.0", {"demo/_ext.so": rpath})
    patch = demo_wheel(tmp_path / "p", "2.0", {"demo/_ext.so": runpath})
    assert not codes(wheels_json(base, patch, *ALLOW)[1]) & {"W632", "W633"}
    assert codes(wheels_json(patch, base, *ALLOW)[1]) & {"W632", "W633"} == {"W633"}
