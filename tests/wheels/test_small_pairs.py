"""The small-pair fast path (`smallpairs.identical_small`: small recompressed pairs proven
identical in one loop, their results built in place and handed back final) reaches the same
report as proving every pair on its own: same entries, field for field, same findings, summary,
notable entries, stream counts and exit code, the same text, Markdown and JSON renderings, or the
same error. On recompressed wheels (sniffed natives, stored against deflated, mode
changes, RECORD rows that changed for identical content, moved entries) and on hostile ones
(forged CRC-32s, corrupt, truncated and bomb streams, a wrong CRC-32 on both sides, random
damage): whatever it does not prove identical is left to the slow path, which says what it is."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import given
from wheelkit import RawMember, raw_member, raw_zip, wheel_files

from k3diff.output import OutputFormat
from k3diff.report.wheels import render
from k3diff.wheels import smallpairs
from k3diff.wheels.compare import WheelOptions
from k3diff.wheels.model import EntryResult, WheelReport
from k3diff.wheels.proof import How, Status
from wheels.damage_support import Edit, damage_edits, damage_settings, outcome, write_damaged

TEXT = b"".join(b"line %d of a file that compresses well\n" % i for i in range(300))
FILES = {f"pkg/mod{i}.py": TEXT + b"# %d\n" % i for i in range(30)}
FILES.update(
    {
        "pkg/lib.so": wheelkit.elf_bytes(bytes(range(256)) * 16),
        "pkg/bin/tool": wheelkit.elf_bytes(b"\xc3" * 300),  # native by content only
        "pkg/data/blob": TEXT * 2,  # other by content
        "pkg/include/a.h": b"#pragma once\n" * 30,
        "pkg/data/empty.txt": b"",
        "pkg/data/tiny": b"ab",
    }
)


def _slow(
    base: Any, patch: Any, pairs: Any, batch: Any, unchanged: Any
) -> tuple[list[Any], list[int]]:
    """No pair taken: every pair proven on its own, as before the fast path."""
    return [], list(batch)


def _facts(report: WheelReport) -> tuple[Any, ...]:
    """What the report says, its renderings and stream counts included."""
    json_text = render(report, OutputFormat.JSON)
    summary, findings, notable = report.summary, report.findings, report.notable
    rendered = tuple(render(report, fmt) for fmt in OutputFormat if fmt is not OutputFormat.JSON)
    streams = (report.unverified_streams, report.verified_streams)
    facts = (report.entries, findings, report.filtered, report.exit_code, summary)
    return (*facts, notable, json_text, rendered, streams)


def both_ways(
    base: Path,
    patch: Path,
    monkeypatch: pytest.MonkeyPatch,
    jobs: int = 2,
    file_hash: bool = False,
) -> tuple[tuple[Any, ...], int]:
    """The outcome with the fast path and without, asserted the same, and how many pairs the
    fast path proved."""
    taken = 0
    real = smallpairs.identical_small

    def counted(*args: Any) -> tuple[list[Any], list[int]]:
        nonlocal taken
        done, rest = real(*args)
        taken += len(done)
        return done, rest

    options = WheelOptions(jobs=jobs, file_hash=file_hash)
    with monkeypatch.context() as patched:
        patched.setattr(smallpairs, "identical_small", counted)
        fast = outcome(base, patch, options, _facts)
    with monkeypatch.context() as patched:
        patched.setattr(smallpairs, "identical_small", _slow)
        slow = outcome(base, patch, options, _facts)
    if fast[0] == slow[0] == "error":
        # Refused either way (exit 2); the problem named is the first a worker meets, which
        # depends on the order in which the pairs were read.
        assert fast[1] == slow[1]
        return fast, taken
    assert fast == slow
    return fast, taken


def _rebuilt(directory: Path, **patch_options: Any) -> tuple[Path, Path]:
    """FILES at deflate level 9, and again at level 1 in reverse order: every entry
    recompressed (but the few whose level-1 bytes happen to be the same)."""
    base = wheelkit.make_wheel(directory / "b", "pkg", "1.0", FILES, compresslevel=9)
    patch_files = patch_options.pop("files", FILES)
    patch = wheelkit.make_wheel(
        directory / "p",
        "pkg",
        "1.0",
        patch_files,
        compresslevel=1,
        order=[*reversed(wheel_files("pkg", "1.0", patch_files))],
        **patch_options,
    )
    return base, patch


def test_a_recompressed_wheel_is_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, patch = _rebuilt(tmp_path)
    (entries, _, _, code, *_), taken = both_ways(base, patch, monkeypatch)
    assert code == 0 and {e.status for e in entries} == {Status.IDENTICAL}
    assert taken >= len(FILES) - 3  # all but those whose level-1 bytes are the same
    by_path = {e.path: e for e in entries}
    assert by_path["pkg/bin/tool"].kind.value == "native"
    assert by_path["pkg/data/blob"].kind.value == "other"
    assert (by_path["pkg/mod1.py"].how, by_path["pkg/mod1.py"].recompressed) == (How.CONTENT, True)
    fields = sorted(field.name for field in dataclasses.fields(EntryResult))
    for entry in entries:  # built in place: every field given, none left to a default
        assert sorted(vars(entry)) == fields
        assert EntryResult(**{name: getattr(entry, name) for name in fields}) == entry


@pytest.mark.parametrize("jobs", [1, 3])
def test_modes_record_rows_and_moves_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """An identical entry installed executable (mode), identical entries whose RECORD row
    changed (another digest: stale; another algorithm: hashed) or is missing, and an entry
    moved into `.data/purelib` are not the fast path's: they take the slow path's steps."""
    mod1, mod2 = FILES["pkg/mod1.py"], FILES["pkg/mod2.py"]
    sha512 = base64.urlsafe_b64encode(hashlib.sha512(mod2).digest()).decode().rstrip("=")
    overrides: dict[str, str | None] = {
        "pkg/mod1.py": f"pkg/mod1.py,sha256=AAAA{wheelkit.record_hash(mod1)[11:]},{len(mod1)}",
        "pkg/mod2.py": f"pkg/mod2.py,sha512={sha512},{len(mod2)}",
        "pkg/mod3.py": None,  # not listed
    }
    moved = {k: v for k, v in FILES.items() if k != "pkg/mod4.py"}
    moved["pkg-1.0.data/purelib/pkg/mod4.py"] = FILES["pkg/mod4.py"]
    base, patch = _rebuilt(
        tmp_path,
        files=moved,
        modes={"pkg/bin/tool": 0o100755, "pkg/mod5.py": 0o100600},
        record_overrides=overrides,
    )
    (entries, findings, _, code, *_), taken = both_ways(base, patch, monkeypatch, jobs)
    by_path = {e.path: e for e in entries}
    assert by_path["pkg/mod2.py"].patch_digest is not None
    assert by_path["pkg/bin/tool"].how is How.MODE
    assert any(f.path == "pkg/mod1.py" and f.code.name == "W302" for f in findings)
    assert by_path["pkg-1.0.data/purelib/pkg/mod4.py"].moved
    assert code == 1 and taken > 0


def _deflated(content: bytes, level: int) -> bytes:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(content) + compressor.flush()


def _member(name: str, content: bytes, level: int) -> RawMember:
    return RawMember(name.encode(), _deflated(content, level), 8, zlib.crc32(content), len(content))


def _lying(name: str, declared: bytes, stream: bytes) -> RawMember:
    """An entry whose directory declares `declared`'s size and CRC-32 over `stream`."""
    return RawMember(name.encode(), stream, 8, zlib.crc32(declared), len(declared))


