"""The small-entry path of `verify_batch` (one read, one inflate, one hash, a tap only for an
ELF) reaches exactly what streaming every entry through `verify_entry` with a tap reaches: the
same findings, the same natives, the same A120/A121 verdicts and the same progress, on honest
wheels, on wheels whose RECORD or headers lie, and on randomly damaged ones."""

from __future__ import annotations

import base64
import hashlib
import tempfile
import zlib
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wheelkit import elf_bytes, wheel_files, write_zip

from audit.elfcraft import loader_elf
from audit.zipcraft import RawEntry, build, deflated
from k3diff.audit.batch import verify_batch
from k3diff.audit.modes import mode_findings
from k3diff.audit.record import is_empty_directory, membership_findings
from k3diff.audit.run import _open_wheel
from k3diff.audit.verify import (
    _hash_finding,
    _matches,
    _size_finding,
    content_findings,
    verify_small,
)
from k3diff.errors import K3diffError
from k3diff.progress import Tally
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.record import SIGNATURES, RecordLine
from k3diff.zip.directory import ZipEntry

LIBRARY = loader_elf(("verneed", "dynamic", "dynstr"), gap=300)
FILES = {
    "demo/__init__.py": b"VALUE = 1\n" * 20,
    "demo/_core.so": LIBRARY,
    "demo/_plain.so": elf_bytes(b"\x90" * 300),
    "demo/bin/tool": LIBRARY,  # no extension: sniffed
    "demo/fake.py": LIBRARY,  # an ELF the path calls Python: no tap
    "demo/tiny": b"\x7fELF\x02\x01",  # the magic in fewer than 64 bytes
    "demo/empty.txt": b"",
    "demo/data.bin": bytes(range(256)) * 40,
    "demo/big.bin": hashlib.sha256(b"seed").digest() * 40000,  # over one chunk: streamed
}
_B64 = base64.urlsafe_b64encode(hashlib.sha256(FILES["demo/data.bin"]).digest()).decode()


