"""Each engine's records read as its source defines them, and a server's hostile counts read as
"not reported", never as numbers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import engine_schemas
import pytest

from k3diff.sample import spec as vllm_spec
from k3diff.sample.metrics import MetricsProblem
from k3diff.sample.specmeta import spec_meta
from k3diff.telemetry.engines import (
    DraftCounts,
    server_count,
    sglang_counts,
    trtllm_requests,
    vllm_counts,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, 0),
        (2**53 - 1, 2**53 - 1),
        (2**53, None),
        (-1, None),
        (True, None),
        (3.0, None),
        ("3", None),
    ],
)
def test_a_server_count_is_a_non_negative_integer_up_to_2_53(value: Any, expected: Any) -> None:
    assert server_count(value) == expected


def test_a_disaggregated_record_is_one_request() -> None:
    records = [
        engine_schemas.disaggregated_record(gen_spec=(5, 8), ctx_kv=(3, 1)),
        engine_schemas.aggregated_record(spec=(1, 4), kv=(0, 2)),
    ]
    found = list(trtllm_requests(records))
    assert [(r.speculation, r.kv, r.disaggregated) for r in found] == [
        ((5, 8), (3, 1), True),
        ((1, 4), (0, 2), False),
    ]


def test_invalid_counts_are_not_reported() -> None:
    record = engine_schemas.aggregated_record(spec=(5, 8), kv=(3, 1))
    perf = record["perf_metrics"]
    perf["speculative_decoding"]["total_accepted_draft_tokens"] = 9  # more than drafted
    perf["kv_cache_metrics"]["num_reused_blocks"] = -3
    (request,) = trtllm_requests([record])
    assert request.speculation is None and request.kv is None
    assert request.invalid == "accepted tokens 9 above draft tokens 8"  # lost, not unreported


def test_sglang_histogram_gives_drafts_reaching_each_position() -> None:
    meta = engine_schemas.sglang_meta_info([2, 3, 0, 5], draft_per_step=3)
    counts = sglang_counts(meta)
    assert counts == DraftCounts("SGLang meta_info", 3 + 3 * 5, 30, 10, (8, 5, 5))
    # A histogram with a non-count is not read (the token counts still are).
    meta["spec_accept_histogram"] = [1, "2"]
    assert sglang_counts(meta).at_least == ()


def test_sample_keeps_valid_meta_info_fields_and_says_why_the_others_are_not() -> None:
    """telem67: an invalid field is kept as evidence of invalidity, not dropped alone."""
    meta = {"spec_verify_ct": 4, "spec_accept_token_num": -1, "spec_accept_histogram": [1] * 65}
    kept, invalid = spec_meta({"choices": [{"text": "x", "meta_info": meta}]})
    assert kept == {"spec_verify_ct": 4}
    assert invalid == (
        "spec_accept_token_num is -1, not a count; spec_accept_histogram is "
        "[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,…, not a list of 1 to 64 counts"
    )
    assert spec_meta({"choices": [{"text": "x"}]}) == (None, None)
    assert spec_meta({"meta_info": {"spec_accept_histogram": [0, 2]}}) == (
        {"spec_accept_histogram": [0, 2]},
        None,
    )
    # Every field invalid: no counts, but not "none sent".
    assert spec_meta({"meta_info": {"spec_draft_token_num": 1.5}}) == (
        None,
        "spec_draft_token_num is 1.5, not a count",
    )


VLLM_TEXT = """# TYPE vllm:spec_decode_num_drafts counter
vllm:spec_decode_num_drafts_total{engine="0"} 10.0
vllm:spec_decode_num_drafts_total{engine="1"} 2.0
vllm:spec_decode_num_drafts_created{engine="0"} 1.7e9
# TYPE vllm:spec_decode_num_draft_tokens counter
vllm:spec_decode_num_draft_tokens_total{engine="0"} 50.0
# TYPE vllm:spec_decode_num_accepted_tokens counter
vllm:spec_decode_num_accepted_tokens_total{engine="0"} 20.0
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="1"} 5.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="0"} 9.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",position="0"} 1.0
"""


def test_vllm_counters_are_summed_over_their_other_labels() -> None:
    counters = vllm_spec.parse_spec(VLLM_TEXT.encode())
    assert counters == vllm_spec.SpecCounters(
        12, 50, 20, (10, 5), created=(("vllm:spec_decode_num_drafts_created", 1.7e9),)
    )


@pytest.mark.parametrize(
    "body",
    [
        VLLM_TEXT.replace("20.0", "NaN"),
        VLLM_TEXT.replace("20.0", "-4.0"),
        VLLM_TEXT.replace('position="1"', 'position="x"'),
        VLLM_TEXT.replace('position="1"', 'position="9999"'),
        "vllm:spec_decode_num_drafts_total{oops 1\n{{{",
    ],
)
def test_hostile_counters_are_a_problem_not_a_number(body: str) -> None:
    with pytest.raises(MetricsProblem):
        vllm_spec.parse_spec(body.encode())


def test_a_server_without_the_counters_or_with_a_gap_in_positions() -> None:
    assert vllm_spec.parse_spec(b"vllm:num_requests_running 1\n") is None
    assert vllm_spec.parse_spec(b'[{"numActiveRequests": 1}]') is None
    gap = VLLM_TEXT.replace('position="1"', 'position="2"')
    parsed = vllm_spec.parse_spec(gap.encode())
    assert parsed is not None and parsed.accepted_per_position == ()


def test_a_counter_that_went_down_gives_no_window() -> None:
    before = vllm_spec.SpecCounters(10, 50, 20, (9, 5), preemptions=3)
    assert vllm_spec.rise(before, vllm_spec.SpecCounters(9, 50, 20, (9, 5)), 1) is None
    # The counter that went down is named by its exposed name, positions and preemptions too.
    assert vllm_spec.went_down(before, vllm_spec.SpecCounters(9, 50, 20, (9, 5))) == (
        "vllm:spec_decode_num_drafts_total"
    )
    assert vllm_spec.went_down(before, vllm_spec.SpecCounters(10, 50, 20, (9, 4))) == (
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="1"}'
    )
    later = vllm_spec.SpecCounters(10, 50, 20, (9, 5), preemptions=0)
    assert vllm_spec.went_down(before, later) == "vllm:num_preemptions_total"
    # A server restarted early in the window counts past its old values: its counters'
    # `_created` time says it is another server life.
    first = vllm_spec.parse_spec(VLLM_TEXT.encode())
    again = vllm_spec.parse_spec(VLLM_TEXT.replace("20.0", "26.0").encode())
    restarted = vllm_spec.parse_spec(
        VLLM_TEXT.replace("20.0", "26.0").replace("1.7e9", "1.8e9").encode()
    )
    assert first is not None and again is not None and restarted is not None
    assert vllm_spec.went_down(first, again) is None
    assert vllm_spec.went_down(first, restarted) == "vllm:spec_decode_num_drafts_created"
    assert vllm_spec.rise(before, vllm_spec.SpecCounters(12, 60, 24, (10, 7), 5), 2) == {
        "drafts": 2,
        "draft_tokens": 10,
        "accepted_tokens": 4,
        "accepted_per_position": [1, 2],
        "preemptions": 2,
        "samples": 2,
    }


def test_a_window_spans_the_samples_in_flight_together() -> None:
    """Three samples in flight together: one reading before the first is sent, one after the
    last ends, the rise on the last."""
    readings = iter([VLLM_TEXT, VLLM_TEXT.replace("20.0", "26.0")])
    fetched: list[str] = []

    async def fetch(url: str) -> tuple[int, bytes | None]:
        fetched.append(url)
        return 200, next(readings).encode()

    async def one(window: vllm_spec.SpecWindow, delay: float) -> Any:
        await window.enter()
        await asyncio.sleep(delay)
        return await window.leave()

    async def main() -> list[Any]:
        window = vllm_spec.SpecWindow(fetch, "http://x/metrics")
        return list(await asyncio.gather(one(window, 0.01), one(window, 0.03), one(window, 0.02)))

    results = asyncio.run(main())
    assert len(fetched) == 2
    assert results[0] == (None, None) and results[2] == (None, None)
    assert results[1][1] is None  # no counter went down
    assert results[1][0] == {
        "drafts": 0,
        "draft_tokens": 0,
        "accepted_tokens": 6,
        "accepted_per_position": [0, 0],
        "samples": 3,
    }


@pytest.mark.parametrize(
    ("per_position", "valid"),
    [
        ([8, 6, 4], True),
        ([10, 10, 0], True),  # every draft reached position 2: still a count
        ([20, 6, 4], False),  # more drafts reached position 1 than there were drafts
        ([1, 2, 3], False),  # a draft that reached position 3 reached 1 and 2 too
    ],
)
def test_vllm_positions_must_be_drafts_reaching_each_position(
    per_position: list[int], valid: bool
) -> None:
    # telemetry66: a window whose positions are no counts of drafts is no window of one server
    # life: none of its counts stand (before, its tokens did, without its positions), and it
    # says why, for `telemetry` to name it as a lost window.
    window = {"drafts": 10, "draft_tokens": 30, "accepted_tokens": 18, "samples": 1}
    counts = vllm_counts({**window, "accepted_per_position": per_position})
    if valid:
        assert counts.invalid is None
        assert (counts.at_least, counts.drafts, counts.accepted, counts.drafted) == (
            tuple(per_position),
            10,
            18,
            30,
        )
    else:
        assert counts.invalid == (
            f"drafts reaching each position {per_position} above the 10 drafts or rising "
            "with the position"
        )
        assert (counts.at_least, counts.drafts, counts.accepted, counts.drafted) == (
            (),
            None,
            None,
            None,
        )
    assert vllm_counts(window).invalid == "accepted_per_position missing or not a list"
    assert vllm_counts({"samples": 2, "preemptions": 0}).invalid is None  # no speculation


@pytest.mark.parametrize(
    ("side", "mode"),
    [("evil\n::error::forged", "serial"), ("base", "serial\n::error::x"), (None, "serial")],
)
def test_a_perf_metrics_line_of_another_side_or_mode_is_refused(
    tmp_path: Any, side: Any, mode: Any
) -> None:
    """The perf-metrics log is k3diff's own: a side that is neither base nor patch, or a mode
    with a newline, is an edit, and was printed as a report line of its own."""
    from k3diff.errors import InputError
    from k3diff.telemetry.accounting import account

    metrics = {
        "perf_metrics": {"kv_cache_metrics": {"num_reused_blocks": 1, "num_missed_blocks": 0}}
    }
    good = {"side": "patch", "mode": "serial", "metrics": [metrics]}
    bad = {"side": side, "mode": mode, "metrics": [metrics]}
    perf = tmp_path / "perf_metrics.jsonl"
    perf.write_text(json.dumps(good) + "\n")
    assert account((tmp_path / "samples.jsonl",), []).kv_reuse()[0].hits == 1
    perf.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InputError, match=r"perf_metrics.jsonl:2: perf-metrics line"):
        account((tmp_path / "samples.jsonl",), [])
