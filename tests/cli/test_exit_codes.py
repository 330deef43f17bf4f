"""Every command takes its exit code from its result, never from what a renderer wrote.

For each command: the library's result for failing inputs says 1 (`exit_code`) and for passing
inputs 0; and the CLI run on the failing inputs exits 1 even with the command's renderer, and
the verdict line `-o` repeats, replaced by ones that claim success. A renderer that is changed,
or forged by an input, can never turn a failing run into a pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
import scripted_server
import wheelkit
from cli_support import run_k3diff
from triage.helpers import compare_texts, side, write_samples

import k3diff.cli
from k3diff.audit import AuditOptions, audit
from k3diff.bundle import build_bundle
from k3diff.exitcodes import ExitCode
from k3diff.logs import LogsOptions, scan_logs
from k3diff.responses import CompareOptions, compare_streaming
from k3diff.sample.model import RecordStats, SampleResult
from k3diff.telemetry import Expectation, TelemetryOptions, summarize
from k3diff.triage import Correction, Settings, triage
from k3diff.wheels.compare import compare_wheels
from k3diff.wheels.releaseset import Side, compare_release_sets, scan_directory

CLAIM = "Verdict: OK (exit 0): all fine"
"""What a replaced renderer says."""

FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/_C.so": wheelkit.elf_bytes(b"\x90" * 64),
}


def _claims_success(monkeypatch: pytest.MonkeyPatch, module: Any, *names: str) -> None:
    """Replace `module`'s renderers and verdict-line functions with ones that claim success
    (the renderer's own module where the command imports it when run)."""
    for name in names:
        monkeypatch.setattr(module, name, lambda *args, **kwargs: CLAIM)


def _failing_cli(tmp_path: Path, *args: str | Path) -> None:
    """The CLI run exits 1 on stdout and with `-o` (whose stderr line may repeat the claim)."""
    shown = run_k3diff(*args)
    assert shown.exit_code == 1, shown.stderr
    assert CLAIM in shown.stdout  # the replaced renderer was the one used
    written = run_k3diff(*args, "-o", tmp_path / "report.out")
    assert written.exit_code == 1, written.stderr


def _wheel_pair(tmp_path: Path, changed: bool) -> tuple[Path, Path]:
    patch_files = dict(FILES, **{"engine/_C.so": wheelkit.elf_bytes(b"\xcc" * 64)})
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "engine", "1.0", patch_files if changed else FILES
    )
    return base, patch


# wheels and release sets --------------------------------------------------------------------


def test_wheels_a_changed_native_entry_exits_1_whatever_the_renderer_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert compare_wheels(*_wheel_pair(tmp_path / "same", False)).exit_code == ExitCode.OK
    base, patch = _wheel_pair(tmp_path, True)
    assert compare_wheels(base, patch).exit_code == ExitCode.FINDINGS
    import k3diff.report.wheels

    _claims_success(monkeypatch, k3diff.report.wheels, "render", "verdict_text")
    _failing_cli(tmp_path, "wheels", base, patch)


def test_release_set_a_failing_pair_exits_1_whatever_the_renderer_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    same = _wheel_pair(tmp_path / "same", False)
    passing = compare_release_sets(
        scan_directory(same[0].parent, Side.BASE), scan_directory(same[1].parent, Side.PATCH)
    )
    assert passing.exit_code == ExitCode.OK
    base, patch = _wheel_pair(tmp_path, True)
    sides = scan_directory(base.parent, Side.BASE), scan_directory(patch.parent, Side.PATCH)
    assert compare_release_sets(*sides).exit_code == ExitCode.FINDINGS
    import k3diff.report.wheelset

    monkeypatch.setattr(k3diff.report.wheelset, "render_chunks", lambda *a, **k: iter([CLAIM]))
    _claims_success(monkeypatch, k3diff.report.wheelset, "verdict_text")
    _failing_cli(tmp_path, "wheels", base.parent, patch.parent)


# responses ----------------------------------------------------------------------------------


def _captures(tmp_path: Path, patch_text: str) -> tuple[Path, Path]:
    base, patch = tmp_path / "base.jsonl", tmp_path / "patch.jsonl"
    base.write_text('{"id": "a", "text": "hello"}\n')
    patch.write_text(json.dumps({"id": "a", "text": patch_text}) + "\n")
    return base, patch


