"""A comparison that shares work between its wheels (the names both hold screened once,
`wheel.namescreens`; the patch's RECORD lines that are the base's taken from the base's parse,
`wheel.recordpair`) writes the report it writes when each wheel is checked alone: the same JSON
document, the same exit code, on near-identical pairs the sharing could misread (review56b).

The unit tests of both modules compare the functions; this one compares whole reports, so that
the wiring in `wheels.compare` (which wheel gets which screens and rows) is held too."""

from __future__ import annotations

import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from wheelkit import FIXED_DATE, record_hash, wheel_files

from k3diff.documents import wheels as wheels_document
from k3diff.wheel.namescreens import screen_names
from k3diff.wheel.record import Record, parse_wheel_record
from k3diff.wheels import compare, facts
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

RECORD = "demo-1.0.dist-info/RECORD"
FILES = {
    "demo/__init__.py": b"x = 1\n",
    "demo/a.py": b"a = 1\n",
    "demo/b.py": b"b = 2\n",
    "demo/_c.so": b"\x7fELF\x02\x01\x01",
}
Items = list[tuple[str, bytes]]


def _items(
    files: dict[str, bytes],
    record: Callable[[bytes], bytes] | None = None,
    extra: Items | None = None,
) -> Items:
    entries = wheel_files("demo", "1.0", files)
    if record is not None:
        entries[RECORD] = record(entries[RECORD])
    return [*entries.items(), *(extra or [])]


def _write(path: Path, items: Items) -> Path:
    """The entries in order, a name given twice written twice."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as archive:
        warnings.simplefilter("ignore")  # "Duplicate name"
        for name, data in items:
            info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            archive.writestr(info, data)
    return path


CHANGED = {**FILES, "demo/a.py": b"a = 2\n"}
_ROW = "demo/zz.py," + record_hash(b"z") + ",1\n"

CASES: dict[str, tuple[Items, Items]] = {
    "record CRLF": (_items(FILES), _items(CHANGED, lambda t: t.replace(b"\n", b"\r\n"))),
    "record BOM": (_items(FILES), _items(CHANGED, lambda t: b"\xef\xbb\xbf" + t)),
    "record blank line": (_items(FILES), _items(CHANGED, lambda t: t + b"\n")),
    "record line twice": (_items(FILES), _items(FILES, lambda t: t + t.split(b"\n")[0] + b"\n")),
    "record own row twice": (_items(FILES), _items(FILES, lambda t: t + f"{RECORD},,\n".encode())),
    "record own row sized": (
        _items(FILES),
        _items(FILES, lambda t: t.replace(f"{RECORD},,".encode(), f"{RECORD},,0".encode())),
    ),
    "record lists an absent path": (_items(FILES), _items(FILES, lambda t: t + _ROW.encode())),
    "record quoted": (
        _items(FILES),
        _items(FILES, lambda t: t.replace(b"demo/a.py,", b'"demo/a.py",')),
    ),
    "record another dist-info's own row": (
        _items(FILES),
        _items(FILES, lambda t: t + b"Demo-1.0.dist-info/RECORD,,\n"),
    ),
    "base record not plain": (
        _items(FILES, lambda t: t + t.split(b"\n")[0] + b"\n"),
        _items(FILES),
    ),
    "name needs normpath": (_items(FILES), _items({**FILES, "demo//y.py": b"y"})),
    "name in .data": (_items(FILES), _items({**FILES, "demo-1.0.data/purelib/demo/a.py": b"a\n"})),
    "directory with bytes": (_items(FILES), _items(FILES, extra=[("demo/", b"xx")])),
    "name climbs out": (_items(FILES), _items({**FILES, "../up.py": b"u"})),
    "case-fold collision": (_items(FILES), _items({**FILES, "demo/A.py": b"A"})),
    "file becomes a directory": (_items(FILES), _items({**FILES, "demo/a.py/in.py": b"i"})),
    "name given twice": (_items(FILES), _items(CHANGED, extra=[("demo/a.py", b"evil = 1\n")])),
    "second dist-info": (_items(FILES), _items({**FILES, "Demo-1.0.dist-info/METADATA": b"N"})),
    "base name removed, .data added": (
        _items(FILES),
        _items(
            {
                **{k: v for k, v in FILES.items() if k != "demo/b.py"},
                "demo-1.0.data/scripts/run": b"#!/bin/sh\n",
            }
        ),
    ),
}


def _alone_screens(base: tuple[ZipEntry, ...], patch: tuple[ZipEntry, ...]) -> tuple[object, ...]:
    return screen_names([entry.name for entry in base]), screen_names([e.name for e in patch])


def _alone_records(
    base: ZipArchive, patch: ZipArchive, dist_infos: tuple[str | None, str | None]
) -> tuple[Record | None, Record | None]:
    return parse_wheel_record(base, dist_infos[0]), parse_wheel_record(patch, dist_infos[1])


def _report(base: Path, patch: Path) -> tuple[int, str]:
    report = compare.compare_wheels(base, patch)
    return int(report.exit_code), wheels_document.write(report)


@pytest.mark.parametrize("case", list(CASES))
def test_shared_checks_write_the_report_of_each_wheel_alone(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base_items, patch_items = CASES[case]
    base = _write(tmp_path / "b" / "demo-1.0-py3-none-any.whl", base_items)
    patch = _write(tmp_path / "p" / "demo-1.0-py3-none-any.whl", patch_items)
    shared = _report(base, patch)
    monkeypatch.setattr(compare, "screen_pair", _alone_screens)
    monkeypatch.setattr(facts, "parse_wheel_records", _alone_records)  # the read-facts phase
    assert shared == _report(base, patch)
