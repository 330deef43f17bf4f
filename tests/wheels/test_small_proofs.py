"""Small entries are proven whole (one read and one inflate per side, the kind of an identical
one sniffed from the content the proof inflated); every other entry is streamed. Both paths must
reach the same status, evidence, kind and corruption on honest and hostile pairs alike: a
recompressed wheel of many small entries, among them forged CRC-32s, corrupt and truncated
streams and a small bomb (a stream that inflates far past its declared size)."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
import wheelkit
from wheelkit import RawMember, raw_member, raw_zip, wheel_files

from k3diff.wheels import proof
from k3diff.wheels.compare import compare_wheels
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import How, Status

TEXT = b"".join(b"line %d of a file that compresses well\n" % i for i in range(300))
ELF = wheelkit.elf_bytes(b"\x90" * 600)


def _deflated(content: bytes, level: int) -> bytes:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(content) + compressor.flush()


def _member(name: str, content: bytes, level: int, *, method: int = 8) -> RawMember:
    if method == 0:
        return raw_member(name, content, method=0)
    return RawMember(name.encode(), _deflated(content, level), 8, zlib.crc32(content), len(content))


def _lying(name: str, declared: bytes, stream: bytes) -> RawMember:
    """An entry whose directory declares `declared`'s size and CRC-32 over `stream`."""
    return RawMember(name.encode(), stream, 8, zlib.crc32(declared), len(declared))


def _files() -> dict[str, bytes]:
    files = {f"pkg/mod{i}.py": TEXT + b"# %d\n" % i for i in range(40)}
    files |= {
        "pkg/bin/tool": ELF,  # no extension: the kind comes from the content
        "pkg/data/blob": TEXT * 2,
        "pkg/stored.txt": TEXT,
        "pkg/raw.txt": b"the same compressed bytes on both sides\n" * 20,
        "pkg/forged.txt": TEXT,
        "pkg/corrupt.txt": TEXT,
        "pkg/truncated.txt": TEXT,
        "pkg/bomb.txt": TEXT[:500],
        "pkg/bad-deflate.txt": TEXT,
        "pkg/wrong-crc.txt": TEXT,
    }
    return files


def _wheels(directory: Path) -> tuple[Path, Path]:
    base_entries = wheel_files("demo", "1.0", _files())
    patch_entries = dict(base_entries)
    base_members = [_member(name, data, 9) for name, data in base_entries.items()]
    # The same content on both sides, both declaring the same wrong CRC-32: corruption.
    wrong = zlib.crc32(TEXT) ^ 1
    base_members = [
        replace(m, crc=wrong) if m.name == b"pkg/wrong-crc.txt" else m for m in base_members
    ]
    patch_members = []
    for name, data in patch_entries.items():
        if name == "pkg/raw.txt":
            patch_members.append(_member(name, data, 9))  # raw bytes equal
        elif name == "pkg/stored.txt":
            patch_members.append(_member(name, data, 1, method=0))  # stored against deflated
        elif name == "pkg/forged.txt":
            forged = wheelkit.forge_same_crc(data, tamper_at=100, patch_at=5000)
            patch_members.append(_member(name, forged, 1))
        elif name == "pkg/corrupt.txt":
            other = data.replace(b"line 7 ", b"line X ")
            patch_members.append(_lying(name, data, _deflated(other, 1)))
        elif name == "pkg/truncated.txt":
            stream = _deflated(data, 1)
            patch_members.append(_lying(name, data, stream[: len(stream) // 2]))
        elif name == "pkg/bomb.txt":
            patch_members.append(_lying(name, data, _deflated(bytes(4 << 20), 9)))
        elif name == "pkg/wrong-crc.txt":
            patch_members.append(replace(_member(name, data, 1), crc=wrong))
        elif name == "pkg/bad-deflate.txt":
            patch_members.append(_lying(name, data, b"\xff" * 64))
        else:
            patch_members.append(_member(name, data, 1))  # recompressed
    base = directory / "demo-1.0-py3-none-any.whl"
    patch = directory / "patch" / "demo-1.0-py3-none-any.whl"
    patch.parent.mkdir()
    base.write_bytes(raw_zip(base_members))
    patch.write_bytes(raw_zip(patch_members))
    return base, patch


def _outcome(results: Sequence[EntryResult]) -> dict[str, tuple[object, ...]]:
    return {
        r.path: (r.status, r.how, r.kind, r.recompressed, r.corrupt, r.patch_digest)
        for r in results
    }


@pytest.mark.parametrize("jobs", [1, 3])
def test_whole_and_streamed_proofs_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    from k3diff.wheels.compare import WheelOptions

    base, patch = _wheels(tmp_path)
    options = WheelOptions(jobs=jobs, file_hash=False)
    whole = compare_wheels(base, patch, options)
    monkeypatch.setattr(proof, "SMALL_ENTRY", 0)
    streamed = compare_wheels(base, patch, options)
    assert _outcome(whole.entries) == _outcome(streamed.entries)
    assert [f.code for f in whole.findings] == [f.code for f in streamed.findings]

    by_path = {r.path: r for r in whole.entries}
    for i in range(40):
        mod = by_path[f"pkg/mod{i}.py"]
        assert (mod.status, mod.how, mod.recompressed) == (Status.IDENTICAL, How.CONTENT, True)
    assert by_path["pkg/bin/tool"].kind == "native"
    assert (by_path["pkg/bin/tool"].status, by_path["pkg/bin/tool"].how) == (
        Status.IDENTICAL,
        How.CONTENT,
    )
    assert by_path["pkg/data/blob"].kind == "other"
    assert by_path["pkg/stored.txt"].how is How.CONTENT
    assert by_path["pkg/raw.txt"].how is How.RAW_BYTES
    assert (by_path["pkg/forged.txt"].status, by_path["pkg/forged.txt"].how) == (
        Status.CHANGED,
        How.CONTENT,
    )
    for name in ("corrupt", "truncated", "bomb", "bad-deflate", "wrong-crc"):
        result = by_path[f"pkg/{name}.txt"]
        assert (result.status, result.how) == (Status.CHANGED, How.CORRUPT), name
        side = "base" if name == "wrong-crc" else "patch"
        assert result.corrupt is not None and side in result.corrupt, name
    assert "past its declared size" in (by_path["pkg/bomb.txt"].corrupt or "")
