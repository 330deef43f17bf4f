"""The one reader of `samples.jsonl` (`k3diff.samples/1`).

A log is a header line `{"schema": "k3diff.samples/1", "run": {...}}`, then one `SampleLine` a
line; `sample --resume` adds a marker `{"schema": ..., "resumed": TIME}` where it continued, and
a run that stopped part-way a last line `{"schema": ..., "stopped": TIME, "reason": ...}`
(`k3diff.sample.stopline`; older logs have none).
`k3diff sample` writes it, and `sample --resume`, `triage`, `telemetry` and `report` read it
here, with one error dialect (`FILE:LINE: problem`, exit 2) and one set of rules:

- a line is one JSON object, checked by `k3diff.sample.lines.read_line`;
- (side, key, mode, repeat) appears once in a run: a repeated sample is refused;
- a cold-warm warm request (repeat 1 on) follows its cold request (repeat 0) on an earlier line:
  `sample` logs and resumes the cold one first, so a log where it does not was edited;
- a second header line (two logs concatenated) is refused;
- a sample logged as a success is judged again by the finish rule the client applies
  (`k3diff.sample.finish.problem`, with the header's `finish_reasons`): one whose finish_reason
  is missing, blank, unknown or gave the request up (older logs, a hand-edited line) is read as
  a failed sample, its error saying why, and its line listed in `not_counted`;
- a last line without its newline is torn (a run killed mid-write): `--resume` drops it and says
  so; every other reader refuses the log until it is resumed. A file whose first line is no
  log header is named as no log, cut or not (a cut responses capture is not a torn log).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError
from k3diff.ids import SAMPLES as SCHEMA
from k3diff.lazyre import lazy
from k3diff.sample.finish import finishing, problem
from k3diff.sample.header import RunHeader, extended, read_header, read_marker
from k3diff.sample.identityread import resumed_fields
from k3diff.sample.lines import SampleLine, read_line
from k3diff.sample.names import COLD_REPEAT, Mode
from k3diff.sample.stopline import StopLine, is_stop, read_stop

COLD_WARM = Mode.COLD_WARM.value

MAX_LOG_BYTES = 4 << 30
"""Largest log read (4 GiB): a bigger file is refused rather than read into memory."""


@dataclass(frozen=True)
class SamplesLog:
    """A sample log as read."""

    path: str
    """The file as the user named it."""
    header: RunHeader
    """The run the log belongs to, its repeats as the last resume marker grew them."""
    samples: tuple[SampleLine, ...]
    """Every sample line, in file order."""
    lines: tuple[int, ...]
    """The line number of each sample."""
    resumed: tuple[str, ...]
    """When the run was resumed, once per `--resume`."""
    torn: bool
    """The file ended in a torn (unterminated) line, which was not read."""
    valid_bytes: int
    """Length of the file up to its last complete line."""
    not_counted: tuple[int, ...] = ()
    """The lines of samples logged as successes whose finish_reason says their text is not
    whole (`judged`): read as failed samples."""
    stop: StopLine | None = None
    """How the run stopped part-way, where a stop line is the log's last line (a stop followed
    by a resume marker or a sample was taken up again: history, not the log's state)."""
    segments: tuple[int, ...] = ()
    """Per sample, the resume markers before its line (0: taken before any resume)."""


def read_samples_log(path: Path, *, drop_torn: bool = False) -> SamplesLog:
    """Read and check one log. A torn last line is dropped with `drop_torn` (resume), else the
    log is refused."""
    return parse_samples_log(_read_bytes(path), path, drop_torn=drop_torn)


