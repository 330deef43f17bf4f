"""Findings of a new-user trial of `k3diff sample`: a server that ignores `stream: true`
stops the run at its first answer with one line naming the URL (exit 2) instead of failing each
sample in turn; the help says what proves a batch."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import scripted_server
from cli_support import run_k3diff

from .support import flat, sample, write_prompts


def test_a_json_answer_to_a_stream_request_stops_the_run(tmp_path: Path) -> None:
    server = scripted_server.start("patch", tmp_path / "server")
    try:
        prompts = tmp_path / "p.jsonl"
        prompts.write_text('{"key": "a", "prompt": "a"}\n')
        out = tmp_path / "out"
        args = ("--base", server.url, "--prompts", prompts, "--repeats", "2", "--out", out)
        shown = run_k3diff("sample", *args, "--stream", "--retries", "3")
    finally:
        scripted_server.stop(server.pid)
    assert shown.exit_code == 2, shown.stdout
    assert shown.stderr.splitlines() == [
        f"k3diff: error: {server.url}/v1/completions: answered a stream request (stream: true) "
        "with one whole JSON completion as application/json, not an event stream: the server "
        "does not stream (sample it without --stream, in another --out); stopped, 0 samples "
        f"kept in {out}/samples.jsonl (--resume sends the same stream requests and stops the same "
        "way)"
    ]
    _, stop = (out / "samples.jsonl").read_text().splitlines()  # the header and the stop
    assert '"reason":"not-streamed","resumable":false' in stop


def test_help_says_only_the_gauge_proves_a_batch() -> None:
    shown = run_k3diff("sample", "--help")
    text = " ".join(shown.stdout.split())
    assert "only that gauge proves a concurrent or loaded batch was exercised" in text
    assert "proves a concurrent batch was exercised; streams alone prove none" in text


def test_a_seeded_run_that_repeats_one_draw_is_not_told_it_needs_a_distribution_test(
    fault_server: Any, tmp_path: Path
) -> None:
    """newuser60: at temperature 0.8 with a fixed `seed`, each side repeated one output, which
    triage judges as greedy (one draw, no distribution test: docs/statistics.md). The summary
    said triage would judge the outputs by their distribution and asked for 25 samples a side."""
    base, patch = fault_server(), fault_server("--seed-salt", "patched")
    draw = {"temperature": 0.8, "seed": 7, "fault": {"output": "seeded"}}
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": k, "prompt": k, **draw} for k in ("a", "b")]
    )
    args = ("--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "3")
    shown = sample(*args, "--out", tmp_path / "out")
    assert shown.exit_code == 0, shown.stderr
    text = flat(shown.stdout)
    assert "by their output distribution" not in text, text
    assert "samples per side per prompt" not in text, text
    assert (
        "the requests sampled (base, patch) with a fixed seed and each side repeated one output "
        "on every record: one draw, not independent draws, so triage judges them by their exact "
        "outputs, as greedy requests (no distribution test)"
    ) in text, text
    rand = {"key": "b", "prompt": "b", "temperature": 0.8, "fault": {"output": "rand"}}
    unseeded = write_prompts(tmp_path / "u.jsonl", [{"key": "a", "prompt": "a", **draw}, rand])
    args = ("--base", base.url, "--patch", patch.url, "--prompts", unseeded, "--repeats", "3")
    mixed = flat(sample(*args, "--out", tmp_path / "mixed").stdout)
    assert "triage judges them by their output distribution (MMD test)" in mixed, mixed
    assert "this run took 3 or more per record and side, fewer than 18" in mixed, mixed
    assert (
        "1 of 2 records sent a fixed seed and repeated one output a side: triage judges it as "
        "greedy (one draw)"
    ) in mixed, mixed


def test_a_greedy_record_beside_sampled_ones_is_said_to_be_greedy(
    fault_server: Any, tmp_path: Path
) -> None:
    """newuser71, against a real `transformers serve`: a temperature-0 prompt beside two
    sampled ones was summed up as '1 of 3 records did not sample', which reads as a record the
    run left unsampled; it was sampled 5 times a side, greedily. Failed on base71."""
    base, patch = fault_server(), fault_server()
    rand = {"temperature": 0.8, "fault": {"output": "rand"}}
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [{"key": "a", "prompt": "a", "temperature": 0}, {"key": "b", "prompt": "b", **rand}],
    )
    args = ("--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "3")
    shown = sample(*args, "--out", tmp_path / "out")
    assert shown.exit_code == 0, shown.stderr
    text = flat(shown.stdout)
    assert (
        "1 of 2 records sent greedy requests and repeated one output on the base: it needs no "
        "distribution test"
    ) in text, text


def test_a_side_that_failed_every_request_answered_none(fault_server: Any, tmp_path: Path) -> None:
    """small71: the patch server answered every sampled request with a 500; the summary said
    "this run took 0 or more per record and side" (failed on main 44d4101f). It now says that
    side answered none, and what the other side took."""
    failing = json.dumps({k: {"status": 500, "times": -1} for k in ("a", "b")})
    base, patch = fault_server(), fault_server("--faults", failing)
    rand = [{"key": k, "prompt": k, "temperature": 0.8} for k in ("a", "b")]
    prompts = write_prompts(tmp_path / "p.jsonl", rand)
    args = ("--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "3")
    shown = sample(*args, "--retries", "0", "--out", tmp_path / "out")
    assert shown.exit_code == 1, shown.stderr
    text = flat(shown.stdout)
    assert "took 0 or more" not in text, text
    needed = re.search(r"from (\d+) samples per side per prompt", text)
    assert needed is not None, text
    assert (
        "; the patch side answered none of its requests; the other side took 3 or more per "
        f"record, fewer than {needed[1]}"
    ) in text, text
