"""One server is an A/B of request fields only where some record's two sides were sent
different fields, the prompts' own merged with each side's (`k3diff.sample.sidefields`).
sides74: the header alone decided, so `--patch-param temperature=0` over prompts that send
`"temperature": 0` exempted a run of one server against itself, and triage passed it, exit 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from k3diff.sample.reader import read_samples_log

from .support import sample, write_prompts


@pytest.mark.parametrize(
    ("sent", "one_server"),
    [(0, True), (0.0, True), (1, False)],
    ids=["prompts-send-the-same", "the-same-number", "prompts-send-another"],
)
def test_a_patch_field_the_prompts_already_send_leaves_one_server(
    fault_server: Any, tmp_path: Path, sent: float, one_server: bool
) -> None:
    url = fault_server().url
    prompt = {"key": "s", "prompt": "s", "model": "m", "temperature": sent}
    prompts = write_prompts(tmp_path / "p.jsonl", [{**prompt, "fault": {"output": "seeded"}}])
    result = sample(
        "--base", url, "--patch", url, "--prompts", prompts, "--repeats", "2",
        "--patch-param", "temperature=0", "--out", tmp_path / "out",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    noted = "the same server" in result.stderr
    assert noted is one_server, result.stderr
    header = read_samples_log(tmp_path / "out" / "samples.jsonl").header
    assert (header.same_server is not None) is one_server  # what triage and the bundle hold
