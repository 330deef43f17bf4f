"""A run that stops part-way says how in its log (`k3diff.sample.stopline`): one last line
with the reason, whether `--resume` can get past it, and the stderr line's cause. Triage's
`next:` line and the bundle's next step read it: a server that does not stream, or refuses
every request (404), gets what to change, not a `--resume` that stops the same way (before,
both suggested `k3diff sample --stream ... --resume`); a stop that a later resume took up
again is history."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import jsonschema
from cli_support import run_k3diff

from k3diff.documents.catalog import load_schema

from .support import read_samples, sample, write_prompts


def _lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def _next_steps(tmp_path: Path, out: Path, patch_text: str = "other") -> tuple[str, str]:
    """Triage's `next:` line and the bundle's next step for the run in OUT, against captures
    of k0 whose patch text is `patch_text` (the base's: the server's `echo:p0`)."""
    comparison = _comparison(tmp_path, patch_text)
    log = out / "samples.jsonl"
    text = run_k3diff("triage", comparison, log)
    assert text.exit_code == 1, text.stderr
    (line,) = [x for x in text.stdout.splitlines() if x.startswith("next: ")]
    triage = tmp_path / "triage.json"
    written = run_k3diff("triage", comparison, log, "--format", "json", "-o", triage)
    assert written.exit_code == 1, written.stderr
    bundle = run_k3diff("report", comparison, log, triage, "--out", tmp_path / "bundle")
    assert bundle.exit_code == 1, bundle.stderr
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    (step,) = [s["step"] for s in summary["next_steps"] if s["source"].endswith("triage.json")]
    return line, step


def _comparison(tmp_path: Path, patch_text: str) -> Path:
    from triage.helpers import compare_texts

    return compare_texts(tmp_path, {"k0": ("echo:p0", patch_text)})


def _pair(
    servers: tuple[Any, Any], tmp_path: Path, patch_fault: dict[str, Any] | None, *args: str
) -> Any:
    """`k3diff sample` of k0 against the two fault servers, the patch's told `patch_fault` (a
    field the base is not sent: triage holds the record for samples of another condition, and
    its next step names no `--resume`; None: none, the server's own `--faults` fail it)."""
    base, patch = servers
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    told = () if patch_fault is None else ("--patch-param", f"fault={json.dumps(patch_fault)}")
    return sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "3",
        *told, "--out", tmp_path / "out", *args,
    )  # fmt: skip


def test_a_server_that_does_not_stream_gets_what_to_change_not_a_resume(
    fault_server: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    servers = fault_server(), fault_server()
    result = _pair(servers, tmp_path, {"unstreamed": "application/json"}, "--stream")
    assert result.exit_code == 2, result.stdout
    # One line, after the note that the patch is sent its own `fault` field.
    [said] = [line for line in result.stderr.splitlines() if not line.startswith("k3diff: note")]
    *_, stop = _lines(out)
    assert stop["schema"] == "k3diff.samples/1"
    assert (stop["reason"], stop["resumable"], stop["side"]) == ("not-streamed", False, "patch")
    assert said.startswith(f"k3diff: error: {stop['message']}; stopped, 1 sample kept in ")
    assert "the server does not stream" in stop["message"]
    assert not list(jsonschema.Draft202012Validator(load_schema("samples")).iter_errors(stop))

    line, step = _next_steps(tmp_path, out)
    for said_next in (line, step):
        assert "cannot be taken by resuming this run: the patch server does not stream (" in (
            said_next
        )
        assert "sample without --stream, or point --patch at a server that streams" in said_next
        assert "grow the run" not in said_next and "--resume --repeats" not in said_next

    # --resume meets it again: a second stop line, the last one read.
    again = _pair(servers, tmp_path, {"unstreamed": "application/json"}, "--stream", "--resume")
    assert again.exit_code == 2
    lines = _lines(out)
    assert [x.get("reason") for x in lines if "stopped" in x] == ["not-streamed"] * 2
    assert "resumed" in lines[-2] and "stopped" in lines[-1]


def test_a_404_stops_without_a_resume_step_until_a_resume_takes_the_run_up_again(
    fault_server: Any, tmp_path: Path
) -> None:
    """The patch answers 404 once (a model not loaded yet): the run stops, and the next step
    says the server refused; once a resume got past it, the stop is history and the run grows."""
    out = tmp_path / "out"
    # The patch server's own fault: sides sent alike, so more samples of the run decide k0.
    servers = fault_server(), fault_server("--faults", '{"p0": {"status": 404, "times": 1}}')
    result = _pair(servers, tmp_path, None)
    assert result.exit_code == 2, result.stdout
    *_, stop = _lines(out)
    assert (stop["reason"], stop["resumable"], stop["side"]) == ("refused", False, "patch")
    line, step = _next_steps(tmp_path, out)
    for said_next in (line, step):
        assert "the patch server refused a request as it refuses every one (" in said_next
        assert "answered HTTP 404" in said_next and "grow the run" not in said_next

    resumed = _pair(servers, tmp_path, None, "--resume")
    assert resumed.exit_code in (0, 1), resumed.stderr
    lines = _lines(out)
    assert sum("stopped" in x for x in lines) == 1 and "stopped" not in lines[-1]
    assert len(read_samples(out)[1]) == 6
    line, step = _next_steps(tmp_path, out)
    assert "grow the run" in line and "--resume --repeats" in line


def test_a_stop_resume_gets_past_keeps_its_resume_step(fault_server: Any, tmp_path: Path) -> None:
    """A cache flush that failed (resumable): the stop line says so, and the next step still
    grows the run with --resume."""
    out = tmp_path / "out"
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        flush = f"http://127.0.0.1:{closed.getsockname()[1]}/flush"
    servers = fault_server(), fault_server()
    result = _pair(servers, tmp_path, {}, "--flush-url", flush, "--retries", "0")
    assert result.exit_code == 2, result.stdout
    *_, stop = _lines(out)
    assert (stop["reason"], stop["resumable"]) == ("flush-failed", True) and "side" not in stop
    assert result.stderr.rstrip().endswith(" --flush-url " + flush + " --retries 0 --resume)")
    line, step = _next_steps(tmp_path, out)
    assert "grow the run" in line and "--resume --repeats" in line
    assert "--resume --repeats" in step
