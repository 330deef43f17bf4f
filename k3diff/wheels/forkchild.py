"""A child forked from this process that answers in messages over a pipe, for `forkchecks`.

Fork copies the process as it is: parsed central directories and open files included, so the
child starts on per-archive work at once, with no interpreter start-up, no imports and nothing
sent. It is safe only where no other thread runs: a thread holding a lock (the import lock, an
allocator's, a buffered stream's) at the fork leaves it held forever in the child. So `fork` is
called only when the process is proven single-threaded (`single_threaded`: Python sees one thread
and, on Linux, `/proc/self/task` lists one, so no C library's thread either); the child may then
import what its work imports lazily. The child never returns into this process's code: it ends
with `os._exit`, writing to nothing but its end of a pipe made before the fork.

The child's answer is read as framed messages (a length, then that many bytes of pickle), each
by a deadline; this process unpickles only what came through that pipe from its own child, and
its caller still checks each message's types. A child that dies, hangs, exits early or writes
garbage gives `None` for every message not whole, and `close` kills and reaps it on every path.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from typing import NoReturn

Send = Callable[[object], None]
"""Writes one message (a picklable value) to the parent."""

_READ = 1 << 20
_LENGTH = struct.Struct("<Q")
"""A message's length, before it."""


def single_threaded() -> bool:
    """Whether this process runs one thread: Python's count and, on Linux, the kernel's."""
    if threading.active_count() != 1 or threading.current_thread() is not threading.main_thread():
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def can_fork() -> bool:
    """Linux, more than one core, and one thread in this process."""
    return (
        sys.platform == "linux"
        and hasattr(os, "fork")
        and (os.cpu_count() or 1) > 1
        and single_threaded()
    )


class ForkedChild:
    """A forked child running `work(send)` and the read end of its pipe. Messages are read in
    order (`message`); `close` kills and reaps the child if still there."""

    def __init__(self, pid: int, fd: int, wait: float) -> None:
        self._pid: int | None = pid
        self._fd: int | None = fd
        self.deadline = time.monotonic() + wait
        """No message is waited for past this (`time.monotonic`)."""
        self._buffer = bytearray()

    @classmethod
    def fork(cls, work: Callable[[Send], None], wait: float) -> ForkedChild | None:
        """The child running `work`, or None when there is no pipe or process to spare. Call
        only where `can_fork`. The child exits 0 once `work` returned and everything it sent
        was written, 1 on any exception."""
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return None
        if pid == 0:
            _child(read_fd, write_fd, work)
        os.close(write_fd)
        return cls(pid, read_fd, wait)

    def message(self, until: float | None = None) -> object:
        """The child's next message, unpickled, waited for until `until` (at most the
        `deadline`). None when it is not whole by then (it stays buffered for the next call),
        at the pipe's end, or after any failure (the child is then ended)."""
        stop = self.deadline if until is None else min(until, self.deadline)
        if self._fd is None:
            return None
        try:
            if not self._fill(_LENGTH.size, stop):
                return None
            (length,) = _LENGTH.unpack_from(self._buffer)
            whole = _LENGTH.size + length
            if not self._fill(whole, stop):
                return None
            data = bytes(self._buffer[_LENGTH.size : whole])
            del self._buffer[:whole]
            return pickle.loads(data)  # our own child's, through our own pipe
        except Exception:  # garbled: nothing more is taken from it
            self.close()
            return None

    def _fill(self, count: int, stop: float) -> bool:
        """At least `count` bytes buffered (True); else the pipe's end (the child is then
        ended) or `stop` came first (False)."""
        fd, buffer = self._fd, self._buffer
        assert fd is not None
        while len(buffer) < count:
            left = stop - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return False
            chunk = os.read(fd, _READ)
            if not chunk:
                self.close()
                return False
            buffer += chunk
        return True

    def close(self) -> None:
        """Kill the child if it was not reaped, reap it, and close the pipe."""
        if self._pid is not None:
            pid, self._pid = self._pid, None
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


def _child(read_fd: int, write_fd: int, work: Callable[[Send], None]) -> NoReturn:
    """The child: `work`, each message it sends written to `write_fd`. Never returns."""
    status = 1
    try:
        os.close(read_fd)
        work(lambda value: _send(write_fd, value))
        os.close(write_fd)
        status = 0
    except BaseException:  # the parent does the work itself
        pass
    finally:
        os._exit(status)


def _send(fd: int, value: object) -> None:
    """`value` pickled, after its length, written whole to `fd`."""
    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]
