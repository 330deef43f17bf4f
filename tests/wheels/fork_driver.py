"""`k3diff wheels BASE PATCH --format json` run with the forked child of `wheels.forkchecks` made
to behave as told (`test_fork_checks` runs it in a fresh interpreter: the only kind of process
that forks, one thread). Usage: `fork_driver.py MODE STATS BASE PATCH`; what the parent took
from its child is written to STATS as JSON.

Modes: `nofork` (the in-process passes), `fork` (forked at any size, its answers waited for),
`kill` (the child kills itself at once), `kill-after-offsets`, `exit` (exits 0 at once), `hang`,
`garbage` (bytes that are no pickle), `short` (a message cut short), `huge` (a length past any
message), `types` (well-formed pickles of the wrong types), `negative` (a negative budget
charge), `budget` (this process's budget refuses the charge)."""

from __future__ import annotations

import json
import os
import pickle
import signal
import struct
import sys
import time
from collections.abc import Callable
from typing import Any, NoReturn

from k3diff.cli import main
from k3diff.wheels import forkchecks, forkchild
from k3diff.zip.archive import ZipArchive

_LENGTH = struct.Struct("<Q")


def _raw(fd: int, data: bytes) -> None:
    os.write(fd, data)


def _message(value: object) -> bytes:
    data = pickle.dumps(value)
    return _LENGTH.pack(len(data)) + data


_CHILD_WORK: dict[str, Callable[[int], object]] = {
    "kill": lambda fd: os.kill(os.getpid(), signal.SIGKILL),
    "exit": lambda fd: os._exit(0),
    "hang": lambda fd: time.sleep(600),
    "garbage": lambda fd: _raw(fd, _LENGTH.pack(7) + b"garbage" * 3),
    "short": lambda fd: _raw(fd, _LENGTH.pack(1000) + b"\x80\x05short"),
    "huge": lambda fd: _raw(fd, _LENGTH.pack(1 << 60) + b"\x80\x05"),
    "types": lambda fd: _raw(
        fd, _message(("a", 1)) + _message((["not a finding"], (0, 0))) + _message(None)
    ),
    "negative": lambda fd: _raw(fd, _message((b"", b"")) + _message(([], (-1, 0)))),
}


def _stats() -> dict[str, Any]:
    stats: dict[str, Any] = {"forked": False, "adopted": False, "soundness": False, "pids": []}
    fork, adopt, soundness = (
        forkchild.ForkedChild.fork,
        forkchecks.ForkedChecks.adopt_offsets,
        forkchecks.ForkedChecks.soundness,
    )

    def forked(work: Any, wait: float) -> Any:
        child = fork(work, wait)
        stats["forked"] = child is not None
        stats["pids"].append(None if child is None else child._pid)
        return child

    def adopted(self: Any) -> bool:
        stats["adopted"] = adopt(self)
        return bool(stats["adopted"])

    def taken(self: Any) -> Any:
        answer = soundness(self)
        stats["soundness"] = answer is not None
        return answer

    forkchild.ForkedChild.fork = staticmethod(forked)  # type: ignore[method-assign]
    forkchecks.ForkedChecks.adopt_offsets = adopted  # type: ignore[method-assign]
    forkchecks.ForkedChecks.soundness = taken  # type: ignore[method-assign]
    return stats


def _behave(mode: str) -> None:
    """`mode`'s changes to the child (or this process)."""
    if mode == "nofork":
        forkchecks.worth_forking = lambda base, patch: False
        return
    forkchecks.FORK_ENTRIES = 0
    forkchecks.SCAN_WAIT = forkchecks.SOUNDNESS_WAIT = 60.0  # the answers waited for
    forkchecks.WAIT = 120.0
    if mode == "hang":
        forkchecks.SCAN_WAIT = forkchecks.SOUNDNESS_WAIT = 0.2
    if mode == "budget":
        ZipArchive.charge = lambda self, produced: False  # type: ignore[method-assign]
    elif mode == "kill-after-offsets":
        work = forkchecks._work

        def first_only(base: ZipArchive, patch: ZipArchive, send: forkchild.Send) -> None:
            send((forkchecks._columns(base), forkchecks._columns(patch)))
            os.kill(os.getpid(), signal.SIGKILL)

        forkchecks._work = first_only
        del work
    elif mode in _CHILD_WORK:
        misbehave = _CHILD_WORK[mode]

        def child(read_fd: int, write_fd: int, work: object) -> NoReturn:
            misbehave(write_fd)
            os._exit(0)

        forkchild._child = child


def run(mode: str, stats_path: str, base: str, patch: str) -> int:
    stats = _stats()
    _behave(mode)
    try:
        code = main(["wheels", base, patch, "--format", "json", "--no-file-hash"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    gone = []
    for pid in stats.pop("pids"):
        try:
            os.kill(pid, 0) if pid is not None else None
            gone.append(False)
        except ProcessLookupError:
            gone.append(True)
    stats["children_gone"] = all(gone)
    with open(stats_path, "w", encoding="utf-8") as out:
        json.dump(stats, out)
    return code


if __name__ == "__main__":
    sys.exit(run(*sys.argv[1:5]))