def test_responses_a_differing_record_exits_1_whatever_the_renderer_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "same").mkdir()
    same = _captures(tmp_path / "same", "hello")
    ignore = lambda record: None  # noqa: E731
    assert compare_streaming(*same, CompareOptions(), ignore).exit_code == ExitCode.OK
    base, patch = _captures(tmp_path, "hello!")
    assert compare_streaming(base, patch, CompareOptions(), ignore).exit_code == ExitCode.FINDINGS
    import k3diff.cli.responses_cmd
    from k3diff.report.responses import StreamedReport

    monkeypatch.setattr(StreamedReport, "chunks", lambda self, overview: iter([CLAIM + "\n"]))
    _claims_success(monkeypatch, k3diff.cli.responses_cmd, "verdict_text")
    _failing_cli(tmp_path, "responses", base, patch)


# sample -------------------------------------------------------------------------------------


def _sample_result(**changes: Any) -> SampleResult:
    fields: dict[str, Any] = {
        "out": Path("out"),
        "records": (RecordStats("q", "base", "serial", 2, 0, 1, 1.0),),
        "planned": 2,
        "taken": 2,
        "failed": 0,
        "taken_now": 2,
        "torn_line_dropped": False,
        "perf_metrics": 0,
    }
    return SampleResult(**{**fields, **changes})


def test_sample_result_fails_on_a_failed_or_missing_sample_or_a_vacuous_control() -> None:
    assert _sample_result().exit_code == ExitCode.OK
    assert _sample_result(failed=1).exit_code == ExitCode.FINDINGS
    assert _sample_result(taken=1).exit_code == ExitCode.FINDINGS
    assert _sample_result(vacuous=("base",)).exit_code == ExitCode.FINDINGS


def test_sample_a_vacuous_control_exits_1_whatever_the_renderer_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The scripted patch engine answers every prompt the same way: its control is vacuous.
    server = scripted_server.start("patch", tmp_path / "server")
    try:
        prompts = tmp_path / "p.jsonl"
        prompts.write_text('{"key": "a", "prompt": "a"}\n')
        import k3diff.report.sample

        _claims_success(monkeypatch, k3diff.report.sample, "render")
        args = ("sample", "--base", server.url, "--prompts", prompts, "--repeats", "1")
        shown = run_k3diff(*args, "--control", "seeds", "--out", tmp_path / "one")
        assert shown.exit_code == 1, shown.stderr
        assert CLAIM in shown.stdout
        written = run_k3diff(
            *args, "--control", "seeds", "--out", tmp_path / "two", "-o", tmp_path / "s.txt"
        )
        assert written.exit_code == 1, written.stderr
        assert f"report written to {tmp_path / 's.txt'}; FAIL (exit 1)" in written.stderr
    finally:
        scripted_server.stop(server.pid)


# triage -------------------------------------------------------------------------------------

SETTINGS = Settings(alpha=0.05, bound=0.05, near_tie=0.1, correction=Correction.HOLM)


def _triage_inputs(tmp_path: Path, key: str, patch_text: str) -> tuple[Path, Path]:
    comparison = compare_texts(tmp_path, {key: ("A", patch_text)})
    texts = [*side(key, "base", ["A"] * 60), *side(key, "patch", [patch_text] * 60)]
    return comparison, write_samples(tmp_path / "run" / "samples.jsonl", texts)


def test_triage_a_deterministic_divergence_exits_1_whatever_the_renderer_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "same").mkdir()
    same = _triage_inputs(tmp_path / "same", "q", "A")
    assert triage(same[0], (same[1],), SETTINGS).exit_code == ExitCode.OK
    comparison, samples = _triage_inputs(tmp_path, "q", "B")
    result = triage(comparison, (samples,), SETTINGS)
    assert result.regression_candidates == 1 and result.exit_code == ExitCode.FINDINGS
    import k3diff.report.triage

    _claims_success(monkeypatch, k3diff.report.triage, "render", "verdict_text")
    _failing_cli(tmp_path, "triage", comparison, samples)


def test_the_verdict_after_o_is_the_results_not_a_forged_last_line(tmp_path: Path) -> None:
    # The Markdown triage ends with its table: a key saying "(exit 0)" is its last line.
    comparison, samples = _triage_inputs(tmp_path, "q (exit 0)", "B")
    out = tmp_path / "triage.md"
    result = run_k3diff("triage", comparison, samples, "--format", "markdown", "-o", out)
    assert result.exit_code == 1, result.stderr
    assert out.read_text().rstrip().splitlines()[-1].startswith("| q (exit 0)")
    assert result.stderr.splitlines() == [
        f"k3diff: report written to {out}; result: 1 regression candidate (exit 1)"
    ]


# audit --------------------------------------------------------------------------------------