def _stray(text: str) -> str:
    """A SHA-256 digest's urlsafe base64 with the two unused low bits of its last character
    set: not the canonical text, but it decodes to the same digest."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return text[:42] + alphabet[alphabet.index(text[42]) ^ 1]


def _lying_record() -> dict[str, str | None]:
    """RECORD rows that lie in every way a row can (hash, size, encoding, algorithm)."""
    init = FILES["demo/__init__.py"]
    sha512 = base64.urlsafe_b64encode(hashlib.sha512(init).digest()).decode().rstrip("=")
    noncanonical = _stray(_B64)
    return {
        "demo/__init__.py": f"demo/__init__.py,sha512={sha512},{len(init)}",
        "demo/_core.so": f"demo/_core.so,sha256={'A' * 43},{len(LIBRARY)}",
        "demo/tiny": "demo/tiny,sha256=" + _B64[:43] + ",99",
        "demo/data.bin": f"demo/data.bin,sha256={noncanonical},{len(FILES['demo/data.bin'])}",
        "demo/fake.py": None,
        "demo/empty.txt": "demo/empty.txt,md5=1B2M2Y8AsgTpgAij9kbwHA,0",
    }


def _seeds(tmp_path: Path) -> list[Path]:
    for name in "abc":
        (tmp_path / name).mkdir()
    honest = wheel_files("demo", "1.0", FILES)
    lying = wheel_files("demo", "1.0", FILES, record_overrides=_lying_record())
    paths = [
        write_zip(tmp_path / "a" / "demo-1.0-py3-none-any.whl", honest),
        write_zip(tmp_path / "b" / "demo-1.0-py3-none-any.whl", lying, method=0),
    ]
    entries = [deflated(name, data) for name, data in lying.items()]
    entries[1].crc ^= 1  # a CRC-32 that fails
    entries[2].size += 1  # a declared size that lies
    entries[3].local_name = "demo/other.so"  # a local header naming another file
    entries.append(entries[0])  # a name given twice, sharing bytes
    stream = zlib.compress(b"x" * 100)[2:-4]
    entries.append(
        RawEntry(
            "demo/trailing.py", stream + b"junk", 8, zlib.crc32(b"x" * 100), len(stream) + 4, 100
        )
    )
    paths.append(build(tmp_path / "c" / "demo-1.0-py3-none-any.whl", entries))
    return paths


def _verify(path: Path, small_path: bool) -> tuple[object, ...]:
    """Everything the batch decides about the wheel at `path`, opened afresh."""
    wheel = _open_wheel(path)
    archive = wheel.archive
    if archive is None:
        return ()
    try:
        entries = [e for e in archive.entries if not is_empty_directory(e)]
        done: list[int] = []
        tally = Tally(sum(e.compressed_size for e in entries), lambda d, _t: done.append(d))
        found, natives, not_elf = verify_batch(
            archive, wheel.expected, entries, tally, small_path=small_path
        )
        modes = list(mode_findings(archive, set(not_elf)))
        return (
            sorted(found, key=lambda f: (f.code.name, f.path, f.detail)),
            sorted(natives, key=lambda n: n.entry),
            modes,
            tally.done,
        )
    finally:
        archive.close()


def _same(path: Path) -> tuple[object, ...]:
    try:
        slow = _verify(path, small_path=False)
    except K3diffError:
        return ()
    assert _verify(path, small_path=True) == slow
    return slow


def test_honest_lying_and_hostile_wheels_get_the_same_verdicts(tmp_path: Path) -> None:
    honest, lying, hostile = (_same(path) for path in _seeds(tmp_path))
    assert honest[0] == []
    assert [n.entry for n in honest[1]] == ["demo/_core.so", "demo/_plain.so", "demo/bin/tool"]  # type: ignore[attr-defined]
    codes = {f.code for f in lying[0]}  # type: ignore[attr-defined]
    assert {Code.A103, Code.A104} <= codes
    assert {f.code for f in hostile[0]} >= {Code.W604}  # type: ignore[attr-defined]


def test_a_noncanonical_digest_matches_as_it_decodes(tmp_path: Path) -> None:
    """RECORD's text compared first as written: a digest written with stray low bits still
    decodes to the content's hash, and is no A103 (as when every row was decoded)."""
    data = FILES["demo/data.bin"]
    canonical = _B64.rstrip("=")
    stray = _stray(canonical)
    assert base64.urlsafe_b64decode(stray + "=") == hashlib.sha256(data).digest()
    path = write_zip(tmp_path / "demo-1.0-py3-none-any.whl", {"demo/data.bin": data})
    wheel = _open_wheel(path)
    assert wheel.archive is not None
    entry = wheel.archive.entries[0]
    for text in (canonical, stray):
        row = RecordLine(text, len(data), f"sha256={text}", "sha256")
        assert verify_small(wheel.archive, entry, row) == ([], data)
    wrong = "B" + canonical[1:]
    found, _ = verify_small(
        wheel.archive, entry, RecordLine(wrong, 7, f"sha256={wrong}", "sha256")
    ) or ([], b"")
    assert [f.code for f in found] == [Code.A103, Code.A104]
    wheel.archive.close()


@cache
def _seed_bytes() -> list[bytes]:
    with tempfile.TemporaryDirectory() as directory:
        return [path.read_bytes() for path in _seeds(Path(directory))]


mutation = st.tuples(
    st.sampled_from(["flip", "set", "truncate"]), st.integers(0, 10**7), st.integers(1, 255)
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2), mutations=st.lists(mutation, min_size=1, max_size=3))
def test_damaged_wheels_get_the_same_verdicts(
    tmp_path: Path, seed: int, mutations: list[tuple[str, int, int]]
) -> None:
    data = bytearray(_seed_bytes()[seed])
    for kind, where, value in mutations:
        if not data:
            break
        position = where % len(data)
        if kind == "flip":
            data[position] ^= value
        elif kind == "set":
            data[position] = value
        else:
            del data[position:]
    target = tmp_path / "demo-1.0-py3-none-any.whl"
    target.write_bytes(bytes(data))
    _same(target)


