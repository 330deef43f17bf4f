"""Taking the samples triage asks for (found by the new-user trial): `--resume` with a larger
`--repeats` grows the run in place — the samples logged are kept, none repeated or lost, the
resume marker records the repeats the run grew to — and everything else must match. Triage
and the bundle count the samples actually in the log; the refusals name the command to run."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
from cli_support import run_k3diff
from triage.helpers import compare_texts

from k3diff.documents.catalog import load_schema

from .support import read_samples, sample, write_prompts


def _run(fault_server: Any, tmp_path: Path, *flags: str) -> tuple[list[str | Path], Path]:
    """A run of 2 prompts, 2 repeats, with `flags`: the options a resume gives again, and its
    folder."""
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": f"k{i}", "prompt": f"p{i}"} for i in range(2)]
    )
    out = tmp_path / "run"
    common: list[str | Path] = [
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--out", out,
    ]  # fmt: skip
    first = sample(*common, "--repeats", "2", *flags)
    assert first.exit_code == 0, first.stderr
    return common, out


def test_resume_with_more_repeats_takes_only_the_new_ones(
    fault_server: Any, tmp_path: Path
) -> None:
    common, out = _run(fault_server, tmp_path)
    before = (out / "samples.jsonl").read_bytes()
    grown = sample(*common, "--repeats", "5", "--resume", "--format", "json")
    assert grown.exit_code == 0, grown.stderr
    assert json.loads(grown.stdout)["summary"]["taken_now"] == 2 * 2 * 3  # keys, sides, 3 more
    data = (out / "samples.jsonl").read_bytes()
    assert data.startswith(before)  # nothing logged is rewritten
    lines = [json.loads(line) for line in data.decode().splitlines()]
    assert lines[0]["run"]["repeats"] == 2  # the header as first written
    marker = [line for line in lines[1:] if "schema" in line]
    assert len(marker) == 1 and marker[0]["repeats"] == 5
    for line in lines:
        jsonschema.validate(line, load_schema("samples"), cls=jsonschema.Draft202012Validator)
    _, samples = read_samples(out)
    slots = Counter((s["side"], s["key"], s["mode"], s["repeat"]) for s in samples)
    assert set(slots.values()) == {1} and len(slots) == 2 * 2 * 5
    again = sample(*common, "--repeats", "5", "--resume", "--format", "json")
    assert again.exit_code == 0 and json.loads(again.stdout)["summary"]["taken_now"] == 0
    cmp = compare_texts(tmp_path, {"k0": ("echo:p0", "echo:p0"), "k1": ("echo:p1", "echo:p1")})
    triaged = run_k3diff(
        "triage", cmp, out / "samples.jsonl", "--format", "json", "-o", tmp_path / "t.json"
    )
    assert triaged.exit_code == 0, triaged.stderr
    record = json.loads((tmp_path / "t.json").read_text())["records"][0]
    assert {m["base"]["n"] for m in record["modes"]} == {5}  # every sample in the log counts
    bundle = run_k3diff(
        "report", cmp, out / "samples.jsonl", tmp_path / "t.json", "--out", tmp_path / "b"
    )
    assert bundle.exit_code == 0, bundle.stderr


def test_a_resume_never_shrinks_nor_changes_another_option(
    fault_server: Any, tmp_path: Path
) -> None:
    common, out = _run(fault_server, tmp_path)
    before = (out / "samples.jsonl").read_bytes()
    fewer = sample(*common, "--repeats", "1", "--resume")
    assert fewer.exit_code == 2 and fewer.stderr.count("\n") == 1
    assert "--repeats 1 is fewer than the logged run's 2" in fewer.stderr
    other = sample(*common, "--repeats", "4", "--param", "temperature=1", "--resume")
    assert other.exit_code == 2 and other.stderr.count("\n") == 1
    # newuser65: the refusal named `params, repeats, request_template`, repeats (which may grow)
    # among them, and neither value: the option changed is named with both.
    assert (
        "differs from the logged one in --param temperature (logged absent, now 1)" in other.stderr
    )
    assert "repeats (" not in other.stderr
    assert "only --repeats may grow" in other.stderr
    assert "another --out" in other.stderr and "--pool-runs" in other.stderr
    assert "'k3diff" not in other.stderr, other.stderr  # a fragment, never a quoted command
    assert (out / "samples.jsonl").read_bytes() == before


def test_a_forged_marker_that_shrinks_the_run_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "samples.jsonl"
    header = {"schema": "k3diff.samples/1", "run": {"repeats": 3, "modes": ["serial"]}}
    marker = {"schema": "k3diff.samples/1", "resumed": "2026-01-01T00:00:00Z", "repeats": 2}
    log.write_text(json.dumps(header) + "\n" + json.dumps(marker) + "\n")
    result = run_k3diff("telemetry", log)
    assert result.exit_code == 2
    assert "samples.jsonl:2: resume marker 'repeats' is 2, not more than the run's 3" in (
        result.stderr
    )
