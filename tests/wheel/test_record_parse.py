"""RECORD is parsed once per wheel, and its common rows quickly: the quick path must judge a row
exactly as the full checks do, and every check of `wheels` reads that one parse."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
from wheelkit import make_wheel

from k3diff.wheel import record as record_module
from k3diff.wheel import recordpair
from k3diff.wheel.codes import Code
from k3diff.wheel.record import parse_record
from k3diff.wheels.compare import compare_wheels

DIST = "demo-1.0.dist-info"
RECORD = f"{DIST}/RECORD"


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def test_well_formed_rows_carry_the_digest_and_size_they_state() -> None:
    contents = {f"demo/m{i}.py": f"x = {i}\n".encode() * (i + 1) for i in range(50)}
    text = "".join(f"{p},sha256={_digest(d)},{len(d)}\n" for p, d in contents.items())
    parsed = parse_record(text + f"{RECORD},,\n", RECORD)
    assert parsed.findings == () and parsed.unreadable is None
    for path, data in contents.items():
        row = parsed.rows[path]
        assert row.digest == hashlib.sha256(data).digest()
        assert row.size == len(data) and row.algorithm == "sha256"
        assert row.sha256 == _digest(data) and row.hash == f"sha256={_digest(data)}"


@pytest.mark.parametrize(
    ("row", "code"),
    [
        ("demo/a.py,sha256=" + "A" * 42 + ",3", Code.A102),  # one character short
        ("demo/a.py,sha256=" + "A" * 43 + ",+3", Code.A102),  # a sign is not decimal
        ("demo/a.py,sha256=" + "A" * 43 + ",\u0663", Code.A102),  # an Arabic-Indic three
        ("demo/a.py,sha256=" + "A" * 42 + "=,3", Code.A102),  # padding is not written
        ("demo/a.py,md5=" + "A" * 22 + ",3", Code.A108),
        (f"{RECORD},sha256=" + "A" * 43 + ",3", Code.A110),  # RECORD cannot hash itself
    ],
)
def test_rows_the_quick_path_must_leave_to_the_full_checks(row: str, code: Code) -> None:
    parsed = parse_record(f"{row}\n{RECORD},,\n", RECORD)
    assert code in {finding.code for finding in parsed.findings}


def test_a_path_listed_twice_keeps_its_first_row_and_is_reported() -> None:
    first, second = f"sha256={_digest(b'a')}", f"sha256={_digest(b'b')}"
    text = f"demo/a.py,{first},1\ndemo/a.py,{second},1\n{RECORD},,\n"
    parsed = parse_record(text, RECORD)
    assert parsed.rows["demo/a.py"].hash == first
    assert [(f.code, f.path) for f in parsed.findings] == [(Code.A112, "demo/a.py")]


def test_wheels_parses_each_record_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"demo/__init__.py": b"A = 1\n", "demo/util.py": b"B = 2\n"}
    base = make_wheel(tmp_path / "base", "demo", "1.0", files)
    patch = make_wheel(tmp_path / "patch", "demo", "1.0", dict(files, **{"demo/util.py": b"B\n"}))
    parsed: list[str] = []
    real = record_module.parse_record
    beside = recordpair.parse_record_beside

    def counting(text: str, record_path: str) -> record_module.Record:
        parsed.append(record_path)
        return real(text, record_path)

    def counting_beside(
        text: str, record_path: str, known: recordpair.KnownLines
    ) -> record_module.Record:
        parsed.append(record_path)
        return beside(text, record_path, known)

    monkeypatch.setattr(record_module, "parse_record", counting)
    monkeypatch.setattr(recordpair, "parse_record", counting)
    monkeypatch.setattr(recordpair, "parse_record_beside", counting_beside)
    monkeypatch.setattr("k3diff.wheel.installable.parse_record", counting)
    report = compare_wheels(base, patch)
    assert parsed == [RECORD, RECORD]  # once per wheel: the comparison and pip's checks share it
    assert {entry.path for entry in report.entries if entry.status.value == "changed"} >= {
        "demo/util.py"
    }


def test_a_hex_digest_says_it_is_hex_not_the_base64_the_spec_asks_for() -> None:
    """gmsh 4.15.2 writes every RECORD digest in hexadecimal (`sha256=386b5ba2…f467`); the
    detail cut it at 60 characters and said nothing more, as if the digest were short."""
    data = b"VALUE = 1\n"
    hexdigest = hashlib.sha256(data).hexdigest()
    parsed = parse_record(f"demo/a.py,sha256={hexdigest},{len(data)}\n{RECORD},,\n", RECORD)
    (finding,) = parsed.findings
    assert finding.code is Code.A102
    assert finding.detail == (
        f"RECORD line 1: sha256 digest {hexdigest!r}: hexadecimal, where the wheel spec asks "
        "for urlsafe base64 without padding (43 characters)"
    )


def test_a_digest_of_the_wrong_length_says_the_length_it_needs() -> None:
    parsed = parse_record(f"demo/a.py,sha256={'A' * 42},3\n{RECORD},,\n", RECORD)
    (finding,) = parsed.findings
    assert finding.detail == (
        f"RECORD line 1: sha256 digest {'A' * 42!r}: not urlsafe base64 without padding "
        "(43 characters)"
    )
