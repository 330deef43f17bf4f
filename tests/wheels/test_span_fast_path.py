"""The span fast path (one read per run of records, identical results built in place and handed
back final) reaches the same report as proving every pair on its own: same entries, field for
field, same findings, same exit code, or the same error. On rebuilt wheels (sniffed natives,
mode changes, RECORD rows that changed for identical content, a forged entry inside a run) and
on hostile ones (hidden records, duplicate names, overlapping bombs, random damage)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import given
from hypothesis import strategies as st
from zip import crafted

from k3diff.errors import K3diffError
from k3diff.output import OutputFormat
from k3diff.report.wheels import render
from k3diff.wheels import schedule
from k3diff.wheels import spans as spans_module
from k3diff.wheels.compare import WheelOptions
from k3diff.wheels.model import EntryResult, WheelReport
from k3diff.wheels.pairing import pair_entries
from k3diff.wheels.spans import equal_records, plan_spans, read_span
from k3diff.zip.archive import ZipArchive
from wheels.damage_support import Edit, damage_edits, damage_settings, outcome, write_damaged

LIB = wheelkit.elf_bytes(bytes(range(256)) * 16)
FILES = {f"pkg/mod{i}.py": f"VALUE = {i}\n".encode() * 20 for i in range(40)}
FILES.update(
    {
        "pkg/lib.so": LIB,
        "pkg/bin/tool": wheelkit.elf_bytes(b"\xc3" * 300),  # native by content only
        "pkg/include/a.h": b"#pragma once\n" * 30,
        "pkg/data/empty.txt": b"",
        "pkg/data/tiny": b"ab",
    }
)


def _no_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pair proven on its own, as before spans."""

    def singles(base: Any, patch: Any, pairs: Any) -> tuple[list[Any], list[int]]:
        return [], list(range(len(pairs)))

    monkeypatch.setattr(schedule, "plan_spans", singles)


def _facts(report: WheelReport) -> tuple[Any, ...]:
    """What the report says, its renderings included: with spans, the raw-identical runs are
    read from their columns (summary, notable, findings, JSON) and compared, after, with the
    results built one by one without spans."""
    rendered = tuple(render(report, fmt) for fmt in OutputFormat if fmt is not OutputFormat.JSON)
    json_text = render(report, OutputFormat.JSON)  # before anything else builds the runs' results
    facts = (report.summary, report.notable, report.findings, report.filtered, report.exit_code)
    return (*facts, json_text, rendered, report.entries)


def both_ways(
    base: Path,
    patch: Path,
    monkeypatch: pytest.MonkeyPatch,
    options: WheelOptions | None = None,
) -> tuple[Any, ...]:
    """The outcome with spans and without; asserts they are the same."""
    options = options or WheelOptions(jobs=2, file_hash=False)
    fast = outcome(base, patch, options, _facts)
    with monkeypatch.context() as patched:
        _no_spans(patched)
        slow = outcome(base, patch, options, _facts)
    if fast[0] == slow[0] == "error":
        # An archive damaged in several places is refused either way (exit 2), but the
        # problem named is the first one a worker meets, which depends on how the pairs were
        # split into tasks: spans and single pairs may meet different damaged records first.
        assert fast[1] == slow[1]
        return fast
    assert fast == slow
    return fast


def _stored(path: Path, files: dict[str, bytes], **kwargs: Any) -> Path:
    return wheelkit.make_wheel(
        path.parent, "pkg", "1.0", files, filename=path.name, method=zipfile.ZIP_STORED, **kwargs
    )


def _covered(base: Path, patch: Path) -> int:
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        spans, _ = plan_spans(b, p, pair_entries(b.entries, p.entries))
    return sum(len(span.indices) for span in spans)


def test_a_rebuilt_wheel_is_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _stored(tmp_path / "b" / "base.whl", FILES)
    patch = _stored(tmp_path / "p" / "patch.whl", FILES)
    assert _covered(base, patch) == len(FILES) + 3
    *_, code, _, _, entries = both_ways(base, patch, monkeypatch)
    assert {e.status.value for e in entries} == {"identical"} and code == 0
    kinds = {e.path: e.kind.value for e in entries}
    assert kinds["pkg/bin/tool"] == "native" and kinds["pkg/include/a.h"] == "other"
    fields = sorted(field.name for field in dataclasses.fields(EntryResult))
    for entry in entries:  # built in place: every field given, none left to a default
        assert sorted(vars(entry)) == fields
        assert EntryResult(**{name: getattr(entry, name) for name in fields}) == entry


