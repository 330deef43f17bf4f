"""Whether a file is a directory another entry needs (W616, `fileconflicts`) or one alike on
Windows or macOS (W615, `alikedirectories`) is told of names of thousands of components without
cutting every directory out of every name (`directorytrie`): each kept every directory's path, a
set of about 1 GB for one name of 32,000 components, so a 12 MB wheel of a hundred such names
was killed for its memory after 90 s, and one of ten took 20 s and 10 GB (review78e)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from wheel.test_installed_view import BASE_FILES, EVIL, audit_code
from wheel.tricks import build

_DEEP = "a/" * 5_000
"""A name of 5,000 directories: each of three cut out every way is about 75 MB."""


@pytest.mark.parametrize(
    ("extra", "found"),
    [
        ({f"demo/{_DEEP}x.py": b"", f"demo/{_DEEP[:-1].upper()}": EVIL}, {"W615"}),
        ({f"demo/{_DEEP}x.py": b"", f"demo/{_DEEP[:-1]}": EVIL}, {"W616"}),
        ({f"demo/{_DEEP}x.py": b"", f"demo/{_DEEP}y.py": b""}, set()),
    ],
    ids=["alike", "the same name", "apart"],
)
def test_deep_names_are_checked_in_little_memory(
    tmp_path: Path, extra: dict[str, bytes], found: set[str]
) -> None:
    files = {**BASE_FILES, **extra, f"demo/b/{_DEEP}x.py": b"", f"demo/c/{_DEEP}x.py": b""}
    wheel = build(tmp_path, "1.0", files)
    tracemalloc.start()
    try:
        exit_code, codes = audit_code(wheel)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    print(f"audit, three names of 5,000 directories: peak {peak / 1e6:.0f} MB")
    assert (exit_code, codes) == ((1, found) if found else (0, set()))
    assert peak < 40e6
