"""Build real wheels for tests, the demo and benchmarks: deterministic, with a correct RECORD.

Used by tests/ (pytest's `pythonpath` puts scripts/ on the path) and by scripts/make_example_wheels.py. Wheels
are written with Python's zipfile or with the `zip` command-line tool, as real users' build tools
do; timestamps are fixed so the same inputs give byte-identical wheels.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import struct
import subprocess
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

FIXED_DATE = (2024, 1, 1, 0, 0, 0)
FIXED_EPOCH = 1704067200


def record_hash(data: bytes) -> str:
    """The `sha256=<urlsafe b64>` form RECORD uses."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode()}"


def dist_info_files(
    name: str, version: str, tag: str, requires: Iterable[str] = ()
) -> dict[str, bytes]:
    """METADATA and WHEEL for a wheel (RECORD is added by `wheel_files`)."""
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {req}\n" for req in requires)
    wheel = f"Wheel-Version: 1.0\nGenerator: wheelkit (1.0)\nRoot-Is-Purelib: false\nTag: {tag}\n"
    return {
        f"{dist_info}/METADATA": metadata.encode(),
        f"{dist_info}/WHEEL": wheel.encode(),
    }


def wheel_files(
    name: str,
    version: str,
    files: Mapping[str, bytes],
    *,
    tag: str = "py3-none-any",
    requires: Iterable[str] = (),
    record_overrides: Mapping[str, str | None] | None = None,
) -> dict[str, bytes]:
    """All entries of a wheel: `files`, METADATA, WHEEL and a RECORD that matches them.

    `record_overrides` replaces RECORD rows by path (a string row) or drops them (None), to build
    wheels whose RECORD lies.
    """
    entries = dict(files)
    entries.update(dist_info_files(name, version, tag, requires))
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    rows = {path: _row(path, record_hash(data), str(len(data))) for path, data in entries.items()}
    for path, row in (record_overrides or {}).items():
        if row is None:
            rows.pop(path, None)
        else:
            rows[path] = row
    rows[f"{dist_info}/RECORD"] = f"{dist_info}/RECORD,,"
    entries[f"{dist_info}/RECORD"] = ("\n".join(rows.values()) + "\n").encode()
    return entries


def _row(*fields: str) -> str:
    """One RECORD row, CSV-quoted where a field needs it (a comma or quote in a path)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(fields)
    return out.getvalue()


def write_zip(
    path: Path,
    entries: Mapping[str, bytes],
    *,
    compresslevel: int = 6,
    order: Iterable[str] | None = None,
    method: int = zipfile.ZIP_DEFLATED,
    modes: Mapping[str, int] | None = None,
) -> Path:
    """Write `entries` with Python's zipfile, fixed timestamps, in `order` (default: as given).

    `modes` gives an entry's whole unix mode (`0o100755` for an executable regular file, as
    setuptools and maturin write it); the others get 0o644 with no file type, as before."""
    names = list(order) if order is not None else list(entries)
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
            info.compress_type = method
            info.external_attr = (modes or {}).get(name, 0o644) << 16
            info.create_system = 3
            archive.writestr(info, entries[name], compresslevel=compresslevel)
    return path


def write_zip_with_tool(path: Path, entries: Mapping[str, bytes], *, level: int = 6) -> Path:
    """Write `entries` with the `zip` command-line tool from a staging directory."""
    zip_tool = shutil.which("zip")
    if zip_tool is None:
        raise RuntimeError("the zip command-line tool is not installed")
    staging = path.with_name(path.name + ".staging")
    shutil.rmtree(staging, ignore_errors=True)
    for name, data in entries.items():
        target = staging / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        os.utime(target, (FIXED_EPOCH, FIXED_EPOCH))
    path.unlink(missing_ok=True)
    listing = "\n".join(entries) + "\n"
    subprocess.run(
        [zip_tool, "-q", "-X", "-D", f"-{level}", "-@", str(path.resolve())],
        cwd=staging,
        input=listing.encode(),
        check=True,
    )
    shutil.rmtree(staging)
    return path


def make_wheel(
    directory: Path,
    name: str,
    version: str,
    files: Mapping[str, bytes],
    *,
    tag: str = "py3-none-any",
    filename: str | None = None,
    tool: str = "zipfile",
    compresslevel: int = 6,
    order: Iterable[str] | None = None,
    requires: Iterable[str] = (),
    record_overrides: Mapping[str, str | None] | None = None,
    modes: Mapping[str, int] | None = None,
    method: int = zipfile.ZIP_DEFLATED,
) -> Path:
    """Build `NAME-VERSION-TAG.whl` in `directory` holding `files` plus dist-info.

    `tag` may be a compressed tag set (`cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64`):
    it names the file and is written as one `Tag:` line, as maturin does. `modes` sets entries'
    unix modes and `method` the compression (zipfile writer only): golden cases use
    `zipfile.ZIP_STORED`, so that the wheel's bytes (and every digest of them in a report) do not
    depend on the machine's zlib."""
    entries = wheel_files(
        name, version, files, tag=tag, requires=requires, record_overrides=record_overrides
    )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (filename or f"{name.replace('-', '_')}-{version}-{tag}.whl")
    if tool == "zip":
        if modes or method != zipfile.ZIP_DEFLATED:
            raise ValueError("modes and method need the zipfile writer")
        return write_zip_with_tool(path, entries, level=compresslevel)
    return write_zip(
        path, entries, compresslevel=compresslevel, order=order, modes=modes, method=method
    )