def test_audit_a_record_mismatch_exits_1_whatever_the_renderer_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sound = wheelkit.make_wheel(tmp_path / "sound", "engine", "1.0", FILES)
    assert audit((sound,), AuditOptions()).exit_code == ExitCode.OK
    lying = {"engine/__init__.py": f"engine/__init__.py,{wheelkit.record_hash(b'other')},5"}
    wheel = wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES, record_overrides=lying)
    assert audit((wheel,), AuditOptions()).exit_code == ExitCode.FINDINGS
    import k3diff.report.audit

    _claims_success(monkeypatch, k3diff.report.audit, "render", "verdict_text")
    _failing_cli(tmp_path, "audit", wheel)


# logs ---------------------------------------------------------------------------------------

CRASH = "ERROR 05-12 10:00:05 [core.py:1] RuntimeError: CUDA error: an illegal memory access\n"


def test_logs_a_new_error_on_the_patch_exits_1_whatever_the_renderer_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, patch = tmp_path / "base.log", tmp_path / "patch.log"
    base.write_text("INFO 05-12 10:00:00 [api.py:1] server started\n")
    patch.write_text(base.read_text() + CRASH)
    copy = tmp_path / "copy.log"  # one file as both sides is refused (review64)
    copy.write_text(base.read_text())
    assert scan_logs((base,), (copy,), LogsOptions()).exit_code == ExitCode.OK
    assert scan_logs((base,), (patch,), LogsOptions()).exit_code == ExitCode.FINDINGS
    import k3diff.cli.logs_cmd

    _claims_success(monkeypatch, k3diff.cli.logs_cmd, "render", "verdict_line")
    _failing_cli(tmp_path, "logs", base, patch)


# telemetry ----------------------------------------------------------------------------------


def test_telemetry_an_axis_not_exercised_exits_1_whatever_the_renderer_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = write_samples(tmp_path / "run" / "samples.jsonl", side("q", "base", ["A", "A"]))
    assert summarize((log,), TelemetryOptions()).exit_code == ExitCode.OK
    expect = TelemetryOptions(expect=(Expectation.CACHE_REUSE,))
    assert summarize((log,), expect).exit_code == ExitCode.FINDINGS
    import k3diff.cli.telemetry_cmd

    _claims_success(monkeypatch, k3diff.cli.telemetry_cmd, "render", "verdict_line")
    _failing_cli(tmp_path, "telemetry", log, "--expect", "cache-reuse")


# report (the evidence bundle) ---------------------------------------------------------------


def test_report_a_failing_document_exits_1_whatever_the_bundle_pages_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, changed in (("same", False), ("changed", True)):
        base, patch = _wheel_pair(tmp_path / name, changed)
        shown = run_k3diff("wheels", base, patch, "--format", "json")
        (tmp_path / f"{name}.json").write_text(shown.stdout)
    passing = build_bundle([tmp_path / "same.json"], tmp_path / "ok", "t")
    assert passing.exit_code == ExitCode.OK
    failing = build_bundle([tmp_path / "changed.json"], tmp_path / "fail", "t")
    assert failing.exit_code == ExitCode.FINDINGS
    import k3diff.bundle.write

    _claims_success(monkeypatch, k3diff.bundle.write, "render_markdown", "render_html")
    result = run_k3diff("report", tmp_path / "changed.json", "--out", tmp_path / "bundle")
    assert result.exit_code == 1, result.stderr
    assert (tmp_path / "bundle" / "REPORT.md").read_text() == CLAIM
    assert "; FAIL (exit 1)" in result.stderr.rstrip().splitlines()[-1]


@click.command("forgetful")
def _forgetful() -> None:
    """Does its work and forgets to return the exit code."""


def test_a_command_that_returns_no_exit_code_never_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(k3diff.cli.COMMANDS, "forgetful", (__name__, "_forgetful"))
    with pytest.raises(TypeError, match="not its exit code"):
        k3diff.cli.main(["forgetful"])


@pytest.mark.parametrize(
    ("command", "option"),
    [
        ("triage", "--alpha"),
        ("triage", "--bound"),
        ("triage", "--near-tie"),
        ("telemetry", "--alpha"),
        ("responses", "--score-alpha"),
        ("responses", "--logprob-tol"),
        ("responses", "--near-tie"),
        ("sample", "--timeout"),
        ("triage", "--shift"),
        ("logs", "--max-seconds"),
    ],
)
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf"])
def test_a_non_finite_number_is_a_usage_error(command: str, option: str, value: str) -> None:
    """NaN passes every range check (each comparison is false): `--alpha nan` was a
    traceback in triage and a silent 'nothing significant' in telemetry and responses."""
    result = run_k3diff(command, f"{option}={value}", "missing-a", "missing-b")
    assert result.exit_code == 2
    assert f"Invalid value for '{option}'" in result.stderr and "Traceback" not in result.stderr
