"""Whatever bytes a wheel holds, the audit ends with a verdict: 0, 1 or 2, never a traceback.

Mutations are byte flips, overwrites, truncations and insertions anywhere in small valid wheels,
including inside headers, the central directory and the end record. The library is driven
directly (a subprocess per example would be too slow); a K3diffError is exit 2, anything else a
bug. Memory stays bounded because no read trusts a declared size (capped inflate).
"""

from __future__ import annotations

import ensurepip
import tracemalloc
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wheelkit import elf_bytes, make_wheel, wheel_files, write_zip_with_tool

from audit.helpers import all_findings, audit_json
from audit.zipcraft import RawEntry, bomb_stream, build, wheel_entries
from k3diff.audit import audit
from k3diff.errors import K3diffError
from k3diff.output import OutputFormat
from k3diff.report.audit import render

FILES = {
    "demo/__init__.py": b"VALUE = 1\n" * 20,
    "demo/_core.so": elf_bytes(b"\x90" * 300),
    "demo/empty.txt": b"",
}


@cache
def _seed_wheel(tool: str) -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        path = make_wheel(Path(directory), "demo", "1.0", FILES, tool=tool)
        return path.read_bytes()


def _exit_code(path: Path) -> int:
    try:
        report = audit([path])
    except K3diffError:
        return 2
    for fmt in OutputFormat:
        render(report, fmt)
    return int(report.exit_code)


mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10**6), st.integers(1, 255)),
    st.tuples(st.just("set"), st.integers(0, 10**6), st.integers(0, 255)),
    st.tuples(st.just("truncate"), st.integers(0, 10**6), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.integers(0, 255)),
)


def _mutate(data: bytes, mutations: list[tuple[str, int, int]]) -> bytes:
    buffer = bytearray(data)
    for kind, where, value in mutations:
        if not buffer:
            break
        position = where % len(buffer)
        if kind == "flip":
            buffer[position] ^= value
        elif kind == "set":
            buffer[position] = value
        elif kind == "truncate":
            del buffer[position:]
        else:
            buffer.insert(position, value)
    return bytes(buffer)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tool=st.sampled_from(["zipfile", "zip"]),
    mutations=st.lists(mutation, min_size=1, max_size=4),
)
def test_mutated_wheels_always_get_a_verdict(
    tmp_path: Path, tool: str, mutations: list[tuple[str, int, int]]
) -> None:
    path = tmp_path / "demo-1.0-py3-none-any.whl"
    path.write_bytes(_mutate(_seed_wheel(tool), mutations))
    assert _exit_code(path) in (0, 1, 2)


def test_unmutated_seeds_pass(tmp_path: Path) -> None:
    for tool in ("zipfile", "zip"):
        path = tmp_path / f"{tool}-demo-1.0-py3-none-any.whl"
        path.write_bytes(_seed_wheel(tool))
        path = path.rename(tmp_path / "demo-1.0-py3-none-any.whl")
        assert _exit_code(path) == 0


def test_bomb_is_audited_in_bounded_memory(tmp_path: Path) -> None:
    stream = bomb_stream(1)
    entries = wheel_entries(FILES)
    entries.append(RawEntry("demo/model.bin", stream, 8, 0, len(stream), 1024))
    path = build(tmp_path / "demo-1.0-py3-none-any.whl", entries)
    tracemalloc.start()
    try:
        report = audit([path], None)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.exit_code == 1
    assert peak < 64 << 20  # the 1 GiB it would inflate to is never allocated


def test_wheel_made_by_the_zip_tool_passes(tmp_path: Path) -> None:
    entries = wheel_files("demo", "1.0", {**FILES, "demo/sub/mod.py": b"def f():\n    pass\n"})
    path = write_zip_with_tool(tmp_path / "demo-1.0-py3-none-any.whl", entries)
    code, report = audit_json(path)
    assert (code, all_findings(report)) == (0, [])


def _bundled_wheels() -> list[Path]:
    return sorted((Path(ensurepip.__file__).parent / "_bundled").glob("*.whl"))


@pytest.mark.skipif(not _bundled_wheels(), reason="this Python ships no bundled wheels")
def test_real_wheels_shipped_with_python_pass() -> None:
    """pip's (and on older Pythons setuptools') real release wheels, as CPython bundles them."""
    code, report = audit_json(*_bundled_wheels())
    assert code == 0, all_findings(report)
    assert all(a["entry_count"] > 100 for a in report["artifacts"])