def elf_bytes(payload: bytes, *, build_id: bytes = b"\x11" * 20, machine: int = 62) -> bytes:
    """A small but well-formed ELF64 shared object: .text holding `payload`, a GNU build-id note.

    Enough for content-magic sniffing and section-level explanations; not loadable code.
    """
    shstrtab = b"\0.text\0.note.gnu.build-id\0.shstrtab\0"
    note = struct.pack("<III", 4, len(build_id), 3) + b"GNU\0" + build_id
    header_size, section_size = 64, 64
    text_off = header_size
    note_off = text_off + len(payload)
    note_off += -note_off % 4
    str_off = note_off + len(note)
    sh_off = str_off + len(shstrtab)
    sh_off += -sh_off % 8
    header = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    header += struct.pack(
        "<HHIQQQIHHHHHH", 3, machine, 1, 0, 0, sh_off, 0, header_size, 0, 0, section_size, 4, 3
    )
    sections = bytes(section_size)
    sections += struct.pack("<IIQQQQIIQQ", 1, 1, 6, 0, text_off, len(payload), 0, 0, 16, 0)
    sections += struct.pack("<IIQQQQIIQQ", 7, 7, 2, 0, note_off, len(note), 0, 0, 4, 0)
    sections += struct.pack("<IIQQQQIIQQ", 26, 3, 0, 0, str_off, len(shstrtab), 0, 0, 1, 0)
    body = bytearray(header)
    body += payload
    body += bytes(note_off - len(body))
    body += note + shstrtab
    body += bytes(sh_off - len(body))
    return bytes(body + sections)


def elf_program(
    payload: bytes = b"",
    *,
    machine: int = 62,
    elf_class: int = 2,
    order: str = "<",
    elf_type: int = 2,
    interp: bytes | None = None,
    phnum: int | None = None,
) -> bytes:
    """A minimal ELF executable Linux loads (x86_64 by default): one `PT_LOAD` mapping the file,
    its entry `exit(0)` (`mov eax, 60; xor edi, edi; syscall`), then `payload` (never run by
    the kernel; a shell would read its lines should the kernel refuse the file). The other
    arguments make one the kernel refuses with ENOEXEC: `order=">"` (big-endian), `elf_type=1`
    (`ET_REL`), `phnum=0`, `elf_class=1` with a 32-byte program header (an x32 or i386 image),
    `interp` (a `PT_INTERP` first, e.g. not NUL-terminated)."""
    wide = elf_class == 2
    size = 56 if wide else 32
    count = (2 if interp is not None else 1) if phnum is None else phnum
    header_size = 64 if wide else 52
    interp_off = header_size + size * count
    code_off = interp_off + len(interp or b"")
    code = b"\xb8\x3c\x00\x00\x00\x31\xff\x0f\x05"
    base = 0x400000
    ident = b"\x7fELF" + bytes([elf_class, 1 if order == "<" else 2, 1, 0]) + bytes(8)
    if wide:
        fields = "HHIQQQIHHHHHH"
        header = struct.pack(order + fields, elf_type, machine, 1, base + code_off, header_size,
                             0, 0, header_size, size, count, 64, 0, 0)  # fmt: skip
    else:
        fields = "HHIIIIIHHHHHH"
        header = struct.pack(order + fields, elf_type, machine, 1, base + code_off, header_size,
                             0, 0, header_size, size, count, 0, 0, 0)  # fmt: skip
    total = code_off + len(code) + len(payload)
    tables = []
    if interp is not None:
        tables.append((3, 4, interp_off, 0, len(interp), 1))
    tables.append((1, 5, 0, base, total, 0x1000))
    phdrs = b""
    for p_type, flags, offset, vaddr, length, align in tables[:count]:
        if wide:
            phdrs += struct.pack(order + "IIQQQQQQ", p_type, flags, offset, vaddr, vaddr,
                                 length, length, align)  # fmt: skip
        else:
            phdrs += struct.pack(order + "IIIIIIII", p_type, offset, vaddr, vaddr, length,
                                 length, flags, align)  # fmt: skip
    phdrs += bytes(size * count - len(phdrs))
    return ident + header + phdrs + (interp or b"") + code + payload


def forge_same_crc(data: bytes, tamper_at: int, patch_at: int) -> bytes:
    """`data` with the byte at `tamper_at` flipped and 4 bytes at `patch_at` chosen so that the
    CRC-32 and the size stay the same: the collision an attacker (or bad luck) can produce."""
    if abs(tamper_at - patch_at) < 4:
        raise ValueError("tamper and patch positions overlap")
    zeros = bytes(len(data))
    base_crc = zlib.crc32(zeros)

    def effect(position: int, value: bytes) -> int:
        probe = bytearray(zeros)
        probe[position : position + len(value)] = value
        return zlib.crc32(bytes(probe)) ^ base_crc

    target = effect(tamper_at, b"\xff")
    basis = [effect(patch_at, (1 << bit).to_bytes(4, "little")) for bit in range(32)]
    solution = _solve_gf2(basis, target)
    forged = bytearray(data)
    forged[tamper_at] ^= 0xFF
    for offset, byte in enumerate(solution.to_bytes(4, "little")):
        forged[patch_at + offset] ^= byte
    assert zlib.crc32(bytes(forged)) == zlib.crc32(data)
    return bytes(forged)


