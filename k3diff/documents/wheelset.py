"""The `k3diff.wheelset/1` document (`k3diff wheels` of two release sets): the set's rows and
each pair's full `k3diff.wheels/1` document, written piece by piece; and its typed reader."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from k3diff import jsontext
from k3diff.documents import wheels, wheelsview
from k3diff.documents.jsondoc import json_chunks
from k3diff.documents.wheels import kind_counts_json
from k3diff.documents.wheelsview import WheelsDocument
from k3diff.exitcodes import ExitCode
from k3diff.fields import Fields
from k3diff.ids import WHEELS
from k3diff.ids import WHEELSET as SCHEMA
from k3diff.wheels.model import WheelReport
from k3diff.wheels.releaseset import IgnoredFile, PairResult, SetWheel, WheelSetReport


def failing_codes(report: WheelReport) -> list[str]:
    """The codes of a pair's failing findings, sorted, each once."""
    return sorted({f.code.name for f in report.failing})


def verdict_word(report: WheelReport) -> str:
    """`OK` or `FAIL`: a pair's verdict."""
    return "OK" if report.exit_code == ExitCode.OK else "FAIL"


def _wheel_json(wheel: SetWheel) -> dict[str, Any]:
    """`sha256` appears for an unpaired wheel (a paired one's is in its pair's document)."""
    data: dict[str, Any] = {
        "path": str(wheel.path),
        "name": wheel.name,
        "version": wheel.version,
        "tags": sorted(wheel.tags),
    }
    if wheel.sha256 is not None:
        data["sha256"] = wheel.sha256
    return data


def pair_row(pair: PairResult) -> dict[str, Any]:
    """The summary row of one pair (JSON form, without its full document)."""
    report = pair.report
    return {
        "base": str(pair.base.path),
        "patch": str(pair.patch.path),
        "verdict": verdict_word(report),
        "exit_code": int(report.exit_code),
        "counts": {kind.value: kind_counts_json(counts) for kind, counts in report.summary.items()},
        "failing_codes": failing_codes(report),
    }


def _pair_json(pair: PairResult) -> str:
    """One pair as compact-ish JSON: the row's fields, then `wheels` with its entries one per
    line (the same layout as a `k3diff.wheels/1` file, indented one level)."""
    row = jsontext.dumps(pair_row(pair), indent=2)[:-2]  # drop the closing "\n}"
    document = "".join(wheels.chunks(pair.report))
    inner = document.rstrip("\n").replace("\n", "\n  ")
    return f'{row},\n  "wheels": {inner}\n}}'.replace("\n", "\n    ")


def _ignored_json(item: IgnoredFile) -> dict[str, str]:
    """An ignored or misnamed file: its side, path and why."""
    return {"side": str(item.side), "path": str(item.path), "reason": item.reason}


def chunks(report: WheelSetReport) -> Iterator[str]:
    """The document as JSON text, piece by piece (it holds every entry of every pair)."""
    ignored = [*report.base.ignored, *report.patch.ignored]
    document: dict[str, Any] = {
        "schema": SCHEMA,
        "base": {"inputs": [str(p) for p in report.base.inputs], "wheels": len(report.base.wheels)},
        "patch": {
            "inputs": [str(p) for p in report.patch.inputs],
            "wheels": len(report.patch.wheels),
        },
        "summary": {
            "pairs": len(report.pairs),
            "failing_pairs": len(report.failing_pairs),
            "only_base": len(report.only_base),
            "only_patch": len(report.only_patch),
            "ignored": len(ignored),
        },
        "pairs": [_pair_json(pair) for pair in report.pairs],
        "only_base": [_wheel_json(w) for w in report.only_base],
        "only_patch": [_wheel_json(w) for w in report.only_patch],
        "ignored": [_ignored_json(i) for i in ignored],
        "verdict": {
            "ok": report.exit_code == ExitCode.OK,
            "exit_code": int(report.exit_code),
            "failures": list(report.failures),
            "failing_pairs": [str(p.patch.path) for p in report.failing_pairs],
            "unpaired": report.unpaired,
            "allow_unpaired": report.allow_unpaired,
        },
    }
    if report.misnamed:  # absent when none, as documents before it was added read
        document["misnamed"] = [_ignored_json(i) for i in report.misnamed]
    unverified = report.unverified_streams
    if unverified:
        document["verdict"]["unverified_streams"] = unverified
    yield from json_chunks(document, per_line=(), encoded=("pairs",))


