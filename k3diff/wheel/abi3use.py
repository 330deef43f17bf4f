"""What one extension of an abi3 wheel needs of the interpreter. Apart from `k3diff.wheel.abi3`,
which every run imports (to learn whether a wheel is abi3 at all), as only an abi3 wheel's
extensions are judged."""

from __future__ import annotations

from dataclasses import dataclass

Version = tuple[int, int]
"""A CPython version, (3, 12)."""


@dataclass(frozen=True)
class StableAbiUse:
    """What one extension of an abi3 wheel needs of the interpreter."""

    entry: str
    """The archive path."""
    version_bound: bool
    """Its file name binds it to one CPython version (`.cpython-312-...so`)."""
    private: tuple[str, ...] = ()
    """`Py*` / `_Py*` symbols it imports that are not in the stable ABI."""
    needs: Version | None = None
    """The newest stable-ABI version among its imports (None: none read, or unreadable)."""
    newer: tuple[tuple[str, Version], ...] = ()
    """Its imports added to the stable ABI after the tag's version, with that version."""
    problem: str | None = None
    """Why its symbols could not be read (None when they were, or it is not ELF)."""
    libpython: tuple[str, ...] = ()
    """One CPython version's shared library it names in DT_NEEDED (`libpython3.11.so.1.0`)."""
