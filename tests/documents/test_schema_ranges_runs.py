"""`k3diff schema telemetry` and `k3diff schema logs` state the ranges and words `k3diff report`'s
readers hold those documents to (k3diff/fields.py `Within`, `among`), as the triage schema does
(test_schema_ranges.py): a p-value from 0 to 1, `alpha` strictly between 0 and 1, a count of at
least 0, a draft position of at least 1, a count written only where there is one (a gate's
units, a KV side's invalid requests) at least 1, a side and severity among the words written. A pipeline validating a document by the schema took one the reader refuses (a
p-value of 1.5, a count of -1) as valid; and the readers took a gate finding at position 0 or
a gate of 0 resamples, which the schema (and the writer) has no use for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_support import run_k3diff, run_telemetry
from server_support import loopback_script
from telemetry.test_acceptance_gate import BASE_RATES, BROKEN_RATES, FAKE, _sample

Path_ = tuple[str | int, ...]

KV = {"side": "base", "requests": 2, "reused_blocks": 3, "missed_blocks": 1, "hits": 1}
"""A side's `kv_reuse` as TensorRT-LLM's gives it, put into a vLLM run's document to edit."""

TELEMETRY: list[tuple[Path_, Any]] = [
    (("alpha",), 0),
    (("alpha",), 1),
    (("expected", 1), "draft-lengths=1-4"),
    (("modes", 0, "samples"), -1),
    (("modes", 1, "cache_hits"), -1),
    (("modes", 0, "spec_drafted"), -2),
    (("modes", 0, "side"), "control"),
    (("modes", 1, "mode"), "batched"),
    (("modes", 0, "cold_unread"), 0),
    (("speculation", 1, "drafted"), -1),
    (("speculation", 0, "drafted"), 2**53),  # review80d: past it, scipy's internal error
    (("positions", 1, "drafts"), 2**53),
    (("positions", 0, "position"), 0),
    (("position_tests", 0, "p"), 1.5),
    (("position_tests", 1, "p_adjusted"), -0.5),
    (("draft_lengths",), 0),
    (("verdict", "exit_code"), -1),
    (("acceptance_gate", "exact_splits"), 0),
    (("acceptance_gate", "resamples"), 0),
    (("acceptance_gate", "block"), 1),
    (("acceptance_gate", "tests", 0, "p"), -0.1),
    (("acceptance_gate", "tests", 1, "p_min"), 2),
    (("acceptance_gate", "tests", 2, "units", "patch"), 0),
    (("acceptance_gate", "findings", 1, "position"), 0),
    (("acceptance_units", 0, "requests"), -1),
    (("acceptance_units", 1, "tokens", 0, 1), -3),
    (("acceptance_units", 1, "tokens", 2, 0), 2**53),
    (("kv_reuse", 0, "hits"), -1),
    (("kv_reuse", 0, "invalid"), 0),
    (("kv_reuse", 0, "unread_cold"), 0),
]

LOGS: list[tuple[Path_, Any]] = [
    (("base", "lines"), -1),
    (("summary", "new_on_patch"), -1),
    (("summary", "gone_on_patch"), -2),
    (("findings", 0, "count"), -1),
    (("findings", 0, "side"), "both"),
    (("findings", 0, "severity"), "fatal"),
    (("findings", 0, "examples", 0, "line"), -1),
    (("verdict", "exit_code"), -1),
]


def _telemetry(tmp_path: Path) -> dict[str, Any]:
    """newuser59's broken drafter against two fake vLLM servers, the gate asked for: modes,
    speculation, positions and their tests, a gate with a drop found, its units."""
    with (
        loopback_script(FAKE, BASE_RATES, "1") as base,
        loopback_script(FAKE, BROKEN_RATES, "2") as patch,
    ):
        log = _sample(tmp_path, (base, patch), repeats=10)
    code, document, _ = run_telemetry(
        log, "--fail-on", "acceptance-drop", "--expect", "speculation",
        "--expect", "draft-lengths=1-4",
    )  # fmt: skip
    assert code == 1
    assert [f["position"] for f in document["acceptance_gate"]["findings"]][:2] == [None, 3]
    document["kv_reuse"] = [dict(KV)]
    return document