def test_mode_changes_and_changed_record_rows_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An identical entry installed executable (mode, W-finding) and identical entries whose
    RECORD row changed (another digest: hashed, then stale; another algorithm: hashed, clean)
    are not final in a span: they take the slow path's steps."""
    base = _stored(tmp_path / "b" / "base.whl", FILES)
    mod1, mod2 = FILES["pkg/mod1.py"], FILES["pkg/mod2.py"]
    sha512 = base64.urlsafe_b64encode(hashlib.sha512(mod2).digest()).decode().rstrip("=")
    overrides: dict[str, str | None] = {
        "pkg/mod1.py": f"pkg/mod1.py,sha256=AAAA{wheelkit.record_hash(mod1)[11:]},{len(mod1)}",
        "pkg/mod2.py": f"pkg/mod2.py,sha512={sha512},{len(mod2)}",
        "pkg/mod3.py": None,  # not listed
    }
    patch = _stored(
        tmp_path / "p" / "patch.whl",
        FILES,
        modes={"pkg/bin/tool": 0o100755, "pkg/include/a.h": 0o100600},
        record_overrides=overrides,
    )
    _, _, findings, _, code, _, _, entries = both_ways(base, patch, monkeypatch)
    by_path = {e.path: e for e in entries}
    assert by_path["pkg/mod2.py"].patch_digest is not None
    assert by_path["pkg/bin/tool"].how.value == "mode"
    assert any(f.path == "pkg/mod1.py" and f.code.name == "W302" for f in findings)
    assert any(f.path == "pkg/mod3.py" for f in findings)
    assert code == 1


def test_one_forged_record_inside_a_run_is_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forged = wheelkit.forge_same_crc(LIB, tamper_at=300, patch_at=2000)
    base = _stored(tmp_path / "b" / "base.whl", FILES)
    patch = _stored(tmp_path / "p" / "patch.whl", {**FILES, "pkg/lib.so": forged})
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        pairs = pair_entries(b.entries, p.entries)
        spans, _ = plan_spans(b, p, pairs)
        lib = next(i for i, pair in enumerate(pairs) if pair.path == "pkg/lib.so")
        (span,) = (span for span in spans if lib in span.indices)
        sides = read_span(b, p, span)
        assert sides is not None and sides[0] != sides[1]
        same, differ = equal_records(b, p, pairs, span, *sides)
    assert differ == [lib] and sorted(same + differ) == sorted(span.indices) and same
    *_, code, _, _, entries = both_ways(base, patch, monkeypatch)
    result = next(e for e in entries if e.path == "pkg/lib.so")
    assert (result.status.value, result.how.value, code) == ("changed", "content", 1)


def test_header_only_differences_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _stored(tmp_path / "b" / "base.whl", FILES)
    data = bytearray(base.read_bytes())
    at = data.index(b"PK\x03\x04", 1)  # the second record's local header: its mtime
    data[at + 10 : at + 12] = b"\x00\x00"
    patch = tmp_path / "p" / "patch.whl"
    patch.parent.mkdir()
    patch.write_bytes(bytes(data))
    entries = both_ways(base, patch, monkeypatch)[-1]
    assert {(e.status.value, e.how.value) for e in entries} == {("identical", "raw-bytes")}


def _restamped(source: Path, target: Path) -> Path:
    """A copy of `source` whose every local header carries another modification time, as a
    wheel built again from the same files (torch 2.5.0 against 2.5.1): no record is equal."""
    data = bytearray(source.read_bytes())
    with zipfile.ZipFile(source) as archive:
        for info in archive.infolist():
            data[info.header_offset + 10 : info.header_offset + 12] = b"\x21\x43"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(bytes(data))
    return target


def _span_split(base: Path, patch: Path) -> tuple[list[int], list[str]]:
    """Every span's pairs proven identical by `equal_records`, and the paths of the others."""
    same: list[int] = []
    differ: list[str] = []
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        for archive in (b, p):
            archive.local_headers()
        pairs = pair_entries(b.entries, p.entries)
        for span in plan_spans(b, p, pairs)[0]:
            sides = read_span(b, p, span)
            assert sides is not None and sides[0] != sides[1]
            proven, rest = equal_records(b, p, pairs, span, *sides)
            same += proven
            differ += [pairs[index].path for index in rest]
    return same, differ


def test_a_wheel_built_again_with_other_times_is_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every record differs in its header's time, none in its compressed bytes: each is proven
    identical inside its span from the bytes already read, as the raw-bytes proof proves it."""
    base = _stored(tmp_path / "b" / "base.whl", FILES)
    patch = _restamped(base, tmp_path / "p" / "patch.whl")
    same, differ = _span_split(base, patch)
    assert len(same) == len(FILES) + 3 and differ == []
    *_, code, _, _, entries = both_ways(base, patch, monkeypatch)
    assert {(e.status.value, e.how.value) for e in entries} == {("identical", "raw-bytes")}
    assert code == 0


def test_a_forged_entry_among_restamped_records_is_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Headers differ everywhere and one entry's compressed bytes differ under the same CRC-32:
    only that one leaves its span for the content proof."""
    forged = wheelkit.forge_same_crc(LIB, tamper_at=300, patch_at=2000)
    base = _stored(tmp_path / "b" / "base.whl", FILES)
    forged_wheel = _stored(tmp_path / "f" / "patch.whl", {**FILES, "pkg/lib.so": forged})
    patch = _restamped(forged_wheel, tmp_path / "p" / "patch.whl")
    same, differ = _span_split(base, patch)
    assert differ == ["pkg/lib.so"] and len(same) == len(FILES) + 1  # RECORD is not in a span
    *_, code, _, _, entries = both_ways(base, patch, monkeypatch)
    result = next(e for e in entries if e.path == "pkg/lib.so")
    assert (result.status.value, result.how.value, code) == ("changed", "content", 1)