# The typed reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class WheelsetPair:
    """One pair of the set."""

    base: str
    """The base wheel's path."""
    patch: str
    """The patch wheel's path."""
    wheels: WheelsDocument
    """The pair's full `k3diff.wheels/1` document."""
    verdict: str = "OK"
    """The row's `OK` or `FAIL`."""
    exit_code: int = 0
    """The row's exit code (its wheels document's)."""
    failing_codes: tuple[str, ...] = ()
    """The row's codes of failing findings, sorted, each once."""


@dataclass(frozen=True)
class WheelsetDocument:
    """A `k3diff.wheelset/1` document, typed: what the bundle reads of it."""

    pairs: tuple[WheelsetPair, ...]
    """Every pair, in the set's order."""
    only_base: tuple[str, ...]
    """Paths of the base wheels without a partner."""
    only_patch: tuple[str, ...]
    """Paths of the patch wheels without a partner."""
    misnamed: tuple[str, ...]
    """Paths of the `.whl` files whose names pip refuses (they fail the set); empty when the
    document has no `misnamed`."""
    ok: bool
    """The set's verdict."""
    exit_code: int
    """The exit code `wheels` returned."""
    unverified_streams: int = 0
    """The pairs' unchecked streams summed (`verdict.unverified_streams`, --no-file-hash), 0
    when none."""
    summary: Mapping[str, int] = field(default_factory=dict)
    """The set's counts (`summary`: pairs, failing_pairs, only_base, only_patch, ignored)."""
    ignored: int = 0
    """Files of the directories that are no wheels (`ignored`)."""
    failures: tuple[str, ...] = ()
    """Why the set fails, as the verdict says (`verdict.failures`)."""
    failing_pairs: tuple[str, ...] = ()
    """The failing pairs' patch paths, as the verdict says (`verdict.failing_pairs`)."""
    unpaired: int = 0
    """Wheels on one side only, as the verdict says (`verdict.unpaired`)."""
    allow_unpaired: bool = False
    """`--allow-unpaired`: wheels on one side only did not fail the set."""
    wheel_counts: tuple[int, int] = (0, 0)
    """The wheels found on each side, base then patch (`base.wheels`, `patch.wheels`): each is
    paired once or listed as on one side only."""


def _pair(fields: Fields) -> WheelsetPair:
    document = fields.object("wheels")
    document.string("schema", (WHEELS,))  # the schema's `const`: a whole `k3diff.wheels/1`
    return WheelsetPair(
        base=fields.string("base"),
        patch=fields.string("patch"),
        wheels=wheelsview.read_fields(document),
        verdict=fields.string("verdict"),
        exit_code=fields.integer("exit_code"),
        failing_codes=fields.strings("failing_codes"),
    )


def _paths(fields: Fields, key: str) -> tuple[str, ...]:
    return tuple(item.string("path") for item in fields.objects(key))


def _unpaired(fields: Fields, key: str) -> tuple[str, ...]:
    """The paths of the wheels on one side only, each one's SHA-256 held where written."""
    rows = tuple(fields.objects(key))
    for row in rows:
        row.optional_sha256("sha256")
    return tuple(row.string("path") for row in rows)


def read(body: object, name: str) -> WheelsetDocument:
    """The typed view of a `k3diff.wheelset/1` document; InputError naming the file and the
    field when one is missing or of another type."""
    fields = Fields(body, name)
    verdict = fields.object("verdict")
    return WheelsetDocument(
        pairs=fields.each("pairs", _pair),
        only_base=_unpaired(fields, "only_base"),
        only_patch=_unpaired(fields, "only_patch"),
        misnamed=_paths(fields, "misnamed") if fields.has("misnamed") else (),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
        unverified_streams=(
            verdict.integer("unverified_streams") if verdict.has("unverified_streams") else 0
        ),
        summary=fields.counts("summary"),
        ignored=len(tuple(fields.objects("ignored"))),
        failures=verdict.strings("failures"),
        failing_pairs=verdict.strings("failing_pairs"),
        unpaired=verdict.integer("unpaired"),
        allow_unpaired=verdict.boolean("allow_unpaired"),
        wheel_counts=(
            fields.object("base").integer("wheels"),
            fields.object("patch").integer("wheels"),
        ),
    )
