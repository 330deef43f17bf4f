"""A `--metrics-url SIDE=URL`'s user:password is kept out of what `sample` writes and says, as a
server URL's is (review80a: written as `base=http://user:pw@host/metrics`, the value was no URL
to the redaction, so the log header's recorded command kept the password, and a resumable
stop's resume command printed it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from k3diff.sample.options import redacted_command

from .support import sample, write_prompts


def test_a_metrics_urls_password_is_not_written(fault_server: Any, tmp_path: Path) -> None:
    server = fault_server("--metrics", "vllm")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    metrics = server.url.replace("://", "://user:s3cret@") + "/metrics"
    for given in (("--metrics-url", f"base={metrics}"), (f"--metrics-url=base={metrics}",)):
        out = tmp_path / str(len(given))
        taken = sample(
            "--base", server.url, "--prompts", prompts, "--repeats", "1", *given, "--out", out
        )  # fmt: skip
        assert taken.exit_code == 0, taken.stderr
        written = (out / "samples.jsonl").read_text()
        assert "s3cret" not in written + taken.stdout + taken.stderr, written.splitlines()[0]
        assert "user:" not in written, written.splitlines()[0]


def test_the_recorded_command_hides_a_side_urls_password_in_either_spelling() -> None:
    assert redacted_command(
        ["--metrics-url", "patch=http://u:pw@h:1/m", "--metrics-url=base=https://a:b@h/m"]
    ) == (
        "k3diff",
        "--metrics-url",
        "patch=http://***@h:1/m",
        "--metrics-url=base=https://***@h/m",
    )
