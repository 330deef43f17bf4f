"""`acceptance_units` of a `k3diff.telemetry/1` document: per side that reports speculation,
the counts of each unit the acceptance gate permutes (a TensorRT-LLM request, a vLLM window, an
SGLang sample), so that `k3diff report` runs the gate again instead of trusting its p-values
(forge60). Written by every `telemetry` run, with or without `--fail-on`, so a reviewer can
impose the gate at report time (`report --fail-on acceptance-drop`). Past the gate's caps
(`GATE_MAX_UNITS` a side, `GATE_MAX_WORK` over its comparisons) the blocks of units the gate ran
on (`k3diff.telemetry.blocks`: `block`, and `units` before blocking, checked against the rule);
null in a document written past them before stop 62; a document whose units are past either is
refused; absent from a document written before the field was added within
`k3diff.telemetry/1`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from k3diff.counts import MAX_COUNT
from k3diff.fields import Fields
from k3diff.sample.linevalues import MAX_SPEC_POSITIONS
from k3diff.telemetry.blocks import block_problem
from k3diff.telemetry.gate import gate_work
from k3diff.telemetry.gatemodel import GATE_MAX_UNITS, GATE_MAX_WORK, SideUnits

SIDES = ("base", "patch")


def units_json(units: Mapping[str, SideUnits] | None) -> list[dict[str, Any]] | None:
    """One compact object per side (the document writes each on a line of its own)."""
    if units is None:
        return None
    return [
        {
            "side": side,
            "source": found.source,
            "requests": found.requests,
            "tokens": [list(unit) for unit in found.token_units],
            "positions": [[drafts, list(at_least)] for drafts, at_least in found.position_units],
        }
        | (
            {"block": found.block, "units": list(found.unblocked)}
            if found.block > 1 and found.unblocked is not None
            else {}
        )
        for side, found in sorted(units.items())
    ]


def _counts(fields: Fields, key: str, value: object, length: int | None) -> tuple[int, ...]:
    if not (
        isinstance(value, list)
        and (length is None or len(value) == length)
        and all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_COUNT for v in value
        )
    ):
        shape = f"{length} " if length is not None else ""
        raise fields.fail(key, f"must hold lists of {shape}integers from 0 to 2^53 - 1")
    return tuple(value)


def _token_unit(fields: Fields, value: object) -> tuple[int, int]:
    accepted, drafted = _counts(fields, "tokens", value, 2)
    if accepted > drafted:
        raise fields.fail("tokens", f"holds a unit of {accepted} accepted of {drafted} drafted")
    return accepted, drafted


def _position_unit(fields: Fields, value: object) -> tuple[int, tuple[int, ...]]:
    if not (isinstance(value, list) and len(value) == 2):
        raise fields.fail("positions", "must hold [drafts, [at least 1, 2, ...]] pairs")
    (drafts,) = _counts(fields, "positions", value[:1], 1)
    at_least = _counts(fields, "positions", value[1], None)
    if len(at_least) > MAX_SPEC_POSITIONS or any(
        later > earlier for earlier, later in zip((drafts, *at_least), at_least, strict=False)
    ):
        raise fields.fail(
            "positions",
            f"holds a unit whose counts rise with the position or run past {MAX_SPEC_POSITIONS} "
            "positions",
        )
    return drafts, at_least


def _list(fields: Fields, key: str) -> list[object]:
    found = fields.raw(key)
    if not isinstance(found, list):
        raise fields.fail(key, "must be a list")
    if len(found) > GATE_MAX_UNITS:
        raise fields.fail(key, f"holds {len(found):,} units, more than {GATE_MAX_UNITS:,}")
    return found


def _side(fields: Fields) -> tuple[str, SideUnits]:
    side = fields.string("side", SIDES)
    block = fields.optional_integer("block")
    unblocked = None
    if block is not None:
        if block < 2:
            raise fields.fail("block", "must be 2 or more (units in blocks past the gate's caps)")
        unblocked = _counts(fields, "units", fields.raw("units"), 2)
    return side, SideUnits(
        source=fields.string("source"),
        requests=fields.integer("requests"),
        token_units=tuple(_token_unit(fields, v) for v in _list(fields, "tokens")),
        position_units=tuple(_position_unit(fields, v) for v in _list(fields, "positions")),
        block=block or 1,
        unblocked=None if unblocked is None else (unblocked[0], unblocked[1]),
    )


def read_units(fields: Fields) -> dict[str, SideUnits] | None:
    """The document's `acceptance_units` by side (None: absent, or null)."""
    if fields.raw("acceptance_units") is None:
        return None
    found: dict[str, SideUnits] = {}
    for side, units in fields.each("acceptance_units", _side):
        if side in found:
            raise fields.fail("acceptance_units", f"names the {side} side twice")
        found[side] = units
    problem = block_problem(found)
    if problem is not None:
        raise fields.fail("acceptance_units", problem)
    work = gate_work(found)
    if work > GATE_MAX_WORK:
        # alpha61: 10,000 units a side at 16 positions was 73 s of CPU in report's gate.
        raise fields.fail(
            "acceptance_units",
            f"holds {work:,} units over the gate's comparisons (pooled and per draft "
            f"position), more than the {GATE_MAX_WORK:,} telemetry records",
        )
    return found