HOSTILE: list[Callable[[Path], Path]] = [
    crafted.one_record_past_the_count,
    crafted.zip64_disagrees,
    crafted.name_with_nul,
    lambda directory: crafted.quine_bomb(directory, entries=50, hashed_record=True),
]


@pytest.mark.parametrize("build", HOSTILE)
def test_hostile_wheels_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: Callable[[Path], Path]
) -> None:
    base = crafted.base_wheel(tmp_path / "b")
    both_ways(base, build(tmp_path / "p"), monkeypatch)


def test_a_duplicate_name_is_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _stored(tmp_path / "b" / "base.whl", FILES)
    dup = tmp_path / "dup" / base.name
    dup.parent.mkdir()
    shutil.copy(base, dup)
    with zipfile.ZipFile(dup, "a") as archive, pytest.warns(UserWarning):
        archive.writestr(zipfile.ZipInfo("pkg/mod5.py"), b"evil = True\n")
    _, _, findings, _, code, *_ = both_ways(base, dup, monkeypatch)
    assert "W608" in {f.code.name for f in findings} and code == 1


@damage_settings(40)
@given(edits=damage_edits())
def test_damaged_copies_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edits: list[Edit]
) -> None:
    """A copy of the base with a few bytes overwritten (headers, data, directory): spans cover
    what stayed equal, and the outcome is the slow path's."""
    base = tmp_path / "b" / "base.whl"
    if not base.exists():
        _stored(base, FILES)
    patch = write_damaged(base, tmp_path / "damaged.whl", edits)
    both_ways(base, patch, monkeypatch)


def _reference_split(b: ZipArchive, p: ZipArchive, pairs: Any, span: Any, sides: Any) -> Any:
    """`equal_records` as it was: each record compared whole, then by `_equal_data`."""
    base_bytes, patch_bytes = sides
    if base_bytes == patch_bytes:
        return list(span.indices), []
    view = memoryview(base_bytes)
    starts = [pairs[index].patch.header_offset - span.patch_start for index in span.indices]
    same: list[int] = []
    differ: list[int] = []
    for index, start, end in zip(span.indices, starts, [*starts[1:], span.length], strict=True):
        equal = patch_bytes.startswith(view[start:end], start) or spans_module._equal_data(
            b, p, pairs[index], span, view, patch_bytes
        )
        (same if equal else differ).append(index)
    return same, differ


@damage_settings(40)
@given(edits=damage_edits(min_size=0), headers_read=st.booleans())
def test_restamped_and_damaged_records_split_as_the_record_by_record_proof(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    edits: list[Edit],
    headers_read: bool,
) -> None:
    """A wheel built again (every header's time differs) with a few bytes overwritten: the
    offsets `equal_records` takes from the local-header pass (or, where it has none, from
    `_equal_data`) split every span as comparing each record and then its data did, and the
    outcome is the slow path's."""
    base = tmp_path / "b" / "base.whl"
    if not base.exists():
        _stored(base, FILES)
    restamped = _restamped(base, tmp_path / "r" / "restamped.whl")
    patch = write_damaged(restamped, tmp_path / "damaged.whl", edits)
    try:
        with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
            if headers_read:
                for archive in (b, p):
                    archive.local_headers()
            pairs = pair_entries(b.entries, p.entries)
            for span in plan_spans(b, p, pairs)[0]:
                sides = read_span(b, p, span)
                if sides is None:
                    continue
                expected = _reference_split(b, p, pairs, span, sides)
                assert equal_records(b, p, pairs, span, *sides) == expected
    except K3diffError:
        pass  # refused on opening or reading its headers: the comparison below says so too
    both_ways(base, patch, monkeypatch)


def test_names_beyond_ascii_and_moved_entries_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs whose names need JSON escapes and text escapes, entries moved to `.data/purelib`
    (identical, moved: notable), a native found by its magic and a mode change among them."""
    files = {
        **FILES,
        "pkg/données/é.py": b"x = 1\n" * 30,
        "pkg/\u202eevil\U0001f600.txt": b"emoji\n" * 30,
        'pkg/quote"back\\slash.txt': b"q\n" * 30,
        "pkg/moved.py": b"MOVED = 1\n" * 30,
    }
    base = _stored(tmp_path / "b" / "base.whl", files)
    moved = {
        ("pkg-1.0.data/purelib/" + k if k == "pkg/moved.py" else k): v for k, v in files.items()
    }
    patch = _stored(tmp_path / "p" / "patch.whl", moved, modes={"pkg/données/é.py": 0o100755})
    _, notable, *_, entries = both_ways(base, patch, monkeypatch)
    assert any(e.moved for e in notable) and any(e.how.value == "mode" for e in entries)
    patch2 = _stored(tmp_path / "q" / "patch.whl", files)
    _, notable, *_, json_text, _, entries = both_ways(base, patch2, monkeypatch)
    assert not notable and "\\u00e9" in json_text and "\\ud83d\\ude00" in json_text
