"""Helpers for `k3diff sample` tests."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff
from triage.helpers import compare_texts

from .conftest import FaultServer


def sample(*args: str | Path) -> CliResult:
    """Run `k3diff sample ARGS`."""
    return run_k3diff("sample", *args)


def flat(text: str) -> str:
    """Text output on one line: the summary's clauses and wrapped lines joined again (the text
    headline is one clause a line, wrapped at 100 columns; joined, it is the one-line form the
    Markdown keeps)."""
    return " ".join(text.split())


def headline(stdout: str) -> str:
    """The text summary's headline (after the table, before its `result:` line), on one
    line."""
    return flat(without_result(stdout.split("\n\n")[-1]))


def without_result(text: str) -> str:
    """`text` less the summary's last line, `result: ... (exit N)`, where it ends with it."""
    lines = text.rstrip("\n").splitlines()
    return "\n".join(lines[:-1]) if lines and lines[-1].startswith("result: ") else text


def inference(server: FaultServer) -> list[dict[str, Any]]:
    """The completion requests (`/v1/...`) in the fault server's own log."""
    return [r for r in server.requests() if r["path"].startswith("/v1/") and r["status"] != "x"]


def write_prompts(path: Path, records: list[dict[str, Any]]) -> Path:
    """A requests JSONL file."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def sample_fault_pair(
    fault_server: Any,
    tmp_path: Path,
    faults: tuple[Any, Any],
    repeats: int,
    *flags: str,
    mode: str = "serial",
    sample_flags: tuple[str, ...] = (),
) -> Path:
    """`k3diff sample` of one prompt against two fault servers started with `flags`, each told
    its own fault (an A/B request field: what it reports for the same prompt), with
    `sample_flags` (`--stream`); the run's folder."""
    base, patch = fault_server(*flags), fault_server(*flags)
    out = tmp_path / "out"
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts,
        "--base-param", f"fault={json.dumps(faults[0])}",
        "--patch-param", f"fault={json.dumps(faults[1])}",
        "--repeats", str(repeats), "--mode", mode, "--out", out, *sample_flags,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out


def read_samples(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header's run object and the sample lines of OUT/samples.jsonl."""
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    return lines[0]["run"], [line for line in lines[1:] if "schema" not in line]


def triage_samples(
    tmp_path: Path, out: Path, *args: str, texts: tuple[str, str] = ("echo:p0", "echo:p0")
) -> tuple[int, Any]:
    """`k3diff triage` of OUT/samples.jsonl against captures of record k0 (prompt p0) whose base
    and patch texts are `texts` (written to TMP_PATH/cmp.json): its exit code and JSON."""
    comparison = compare_texts(tmp_path, {"k0": texts})
    result = run_k3diff(
        "triage", str(comparison), str(out / "samples.jsonl"), "--format", "json", *args
    )
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def report_exit(tmp_path: Path, out: Path) -> int:
    """`report`'s exit code for TMP_PATH/cmp.json, the log and their triage (run again inside)."""
    triaged = run_k3diff(
        "triage", "cmp.json", str(out / "samples.jsonl"), "--format", "json", "-o",
        "triage.json", cwd=tmp_path,
    )  # fmt: skip
    assert triaged.exit_code in (0, 1), triaged.stderr
    bundle = run_k3diff(
        "report", "cmp.json", str(out / "samples.jsonl"), "triage.json", "--out", "bundle",
        cwd=tmp_path,
    )  # fmt: skip
    return bundle.exit_code


def resumes(*args: str | Path, program: str = "k3diff") -> str:
    """How a resumable stop of `PROGRAM sample ARGS` ends its line: '(--resume continues:
    k3diff sample ARGS --resume)', the run's own command to paste (more80)."""
    return f"(--resume continues: {program} sample {shlex.join(map(str, args))} --resume)"
