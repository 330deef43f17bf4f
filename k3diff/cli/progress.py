"""The one progress line of every long phase: done/total, percent, rate and ETA on stderr.

Drawn only when stderr is a terminal, so nothing of it reaches a pipe, a log or an `--output`
file. In-house rather than tqdm or rich: importing tqdm adds 9-12 ms to `k3diff wheels` and rich
about 28 ms (`python -X importtime`, after k3diff's own imports), against a budget of about
0.3 s for a whole many-small-entries verdict; this class is the few lines we need of them.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from k3diff.sample.sampler import Counts

_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def byte_text(amount: float) -> str:
    """`amount` bytes in the largest binary unit that keeps it at or above 1."""
    unit = 0
    while amount >= 1024 and unit < len(_BYTE_UNITS) - 1:
        amount /= 1024
        unit += 1
    return f"{amount:.0f} {_BYTE_UNITS[unit]}" if unit == 0 else f"{amount:.1f} {_BYTE_UNITS[unit]}"


def duration_text(seconds: float) -> str:
    """`m:ss`, or `h:mm:ss` from an hour on."""
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class TerminalProgress:
    """A `ProgressCallback` that redraws one line on stderr, at most every `interval` seconds:
    `label: 412.3 MiB / 1.8 GiB  23%  310.0 MiB/s  ETA 0:04`.

    `unit` is "B" for bytes (shown in binary units) or a plural noun for counted work
    ("requests"). The rate is the average since the first call; the ETA is what is left at that
    rate. Call `close` when the phase ends: it erases the line so the report starts clean."""

    def __init__(
        self,
        label: str,
        unit: str = "B",
        stream: TextIO | None = None,
        interval: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._label = label
        self._unit = unit
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = _is_terminal(self._stream)
        self._interval = interval
        self._clock = clock
        self._started = clock()
        self._last = float("-inf")
        self._drawn = False
        self._lock = threading.Lock()
        self.note = ""
        """Text shown after the ETA (sample's errors and unstable slots)."""

    @property
    def enabled(self) -> bool:
        """Whether anything is drawn (stderr is a terminal)."""
        return self._enabled

    @property
    def listener(self) -> TerminalProgress | None:
        """This reporter when it draws, else None: what to pass the library, so that on a pipe
        it does not even count."""
        return self if self._enabled else None

    def __call__(self, done: int, total: int) -> None:
        if not self._enabled:
            return
        now = self._clock()
        if done < total and now - self._last < self._interval:
            return
        with self._lock:
            self._last = now
            line = self.line(done, total, now - self._started)
            self._stream.write("\r" + line[: _width(self._stream) - 1] + "\x1b[K")
            self._stream.flush()
            self._drawn = True

    def line(self, done: int, total: int, elapsed: float) -> str:
        """The progress line for `done` of `total` after `elapsed` seconds."""
        show = byte_text if self._unit == "B" else (lambda n: f"{n:,.0f}")
        unit = "" if self._unit == "B" else f" {self._unit}"
        parts = [f"{self._label}: {show(done)} / {show(total)}{unit}"]
        if total > 0:
            parts.append(f"{100 * done / total:3.0f}%")
        rate = done / elapsed if elapsed > 0 else 0.0
        if rate > 0:
            parts.append(f"{show(rate)}/s" if self._unit == "B" else f"{rate:,.1f}/s")
            parts.append(f"ETA {duration_text(max(0, total - done) / rate)}")
        else:
            parts.append("ETA --:--")
        if self.note:
            parts.append(self.note)
        return "  ".join(parts)

    def close(self) -> None:
        """Erase the progress line so the report starts on a clean line."""
        if self._enabled and self._drawn:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._drawn = False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _width(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):
        return 80


class ProgressLine:
    """`k3diff sample`'s line: requests done/total with errors and unstable slots (two or more
    distinct outputs)."""

    def __init__(self) -> None:
        self._line = TerminalProgress("sample", unit="requests")

    def __call__(self, counts: Counts) -> None:
        self._line.note = f"{counts.errors} errors, {counts.unstable} unstable"
        self._line(counts.done, counts.total)

    def close(self) -> None:
        """Erase the line."""
        self._line.close()
