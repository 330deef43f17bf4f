"""Hand-made ELF shared objects whose loader tables lie where a test needs them."""

from __future__ import annotations

import struct

_DT = {
    "NULL": 0,
    "NEEDED": 1,
    "STRTAB": 5,
    "STRSZ": 10,
    "VERNEED": 0x6FFFFFFE,
    "VERNEEDNUM": 0x6FFFFFFF,
}
GAP = 128 << 10
"""Filler between the pieces: many times the kept prefix the tests set (4 KiB), and twice the
64 KiB a second pass reads of the version-need table."""


def loader_elf(order: tuple[str, ...], *, split_load: bool = False, gap: int = GAP) -> bytes:
    """A little-endian ELF64 shared object: its header and program headers, then `order`'s
    pieces (`verneed`, `dynamic`, `dynstr`) each after `gap` filler bytes. Addresses equal
    file offsets. With `split_load`, a second PT_LOAD starts at the piece before `dynamic` (the
    segment patchelf appends: new tables, then the dynamic segment)."""
    strings = b"\0libc.so.6\0GLIBC_2.17\0libm.so.6\0"
    libc, glibc, libm = 1, strings.index(b"GLIBC"), strings.index(b"libm")
    verneed = struct.pack("<HHIII", 1, 1, libc, 16, 0) + struct.pack(
        "<IHHII", 0x0D696997, 0, 2, glibc, 0
    )
    phnum = 3 if split_load else 2
    offsets: dict[str, int] = {}
    position = 64 + 56 * phnum
    sizes = {"verneed": len(verneed), "dynstr": len(strings), "dynamic": 7 * 16}
    for name in order:
        position += gap
        offsets[name] = position
        position += sizes[name]
    size = position + gap
    tags = [
        ("NEEDED", libc),
        ("STRTAB", offsets["dynstr"]),
        ("STRSZ", len(strings)),
        ("VERNEED", offsets["verneed"]),
        ("VERNEEDNUM", 1),
        ("NEEDED", libm),
        ("NULL", 0),
    ]
    dynamic = b"".join(struct.pack("<qQ", _DT[tag], value) for tag, value in tags)
    header = b"\x7fELF" + bytes([2, 1, 1, 0, 0]) + bytes(7)
    header += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, phnum, 64, 0, 0)
    if split_load:
        second = offsets[order[order.index("dynamic") - 1]]
        loads = [(0, second), (second, size - second)]
    else:
        loads = [(0, size)]
    phdrs = b"".join(struct.pack("<IIQQQQQQ", 1, 5, o, o, o, n, n, 4096) for o, n in loads)
    phdrs += struct.pack(
        "<IIQQQQQQ", 2, 6, offsets["dynamic"], offsets["dynamic"], offsets["dynamic"], 112, 112, 8
    )
    out = bytearray(size)
    out[: len(header + phdrs)] = header + phdrs
    for name, piece in (("verneed", verneed), ("dynstr", strings), ("dynamic", dynamic)):
        out[offsets[name] : offsets[name] + len(piece)] = piece
    return bytes(out)
