"""Runs `k3diff sample` in this process with SIGTERM sent at a chosen point, run as a script by
tests/sample/test_stops.py:

    python tests/sample/sigterm_driver.py task|write SAMPLE-ARGS...

`task`: inside a sample's own task, once its third line is written (the handler runs while the
task steps, not while the event loop waits); `write`: while the third write of the log is in
flight in its writer thread (the handler runs in the event loop's wait)."""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any

from k3diff.cli import main
from k3diff.sample import log as samplelog

_append, _write = samplelog.SampleLog.append, samplelog.SampleLog._write
_calls = [0]


def _third() -> bool:
    _calls[0] += 1
    return _calls[0] == 3


async def _append_then_term(self: samplelog.SampleLog, sample: Any) -> None:
    await _append(self, sample)
    if _third():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100_000):  # the handler runs here, inside this task's step
            pass


def _write_then_term(self: samplelog.SampleLog, data: bytes) -> None:
    _write(self, data)
    if _third():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.3)  # the main thread takes SIGTERM while this write is in flight


if __name__ == "__main__":
    if sys.argv[1] == "task":
        samplelog.SampleLog.append = _append_then_term  # type: ignore[method-assign]
    else:
        samplelog.SampleLog._write = _write_then_term  # type: ignore[method-assign]
    sys.exit(main(sys.argv[2:]))
