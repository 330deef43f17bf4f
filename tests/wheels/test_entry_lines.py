"""The `entries` lines written field by field are the text `dumps(entry_json(entry))` gives."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import wheelkit

from k3diff import escape
from k3diff.documents import wheels as wheels_document
from k3diff.documents.wheelentries import entry_json, entry_line
from k3diff.jsontext import dumps
from k3diff.textdiff import TextDiff
from k3diff.wheel.kinds import EntryKind
from k3diff.wheels.compare import WheelOptions, compare_wheels
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import How, Status

PLAIN = EntryResult(
    path="pkg/mod.py",
    base_path="pkg/mod.py",
    patch_path="pkg/mod.py",
    kind=EntryKind.PYTHON,
    status=Status.IDENTICAL,
    how=How.RAW_BYTES,
    recompressed=False,
    base_size=10,
    patch_size=10,
    base_crc32=0x1234,
    patch_crc32=0x1234,
    base_mode=0o100644,
    patch_mode=0o100644,
    installed_path="site-packages/pkg/mod.py",
    base_installed_path="site-packages/pkg/mod.py",
)

VARIANTS = [
    PLAIN,
    replace(PLAIN, path='odd "name"\\\n\x1b[2K\u202e\ud800é.py', base_path=None),
    replace(PLAIN, patch_path=None, patch_size=None, patch_crc32=None, status=Status.MISSING),
    replace(PLAIN, installed_path=None, base_installed_path=None, moved=True, recompressed=True),
    replace(PLAIN, corrupt="the patch wheel's stream: bad\ttab", how=How.CORRUPT),
    replace(PLAIN, patch_digest="sha256=abc-_", status=Status.CHANGED, how=How.CONTENT),
    replace(PLAIN, patch_mode=0o100755, status=Status.CHANGED, how=How.MODE),
    replace(PLAIN, base_crc32=0, patch_crc32=0xFFFFFFFF, base_size=0, patch_size=2**40),
    replace(PLAIN, kind=EntryKind.NATIVE, diff=TextDiff(1, 2, "@@ -1 +1 @@\n-a\n+b\n")),
]


@pytest.mark.parametrize("entry", VARIANTS)
def test_entry_line_is_the_json_form(entry: EntryResult) -> None:
    line = entry_line(entry)
    assert line == dumps(entry_json(entry))
    assert json.loads(line)["path"] == entry.path
    assert escape.terminal(line) == line  # ASCII with every control character escaped


@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_document_text_is_the_document(tmp_path: Path, count: int) -> None:
    """`write` joins the entry lines itself: its text reads back as `document`, with no, one
    or several entries, each on its own line."""
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {"pkg/a.py": b"a = 1\n"})
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {"pkg/a.py": b"a = 2\n"})
    report = compare_wheels(base, patch, WheelOptions(file_hash=False))
    report = replace(report, entries=tuple(VARIANTS * 3)[:count])
    text = wheels_document.write(report)
    assert json.loads(text) == json.loads(dumps(wheels_document.document(report)))
    assert text.count('\n    {"path": ') == count
    if not count:
        assert '"entries": [],' in text