def _logs(tmp_path: Path) -> dict[str, Any]:
    """A CUDA error new on the patch: one finding, with its example's line."""
    (tmp_path / "base.log").write_text("INFO engine started\n")
    (tmp_path / "patch.log").write_text("INFO engine started\nCUDA error: illegal address\n")
    made = run_k3diff("logs", "base.log", "patch.log", "--format", "json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    document: dict[str, Any] = json.loads(made.stdout)
    assert document["findings"][0]["examples"][0]["line"] == 2
    return document


def _named(path: Path_) -> str:
    """The field a reader's refusal names (`acceptance_gate.tests[2].units.patch`); a unit's
    count is named by its list (`acceptance_units[1].tokens`)."""
    if path[0] == "acceptance_units" and path[2] == "tokens":
        path = path[:3]
    named = ""
    for key in path:
        named += f"[{key}]" if isinstance(key, int) else f".{key}" if named else key
    return named


def _edited_is_refused_by_both(
    tmp_path: Path, kind: str, document: dict[str, Any], path: Path_, value: Any
) -> None:
    printed = run_k3diff("schema", kind, cwd=tmp_path)
    assert printed.exit_code == 0, printed.stderr
    schema = jsonschema.Draft202012Validator(json.loads(printed.stdout))
    assert list(schema.iter_errors(document)) == []
    *outer, last = path
    target: Any = document
    for key in outer:
        target = target[key]
    target[last] = value
    (tmp_path / "t.json").write_text(json.dumps(document))

    result = run_k3diff("report", "t.json", "--out", "bundle", cwd=tmp_path)

    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith(f"k3diff: error: t.json: field '{_named(path)}' must ")
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert [list(e.absolute_path) for e in schema.iter_errors(document)] == [list(path)]


@pytest.mark.parametrize(("path", "value"), TELEMETRY, ids=str)
def test_a_telemetry_value_report_refuses_is_invalid_under_the_schema(
    tmp_path: Path, path: Path_, value: Any
) -> None:
    _edited_is_refused_by_both(tmp_path, "telemetry", _telemetry(tmp_path), path, value)


@pytest.mark.parametrize(("path", "value"), LOGS, ids=str)
def test_a_logs_value_report_refuses_is_invalid_under_the_schema(
    tmp_path: Path, path: Path_, value: Any
) -> None:
    _edited_is_refused_by_both(tmp_path, "logs", _logs(tmp_path), path, value)


def test_a_restart_written_at_line_0_is_read_as_written(tmp_path: Path) -> None:
    """`logs` writes a restart (a server that announced its start twice in one file) at line 0,
    the file as a whole: `report` refused its own document (`'findings[0].examples[0].line'
    must be an integer of at least 1, not 0`, exit 2) rather than fail it on the restart."""
    started = "INFO:     Application startup complete.\n"
    (tmp_path / "base.log").write_text(started)
    (tmp_path / "patch.log").write_text(started + "INFO request\n" + started)
    made = run_k3diff(
        "logs", "base.log", "patch.log", "--format", "json", "-o", "l.json", cwd=tmp_path
    )
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "l.json").read_text())
    [restart] = [f for f in document["findings"] if f["rule"] == "restart"]
    assert restart["examples"][0]["line"] == 0
    printed = run_k3diff("schema", "logs", cwd=tmp_path)
    assert (
        list(jsonschema.Draft202012Validator(json.loads(printed.stdout)).iter_errors(document))
        == []
    )

    result = run_k3diff("report", "l.json", "--out", "bundle", cwd=tmp_path)

    assert result.exit_code == 1, result.stderr
    assert "restart" in (tmp_path / "bundle" / "REPORT.md").read_text()