def parse_samples_log(data: bytes, path: Path, *, drop_torn: bool = False) -> SamplesLog:
    """`read_samples_log` of a log's bytes already read (`path` names it in messages)."""
    end = data.rfind(b"\n") + 1
    torn = end != len(data)
    # No log at all (a cut capture given in a log's place): its first line says what it is; a
    # torn line and `--resume` would speak of a run that never was.
    whole = torn and not looks_like_samples_log(data)
    if torn and not whole and not drop_torn:
        complete = data.count(b"\n")
        raise InputError(
            f"{path}:{complete + 1}: torn last line (a run killed mid-write); "
            "the run's sample command again with --resume added drops it and continues"
        )
    if not end and not whole:
        raise InputError(f"{path}: empty; expected a {SCHEMA} header line")
    # The header is read before the rest is split into lines (rerun80: a 100 MB capture given
    # to `report` beside its comparison, tried as a log first, was split whole, ≈ 2× its size
    # that the allocator then kept, to be refused for its first line).
    newline = data.find(b"\n")
    first = data if newline < 0 else data[:newline]
    _refuse_other_document(data, first, path)
    header = read_header(_parse(first, path, 1), f"{path}:1")
    lines = data.split(b"\n") if whole else data[:end].split(b"\n")[:-1]
    finished = header_finishing(header, f"{path}:1")
    samples: list[SampleLine] = []
    numbers: list[int] = []
    segments: list[int] = []
    resumed: list[str] = []
    not_counted: list[int] = []
    seen: dict[tuple[str, str, str, int], int] = {}
    sent: set[tuple[str, str, str, int]] = set()
    stop: StopLine | None = None
    for number, raw in enumerate(lines[1:], start=2):
        if not raw.strip():
            continue
        value = _parse(raw, path, number)
        where = f"{path}:{number}"
        if "schema" in value and is_stop(value):
            stop = read_stop(value, where)
            continue
        stop = None  # a later line (a resume, a sample) supersedes an earlier stop
        if "schema" in value:
            grown = read_marker(value, where, header)
            header = header if grown is None else extended(header, grown)
            if (fields := resumed_fields(header.fields, value, where)) is not None:
                header = dataclasses.replace(header, fields=fields)  # its check, held
            resumed.append(value["resumed"])
            continue
        sample = _where_cold(read_line(value, where, header), where, len(resumed), sent)
        if sample.error is None and (wrong := problem(sample.finish_reason, finished)):
            sample = dataclasses.replace(
                sample, error=f"logged as a success, but {wrong}", text_xxh3=None
            )
            not_counted.append(number)
        if sample.ident in seen:
            raise InputError(
                f"{where}: repeat {sample.repeat} of {sample.side} {sample.key!r} "
                f"({sample.mode}) already on line {seen[sample.ident]}"
            )
        seen[sample.ident] = number
        samples.append(sample)
        numbers.append(number)
        segments.append(len(resumed))
    _refuse_warm_before_cold(samples, numbers, path)
    return SamplesLog(
        str(path),
        header,
        tuple(samples),
        tuple(numbers),
        tuple(resumed),
        torn,
        end,
        tuple(not_counted),
        stop,
        tuple(segments),
    )


def _refuse_warm_before_cold(samples: list[SampleLine], numbers: list[int], path: Path) -> None:
    """A cold-warm warm request (repeat 1 on) whose cold request (repeat 0, the one that must
    miss the cache) is not on an earlier line: `sample` logs each prompt's cold request first,
    and resumes it first, so such a log was edited, and the warm requests' hits would pass
    `--expect cache-reuse` with no cold request to show the salt or flush took (review67b:
    a log whose cold request that hit the cache was deleted passed, exit 0)."""
    cold: set[tuple[str, str]] = set()
    for sample, number in zip(samples, numbers, strict=True):
        if sample.mode != COLD_WARM:
            continue
        if sample.repeat == 0:
            cold.add((sample.side, sample.key))
        elif (sample.side, sample.key) not in cold:
            raise InputError(
                f"{path}:{number}: repeat {sample.repeat} of {sample.side} {sample.key!r} "
                "(cold-warm) has no cold request (repeat 0) on an earlier line; sample logs "
                "it first, so the log was edited: sample the run again"
            )


def _where_cold(
    sample: SampleLine, where: str, segment: int, sent: set[tuple[str, str, str, int]]
) -> SampleLine:
    """A cold-warm line's `cold` read from where it stands (`segment`: the resume markers
    before it), never taken on its word: a record's first repeat a resumed run sent is its cold
    request (`modes.run_cold_warm`), labelled so where its line is not (a log written before
    left67); `cold` on any other line, a warm request whose miss it would leave uncounted, is
    refused. `sent`: the records of each segment met so far."""
    if sample.mode != Mode.COLD_WARM.value:
        return sample
    record = (sample.side, sample.key, sample.mode, segment)
    cold = record not in sent and segment > 0 and sample.repeat != COLD_REPEAT
    sent.add(record)
    if sample.cold and not cold:
        raise InputError(
            f"{where}: 'cold' on repeat {sample.repeat} of {sample.side} {sample.key!r}, "
            "which is not the first repeat of it a resumed run sent (a warm request)"
        )
    return dataclasses.replace(sample, cold=True) if cold else sample


def header_finishing(header: RunHeader, where: str) -> frozenset[str]:
    """The finish reasons that make a logged answer whole: the known ones and those the
    header's `finish_reasons` (`--finish-reason`) adds."""
    extra = header.fields.get("finish_reasons", [])
    if not isinstance(extra, list) or not all(isinstance(item, str) for item in extra):
        raise InputError(f"{where}: 'finish_reasons' is not a list of strings")
    try:
        return finishing(extra)
    except ValueError as exc:
        raise InputError(f"{where}: 'finish_reasons': {exc}") from exc


