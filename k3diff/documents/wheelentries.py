"""The `entries` lines of the `k3diff.wheels/1` document, encoded directly.

A torch wheel has twelve thousand entries: building a dict for each and handing it to
`json.dumps` (an encoder set up per call) cost more than comparing them. An entry with no diff,
source or native explanation (nearly all) is written here field by field, with the C string
encoder `json.dumps` itself uses, to the same text `dumps(entry_json(entry))` gives (a test
holds the two equal); the others go through `entry_json`, the entry's JSON form.

`entries_text` writes a whole report's lines at once (`entries_blocks` a block of them at a
time): the plain identical entries (every one of a rebuilt wheel but the few that changed)
column by column, each column converted by one C call, and every line assembled by one
`str.join`; the other entries by `entry_line`.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, islice, repeat
from json.encoder import encode_basestring_ascii
from operator import attrgetter, gt, is_not, itemgetter
from typing import Any, cast

from k3diff.jsontext import dumps
from k3diff.textdiff import TextDiff
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.modes import show_mode
from k3diff.wheels.entryruns import EntryResults
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import How, Status


def _crc_hex(value: int | None) -> str | None:
    return None if value is None else f"{value:08x}"


def _text_diff_json(value: TextDiff) -> dict[str, Any]:
    """JSON-ready form (`line_endings_only` appears only when true, `binary` only when set)."""
    data: dict[str, Any] = {
        "added": value.added,
        "removed": value.removed,
        "unified": value.unified,
    }
    if value.line_endings_only:
        data["line_endings_only"] = True
    if value.binary is not None:
        data["binary"] = value.binary
    return data


def entry_json(value: EntryResult) -> dict[str, Any]:
    """JSON-ready form; `diff`, `source`, `native`, `corrupt` and `patch_digest` appear only
    when known, `base_mode` / `patch_mode` only when the two entries' unix modes differ."""
    data: dict[str, Any] = {
        "path": value.path,
        "base_path": value.base_path,
        "patch_path": value.patch_path,
        "kind": value.kind.value,
        "status": value.status.value,
        "how": value.how.value,
        "recompressed": value.recompressed,
        "base_size": value.base_size,
        "patch_size": value.patch_size,
        "base_crc32": _crc_hex(value.base_crc32),
        "patch_crc32": _crc_hex(value.patch_crc32),
        "installed_path": value.installed_path,
        "base_installed_path": value.base_installed_path,
        "moved": value.moved,
    }
    if value.diff is not None:
        data["diff"] = _text_diff_json(value.diff)
    # The --source and --explain forms are imported where an entry has one: a run without
    # those options loads neither writer (issue 41).
    if value.source is not None:
        from k3diff.documents.provenance import file_source_json

        data["source"] = file_source_json(value.source)
    if value.native is not None:
        from k3diff.documents.native import explanation_json

        data["native"] = explanation_json(value.native)
    if value.corrupt is not None:
        data["corrupt"] = value.corrupt
    if value.patch_digest is not None:
        data["patch_digest"] = value.patch_digest
    if value.mode_change is not None:  # octal text, as `stat` writes a mode
        data["base_mode"] = show_mode(value.mode_change.base)
        data["patch_mode"] = show_mode(value.mode_change.patch)
    return data


def _text(value: str | None) -> str:
    return "null" if value is None else encode_basestring_ascii(value)