def _hostile(directory: Path) -> tuple[Path, Path]:
    """A recompressed pair whose patch forges, corrupts, truncates, bombs and garbles some
    streams, and whose base declares a wrong CRC-32 for one and carries a corrupt stream."""
    names = ["forged", "corrupt", "truncated", "bomb", "garbled", "wrong-crc", "base-corrupt"]
    files = {**FILES, **{f"pkg/{name}.txt": TEXT for name in names}, "pkg/stored.txt": TEXT}
    entries = wheel_files("demo", "1.0", files)
    wrong = zlib.crc32(TEXT) ^ 1
    base_members, patch_members = [], []
    for name, data in entries.items():
        base_member, patch_member = _member(name, data, 9), _member(name, data, 1)
        if name == "pkg/forged.txt":
            forged = wheelkit.forge_same_crc(data, tamper_at=100, patch_at=5000)
            patch_member = _member(name, forged, 1)
        elif name == "pkg/corrupt.txt":
            patch_member = _lying(name, data, _deflated(data.replace(b"line 7 ", b"line X "), 1))
        elif name == "pkg/truncated.txt":
            stream = _deflated(data, 1)
            patch_member = _lying(name, data, stream[: len(stream) // 2])
        elif name == "pkg/bomb.txt":
            patch_member = _lying(name, data, _deflated(bytes(4 << 20), 9))
        elif name == "pkg/garbled.txt":
            patch_member = _lying(name, data, b"\xff" * 64)
        elif name == "pkg/wrong-crc.txt":  # the same wrong CRC-32 on both sides
            base_member, patch_member = (
                replace(base_member, crc=wrong),
                replace(patch_member, crc=wrong),
            )
        elif name == "pkg/base-corrupt.txt":
            base_member = _lying(name, data, _deflated(data.replace(b"line 9 ", b"line Y "), 9))
        elif name == "pkg/stored.txt":
            patch_member = raw_member(name, data, method=0)
        base_members.append(base_member)
        patch_members.append(patch_member)
    base = directory / "demo-1.0-py3-none-any.whl"
    patch = directory / "patch" / "demo-1.0-py3-none-any.whl"
    patch.parent.mkdir()
    base.write_bytes(raw_zip(base_members))
    patch.write_bytes(raw_zip(patch_members[::-1]))
    return base, patch


@pytest.mark.parametrize("file_hash", [False, True])
def test_hostile_streams_are_left_to_the_slow_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file_hash: bool
) -> None:
    base, patch = _hostile(tmp_path)
    (entries, _, _, code, *_), taken = both_ways(base, patch, monkeypatch, file_hash=file_hash)
    by_path = {e.path: e for e in entries}
    forged = by_path["pkg/forged.txt"]
    assert (forged.status, forged.how) == (Status.CHANGED, How.CONTENT)
    for name in ("corrupt", "truncated", "bomb", "garbled", "wrong-crc", "base-corrupt"):
        result = by_path[f"pkg/{name}.txt"]
        assert (result.status, result.how) == (Status.CHANGED, How.CORRUPT), name
    assert by_path["pkg/stored.txt"].how is How.CONTENT
    assert code == 1 and taken >= len(FILES)


def test_the_fast_path_takes_no_pair_it_cannot_prove(tmp_path: Path) -> None:
    """Called on its own: the hostile pairs come back for the slow path, the honest ones not."""
    from k3diff.wheels.pairing import pair_entries
    from k3diff.zip.archive import ZipArchive

    base, patch = _hostile(tmp_path)
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        pairs = pair_entries(b.entries, p.entries)
        every = frozenset(pair.path for pair in pairs)
        done, rest = smallpairs.identical_small(b, p, pairs, range(len(pairs)), every)
    left = {pairs[index].path for index in rest}
    hostile = {"forged", "corrupt", "truncated", "bomb", "garbled", "wrong-crc", "base-corrupt"}
    assert {f"pkg/{name}.txt" for name in hostile} <= left
    assert {pairs[index].path for index, _ in done} == every - left
    assert all(result.how is How.CONTENT for _, result in done)


@given(edits=damage_edits())
@damage_settings(max_examples=40)
def test_damaged_recompressed_wheels_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edits: list[Edit]
) -> None:
    source = tmp_path / "source"
    if not source.exists():
        source.mkdir()
        _rebuilt(source)
    base = next((source / "b").iterdir())
    patch = write_damaged(next((source / "p").iterdir()), tmp_path / "patch.whl", edits)
    both_ways(base, patch, monkeypatch)
