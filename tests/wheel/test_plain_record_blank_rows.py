"""pip's blank-row refusal (W616) is not searched for in a RECORD read as plain lines: a plain
parse (`Record.plain`) holds no blank line, so the search could only say no. Held here on any
text, and through the CLI on a patch whose RECORD is the base's but for a blank line."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.record import parse_record
from k3diff.wheel.recordpair import KnownLines, parse_record_beside
from k3diff.wheel.refusals import _may_hold_blank_line
from wheel.rawwheel import metadata, record_of, wheel_file, write_wheel
from wheel.test_installed_view import wheels_json

RECORD = "demo-1.0.dist-info/RECORD"


def _row(i: int) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(bytes([i % 256])).digest()).rstrip(b"=")
    return f"demo/m{i}.py,sha256={digest.decode()},{i}"


_PIECES = st.sampled_from(["", "\r", '"', "\0", "\n", "\r\n", " ", "x", ",", "\n\n"])


@st.composite
def _texts(draw: st.DrawFn) -> tuple[str, str]:
    """A plain RECORD, and another with a few pieces put anywhere in it."""
    rows = [_row(i) for i in range(draw(st.integers(0, 6)))]
    rows.insert(draw(st.integers(0, len(rows))), f"{RECORD},,")
    text = "\n".join(rows) + draw(st.sampled_from(["\n", "", "\n\n", "\r\n"]))
    changed = text
    for piece, at in draw(st.lists(st.tuples(_PIECES, st.integers(0, len(text))), max_size=3)):
        changed = changed[:at] + piece + changed[at:]
    return text, changed


@settings(max_examples=400, deadline=None)
@given(_texts())
def test_a_plain_record_holds_no_blank_row(texts: tuple[str, str]) -> None:
    for text in texts:
        alone = parse_record(text, RECORD)
        known: KnownLines = {}
        parse_record_beside(texts[0], RECORD, known)
        beside = parse_record_beside(text, RECORD, known)
        assert beside.plain == alone.plain  # the same text: the same answer either way
        if alone.plain:
            assert not _may_hold_blank_line(text.encode())


FILES = {"demo/__init__.py": b"VALUE = 1\n", "demo/util.py": b"X = 2\n"}
DIST = "demo-1.0.dist-info"


def test_a_blank_row_in_the_patchs_record_read_beside_the_bases_fails(tmp_path: Path) -> None:
    entries = {**FILES, f"{DIST}/METADATA": metadata("demo", "1.0"), f"{DIST}/WHEEL": wheel_file()}
    record = record_of(DIST, entries)
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES, record=record)
    blank = record.replace(b"\n", b"\n\n", 1)
    patch = write_wheel(tmp_path / "p", "demo", "1.0", FILES, record=blank)
    exit_code, report = wheels_json(base, patch)
    refusals = [
        f for f in report["findings"] if f["code"] == "W616" and f["path"] == f"{DIST}/RECORD"
    ]
    assert exit_code == 1
    assert [f["detail"] for f in refusals] == [
        "in the patch wheel: RECORD line 2 is blank: pip reads it as an empty row and stops "
        "the install half-way (IndexError)"
    ]