def entry_line(value: EntryResult) -> str:
    """`value` as one line of compact JSON: exactly `dumps(entry_json(value))`."""
    if value.diff is not None or value.source is not None or value.native is not None:
        return dumps(entry_json(value))
    path = encode_basestring_ascii(value.path)
    base_path, patch_path = value.base_path, value.patch_path
    installed, base_installed = value.installed_path, value.base_installed_path
    installed_text = _text(installed)
    same_installed = base_installed == installed
    base_size, patch_size = value.base_size, value.patch_size
    base_crc, patch_crc = value.base_crc32, value.patch_crc32
    base_crc_text = "null" if base_crc is None else f'"{base_crc:08x}"'
    patch_crc_text = "null" if patch_crc is None else f'"{patch_crc:08x}"'
    # One f-string (compiled: no format string parsed per entry), in `entry_json`'s order;
    # kind, status and how are `StrEnum`s, which format as their values.
    line = (
        f'{{"path": {path}, "base_path": '
        f"{path if base_path == value.path else _text(base_path)}, "
        f'"patch_path": {path if patch_path == value.path else _text(patch_path)}, '
        f'"kind": "{value.kind}", "status": "{value.status}", "how": "{value.how}", '
        f'"recompressed": {"true" if value.recompressed else "false"}, '
        f'"base_size": {"null" if base_size is None else int(base_size)}, '
        f'"patch_size": {"null" if patch_size is None else int(patch_size)}, '
        f'"base_crc32": {base_crc_text}, "patch_crc32": {patch_crc_text}, '
        f'"installed_path": {installed_text}, "base_installed_path": '
        f"{installed_text if same_installed else _text(base_installed)}, "
        f'"moved": {"true" if value.moved else "false"}'
    )
    if value.corrupt is None and value.patch_digest is None and value.base_mode == value.patch_mode:
        return line + "}"  # nearly every entry
    parts = [line]
    if value.corrupt is not None:
        parts += [', "corrupt": ', encode_basestring_ascii(value.corrupt)]
    if value.patch_digest is not None:
        parts += [', "patch_digest": ', encode_basestring_ascii(value.patch_digest)]
    change: Any = value.mode_change
    if change is not None:
        parts += [', "base_mode": "', show_mode(change.base), '", "patch_mode": "']
        parts += [show_mode(change.patch), '"']
    parts.append("}")
    return "".join(parts)


ENTRY_SEPARATOR = ",\n    "
"""What separates two entry lines in the document (`jsondoc.ITEM_SEPARATOR`)."""

_IDENTICAL = Status.IDENTICAL

_PLAIN_MIDDLE = {
    (kind, how, recompressed): f'"kind": "{kind.value}", "status": "identical", '
    f'"how": "{how.value}", "recompressed": {"true" if recompressed else "false"}'
    for kind in EntryKind
    for how in How
    for recompressed in (False, True)
}
"""The fields of a plain line between `patch_path` and `base_size`, by (kind, how,
recompressed): the same few texts on every line."""

_PLAIN_PIECES = (
    ENTRY_SEPARATOR + '{"path": ',
    ', "base_path": ',
    ', "patch_path": ',
    ", ",
    ', "base_size": ',
    ', "patch_size": ',
    ', "base_crc32": "',
    '", "patch_crc32": "',
    '", "installed_path": ',
    ', "base_installed_path": ',
    ', "moved": false}',
)
"""The constant text of a plain line, around its values (the separator before it included)."""


def entries_text(entries: Sequence[EntryResult]) -> str:
    """The lines of `entries`, joined by `ENTRY_SEPARATOR`: exactly what joining
    `entry_line(entry)` of each would give (a property test holds the two equal).

    A plain entry (identical, one path and one installed path on both sides, sizes and CRCs
    known, not moved, nothing else to say) has a line that differs from the others' only in
    its path, installed path, sizes, CRCs and the (kind, how, recompressed) texts: those are
    gathered in one pass, each column encoded by one C call (the CRCs by one `bytes.hex`),
    and every plain line joined from constant pieces and the columns in one `str.join`. The
    raw-identical runs of an `EntryResults` give their columns without a result each
    (`_run_lines`)."""
    return _joined(_lines(entries))


BLOCK_LINES = 512
"""Entry lines in one block of `entries_blocks` (≈ 290 KB of a torch wheel's lines: the fewest
fresh pages and the least CPU of 128 to 100,000 lines measured on torch's pair)."""


def entries_blocks(entries: Sequence[EntryResult], lines: int = BLOCK_LINES) -> Iterator[str]:
    """`entries_text` a block of at most `lines` lines at a time, each block joined alone:
    the blocks joined by `ENTRY_SEPARATOR` are `entries_text(entries)`. A report written block
    by block never holds its whole entries text, nor that text encoded for the file: torch's
    7 MB of lines made whole and then copied whole took ≈ 3,800 more first touches of fresh
    pages and 13 MB more peak memory; a block's pages are reused by the next."""
    every = _lines(entries)
    while block := list(islice(every, lines)):
        yield _joined(iter(block))


