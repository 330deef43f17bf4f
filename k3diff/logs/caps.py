"""How much work reading the logs may cost: inflated bytes of `.gz` logs, and time.

A 60 MB `.gz` inflating to 20 GiB, or 3.6 MB of repeated error lines inflating to gigabytes,
kept `logs` busy for more than five minutes. So:

- one `.gz` file may not inflate past the ratio the wheel reader calls a bomb
  (`k3diff.zip.bounds`: at least 64 MiB at more than 1000:1);
- all `.gz` logs of a run together may inflate at most `--max-inflated-bytes`;
- the whole scan ends by `--max-seconds`.

A cap hit refuses the run (exit 2) in one line naming the file and the cap; a partial scan is
never reported as a clean one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from k3diff.errors import InputError
from k3diff.zip.bounds import BOMB_MIN_SIZE, BOMB_RATIO

MAX_INFLATED_BYTES = 4 << 30
"""Default `--max-inflated-bytes`: bytes all `.gz` logs of a run may inflate to (4 GiB)."""
MAX_SECONDS = 300.0
"""Default `--max-seconds`: wall time the scan of both sides may take."""


def _size(count: int) -> str:
    return f"{count / (1 << 30):.1f} GiB" if count >= 1 << 30 else f"{count / (1 << 20):.1f} MiB"


@dataclass
class ScanBudget:
    """What the scan of both sides may still spend, shared by every file."""

    max_inflated: int = MAX_INFLATED_BYTES
    max_seconds: float = MAX_SECONDS
    inflated: int = 0
    """Bytes inflated from `.gz` logs so far."""
    started: float = field(default_factory=time.monotonic)

    def check_time(self, shown: str, line: int) -> None:
        """InputError once the scan has run past `max_seconds`."""
        elapsed = time.monotonic() - self.started
        if elapsed > self.max_seconds:
            raise InputError(
                f"{shown}: scan stopped at line {line:,} after {elapsed:.0f} s, past "
                f"--max-seconds {self.max_seconds:g}; refused (a partial scan is not a clean one)"
            )

    def add_inflated(self, shown: str, file_inflated: int, compressed: int, count: int) -> None:
        """Count `count` more bytes inflated from the file `shown` (`file_inflated` so far,
        `compressed` bytes on disk): InputError past the bomb ratio or the run's total."""
        self.inflated += count
        if file_inflated >= BOMB_MIN_SIZE and file_inflated > BOMB_RATIO * max(compressed, 1):
            raise InputError(
                f"{shown}: inflates to more than {BOMB_RATIO}:1 ({_size(file_inflated)} from "
                f"{compressed:,} bytes); refused as a compression bomb"
            )
        if self.inflated > self.max_inflated:
            raise InputError(
                f"{shown}: the .gz logs inflate past --max-inflated-bytes "
                f"{self.max_inflated:,} ({_size(self.inflated)} so far); refused"
            )
