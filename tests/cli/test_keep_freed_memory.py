"""`quickexit._keep_freed_memory` (speed63b): glibc's `mallopt` asked to keep freed memory for
reuse where the C library has it, and nothing done where it has not (another platform, a C
library without `mallopt`, one that cannot be loaded); never for an in-process caller."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from typing import Any

import pytest

from k3diff.cli import quickexit

_KEPT = quickexit.KEPT_FREE_BYTES


class _Libc:
    """A C library whose `mallopt` records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        return 1


def _loading(monkeypatch: pytest.MonkeyPatch, libc: object, platform: str = "linux") -> list[Any]:
    """Make `ctypes.CDLL` answer `libc` (raise it, if an exception) and record its arguments."""
    loads: list[Any] = []

    def load(name: Any) -> object:
        loads.append(name)
        if isinstance(libc, BaseException):
            raise libc
        return libc

    monkeypatch.setattr(ctypes, "CDLL", load)
    monkeypatch.setattr(sys, "platform", platform)
    return loads


def test_glibc_keeps_freed_memory_below_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    libc = _Libc()
    loads = _loading(monkeypatch, libc)
    quickexit._keep_freed_memory()
    assert loads == [None]  # the process's own C library
    assert libc.calls == [(quickexit.M_TRIM_THRESHOLD, _KEPT), (quickexit.M_MMAP_THRESHOLD, _KEPT)]
    assert (quickexit.M_TRIM_THRESHOLD, quickexit.M_MMAP_THRESHOLD) == (-1, -3)  # malloc.h


def test_a_c_library_without_mallopt_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    loads = _loading(monkeypatch, object())
    quickexit._keep_freed_memory()  # no AttributeError
    assert loads == [None]


def test_a_c_library_that_cannot_be_loaded_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    loads = _loading(monkeypatch, OSError("no C library"))
    quickexit._keep_freed_memory()
    assert loads == [None]


@pytest.mark.parametrize("platform", ["darwin", "win32", "freebsd14"])
def test_other_platforms_are_not_asked(monkeypatch: pytest.MonkeyPatch, platform: str) -> None:
    libc = _Libc()
    loads = _loading(monkeypatch, libc, platform)
    quickexit._keep_freed_memory()
    assert loads == [] and libc.calls == []


def test_an_in_process_caller_keeps_the_allocator_s_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    libc = _Libc()
    loads = _loading(monkeypatch, libc)
    monkeypatch.setattr(quickexit, "_armed", False)
    quickexit.keep_working_objects()
    assert loads == [] and libc.calls == []


def test_the_real_c_library_accepts_it() -> None:
    """This machine's own C library, in a process of its own (glibc: `mallopt` answers 1 for a
    setting it took)."""
    probe = (
        "import ctypes, platform, sys\n"
        "from k3diff.cli import quickexit\n"
        "quickexit._keep_freed_memory()\n"
        "if sys.platform.startswith('linux') and platform.libc_ver()[0] == 'glibc':\n"
        "    print(ctypes.CDLL(None).mallopt(quickexit.M_MMAP_THRESHOLD, quickexit.KEPT_FREE_BYTES))\n"
        "else:\n"
        "    print(1)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "1\n", "")
