"""The `entries` lines written field by field are the text `dumps(entry_json(entry))` gives,
and the whole list written column by column (`entries_text`) is those lines joined."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff import escape
from k3diff.documents import wheels as wheels_document
from k3diff.documents.wheelentries import ENTRY_SEPARATOR, entries_text, entry_json, entry_line
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


def _joined(entries: list[EntryResult]) -> str:
    return ENTRY_SEPARATOR.join(entry_line(entry) for entry in entries)


@pytest.mark.parametrize(
    "entries",
    [
        [],
        [PLAIN],
        [PLAIN] * 5,
        VARIANTS,
        [PLAIN, *VARIANTS, PLAIN, PLAIN],
        [replace(PLAIN, how=How.CONTENT, recompressed=True, kind=kind) for kind in EntryKind],
        [replace(PLAIN, base_crc32=-1), replace(PLAIN, patch_crc32=2**32)],  # not 32-bit
        [replace(PLAIN, installed_path=None, base_installed_path=None)],  # not installed
    ],
)
def test_the_entries_text_is_every_line_joined(entries: list[EntryResult]) -> None:
    assert entries_text(entries) == _joined(entries)


_OFF_PLAIN: dict[str, list[Any]] = {
    "base_path": [None, "other.py"],
    "patch_path": [None, "other.py"],
    "status": list(Status),
    "how": list(How),
    "recompressed": [True],
    "base_size": [None, 0],
    "patch_size": [None, 0],
    "base_crc32": [None, 0, 2**32, -1],
    "patch_crc32": [None, 0, 2**32, -1],
    "installed_path": [None, "", "bin/mod.py"],
    "base_installed_path": [None, "", "bin/mod.py"],
    "moved": [True],
    "corrupt": ["bad"],
    "patch_digest": ["sha256=abc"],
    "base_mode": [None, 0o100755],
    "patch_mode": [None, 0o100755],
    "diff": [TextDiff(1, 0, "+x\n")],
}
"""Each field `entries_text` checks before writing an entry as plain, with values that take it
out of the plain shape (or keep it in, where the line still follows)."""


@pytest.mark.parametrize(
    ("name", "value"), [(name, value) for name, values in _OFF_PLAIN.items() for value in values]
)
def test_one_field_off_the_plain_shape(name: str, value: object) -> None:
    off: dict[str, Any] = {name: value}
    entries = [PLAIN, replace(PLAIN, **off), PLAIN]
    assert entries_text(entries) == _joined(entries)


_NAMES = st.text(st.characters(codec=None), max_size=12) | st.sampled_from(
    ["pkg/a.py", 'q"uote', "back\\slash", "\x00\x1b\u2028\ud800\U0001f600é", ""]
)


@st.composite
def _entries(draw: st.DrawFn) -> EntryResult:
    """An entry with every field `entry_line` reads drawn, hostile names included: the plain
    shape (identical, one path and one installed path on both sides, nothing else to say) with
    none, one or a few of its other fields drawn anything."""
    path = draw(_NAMES)
    installed = draw(st.sampled_from([f"site-packages/{path}", "bin/x", path, ""]))
    sizes = st.integers(min_value=0, max_value=2**64)
    crcs = st.integers(min_value=0, max_value=2**32 - 1) | st.integers(
        min_value=-2, max_value=2**33
    )
    plain = replace(
        PLAIN,
        path=path,
        base_path=path,
        patch_path=path,
        kind=draw(st.sampled_from(EntryKind)),
        how=draw(st.sampled_from(How)),
        recompressed=draw(st.booleans()),
        base_size=draw(sizes),
        patch_size=draw(sizes),
        base_crc32=draw(crcs),
        patch_crc32=draw(crcs),
        installed_path=installed,
        base_installed_path=installed,
    )
    names = st.none() | _NAMES
    modes = st.sampled_from([None, 0o100644, 0o100755])
    others = {
        "base_path": names,
        "patch_path": names,
        "status": st.sampled_from(Status),
        "base_size": st.none(),
        "patch_size": st.none(),
        "base_crc32": st.none(),
        "patch_crc32": st.none(),
        "installed_path": names,
        "base_installed_path": names,
        "moved": st.just(True),
        "corrupt": _NAMES,
        "patch_digest": st.just("sha256=abc"),
        "base_mode": modes,
        "patch_mode": modes,
        "diff": st.just(TextDiff(1, 0, "+x\n")),
    }
    # Nothing, one or a few fields off the plain shape: each way out of it is drawn alone.
    changed = draw(st.sets(st.sampled_from(sorted(others)), max_size=3))
    off: dict[str, Any] = {name: draw(others[name]) for name in sorted(changed)}
    return replace(plain, **off)


@settings(max_examples=400, deadline=None)
@given(st.lists(_entries() | st.just(PLAIN), max_size=8))
def test_the_entries_text_is_every_line_joined_for_any_entries(
    entries: list[EntryResult],
) -> None:
    text = entries_text(entries)
    assert text == _joined(entries)
    assert escape.terminal(text) == text