def _lines(entries: Sequence[EntryResult]) -> Iterator[tuple[str, ...]]:
    """The pieces of each entry's line in order, a tuple per line, each line's separator
    first (`_joined` drops the first line's)."""
    if isinstance(entries, EntryResults) and entries.columnar:
        return _run_lines(entries)
    plain, others = _split(entries)
    if not plain:
        return zip(repeat(ENTRY_SEPARATOR), others)  # type: ignore[return-value]  # no None left
    return _placed(_plain_lines(list(zip(*plain, strict=True))), others, len(plain))


def _joined(lines: Iterator[tuple[str, ...]]) -> str:
    """The pieces of `lines` joined, the first line's separator left out (cut from its first
    piece, not from the joined text: torch's 7 MB of lines are not copied again to drop 6
    characters)."""
    flat = chain.from_iterable(lines)
    first = next(flat, None)  # the first line's separator, alone or leading its first piece
    if first is None:
        return ""
    return "".join(chain((first[len(ENTRY_SEPARATOR) :],), flat))


def _split(entries: Iterable[EntryResult]) -> tuple[list[tuple[Any, ...]], list[str | None]]:
    """(the plain entries' fields in `_plain_lines`' order, per entry its line or None for a
    plain one)."""
    plain: list[tuple[Any, ...]] = []
    keep = plain.append
    others: list[str | None] = []
    other = others.append
    middle = _PLAIN_MIDDLE.get
    for entry in entries:
        # Read one by one: the interpreter's specialised attribute loads are cheaper here than
        # one `attrgetter` of all of them (a whole-run instruction count said so).
        path, installed, base_crc = entry.path, entry.installed_path, entry.base_crc32
        between = middle((entry.kind, entry.how, entry.recompressed))
        if (
            entry.status is _IDENTICAL
            and between is not None
            and entry.base_path == path
            and entry.patch_path == path
            and installed is not None
            and entry.base_installed_path == installed
            and not entry.moved
            and entry.diff is None
            and entry.source is None
            and entry.native is None
            and entry.corrupt is None
            and entry.patch_digest is None
            and entry.base_mode == entry.patch_mode
            and (base_size := entry.base_size) is not None
            and (patch_size := entry.patch_size) is not None
            and base_crc is not None
            and (patch_crc := entry.patch_crc32) is not None
        ):
            keep((path, between, base_size, patch_size, base_crc, patch_crc, installed))
            other(None)
        else:
            other(entry_line(entry))
    return plain, others


def _placed(
    lines: Iterator[tuple[str, ...]], others: list[str | None], plain: int
) -> Iterator[tuple[str, ...]]:
    """The document's entry lines: the plain ones (`lines`, in order) where `others` holds
    None, the others' own lines between them (the plain lines between two others taken by one
    `islice`: no step per entry)."""
    pieces: list[Iterable[tuple[str, ...]]] = []
    if plain < len(others):
        placed = compress(enumerate(others), map(is_not, others, repeat(None)))
        previous = -1
        for index, line in cast("Iterator[tuple[int, str]]", placed):
            pieces += (islice(lines, index - previous - 1), ((ENTRY_SEPARATOR, line),))
            previous = index
    pieces.append(lines)
    return chain.from_iterable(pieces)


def _run_lines(entries: EntryResults) -> Iterator[tuple[str, ...]]:
    """`_lines` of results with raw-identical runs. A run whose pairs all install where
    they are and did not move is plain throughout (its results would pass every other test of
    `_split` by the run's definition): its columns come from its pairs by C-level maps. The
    singles and any other run's results go through `_split`; the columns are put in pair
    order, then placed as `_lines` places them."""
    loose = list(entries.singles)
    columns: list[list[Any]] = [[], [], [], [], [], [], []]
    paths, middles, base_sizes, patch_sizes, base_crcs, patch_crcs, installs = columns
    indices: list[int] = []
    for run in entries.runs:
        installed = run.installed_paths()
        if None in installed or installed != run.base_installed_paths() or True in run.moved():
            loose += zip(run.indices, run.results(), strict=True)
            continue
        indices += run.indices
        paths += run.names()
        middles += map(_RAW_MIDDLE.__getitem__, run.kinds)
        base_side, patch_side = run.base_entries(), run.patch_entries()
        base_sizes += map(_SIZE, base_side)
        patch_sizes += map(_SIZE, patch_side)
        base_crcs += map(_CRC, base_side)
        patch_crcs += map(_CRC, patch_side)
        installs += installed
    others: list[str | None] = [None] * len(entries)
    plain, lines = _split(map(_RESULT, loose))
    for (index, _), line in zip(loose, lines, strict=True):
        if line is None:
            indices.append(index)
        else:
            others[index] = line
    if plain:
        for column, values in zip(columns, zip(*plain, strict=True), strict=True):
            column += values
    if any(map(gt, indices, islice(indices, 1, None))):  # not in pair order: sort every column
        order = sorted(range(len(indices)), key=indices.__getitem__)
        columns = [list(map(column.__getitem__, order)) for column in columns]
    if not indices:
        return zip(repeat(ENTRY_SEPARATOR), others)  # type: ignore[return-value]  # no None left
    return _placed(_plain_lines(columns), others, len(indices))


