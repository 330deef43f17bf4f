"""Mutators for `scripts/fuzz_cli.py`: hostile variants of a wheel, a JSON(L) file or a log.

Every mutator takes the seed's bytes and a `random.Random` and returns the mutated bytes and a
short label of what it did (`zip-field:cdh+28=ffff`, `json-leaf:records.3.text=1e999`), so a run
is reproduced from the campaign's seed and the label explains the finding.
"""

from __future__ import annotations

import codecs
import functools
import gzip
import io
import json
import random
import struct
import zipfile
from collections.abc import Callable
from typing import Any

Mutation = tuple[bytes, str]

# --- bytes -----------------------------------------------------------------------------------


def byte_noise(data: bytes, rng: random.Random) -> Mutation:
    """Flip bits, overwrite, cut or repeat a few bytes anywhere."""
    buf = bytearray(data)
    kind = rng.choice(["flip", "set", "truncate", "insert", "delete", "repeat"])
    at = rng.randrange(max(1, len(buf)))
    if kind == "flip":
        buf[at] ^= 1 << rng.randrange(8)
    elif kind == "set":
        buf[at : at + 4] = rng.choice([b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\x7f\xff"])
    elif kind == "truncate":
        del buf[at:]
    elif kind == "insert":
        buf[at:at] = rng.choice([b"\x00", b"\xff\xfe", b"\xed\xa0\x80", b"\r", b"\n" * 3])
    elif kind == "delete":
        del buf[at : at + rng.randrange(1, 64)]
    else:
        buf[at:at] = buf[at : at + rng.randrange(1, 256)]
    return bytes(buf), f"bytes-{kind}@{at}"


# --- zip structure ---------------------------------------------------------------------------

# signature -> (label, fixed length of the record)
ZIP_RECORDS = {
    b"PK\x03\x04": ("lfh", 30),
    b"PK\x01\x02": ("cdh", 46),
    b"PK\x05\x06": ("eocd", 22),
    b"PK\x06\x06": ("z64eocd", 56),
    b"PK\x06\x07": ("z64loc", 20),
    b"PK\x07\x08": ("dd", 16),
}


def zip_regions(data: bytes) -> list[tuple[str, int, int]]:
    """(label, offset, length) of every record signature found (a raw scan: good enough to aim
    mutations, compressed data may hold a false signature now and then)."""
    found = []
    for signature, (label, length) in ZIP_RECORDS.items():
        at = data.find(signature)
        while at != -1:
            found.append((label, at, length))
            at = data.find(signature, at + 1)
    return sorted(found, key=lambda region: region[1])


def zip_field(data: bytes, rng: random.Random) -> Mutation:
    """Overwrite one field of one header record with a boundary value, or cut at a record."""
    regions = zip_regions(data) or [("any", 0, len(data))]
    label, start, length = rng.choice(regions)
    buf = bytearray(data)
    if rng.random() < 0.15:
        cut = max(0, start + rng.randrange(-4, length + 4))
        return bytes(buf[:cut]), f"zip-cut:{label}@{start}+{cut - start}"
    off = start + rng.randrange(4, length)
    width = rng.choice([1, 2, 4])
    value = rng.choice(["00", "ff", "7f", "+1", "-1", "bit"])
    old = int.from_bytes(buf[off : off + width], "little")
    if value == "00":
        new = 0
    elif value == "ff":
        new = (1 << (8 * width)) - 1
    elif value == "7f":
        new = (1 << (8 * width - 1)) - 1
    elif value == "bit":
        new = old ^ (1 << rng.randrange(8 * width))
    else:
        new = (old + (1 if value == "+1" else -1)) % (1 << (8 * width))
    buf[off : off + width] = new.to_bytes(width, "little")[: len(buf[off : off + width])]
    return bytes(buf), f"zip-field:{label}@{start}+{off - start}w{width}={value}"


def _entries(data: bytes) -> list[tuple[zipfile.ZipInfo, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info, archive.read(info)) for info in archive.infolist()]


def _rebuild(entries: list[tuple[zipfile.ZipInfo, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for info, content in entries:
            archive.writestr(info, content, compress_type=info.compress_type)
    return out.getvalue()


HOSTILE_NAMES = [
    "../evil.py",
    "pkg/../../evil.py",
    "/etc/evil",
    "pkg\\evil.py",
    "C:/evil.py",
    "pkg/a\x00b.py",
    "pkg/" + "a" * 4000 + ".py",
    "pkg/\u202eyp.evil",
    "pkg/ENGINE/__init__.py",
    "./pkg/x.py",
    "pkg//x.py",
    "pkg/x.py/",
    "pkg/\udcff.py",
]


def zip_names(data: bytes, rng: random.Random) -> Mutation:
    """Rename or duplicate an entry with a hostile name (rebuilt by zipfile, headers agree)."""
    entries = _entries(data)
    index = rng.randrange(len(entries))
    info, content = entries[index]
    if rng.random() < 0.3:
        entries.append((info, content + b"#dup"))
        return _rebuild(entries), f"zip-duplicate:{info.filename}"
    name = rng.choice(HOSTILE_NAMES)
    clone = zipfile.ZipInfo(name.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
    clone.compress_type = info.compress_type
    clone.date_time = info.date_time
    entries[index] = (clone, content)
    return _rebuild(entries), f"zip-rename:{info.filename}->{name[:40]!r}"


def zip_raw_name(data: bytes, rng: random.Random) -> Mutation:
    """Edit the name bytes of one central-directory record only (local header disagrees)."""
    buf = bytearray(data)
    heads = [r for r in zip_regions(data) if r[0] == "cdh"]
    if not heads:
        return byte_noise(data, rng)
    _, start, _ = rng.choice(heads)
    (name_len,) = struct.unpack_from("<H", buf, start + 28)
    if name_len == 0:
        return byte_noise(data, rng)
    at = start + 46 + rng.randrange(name_len)
    new = rng.choice([b"\x00", b"/", b"\\", b".", b"\xff", b"\x80"])
    buf[at : at + 1] = new
    return bytes(buf), f"zip-cdname:{start}+{at - start - 46}={new!r}"


def _mutate_text(text: bytes, rng: random.Random) -> tuple[bytes, str]:
    kind = rng.choice(["badutf8", "hugeline", "nul", "crlf", "bom", "dropline", "dupline", "empty"])
    lines = text.split(b"\n")
    at = rng.randrange(len(lines))
    if kind == "badutf8":
        lines[at] += rng.choice([b"\xff", b"\xed\xa0\x80", b"\xc3"])
    elif kind == "hugeline":
        lines[at] += b"x" * 300_000
    elif kind == "nul":
        lines[at] += b"\x00"
    elif kind == "crlf":
        return text.replace(b"\n", b"\r\n"), kind
    elif kind == "bom":
        return codecs.BOM_UTF8 + text, kind
    elif kind == "dropline":
        del lines[at]
    elif kind == "dupline":
        lines.insert(at, lines[at])
    else:
        return b"", kind
    return b"\n".join(lines), f"{kind}@{at}"


def zip_metadata(data: bytes, rng: random.Random) -> Mutation:
    """Mutate RECORD, WHEEL or METADATA text; half the time RECORD is made to agree again."""
    import base64
    import hashlib

    entries = _entries(data)
    meta = [i for i, (info, _) in enumerate(entries) if ".dist-info/" in info.filename]
    if not meta:
        return byte_noise(data, rng)
    index = rng.choice(meta)
    info, content = entries[index]
    new, label = _mutate_text(content, rng)
    entries[index] = (info, new)
    agree = rng.random() < 0.5 and not info.filename.endswith("RECORD")
    if agree:
        rows = []
        for other, body in entries:
            if other.filename.endswith("/RECORD"):
                continue
            digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=")
            rows.append(f"{other.filename},sha256={digest.decode()},{len(body)}")
        for i, (other, _) in enumerate(entries):
            if other.filename.endswith("/RECORD"):
                rows.append(f"{other.filename},,")
                entries[i] = (other, ("\n".join(rows) + "\n").encode())
    return _rebuild(entries), f"zip-meta:{info.filename}:{label}{':record-agrees' if agree else ''}"


def zip_json_entry(data: bytes, rng: random.Random) -> Mutation:
    """One field of one JSON entry of the archive edited (an inspect_ai `.eval` log's samples)."""
    entries = _entries(data)
    documents = [i for i, (info, _) in enumerate(entries) if info.filename.endswith(".json")]
    if not documents:
        return byte_noise(data, rng)
    index = rng.choice(documents)
    info, content = entries[index]
    text, label = mutate_tree(json.loads(content), rng)
    entries[index] = (info, text.encode("utf-8", "surrogatepass"))
    return _rebuild(entries), f"zip-json:{info.filename}:{label}"


def text_lines(data: bytes, rng: random.Random) -> Mutation:
    """A line-oriented text input (a manifest, waivers TOML, an SSE transcript) damaged."""
    return _mutate_text(data, rng)


TEXT_MUTATORS: list[Callable[[bytes, random.Random], Mutation]] = [
    text_lines,
    text_lines,
    byte_noise,
]

ZIP_MUTATORS: list[Callable[[bytes, random.Random], Mutation]] = [
    zip_field,
    zip_field,
    zip_field,
    byte_noise,
    zip_names,
    zip_raw_name,
    zip_metadata,
    zip_metadata,
]


def with_zip64_end(data: bytes) -> bytes:
    """The archive with a ZIP64 end record and locator, its classic end record saturated."""
    eocd = data.rfind(b"PK\x05\x06")
    (_, _, _, _, count, cd_size, cd_offset, _) = struct.unpack_from("<4s4H2LH", data, eocd)
    z64 = struct.pack(
        "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, cd_size, cd_offset
    )
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, eocd, 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return data[:eocd] + z64 + locator + end


class _Unseekable(io.RawIOBase):
    def __init__(self) -> None:
        self.sink = io.BytesIO()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        return self.sink.write(b)


def with_data_descriptors(data: bytes, zip64: bool = False) -> bytes:
    """The archive rewritten as a stream (flag bit 3: sizes and CRCs in data descriptors)."""
    stream = _Unseekable()
    with zipfile.ZipFile(stream, "w") as archive:
        for info, content in _entries(data):
            fresh = zipfile.ZipInfo(info.filename, info.date_time)
            fresh.compress_type = info.compress_type
            with archive.open(fresh, "w", force_zip64=zip64) as out:
                out.write(content)
    return stream.sink.getvalue()


# --- JSON ------------------------------------------------------------------------------------

SENTINEL = "\u0000FUZZ\u0000"
HOSTILE_VALUES = [
    "null",
    "true",
    "0",
    "-0",
    "-1",
    "1.5",
    "1e999",
    "-1e999",
    "NaN",
    "Infinity",
    "9007199254740993",
    "1" + "0" * 5000,
    '""',
    '"\\ud800"',
    '"\\udfff\\ud800x"',
    '"a\\u0000b"',
    '"\\u202e\\n::error::forged"',
    '"<script>alert(1)</script>|"',
    '"3"',
    '"' + "x" * 200_000 + '"',
    "[]",
    "{}",
    "[null]",
    '{"a":1,"a":2}',
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 20_000 + "1" + "}" * 20_000,
]


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node[:50]):
            found += _paths(value, (*prefix, index))
    return found


def _set(node: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    node[head] = _set(node[head], rest, value)
    return node


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


def _nearby(value: Any, rng: random.Random) -> str:
    """A value of the same type a little off: what a subtle edit of a document looks like."""
    if isinstance(value, bool):
        return json.dumps(not value)
    if isinstance(value, int):
        return json.dumps(value + rng.choice([-1, 1, 7, -value - 1]))
    if isinstance(value, float):
        return json.dumps(value * rng.choice([0.5, 2.0, -1.0]) + 0.001)
    if isinstance(value, str):
        return json.dumps(rng.choice(["", value + "x", value.upper(), value[::-1]]))
    if isinstance(value, list):
        return json.dumps(value[1:] if value and rng.random() < 0.5 else value + value[:1])
    return json.dumps(value)


def mutate_tree(doc: Any, rng: random.Random) -> tuple[str, str]:
    """One structural edit of a parsed JSON value, rendered as (raw JSON text, label)."""
    path = rng.choice(_paths(doc))
    where = ".".join(map(str, path)) or "$"
    target = _get(doc, path)
    kind = rng.choice(["hostile", "hostile", "nearby", "nearby", "dropkey", "dupkey"])
    if kind in ("dropkey", "dupkey") and not (isinstance(target, dict) and target):
        kind = "hostile"
    if kind == "nearby" and (target is None or isinstance(target, dict)):
        kind = "hostile"  # no value of the same type a little off
    if kind in ("dropkey", "dupkey"):
        key = rng.choice(list(target))
        if kind == "dropkey":
            del target[key]
            return json.dumps(doc), f"json-dropkey:{where}.{key}"
        body = json.dumps(target)
        raw = "{" + json.dumps(key) + ": " + rng.choice(HOSTILE_VALUES[:12]) + ", " + body[1:]
        text = json.dumps(_set(doc, path, SENTINEL)).replace(json.dumps(SENTINEL), raw, 1)
        return text, f"json-dupkey:{where}.{key}"
    raw = _nearby(target, rng) if kind == "nearby" else rng.choice(HOSTILE_VALUES)
    text = json.dumps(_set(doc, path, SENTINEL)).replace(json.dumps(SENTINEL), raw, 1)
    return text, f"json-{kind}:{where}={raw[:24]}"


def json_document(data: bytes, rng: random.Random) -> Mutation:
    """A whole-file JSON document with one field edited (or its bytes damaged, now and then)."""
    if rng.random() < 0.15:
        return jsonl_text(data, rng)
    text, label = mutate_tree(json.loads(data), rng)
    return text.encode("utf-8", "surrogatepass"), label


def jsonl_lines(data: bytes, rng: random.Random) -> Mutation:
    """One line of a JSONL file with one field edited."""
    lines = data.split(b"\n")
    candidates = [i for i, line in enumerate(lines) if line.strip()]
    at = rng.choice(candidates)
    text, label = mutate_tree(json.loads(lines[at]), rng)
    lines[at] = text.encode("utf-8", "surrogatepass")
    return b"\n".join(lines), f"line{at + 1}:{label}"


def jsonl_text(data: bytes, rng: random.Random) -> Mutation:
    """Line-level damage: cut, dropped, repeated or swapped lines, BOM, CRLF, NUL, bad UTF-8."""
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    kind = rng.choice(
        ["cutfile", "cutline", "drop", "dup", "swap", "bom", "crlf", "nul", "badutf8", "huge",
         "joined", "empty", "blank", "scalar"]
    )  # fmt: skip
    if kind == "cutfile":
        return data[: rng.randrange(len(data))], kind
    if kind == "cutline":
        lines[at] = lines[at][: rng.randrange(len(lines[at]) + 1)]
    elif kind == "drop":
        del lines[at]
    elif kind == "dup":
        lines.insert(at, lines[at])
    elif kind == "swap":
        other = rng.randrange(len(lines))
        lines[at], lines[other] = lines[other], lines[at]
    elif kind == "bom":
        return codecs.BOM_UTF8 + data, kind
    elif kind == "crlf":
        return data.replace(b"\n", b"\r\n"), kind
    elif kind == "nul":
        lines[at] = lines[at][:5] + b"\x00" + lines[at][5:]
    elif kind == "badutf8":
        lines[at] = (
            lines[at][:12] + rng.choice([b"\xff", b"\xed\xa0\x80", b"\xc0\xaf"]) + lines[at][12:]
        )
    elif kind == "huge":
        lines[at] = b'{"pad": "' + b"x" * 900_000 + b'"}'
    elif kind == "joined" and at + 1 < len(lines):
        lines[at : at + 2] = [lines[at] + lines[at + 1]]
    elif kind == "empty":
        return b"", kind
    elif kind == "blank":
        return b"\n\n  \n", kind
    elif kind == "scalar":
        lines[at] = rng.choice([b"1", b'"x"', b"null", b"[]", b"[1,2]"])
    return b"\n".join(lines), f"jsonl-{kind}@{at + 1}"


def samples_amplified(data: bytes, rng: random.Random) -> Mutation:
    """A samples log grown to about 900 KB: one record's sample lines repeated with texts drawn
    from a few, hundreds or all-distinct outputs (the statistics' cost grows with them)."""
    import xxhash

    lines = data.split(b"\n")
    samples = [json.loads(line) for line in lines[1:] if line.strip()]
    if not samples:
        return byte_noise(data, rng)
    key = rng.choice(samples)["key"]
    distinct = rng.choice([3, 30, 300, 10**9])
    header = json.loads(lines[0])
    grown = [s for s in samples if s["key"] != key]
    templates = {s["side"]: s for s in samples if s["key"] == key}
    count = 900_000 // max(1, sum(len(line) for line in lines[1:3]) // 2) // 2
    for template in templates.values():
        for repeat in range(count):
            text = f"{template.get('text')} {rng.randrange(min(distinct, count))}"
            digest = xxhash.xxh3_128_hexdigest(text.encode())
            grown.append({**template, "repeat": repeat, "text": text, "text_xxh3": digest})
    header.get("run", {})["repeats"] = count
    body = [json.dumps(header)] + [json.dumps(s) for s in grown]
    return "\n".join(body).encode() + b"\n", f"samples-amplified:{key}x{count}/{distinct}"


JSONL_MUTATORS: list[Callable[[bytes, random.Random], Mutation]] = [
    jsonl_lines,
    jsonl_lines,
    jsonl_lines,
    jsonl_text,
    byte_noise,
]
JSON_MUTATORS: list[Callable[[bytes, random.Random], Mutation]] = [*[json_document] * 5, byte_noise]


# --- logs ------------------------------------------------------------------------------------


def log_text(data: bytes, rng: random.Random) -> Mutation:
    """A server log damaged as text, compressed (and cut), or replaced by a small gzip bomb."""
    kind = rng.choice(["text", "text", "text", "gzip", "gzip-cut", "bomb", "binary", "noise"])
    if kind == "text":
        return _mutate_text(data, rng)
    if kind == "gzip":
        return gzip.compress(data, mtime=0), kind
    if kind == "gzip-cut":
        packed = gzip.compress(data, mtime=0)
        return packed[: rng.randrange(len(packed))], kind
    if kind == "bomb":
        return _bomb(), kind
    if kind == "binary":
        return bytes(rng.randrange(256) for _ in range(4096)), kind
    return byte_noise(data, rng)


@functools.cache
def _bomb() -> bytes:
    """400 MiB of newlines in about 400 KB of gzip."""
    return gzip.compress(b"\n" * (400 << 20), compresslevel=9, mtime=0)


LOG_MUTATORS: list[Callable[[bytes, random.Random], Mutation]] = [log_text]