OTHER_VALUES = 1_000_000
"""Most JSON values of a document given where a log is wanted decoded to name it (review80f: it
was decoded whole, uncapped: 4,000,000 lines of `{},` after a `{` line, 12 MB, peaked at
696 MB in `telemetry`, a 1 GiB one some 60 GB); past them it is named by what it has shown."""


def _refuse_other_document(data: bytes, first: bytes, path: Path) -> None:
    """A whole JSON document (another command's output) given where a log is wanted is named
    as what it is, not reported as a line that is "not JSON": read member by member up to
    `OTHER_VALUES` values (a k3diff document names its schema first)."""
    if first.strip() not in (b"{", b"[") and not first.lstrip().startswith(b"{\n"):
        return
    from k3diff.jsonmembers import read_object

    shown: dict[str, Any] = {}

    def caps(members: Mapping[str, Any]) -> tuple[str, int]:
        shown.update(members)  # what was read before the cap, if it is reached
        return "k3diff", OTHER_VALUES

    try:
        value: object = read_object(data.decode("utf-8"), str(path), lambda _: {}, caps)
    except InputError:
        value = shown  # more values than are read to name it: a JSON document so far
    except (json.JSONDecodeError, UnicodeDecodeError):
        return
    schema = value.get("schema") if isinstance(value, dict) else None
    what = f"a {schema} document" if isinstance(schema, str) else "a JSON document"
    raise InputError(
        f"{path}: {what}, not a {SCHEMA} log; give the samples.jsonl that k3diff sample "
        "wrote in its --out directory"
    )


_HEADER = lazy(rb'\{\s*"schema"\s*:\s*"' + SCHEMA.encode().replace(b".", rb"\.") + rb'"')
"""How a header's first line starts (`json.dumps` with or without spaces)."""
_NAMED = SCHEMA.encode()
"""What a header's first line holds unless it spells its schema with an escape: a line holding
neither (a document written on one line) is no header, and is not decoded to say so."""


def looks_like_samples_log(data: bytes) -> bool:
    """The first line is a `k3diff.samples/1` header (how readers of several kinds tell a log)."""
    end = data.find(b"\n")
    first = data if end < 0 else data[:end]  # not a copy of the rest (stream79)
    if _NAMED not in first and b"\\" not in first:
        return False  # caps80: a one-line document was decoded whole here, uncapped
    if _held(first) > MAX_LINE_VALUES:  # review80f: not decoded; `_parse` refuses it
        return _HEADER.match(first) is not None  # a log's, by how it starts
    try:
        value = bounded.loads(first, "first line")
    except (json.JSONDecodeError, UnicodeDecodeError, InputError):
        return False  # not a header; the document reader then names the problem
    return isinstance(value, dict) and value.get("schema") == SCHEMA


def _read_bytes(path: Path) -> bytes:
    """The log's bytes through the capped reader (regular files only, every line under the
    record cap, the whole under the document cap and MAX_LOG_BYTES)."""
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give DIR/samples.jsonl")
    data = bounded.read_document(path, str(path), "samples log")
    if len(data) > MAX_LOG_BYTES:
        raise InputError(f"{path}: larger than the {MAX_LOG_BYTES >> 30} GiB a sample log may be")
    return data


MAX_LINE_VALUES = 4_000_000
"""Most JSON values a log's line holds, counted before it is decoded (`_held`): `k3diff sample`
writes tens (a trace four a token: a million tokens' trace fits). review80f: each line was
decoded whole up to the 64 MiB record cap, so a line of `{},` repeated made 22 million dicts
(about 1.5 GB and 10 s) before its reader refused it; now at most 2 million."""


def _held(line: bytes) -> int:
    """At most how many JSON values `line` holds: its commas and brackets, plus one (those
    inside strings too, so never short; as `jsonvalues.held`)."""
    return line.count(b",") + line.count(b"[") + line.count(b"{") + 1


def _parse(line: bytes, path: Path, number: int) -> dict[str, Any]:
    if _held(line) > MAX_LINE_VALUES:
        raise InputError(
            f"{path}:{number}: more than {MAX_LINE_VALUES:,} JSON values on one line (its "
            "commas and brackets counted), more than k3diff sample writes; refused"
        )
    try:
        value = bounded.loads(line, f"{path}:{number}", written=True)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}:{number}: not UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{number}: not JSON ({exc.msg})") from exc
    if not isinstance(value, dict):
        raise InputError(f"{path}:{number}: not a JSON object")
    return value
