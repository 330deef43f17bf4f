"""What a sample line keeps for the split analysis: token ids, tokens, logprobs and margins over
the runner-up, bounded to the first `TRACE_POSITIONS` positions (and saying so)."""

from __future__ import annotations

from array import array

from k3diff.responses.logprobs import parse_logprobs
from k3diff.sample.trace import FIRST_TOP, TRACE_POSITIONS, token_trace


def _logprobs(tops: list[dict[str, float]], chosen: list[str]) -> dict[str, object]:
    return {"tokens": chosen, "token_logprobs": [top[t] for t, top in zip(chosen, tops, strict=True)],
            "top_logprobs": tops}  # fmt: skip


def test_margins_are_over_the_best_other_token() -> None:
    value = _logprobs(
        [{"a": -0.1, "b": -2.1}, {"c": -0.5, "d": -0.52}, {"e": -0.2, "f": -1.0}],
        ["a", "c", "f"],  # the last position sampled the less likely token
    )
    trace = token_trace(None, parse_logprobs(value, "test"))
    assert trace is not None
    assert trace["tokens"] == ["a", "c", "f"]
    assert trace["logprobs"] == [-0.1, -0.5, -1.0]
    # Hand sums: -0.1 - -2.1, -0.5 - -0.52, -1.0 - -0.2.
    assert trace["margins"] == [2.0, 0.02, -0.8]
    assert trace["token_ids"] is None and (trace["positions"], trace["kept"]) == (3, 3)


def test_a_long_answer_keeps_the_first_positions_and_says_how_many_it_had() -> None:
    count = TRACE_POSITIONS + 88
    ids = array("q", range(count))
    value = _logprobs(
        [{f"t{i}": -0.1, "x": -3.1} for i in range(count)], [f"t{i}" for i in range(count)]
    )
    trace = token_trace(ids, parse_logprobs(value, "test"))
    assert trace is not None
    assert (trace["positions"], trace["kept"]) == (count, TRACE_POSITIONS)
    assert trace["token_ids"] == list(range(TRACE_POSITIONS))
    assert len(trace["tokens"]) == len(trace["margins"]) == TRACE_POSITIONS
    assert token_trace(None, None) is None


def test_the_first_positions_alternatives_are_kept_as_ranked() -> None:
    value = _logprobs([{"b": -1.2, "a": -0.4, "c": -2.5}, {"d": -0.1}], ["b", "d"])
    trace = token_trace(None, parse_logprobs(value, "test"))
    assert trace is not None
    # Most likely first, the sampled token among them; only the first position's.
    assert trace["first_top"] == [["a", -0.4], ["b", -1.2], ["c", -2.5]]
    many = {f"t{i}": -0.01 * i for i in range(FIRST_TOP + 10)}
    kept = token_trace(None, parse_logprobs(_logprobs([many], ["t0"]), "test"))
    assert kept is not None and len(kept["first_top"]) == FIRST_TOP
    bare = token_trace(None, parse_logprobs({"tokens": ["x"], "token_logprobs": [-0.1]}, "t"))
    assert bare is not None and bare["first_top"] is None
