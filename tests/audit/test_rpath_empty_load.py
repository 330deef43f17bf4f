"""A PT_LOAD whose p_memsz is less than its p_filesz, read as the loader maps it (review78d).

`loadmap.loads_disagree` skipped a PT_LOAD of p_memsz 0 as empty; glibc 2.36 maps its file
bytes all the same (`_dl_map_segments` maps p_filesz's pages, zeroes up to p_memsz), so a second
PT_LOAD of p_memsz 0 over the first one's page gave the loader RUNPATH `/tmp/...` where k3diff
read `$ORIGIN/...` (review76g's shape, its p_memsz 0): `audit` and `wheels
--allow-native-changes` passed, exit 0, and `LD_DEBUG=libs` shows the planted library run. No
linker writes p_filesz past p_memsz: unreadable now, A116 (W632, W713 under `--explain`)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from audit.test_rpath_loader_reads import _helper, _loads_planted, _user
from audit.test_rpath_overlapping_loads import _headers, _overlaid, assert_unreadable

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")


def test_a_load_segment_of_no_memory_size_over_the_first_is_not_read_past(
    tmp_path: Path,
) -> None:
    planted = tmp_path / "planted"  # under /tmp: world-writable
    benign = "$ORIGIN/" + "a" * (len(str(planted)) - 8)
    data = bytearray(_overlaid(_user(tmp_path, benign, _helper(planted)), benign, str(planted)))
    phoff = struct.unpack_from("<Q", data, 32)[0]
    evil = list(_headers(data)[1])  # the second PT_LOAD, over the first one's page
    assert evil[0] == 1 and evil[5] == evil[6] > 0, evil
    evil[6] = 0  # p_memsz 0: glibc maps its p_filesz all the same
    struct.pack_into("<IIQQQQQQ", data, phoff + 56, *evil)
    trace = _loads_planted(bytes(data), tmp_path)  # glibc: RUNPATH = planted, and it ran
    assert f"trying file={planted}/libhelper.so" in trace
    assert_unreadable(
        tmp_path, bytes(data)
    )  # exit 0 before: audit, wheels with and without --explain
