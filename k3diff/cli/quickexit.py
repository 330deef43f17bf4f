"""Ending a `k3diff` process without taking apart what the run built (issue 41).

After a `wheels` report is written, the interpreter still frees the run's model object by
object, twice over: the command's result (≈ 100,000 entries, records and results on the torch
CPU pair) when the command returns, then every module, class and cached value in
`Py_FinalizeEx`. Neither is seen by anyone: the memory goes back to the system with the
process. On case e that was ≈ 20 ms of wall when the command returned and ≈ 40 ms after `main`
(the frees miss the cache: ≈ 50 M instructions, 8-13 % of the run's CPU measured paired).

So a command that has written and closed everything it writes may `hold` its result; `main`
then ends the process with `os._exit` once it has done what the interpreter's own exit does
that anyone could see: wait for non-daemon threads (here: go the ordinary way if one is
alive), run the `atexit` callbacks, flush stdout and stderr. Where any of that cannot be done
as the ordinary exit would (a flush fails, as on a closed pipe; a tracer or profiler such as
coverage or cProfile is installed, which writes its data at exit; `-X dev`, whose teardown
warns of files left open), the process exits the ordinary way. Only the console script and `python -m k3diff` arm it: an in-process caller
(`main(argv)`, the tests) is never ended and holds nothing.
"""

from __future__ import annotations

import atexit
import os
import sys

from k3diff import keepalive

_armed = False
"""True when the process ends as soon as `main` returns (the console script's run)."""

_held: list[object] = []
"""The results commands held; non-empty means a command allowed the quick exit."""


def arm() -> None:
    """Say that this process ends when `main` returns (call before the command runs)."""
    global _armed
    _armed = True


def hold(result: object) -> None:
    """Keep `result` alive until the process ends, and allow the quick exit: the command has
    written and closed every file it writes. Does nothing unless `arm` was called."""
    if _armed:
        _held.append(result)


def keep_working_objects() -> None:
    """Let library code keep what it would free on return (`k3diff.keepalive`) until the
    process ends: for one comparison, never a loop of them. Does nothing unless `arm` was
    called."""
    if _armed:
        keepalive.start()
        _keep_freed_memory()


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
"""glibc's `mallopt` parameters (malloc.h)."""
KEPT_FREE_BYTES = 32 << 20
"""Freed memory the C allocator keeps for reuse, and the size below which it takes a block from
its heaps rather than a fresh `mmap` (glibc's largest on 64-bit builds)."""


def _keep_freed_memory() -> None:
    """Let glibc keep freed memory for the next allocation instead of handing it back to the
    system: each span task's two fresh buffers (`spans.read_span`) and each inflated stream
    then reuse pages already mapped rather than fault in new ones (speed63b: a recompressed
    torch patch, case f, 67 k → 31 k minor faults, −3 % CPU). Nothing but where memory comes
    from changes. A no-op where the C library has no `mallopt` (not Linux, or not glibc: musl's
    ignores it)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_TRIM_THRESHOLD, KEPT_FREE_BYTES)
    mallopt(M_MMAP_THRESHOLD, KEPT_FREE_BYTES)


def leave(code: int) -> None:
    """End the process now with exit status `code` when a command allowed it and nothing
    the ordinary exit does is left undone; otherwise return (the caller exits normally)."""
    if not (_armed and _held) or sys.flags.dev_mode:  # -X dev: teardown's ResourceWarnings
        return
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return
    import threading

    others = (t for t in threading.enumerate() if t is not threading.main_thread())
    if any(thread.is_alive() and not thread.daemon for thread in others):
        return
    if not _flushed():
        return
    atexit._run_exitfuncs()  # what Py_FinalizeEx runs; it clears them, so they never run twice
    if _flushed():
        os._exit(code)


def _flushed() -> bool:
    """Whether stdout and stderr took everything they buffer."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return False
    return True
