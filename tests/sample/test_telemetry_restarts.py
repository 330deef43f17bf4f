"""A real vLLM-like server that restarts mid-run: `telemetry` names the windows it lost.

The trial behind this (left67b) ran the fault server with `--metrics flaky` and saw no
`counter-reset` line: that mode serves vLLM's gauge without speculation counters and garbage
after, so there was never a counter to reset. `--metrics restarting` serves the speculation
counters and puts them back to zero at every 4th read from the 28th (reads 1 to 26 are
`sample`'s probes: of the gauge, the 24 of its one-server check, 3 rounds of 2 readings of 4
bodies since samples74, and of the speculation counters; then two a serial window), so every
2nd window spans a restart: each is lost, and the lines that say the same but for the window
are one line per side.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cli_support import run_telemetry

from .support import read_samples, sample_fault_pair

REPEATS = 8
SPEC = {
    "vllm_spec": {"drafts": 10, "draft_tokens": 50, "accepted_tokens": 30, "per_pos": [9, 8, 7, 6]}
}


def test_a_server_restarting_every_second_window_loses_those_windows_said_once_per_side(
    fault_server: Any, tmp_path: Path
) -> None:
    """Read 28 restarts it inside window 0 (its `_created` time moves; the counts it lost equal
    the window's rise, so only that shows it), reads 32, 36 and 40 inside windows 2, 4 and 6
    (the counters go down): 4 lost windows per side, the three alike said as one line."""
    out = sample_fault_pair(
        fault_server, tmp_path, (SPEC, SPEC), REPEATS, "--metrics", "restarting"
    )
    _, lines = read_samples(out)
    lost = sorted((line["side"], line["repeat"]) for line in lines if line.get("server_reset"))
    assert lost == [(side, repeat) for side in ("base", "patch") for repeat in (0, 2, 4, 6)]
    code, doc, text = run_telemetry(out / "samples.jsonl")
    assert code == 0
    assert sum(1 for r in doc["counter_resets"] if r["lost"]) == 8
    said = [line for line in text.splitlines() if line.startswith("counter-reset")]
    window = "went down across the window closed by a serial repeat 2 (1 sample)"
    for side in ("base", "patch"):
        assert (
            f"counter-reset, {side}: vllm:spec_decode_num_accepted_tokens_created changed across "
            "the window closed by a serial repeat 0 (1 sample): a restarted server; that "
            "window's counts are lost"
        ) in said
        assert (
            f"counter-reset, {side}: in 3 vLLM windows: vllm:spec_decode_num_drafts_total "
            f"{window}: a restarted server; that window's counts are lost (likewise: a serial "
            "repeat 4, a serial repeat 6)"
        ) in said
    assert len(said) == 4
    assert text.splitlines()[-1].endswith("; warnings: counter-reset (base), counter-reset (patch)")
