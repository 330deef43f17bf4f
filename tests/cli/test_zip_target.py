"""`is_zip_archive` (a report or manifest is never written over a zip archive) agrees with
`zipfile.is_zipfile` on every file, though it imports zipfile only for a file whose tail holds
an end-record signature."""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from k3diff.cli.outputtargets import is_zip_archive

END = b"PK\x05\x06"
SEARCH = (1 << 16) + 22


def _zip(comment: bytes = b"", stub: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", "a")
        archive.comment = comment
    return stub + buffer.getvalue()


CASES = {
    "plain zip": _zip(),
    "zip behind a stub": _zip(stub=b"#!/bin/sh\nexit 0\n" * 100),
    "zip with the longest comment behind a stub": _zip(b"c" * 0xFFFF, stub=b"x" * 5000),
    "json report": b'{"entries": []}\n' * 10_000,
    "empty": b"",
    "bare end record": END + bytes(18),
    "end record behind a stub": b"y" * 100_000 + END + bytes(18),
    # the signature just inside and just outside zipfile's search window
    "signature at the window's start": b"w" * 10 + END + bytes(18) + b"z" * (SEARCH - 22),
    "signature before the window": b"w" * 10 + END + bytes(18) + b"z" * (SEARCH - 21),
    "signature in the last bytes, truncated": b"q" * 70_000 + END + b"\0\0",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_agrees_with_zipfile(tmp_path: Path, name: str) -> None:
    path = tmp_path / "target"
    path.write_bytes(CASES[name])
    # a zip signature at the start counts whatever zipfile says (a local header or end record)
    expected = CASES[name][:4] in (b"PK\x03\x04", END, b"PK\x07\x08") or zipfile.is_zipfile(path)
    assert is_zip_archive(path) is expected


def test_the_window_cases_sit_on_zipfiles_boundary(tmp_path: Path) -> None:
    # zipfile itself finds the one and not the other: the cases test the window's edge
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.write_bytes(CASES["signature at the window's start"])
    outside.write_bytes(CASES["signature before the window"])
    assert zipfile.is_zipfile(inside)
    assert not zipfile.is_zipfile(outside)


def test_a_report_overwritten_does_not_import_zipfile(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_bytes(CASES["json report"])
    code = (
        "import sys\nfrom pathlib import Path\nfrom k3diff.cli.outputtargets import is_zip_archive\n"
        f"assert not is_zip_archive(Path({str(report)!r}))\n"
        "print('zipfile' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
