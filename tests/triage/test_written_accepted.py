"""Whatever triage writes, `report` takes at its word, and no held record passes.

Generated shapes through the CLI (review59a): one to three records, serial and concurrent
samples of 0 to 4 a side with failed requests among them, greedy, sampled and seeded
requests (a temperature, a sampling knob without one, a seed that makes agreeing repeats one
draw, a seed whose repeats vary), `--capture-mode`, `--fail-inconclusive`, one log or two pooled, captures equal,
differing, an error or missing on the patch's side. For each: triage exits 0 or 1; a
record held inconclusive (or a regression candidate) fails the run; a greedy patch output
the base never gave anywhere (its samples, and its capture where counted) fails it unless
its mode is `both-nondeterministic`; and `report` reads the document (alone, and with the
comparison and logs it was made from, where it runs triage again) with the same verdict."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.triage.model import HELD_FLAGS

from .helpers import S, compare, completion, write_samples

HELD = {flag.value for flag in HELD_FLAGS}
MODES = ("serial", "concurrent")
outputs = st.lists(st.sampled_from(["A", "A", "B", "Z", None]), max_size=4)
record = st.fixed_dictionaries(
    {
        "captured": st.tuples(st.sampled_from("ABZ"), st.sampled_from("ABZ")),
        "patch_capture": st.sampled_from(["text", "text", "text", "error", "missing"]),
        "samples": st.fixed_dictionaries(
            {(mode, side): outputs for mode in MODES for side in ("base", "patch")}
        ),
    }
)


def _inputs(
    where: Path, records: list[dict[str, Any]], params: dict[str, Any], pooled: bool
) -> list[str]:
    base: list[dict[str, Any]] = []
    patch: list[dict[str, Any]] = []
    samples: list[S] = []
    for index, rec in enumerate(records):
        key = f"k{index}"
        base.append(completion(key, rec["captured"][0]))
        if rec["patch_capture"] == "text" or index == 0:
            patch.append(completion(key, rec["captured"][1]))
        elif rec["patch_capture"] == "error":
            patch.append({"id": key, "error": {"message": "boom", "code": 500}})
        for (mode, side), texts in rec["samples"].items():
            samples += [S(side, key, text, mode) for text in texts]
    compare(where, base, patch)
    if pooled and len(samples) > 1:
        half = len(samples) // 2
        write_samples(where / "a" / "samples.jsonl", samples[:half], params=params)
        write_samples(where / "b" / "samples.jsonl", samples[half:], params=params)
        return ["a/samples.jsonl", "b/samples.jsonl"]
    write_samples(where / "a" / "samples.jsonl", samples, params=params)
    return ["a/samples.jsonl"]


def _never_given(rec: dict[str, Any], verdict: dict[str, Any], counted: str | None) -> bool:
    """A greedy mode whose patch gave an output the base gave in no mode (nor as its capture
    where `--capture-mode` counts it), other than `both-nondeterministic`."""
    samples = rec["samples"]
    base = {text for (_, side), texts in samples.items() if side == "base" for text in texts}
    if counted:
        base.add(rec["captured"][0])
    for mode in verdict["modes"]:
        patch = set(samples[(mode["mode"], "patch")])
        if counted == mode["mode"]:
            patch.add(rec["captured"][1])
        if (patch - base - {None}) and mode["category"] != "both-nondeterministic":
            return True
    return False


@settings(max_examples=25, deadline=None)
@given(
    st.lists(record, min_size=1, max_size=3),
    st.sampled_from(
        [
            {"temperature": 0},
            {"temperature": 1},
            {"temperature": 1, "seed": 7},
            {"top_p": 0.9},
            {"temperature": 0.7, "top_k": 5, "seed": 3},
            {"temperature": 0, "top_p": 0.9, "seed": 1},
        ]
    ),
    st.sampled_from([None, "serial", "concurrent"]),
    st.booleans(),
    st.booleans(),
)
def test_triage_writes_report_accepts_and_held_fails(
    records: list[dict[str, Any]],
    params: dict[str, Any],
    capture_mode: str | None,
    gate: bool,
    pooled: bool,
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        where = Path(directory)
        logs = _inputs(where, records, params, pooled)
        pool = ["--pool-runs"] if len(logs) > 1 else []
        args = [*pool, *(["--capture-mode", capture_mode] if capture_mode else [])]
        args += ["--fail-inconclusive"] if gate else []
        result = run_k3diff(
            "triage", "cmp.json", *logs, "--format", "json", "-o", "t.json", *args, cwd=where
        )
        assert result.exit_code in (0, 1), result.stderr
        document = json.loads((where / "t.json").read_text())
        for verdict in document["records"]:
            for mode in verdict["modes"]:
                # What decided `sampled`, recorded for report to recount (forge59).
                sent = mode["requests"]
                assert set(sent) == {"base", "patch"}, sent
                if mode["sampled"]:
                    assert all(f["temperature"] != 0 for side in sent.values() for f in side)
        for verdict in document["records"]:
            held = verdict["category"] == "inconclusive" and HELD & set(verdict["flags"])
            if held or verdict["regression_candidate"]:
                assert result.exit_code == 1, verdict
        if params == {"temperature": 0} and result.exit_code == 0:
            for rec, verdict in zip(records, document["records"], strict=True):
                if rec["patch_capture"] == "text" or verdict["key"] == "k0":
                    assert not _never_given(rec, verdict, capture_mode), verdict
        alone = run_k3diff("report", "t.json", "--out", "alone", cwd=where)
        assert alone.exit_code == result.exit_code, alone.stderr
        rerun = run_k3diff(
            "report", "cmp.json", *logs, "t.json", *pool, "--out", "bundle", cwd=where
        )
        assert rerun.exit_code in (0, 1), rerun.stderr
        summary = json.loads((where / "bundle" / "summary.json").read_text())
        (stage,) = (m for m in summary["matrix"] if m["evidence"] == "nondeterminism follow-up")
        assert (stage["status"] == "FAIL") == (result.exit_code == 1), stage