def _solve_gf2(columns: list[int], target: int) -> int:
    """Find x with XOR of columns[i] for set bits i of x equal to target (32x32 over GF(2))."""
    rows = [(columns[i], 1 << i) for i in range(32)]
    pivots: dict[int, tuple[int, int]] = {}
    for vector, combo in rows:
        for bit in range(31, -1, -1):
            if not vector >> bit & 1:
                continue
            if bit in pivots:
                vector ^= pivots[bit][0]
                combo ^= pivots[bit][1]
            else:
                pivots[bit] = (vector, combo)
                break
    solution = 0
    for bit in range(31, -1, -1):
        if target >> bit & 1:
            if bit not in pivots:
                raise ValueError("no solution at this position")
            target ^= pivots[bit][0]
            solution ^= pivots[bit][1]
    return solution


# Raw zip writing: archives whose records say whatever a test needs them to say. Real zip tools
# never write a directory that counts one record fewer than it holds, a ZIP64 end record that
# contradicts the classic one or a name with a NUL in it; an attacker does.

_LOCAL = struct.Struct("<4s5H3L2H")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_EOCD = struct.Struct("<4s4H2LH")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_EOCD64_LOCATOR = struct.Struct("<4sLQL")


@dataclass
class RawMember:
    """One entry of a hand-made archive: its stored bytes and what its headers declare."""

    name: bytes
    stored: bytes
    method: int
    crc: int
    size: int
    flags: int = 0x800
    central_extra: bytes = b""


def raw_member(
    name: str | bytes, content: bytes, *, method: int = 8, flags: int = 0x800
) -> RawMember:
    """An honest entry: `content` deflated (method 8) or stored (method 0)."""
    if method == 8:
        compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
        stored = compressor.compress(content) + compressor.flush()
    else:
        stored = content
    encoded = name.encode() if isinstance(name, str) else name
    return RawMember(encoded, stored, method, zlib.crc32(content), len(content), flags)


def local_record(member: RawMember) -> bytes:
    """The member's local header, name and stored bytes."""
    header = _LOCAL.pack(
        b"PK\x03\x04", 20, member.flags, member.method, 0, 0x21,
        member.crc, len(member.stored), member.size, len(member.name), 0,
    )  # fmt: skip
    return header + member.name + member.stored


def central_record(member: RawMember, offset: int) -> bytes:
    """The member's central-directory record, its local header at `offset`."""
    header = _CENTRAL.pack(
        b"PK\x01\x02", 0x314, 20, member.flags, member.method, 0, 0x21,
        member.crc, len(member.stored), member.size, len(member.name),
        len(member.central_extra), 0, 0, 0, 0o100644 << 16, offset,
    )  # fmt: skip
    return header + member.name + member.central_extra


def end_record(count: int, size: int, offset: int, comment: bytes = b"") -> bytes:
    """A classic end-of-central-directory record."""
    return _EOCD.pack(b"PK\x05\x06", 0, 0, count, count, size, offset, len(comment)) + comment


def zip64_end(
    count: int, size: int, offset: int, at: int, *, points_at: int | None = None
) -> bytes:
    """A ZIP64 end record written at file offset `at`, and its locator (pointing at `at`)."""
    record = _EOCD64.pack(b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, offset)
    target = at if points_at is None else points_at
    return record + _EOCD64_LOCATOR.pack(b"PK\x06\x07", 0, target, 1)


@dataclass
class RawLayout:
    """Where a written archive put things: the local records' offsets and the directory."""

    offsets: list[int]
    directory_offset: int
    directory: bytes


def raw_layout(members: list[RawMember], prefix: bytes = b"") -> tuple[bytes, RawLayout]:
    """`prefix`, then the local records, then the central directory (no end record yet)."""
    body = bytearray(prefix)
    offsets = []
    for member in members:
        offsets.append(len(body))
        body += local_record(member)
    directory = b"".join(central_record(m, o) for m, o in zip(members, offsets, strict=True))
    layout = RawLayout(offsets, len(body), directory)
    return bytes(body) + directory, layout


def raw_zip(
    members: list[RawMember],
    *,
    count: int | None = None,
    zip64: bool = False,
    comment: bytes = b"",
) -> bytes:
    """A whole archive: local records, directory, (ZIP64 end record and locator,) end record.
    `count` overrides the records the end records declare."""
    body, layout = raw_layout(members)
    declared = len(members) if count is None else count
    size, offset = len(layout.directory), layout.directory_offset
    tail = b""
    if zip64:
        tail = zip64_end(declared, size, offset, len(body))
    return body + tail + end_record(declared, size, offset, comment)
