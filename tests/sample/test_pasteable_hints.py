"""Commands k3diff names in its messages are either paste-able as printed or plainly fragments
(newuser61: `size a run with '… triage --plan …'`, pasted with its quotes, was one word to the
shell; `'k3diff sample --resume' with the run's options` and `'k3diff sample --metrics-url'`
read as commands but are not whole). None is a quoted `'k3diff …'`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .support import flat, sample, write_prompts


def _log(fault_server: Any, tmp_path: Path) -> Path:
    url = fault_server().url
    file = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a", "temperature": 0}])
    run = sample("--base", url, "--patch", url, "--prompts", file, "--repeats", "1",
                 "--out", tmp_path / "out")  # fmt: skip
    assert run.exit_code == 0, run.stderr
    return tmp_path / "out" / "samples.jsonl"


def test_no_message_quotes_a_k3diff_command(fault_server: Any, tmp_path: Path) -> None:
    log = _log(fault_server, tmp_path)
    audit = tmp_path / "audit.json"
    audit.write_text(run_k3diff("audit", tmp_path / "p.jsonl", "--format", "json").stdout)
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(log.read_bytes() + b'{"key": "a", "si')
    copy = tmp_path / "copy.jsonl"  # one file given as both sides is refused first (hunt72b)
    copy.write_bytes(log.read_bytes())
    said = []
    for args in (
        ("triage", audit, log),  # another document given as the comparison
        ("responses", log, copy),  # a samples log given as captures
        ("telemetry", torn),  # a torn last line
    ):
        result = run_k3diff(*args)
        assert result.exit_code == 2, (args, result.stdout, result.stderr)
        said.append(flat(result.stderr))
    assert "k3diff responses BASE PATCH --format json" in said[0], said[0]
    assert "k3diff triage COMPARISON SAMPLES" in said[1], said[1]
    assert "--resume" in said[2], said[2]
    for text in said:
        assert "'k3diff" not in text, text