def _membership_reference(
    expected: dict[str, RecordLine], entries: list[ZipEntry], dist_info: str
) -> list[Finding]:
    """membership_findings as it was written first: every entry tested, every name sorted."""
    present = {entry.name for entry in entries}
    exempt = {f"{dist_info}/RECORD", *(f"{dist_info}/{s}" for s in SIGNATURES)}
    files = {entry.name for entry in entries if not is_empty_directory(entry)}
    found = [
        Finding(Code.A105, name, "in the archive, not in RECORD")
        for name in sorted(files)
        if name not in expected and name not in exempt
    ]
    found += [
        Finding(Code.A106, path, "in RECORD, not in the archive")
        for path in sorted(expected)
        if path not in present
    ]
    found += [
        Finding(Code.A111, name, "RECORD is signed; k3diff does not verify signatures")
        for name in sorted(present & exempt - {f"{dist_info}/RECORD"})
    ]
    return found


_NAMES = ["d/", "d/a.py", "e/", "d-1.dist-info/RECORD", "d-1.dist-info/RECORD.jws", "x", "y/"]


@settings(max_examples=300, deadline=None)
@given(
    listed=st.lists(st.tuples(st.sampled_from(_NAMES), st.integers(0, 3)), max_size=8),
    rows=st.lists(st.sampled_from(_NAMES), max_size=5),
)
def test_membership_findings_as_first_written(
    listed: list[tuple[str, int]], rows: list[str]
) -> None:
    """Directory entries with and without content, names given twice, signatures."""
    entries = [
        ZipEntry(name, index, 8, 0, 0, size, size, 0, 0, 3, name.encode())
        for index, (name, size) in enumerate(listed)
    ]
    expected = {row: RecordLine(None, 0) for row in rows}
    assert membership_findings(expected, entries, "d-1.dist-info") == _membership_reference(
        expected, entries, "d-1.dist-info"
    )


def _content_reference(entry: ZipEntry, row: RecordLine | None, data: bytes) -> list[Finding]:
    """`content_findings` as `verify_small` first wrote it: every row hashed with `hashlib.new`
    and compared through `_matches`, no settled case first."""
    if row is None:
        return []
    found: list[Finding] = []
    if row.algorithm is not None:
        digest = hashlib.new(row.algorithm, data).digest()
        if not _matches(digest, row):
            found.append(_hash_finding(entry, row, digest))
    if row.size is not None and row.size != len(data):
        found.append(_size_finding(entry, row, len(data)))
    return found


def _row(data: bytes, kind: str, size_shift: int) -> RecordLine | None:
    """A RECORD row for `data` of one kind: none, a SHA-256 as written (canonical, with stray
    low bits, wrong), another algorithm, or none to verify with."""
    size = len(data) + size_shift
    canonical = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")
    written = {
        "canonical": canonical,
        "stray": _stray(canonical),
        "wrong": ("B" if canonical[0] != "B" else "C") + canonical[1:],
    }
    if kind == "none":
        return None
    if kind == "sha512":
        text = base64.urlsafe_b64encode(hashlib.sha512(data).digest()).decode().rstrip("=")
        return RecordLine(None, size, f"sha512={text}", "sha512")
    if kind == "unverifiable":
        return RecordLine(None, size, None, None)
    return RecordLine(written[kind], size, f"sha256={written[kind]}", "sha256")


@settings(max_examples=300, deadline=None)
@given(
    data=st.binary(max_size=200),
    kind=st.sampled_from(["none", "canonical", "stray", "wrong", "sha512", "unverifiable"]),
    size_shift=st.sampled_from([0, 0, 1, -1]),
    unsized=st.booleans(),
)
def test_content_findings_settle_a_holding_row_as_the_full_check_does(
    data: bytes, kind: str, size_shift: int, unsized: bool
) -> None:
    """The settled case (a SHA-256 row whose text and size hold) finds what hashing every row
    with `hashlib.new` and comparing through `_matches` finds, and every other row the same."""
    entry = ZipEntry("demo/x.py", 0, 8, 0, zlib.crc32(data), 0, len(data), 0, 0, 3, b"demo/x.py")
    row = _row(data, kind, size_shift)
    if row is not None and unsized:
        row = row._replace(size=None)
    assert content_findings(entry, row, data) == _content_reference(entry, row, data)
