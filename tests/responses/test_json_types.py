"""A field's JSON type is part of its value, on every path: 1, 1.0 and true are three values.

Python's `==` says `1 == 1.0 == True`; deepdiff, the field comparison's reference, reports a
type change. The identical-pair shortcut (`matchpair.identical`), the cheap view before deepdiff
(`fielddiff.field_changes`) and run state (`diff.run_state_changes`) ask `jsonsame.same`, so
none of them calls equal what the full comparison reports: a patch whose `usage` says `true`
where the base said `1` differs whether or not anything else in the record does (found by the
new-user trial: it read "no paired record differs", exit 0).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.responses.diff import DiffOptions, diff_pair
from k3diff.responses.fastshape import FastReader
from k3diff.responses.fielddiff import field_changes
from k3diff.responses.jsondeepdiff import DeepDiff
from k3diff.responses.jsonsame import same
from k3diff.responses.matchpair import MatchRow, identical
from k3diff.responses.model import LoadOptions, ResponseRecord
from k3diff.responses.packed import pack, unpack
from k3diff.responses.results import Status
from k3diff.responses.shapes import records_from_raw

from .fixtures import completion, write_jsonl

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, -0.0, 1.0, 2.0, 0.5, 1e300, 2**53]),
    st.floats(allow_nan=False, width=16),
    st.sampled_from(["", "1", "true", "stop"]),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "completion_tokens"]), inner, max_size=3)
    ),
    max_leaves=8,
)
USAGE = st.dictionaries(st.sampled_from(["prompt_tokens", "completion_tokens"]), JSON)
LOADS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@LOADS
@given(JSON, JSON)
def test_same_calls_equal_nothing_deepdiff_or_the_field_comparison_tells_apart(
    base: Any, patch: Any
) -> None:
    if DeepDiff(base, patch):
        assert not same(base, patch)
    # deepdiff itself matches list items with `==` ([true] against [1] is no change to it):
    # the field comparison walks what it passes over, so it reports every difference `same` sees
    changes, _note = field_changes(_loaded({"x": base}), _loaded({"x": patch}), False)
    assert bool(changes) == (not same(base, patch))


def test_deepdiffs_blind_spot_in_lists_is_reported() -> None:
    changes, _note = field_changes(_loaded({"x": [[True]]}), _loaded({"x": [[1]]}), False)
    assert [(c.path, c.base, c.patch) for c in changes] == [("x[0][0]", True, 1)]


def test_numbers_of_another_json_type_are_other_values() -> None:
    assert not same(1, True) and not same(1, 1.0) and not same(0, False) and not same(0, None)
    assert not same({"n": [1]}, {"n": [True]}) and not same([{"a": 5}], [{"a": 5.0}])
    assert same({"a": 1, "b": [1.0, None]}, {"b": [1.0, None], "a": 1})


FLAT = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-2, 2),
        st.sampled_from([0.0, -0.0, 1.0, float("nan")]),
        st.sampled_from(["", "1"]),
    ),
    max_size=3,
)


def _walked(base: Any, patch: Any) -> bool:
    """`same` by its definition: the same type at every level, equal scalars (NaN never)."""
    if type(base) is not type(patch):
        return False
    if isinstance(base, dict):
        return base.keys() == patch.keys() and all(_walked(v, patch[k]) for k, v in base.items())
    if isinstance(base, list):
        return len(base) == len(patch) and all(map(_walked, base, patch))
    return bool(base == patch)


@LOADS
@given(FLAT, FLAT, st.booleans())
def test_a_flat_object_is_the_same_exactly_when_its_walk_says_so(
    base: dict[str, Any], patch: dict[str, Any], copied: bool
) -> None:
    # `same` decides a flat object of integers, strings and nulls with one `==`, which takes 1
    # for true and 1.0, and a NaN for equal to itself (a copy shares it): the walk does not
    if copied:
        patch = dict(base)
    assert same(base, patch) == _walked(base, patch)
    assert same({"usage": base}, {"usage": patch}) == _walked(base, patch)


def _loaded(top: dict[str, Any]) -> ResponseRecord:
    obj = completion("r", "same text") | top
    return records_from_raw(obj, "cap.jsonl:1", 1, LoadOptions())[0]


def _record(usage: Any, finish: Any, latency: Any, line: int) -> dict[str, Any]:
    obj = completion("r", "same text", token_ids=[1, 2]) | {"usage": usage}
    obj["choices"][0]["finish_reason"] = finish
    return obj | {"e2e_latency": latency}


def _packed(obj: dict[str, Any], line: int, fast: bool) -> tuple[Any, ...]:
    options = LoadOptions()
    if fast:
        packed = FastReader(options, "cap.jsonl").pack(copy.deepcopy(obj), line)
        if packed is not None:
            return packed
    return pack(records_from_raw(obj, f"cap.jsonl:{line}", line, options)[0])


@LOADS
@given(
    st.tuples(USAGE, USAGE),
    st.tuples(st.sampled_from(["stop", None]), st.sampled_from(["stop", "length"])),
    st.tuples(JSON, JSON),
    st.booleans(),
)
def test_the_identical_pair_shortcut_agrees_with_the_full_comparison(
    usages: tuple[Any, Any], finishes: tuple[Any, Any], latencies: tuple[Any, Any], fast: bool
) -> None:
    base = _packed(_record(usages[0], finishes[0], latencies[0], 1), 1, fast)
    patch = _packed(_record(usages[1], finishes[1], latencies[1], 2), 2, fast)
    displays = ("b.jsonl", "p.jsonl")
    full = diff_pair("r", unpack(base), unpack(patch), displays, DiffOptions())
    nothing = full.status is Status.MATCH and not full.field_changes
    assert identical(base, patch, False) == (nothing and not full.run_state_changes)
    assert nothing == (same(usages[0], usages[1]) and same(finishes[0], finishes[1]))
    assert bool(full.run_state_changes) == (not same(latencies[0], latencies[1]))
    if identical(base, patch, False):
        assert MatchRow("r", base, patch, displays).diff() == full


def test_a_usage_count_turned_boolean_alone_is_a_difference(tmp_path: Path) -> None:
    base = completion("a", "hello", completion_tokens=1)
    patch = copy.deepcopy(base)
    patch["usage"]["completion_tokens"] = True
    for value in (True, 1.0):
        patch["usage"]["completion_tokens"] = value
        result = run_k3diff(
            "responses",
            write_jsonl(tmp_path / "b.jsonl", [base]),
            write_jsonl(tmp_path / "p.jsonl", [patch]),
            "--format",
            "json",
        )
        assert result.exit_code == 1, value
        assert '"usage.completion_tokens"' in result.stdout
