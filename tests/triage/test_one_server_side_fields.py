"""A run of one server given `--base-param`/`--patch-param` is an A/B of those request fields,
not one server against itself, only where the fields it gives one side differ from what the
other side is sent (`k3diff.sample.sidefields.sides_differ`). review74d: any side field at all
exempted the run, so `--patch-param temperature=0` under `--param temperature=0`, or
`--patch-param cache_salt=x`, sampled one URL as both sides and triage and the bundle passed
it (exit 0), its one server unsaid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .test_same_server import SAME, _same_server_log


def _given(tmp_path: Path, patch: dict[str, Any]) -> None:
    """The log of one server whose command gave the patch `patch` (`--patch-param`)."""
    _same_server_log(tmp_path)
    log = tmp_path / "run" / "samples.jsonl"
    header, *rest = log.read_text().splitlines()
    parsed = json.loads(header)
    parsed["run"]["side_params"] = {"base": {}, "patch": patch}
    for name, value in patch.items():
        parsed["run"]["command"] += ["--patch-param", f"{name}={value}"]
    log.write_text("\n".join([json.dumps(parsed), *rest]) + "\n")


@pytest.mark.parametrize(
    "patch",
    [{"temperature": 0}, {"temperature": 0.0}, {"cache_salt": "x"}],
    ids=["repeats-the-shared-value", "the-same-number", "only-the-cache-salt"],
)
def test_side_fields_that_change_nothing_leave_one_server_held(
    tmp_path: Path, patch: dict[str, Any]
) -> None:
    """Failed on main at 14176c42: triage exit 0, the bundle exit 0."""
    _given(tmp_path, patch)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith(
        f"result: SAME SERVER: base and patch were sampled from one server ({SAME}, both "
        "loopback port 1, in run/samples.jsonl)"
    ), result.stdout
    bundle = run_k3diff("report", "cmp.json", "run/samples.jsonl", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 0, bundle.stderr  # no triage: the bundle says it, holds nothing
    assert (
        f"the same server ({SAME}, both loopback port 1)"
        in (tmp_path / "b" / "REPORT.md").read_text()
    )


@pytest.mark.parametrize(
    "patch",
    [{"temperature": 1}, {"top_k": 5}, {"model": "adapter"}],
    ids=["another-temperature", "a-field-the-base-is-not-sent", "another-model"],
)
def test_side_fields_that_differ_are_an_a_b_of_them(tmp_path: Path, patch: dict[str, Any]) -> None:
    """One server's two temperatures, or a LoRA adapter against its base model, is what the
    run compares: not held same-server (as before)."""
    _given(tmp_path, patch)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert "SAME SERVER" not in result.stdout, result.stdout
    assert "same server" not in result.stdout