_RAW_MIDDLE = {kind: _PLAIN_MIDDLE[kind, How.RAW_BYTES, False] for kind in EntryKind}
"""`_PLAIN_MIDDLE` of a raw-identical run's pair, by kind."""
_SIZE, _CRC = attrgetter("size"), attrgetter("crc32")
"""`ZipEntry.size` and `.crc32`."""
_RESULT = itemgetter(1)


def _plain_lines(columns: Sequence[Sequence[Any]]) -> Iterator[tuple[str, ...]]:
    """The pieces of every plain line in order, each line's separator first (the caller drops
    the first); each line's pieces a tuple, so the lines can be taken one by one. `columns`:
    the plain entries' paths, middles, sizes, CRCs and installed paths, as `_split` gives
    them per entry. Encoded `BLOCK_LINES` rows at a time, as they are taken: a block written
    (`entries_blocks`) leaves its encoded values to the next block's, not to the whole
    report's (≈ 4 MB of them on torch's pair). The blocks are chained in C: no Python step
    per line."""
    starts = range(0, len(columns[0]), BLOCK_LINES)
    return chain.from_iterable(map(_plain_rows, repeat(columns), starts))


def _plain_rows(columns: Sequence[Sequence[Any]], row: int) -> Iterator[tuple[str, ...]]:
    """`_plain_lines` of the `BLOCK_LINES` rows of `columns` from `row`, encoded at once."""
    paths, middles, base_sizes, patch_sizes, base_crcs, patch_crcs, installs = (
        column[row : row + BLOCK_LINES] for column in columns
    )
    path_texts = list(map(encode_basestring_ascii, paths))
    installed_texts = list(map(encode_basestring_ascii, installs))
    # Identical entries declare the same sizes and CRCs on both sides (a span's always do):
    # one column compare instead of a second conversion.
    base_size_texts = list(map(int.__repr__, base_sizes))
    patch_size_texts = (
        base_size_texts if patch_sizes == base_sizes else list(map(int.__repr__, patch_sizes))
    )
    base_crc_texts = _hex32(base_crcs)
    patch_crc_texts = base_crc_texts if patch_crcs == base_crcs else _hex32(patch_crcs)
    (start, base_label, patch_label, comma, base_size_label, patch_size_label, base_crc_label,
     patch_crc_label, installed_label, base_installed_label, end) = _PLAIN_PIECES  # fmt: skip
    return zip(
        repeat(start),
        path_texts,
        repeat(base_label),
        path_texts,
        repeat(patch_label),
        path_texts,
        repeat(comma),
        middles,
        repeat(base_size_label),
        base_size_texts,
        repeat(patch_size_label),
        patch_size_texts,
        repeat(base_crc_label),
        base_crc_texts,
        repeat(patch_crc_label),
        patch_crc_texts,
        repeat(installed_label),
        installed_texts,
        repeat(base_installed_label),
        installed_texts,
        repeat(end),
    )


def _hex32(values: Sequence[int]) -> list[str]:
    """`f"{value:08x}"` of each value: for 32-bit values (a CRC always is) one `bytes.hex`
    of them all, split, instead of a format call each."""
    try:
        packed = struct.pack(f">{len(values)}I", *values)
    except struct.error:  # not all unsigned 32-bit: as the f-string writes them
        return list(map(format, values, repeat("08x")))
    return packed.hex(" ", 4).split(" ")
