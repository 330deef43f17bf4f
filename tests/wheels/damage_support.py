"""Randomly damaged copies of a wheel, for the property tests that hold a fast path to the slow
one it replaces (and the fuzz test that holds `wheels` to a report or one clear error).

A damage is a few overwrites anywhere in the file (local headers, data, the central directory,
the end record), each at a fraction of the file's length that hypothesis chooses, so that the
same draw lands in the same part of any archive it damages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from k3diff.errors import K3diffError
from k3diff.wheels.compare import WheelOptions, compare_wheels
from k3diff.wheels.model import WheelReport

Edit = tuple[float, bytes]
"""Where to overwrite (0 the first byte, 1 the last) and the bytes written there."""

EDIT_BYTES = 8
"""Most bytes one edit writes: enough to replace a signature, a size or an offset whole."""


def damage_edits(min_size: int = 1, max_size: int = 4) -> st.SearchStrategy[list[Edit]]:
    """Between `min_size` and `max_size` overwrites of 1 to `EDIT_BYTES` bytes each."""
    return st.lists(
        st.tuples(st.floats(min_value=0, max_value=1), st.binary(min_size=1, max_size=EDIT_BYTES)),
        min_size=min_size,
        max_size=max_size,
    )


def damaged(data: bytes, changes: Iterable[Edit]) -> bytearray:
    """`data` with each edit written over it in turn (the file keeps its length unless an edit
    runs past its end)."""
    out = bytearray(data)
    for where, replacement in changes:
        at = int(where * (len(out) - 1))
        out[at : at + len(replacement)] = replacement
    return out


def write_damaged(source: Path, target: Path, changes: Iterable[Edit]) -> Path:
    """A damaged copy of `source` written to `target`."""
    target.write_bytes(bytes(damaged(source.read_bytes(), changes)))
    return target


def damage_settings(max_examples: int) -> settings:
    """Hypothesis settings for a damage property: no deadline (a comparison runs a thread pool),
    and function-scoped fixtures allowed (each example reuses the test's `tmp_path`, building the
    undamaged wheels once)."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )


def outcome(
    base: Path, patch: Path, options: WheelOptions, facts: Callable[[WheelReport], tuple[Any, ...]]
) -> tuple[Any, ...]:
    """What `compare_wheels` gives on a (damaged) pair, as `facts` of its report, or the error
    it raised (type and message): the two sides a fast-path property test holds equal."""
    try:
        report = compare_wheels(base, patch, options)
    except K3diffError as exc:
        return ("error", type(exc).__name__, str(exc))
    return facts(report)
