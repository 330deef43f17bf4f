"""Damaged input never raises out of `explain_native`, and big files are streamed, not loaded."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from elfkit import (
    SHF_ALLOC,
    SHT_PROGBITS,
    FatImage,
    Section,
    Sym,
    build_elf,
    build_fatbin,
    build_id_note,
    dynamic_sections,
    text_section,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.documents.native import explanation_json
from k3diff.native import explain_native

FATBIN = build_fatbin([[FatImage(1, 90, b"// ptx"), FatImage(2, 90, b"cubin bytes", 0x2011)]])
LIBRARY = build_elf(
    [
        build_id_note(b"\x05" * 20),
        text_section(bytes(range(48))),
        *dynamic_sections([Sym("f"), Sym("g", defined=False)], needed=("libc.so.6",), soname="x"),
        Section(".nv_fatbin", SHT_PROGBITS, FATBIN, flags=SHF_ALLOC),
    ]
).data


def mutate(data: bytes, edits: list[tuple[int, int]], cut: int | None) -> bytes:
    mutated = bytearray(data)
    for position, value in edits:
        mutated[position % len(mutated)] = value
    return bytes(mutated[:cut] if cut is not None else mutated)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    original=st.sampled_from([LIBRARY, FATBIN]),
    edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=6),
    cut=st.one_of(st.none(), st.integers(0, len(LIBRARY))),
)
def test_any_mutation_gives_an_explanation_never_an_exception(
    original: bytes, edits: list[tuple[int, int]], cut: int | None
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        base, patch = Path(scratch) / "base", Path(scratch) / "patch"
        base.write_bytes(original)
        patch.write_bytes(mutate(original, edits, cut))
        result = explain_native(base, patch)
    json.dumps(explanation_json(result))
    assert result.summary
    if result.error is not None:
        assert result.classification == ()


PEAK_RSS_SCRIPT = """
import resource, sys
from pathlib import Path
from k3diff.native import explain_native
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = explain_native(Path(sys.argv[1]), Path(sys.argv[2]))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert result.classification == ("code",), result.summary
print((after - before) // 1024)
"""


def sparse_library(path: Path, text_size: int, marker: int) -> None:
    """A library whose .text is `text_size` bytes, mostly holes: zeros that cost no disk."""
    text = text_section(bytes([marker]))
    text.fill = text_size - 1
    build_elf([build_id_note(b"\x09" * 20), text]).write_sparse(path)


def test_a_300_mb_section_is_streamed_in_bounded_memory(tmp_path: Path) -> None:
    size = 300 * 1024 * 1024
    sparse_library(tmp_path / "base.so", size, 1)
    sparse_library(tmp_path / "patch.so", size, 2)
    run = subprocess.run(
        [sys.executable, "-c", PEAK_RSS_SCRIPT, tmp_path / "base.so", tmp_path / "patch.so"],
        capture_output=True,
        text=True,
        check=True,
    )
    growth_mib = int(run.stdout)
    assert growth_mib < 64, f"explaining two 300 MB libraries grew the process by {growth_mib} MiB"
