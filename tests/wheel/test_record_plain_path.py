"""RECORD's all-at-once path (`record._plain_record`) reaches exactly the row-by-row verdict: the
same rows in the same order, the same findings, the same unreadable line, on well-formed and
hostile text alike."""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel import record as record_module
from k3diff.wheel.record import Record, parse_record

RECORD = "demo-1.0.dist-info/RECORD"


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _row_by_row(text: str, monkeypatch: pytest.MonkeyPatch) -> Record:
    with monkeypatch.context() as patched:
        patched.setattr(record_module, "_plain_record", lambda text, path: None)
        return parse_record(text, RECORD)


def _same(text: str, monkeypatch: pytest.MonkeyPatch) -> Record:
    quick, slow = parse_record(text, RECORD), _row_by_row(text, monkeypatch)
    assert quick == slow
    assert list(quick.rows) == list(slow.rows)  # the same order too
    return quick


def _rows(count: int) -> list[str]:
    return [f"demo/m{i}.py,sha256={_digest(bytes([i]))},{i}" for i in range(count)]


@pytest.mark.parametrize("own_at", [0, 2, 5])
def test_well_formed_record_takes_the_quick_path_wherever_it_lists_itself(
    own_at: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _rows(5)
    rows.insert(own_at, f"{RECORD},,")
    text = "\n".join(rows) + "\n"
    assert record_module._plain_record(text, RECORD) is not None
    parsed = _same(text, monkeypatch)
    assert parsed.findings == () and list(parsed.rows)[own_at] == RECORD


@pytest.mark.parametrize(
    "change",
    [
        lambda rows: [*rows, "demo/m1.py,sha256=" + _digest(b"x") + ",1"],  # listed twice
        lambda rows: [*rows, f"{RECORD},,"],  # RECORD listed twice
        lambda rows: [rows[0] + ",extra", *rows[1:]],  # four fields
        lambda rows: [rows[0].rsplit(",", 1)[0], *rows[1:]],  # two fields
        lambda rows: ["", *rows],  # a blank line
        lambda rows: [rows[0].replace("sha256=", "sha384="), *rows[1:]],
        lambda rows: [rows[0].replace("sha256=", "md5="), *rows[1:]],
        lambda rows: [rows[0][:-1] + "\u0663", *rows[1:]],  # an Arabic-Indic digit
        lambda rows: [rows[0] + "9" * 30, *rows[1:]],  # a size too long to convert
        lambda rows: [rows[0].replace(",", ",A", 1), *rows[1:]],  # a hash one too long
        lambda rows: [rows[1][: rows[1].index("=") + 43] + "," + "1", *rows[2:]],  # too short
        lambda rows: [",sha256=" + _digest(b"") + ",0", *rows],  # an empty path
        lambda rows: [rows[0].rsplit(",", 1)[0] + ",", *rows[1:]],  # no size
        lambda rows: [rows[0].split(",")[0] + ",,3", *rows[1:]],  # no hash
        lambda rows: [f'"{rows[0]}"', *rows[1:]],  # quoted: the csv module reads it
        lambda rows: [r.replace(f"{RECORD},,", f"{RECORD},,0") for r in rows],  # own size
        lambda rows: [r for r in rows if not r.startswith(RECORD)],  # not listed at all
    ],
)
def test_rows_with_anything_to_say_reach_the_row_by_row_verdict(
    change: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [*_rows(4), f"{RECORD},,"]
    text = "\n".join(change(rows)) + "\n"  # type: ignore[operator]
    _same(text, monkeypatch)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["demo/a.py", "demo/b.py", RECORD, "", "x,y", "demo/é.py"]),
            st.sampled_from(["sha256=" + _digest(b"a"), "", "sha256=abc", "md5=" + "A" * 22]),
            st.sampled_from(["1", "", "01", "x", "1" * 25, "\u0661"]),
        ),
        max_size=6,
    ),
    st.booleans(),
)
def test_any_mix_of_rows_reaches_the_row_by_row_verdict(
    rows: list[tuple[str, str, str]], trailing: bool
) -> None:
    text = "\n".join(",".join(row) for row in rows) + ("\n" if trailing else "")
    quick = parse_record(text, RECORD)
    saved = record_module._plain_record
    record_module._plain_record = lambda text, path: None  # type: ignore[assignment]
    try:
        slow = parse_record(text, RECORD)
    finally:
        record_module._plain_record = saved
    assert quick == slow and list(quick.rows) == list(slow.rows)
