"""A side that never answered a record is no pass (triage69).

Two fault servers on loopback are sampled by `k3diff sample`, the patch (or the base) failing
every request of one prompt (HTTP 500, or the connection closed). The captures of that record
match, so `unsampled` (captures that differ) did not hold it: before, it was an `inconclusive`
that passed with exit 0 unless `--fail-inconclusive`, though that server proved nothing. It is
held `unanswered` and fails the run (exit 1: triage read its inputs and judged every record,
and the evidence cannot clear this one), and `report` recounts the hold from the numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, run_k3diff

from .helpers import compare_texts

PROMPTS = [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]
FAIL_500 = {"status": 500, "times": -1}


def _run(
    tmp_path: Path, fault_server: Any, *, base: dict[str, Any], patch: dict[str, Any]
) -> CliResult:
    """Sample a and b three times a side, each server failing as its `--faults` says; the log
    keeps every request; returns `k3diff sample`'s result."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    servers = [fault_server("--faults", json.dumps(faults)) for faults in (base, patch)]
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    result = run_k3diff(
        "sample", "--base", servers[0].url, "--patch", servers[1].url, "--prompts", "p.jsonl",
        "--repeats", "3", "--retries", "0", "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    return result


def _triage(tmp_path: Path, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", *args,
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return result, json.loads((tmp_path / "t.json").read_text())


def _record(document: dict[str, Any], key: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in document["records"] if r["key"] == key)
    return found


@pytest.mark.parametrize(
    ("fault", "error"),
    [(FAIL_500, "HTTP 500"), ({"reset": -1}, "connection")],
    ids=["http-500", "connection-closed"],
)
def test_a_patch_that_answered_none_of_a_records_requests_fails(
    tmp_path: Path, fault_server: Any, fault: dict[str, Any], error: str
) -> None:
    """Failed on base69: exit 0, 'it does not fail the run but is not cleared'."""
    sampled = _run(tmp_path, fault_server, base={}, patch={"b": fault})
    assert sampled.exit_code == 1, sampled.stderr  # failed samples are in the log
    lines = (tmp_path / "run" / "samples.jsonl").read_text().splitlines()[1:]
    failed = [json.loads(line) for line in lines if json.loads(line)["error"] is not None]
    assert [(s["side"], s["key"]) for s in failed] == [("patch", "b")] * 3

    result, document = _triage(tmp_path)
    assert result.exit_code == 1
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    record = _record(document, "b")
    assert record["category"] == "inconclusive"
    assert "unanswered" in record["flags"]
    assert record["reason"].startswith(
        "unanswered: every patch request for this record failed (all 3 requests; "
    )
    assert error in record["reason"].split(";")[1]
    assert "so the patch proved nothing" in record["reason"]
    assert document["summary"]["held"] == 1 and document["summary"]["unsampled"] == 0
    assert _record(document, "a")["category"] == "match"

    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert "every patch request failed on b (unanswered)" in text.stdout
    assert "it does not fail the run" not in text.stdout


def test_a_base_that_answered_none_of_a_records_requests_fails(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base69: exit 0."""
    _run(tmp_path, fault_server, base={"b": FAIL_500}, patch={})
    result, document = _triage(tmp_path)
    assert result.exit_code == 1
    record = _record(document, "b")
    assert "unanswered" in record["flags"] and record["category"] == "inconclusive"
    assert record["reason"].startswith("unanswered: every base request for this record failed")


def test_some_failed_requests_leave_the_answered_ones_as_the_sample(
    tmp_path: Path, fault_server: Any
) -> None:
    """The patch's first request for b fails, its other two answer: n is 2 with 1 error, and
    the record is judged on the two (a match, its bound 1 - α^(1/(n - 1)) at n = 2), not held."""
    _run(tmp_path, fault_server, base={}, patch={"b": {"status": 500, "times": 1}})
    result, document = _triage(tmp_path)
    record = _record(document, "b")
    (mode,) = record["modes"]
    assert (mode["patch"]["n"], mode["patch"]["errors"]) == (2, 1)
    assert (mode["base"]["n"], mode["base"]["errors"]) == (3, 0)
    assert mode["patch"]["nonmodal_bound"] == pytest.approx(1 - 0.05 ** (1 / (2 - 1)))
    assert "unanswered" not in record["flags"] and "errors-present" in record["flags"]
    assert record["category"] == "match" and result.exit_code == 0
    assert record["more_samples"] == 60 - 2


def test_report_recounts_the_hold_a_document_drops(tmp_path: Path, fault_server: Any) -> None:
    """A triage document whose unanswered record is made a pass (flag dropped, held 0, ok) is
    refused by `report` read alone: it recounts the hold from the side's numbers."""
    _run(tmp_path, fault_server, base={}, patch={"b": FAIL_500})
    _triage(tmp_path)
    bundle = run_k3diff("report", "t.json", "--out", "b1", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr
    summary = (tmp_path / "b1" / "REPORT.md").read_text()
    assert "a side answered none of the requests (b)" in summary
    document = json.loads((tmp_path / "t.json").read_text())
    record = _record(document, "b")
    record["flags"] = [f for f in record["flags"] if f != "unanswered"]
    document["summary"]["held"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "forged.json", "--out", "b2", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    (line,) = refused.stderr.splitlines()
    assert "forged.json" in line and "unanswered" in line


def test_the_summary_counts_unanswered_records_and_report_recounts_it(
    tmp_path: Path, fault_server: Any
) -> None:
    """left69: the hold had no count of its own (only `held`), as `unsampled` has; now
    `summary.unanswered` counts it, `report` refuses a document whose count its records
    contradict, and reads one written before the count (it recounts the hold from the
    numbers)."""
    _run(tmp_path, fault_server, base={}, patch={"b": FAIL_500})
    _, document = _triage(tmp_path)
    summary = document["summary"]
    assert (summary["unanswered"], summary["held"], summary["unsampled"]) == (1, 1, 0)
    document["summary"]["unanswered"] = 0
    (tmp_path / "forged.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "forged.json", "--out", "b1", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    (line,) = refused.stderr.splitlines()
    assert "forged.json" in line and "summary.unanswered is 0 but its records give 1" in line
    del document["summary"]["unanswered"]
    for field in ("metrics_url_404", "metrics_url_no_gauge", "allow_same_server"):  # after it
        del document[field]
    for run in document["runs"]:
        del run["asked"]  # added after it (triage70)
    (tmp_path / "older.json").write_text(json.dumps(document))
    older = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "older.json", "--out", "b2", cwd=tmp_path
    )
    assert older.exit_code == 1, older.stderr
    assert "a side answered none of the requests (b)" in (tmp_path / "b2" / "REPORT.md").read_text()


def test_a_log_without_a_sides_lines_for_a_record_fails(tmp_path: Path, fault_server: Any) -> None:
    """Failed on a8f1b365: the patch's failed lines for b removed from the log (as `jq
    'select(.error == null)'` does; a run stopped between the sides leaves the same), the log
    held no failed request, and b passed inconclusive, exit 0. A side the log sampled with no
    line for a record whose other side it holds proved nothing: held `unanswered`, exit 1; the
    bundle of that document is judged, not refused."""
    _run(tmp_path, fault_server, base={}, patch={"b": FAIL_500})
    log = (tmp_path / "run" / "samples.jsonl").read_text().splitlines(keepends=True)
    kept = [line for line in log[1:] if json.loads(line)["error"] is None]
    assert len(kept) == len(log) - 1 - 3
    (tmp_path / "run" / "samples.jsonl").write_text(log[0] + "".join(kept))

    result, document = _triage(tmp_path)
    assert result.exit_code == 1
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    record = _record(document, "b")
    assert record["category"] == "inconclusive" and "unanswered" in record["flags"]
    assert record["reason"].startswith(
        "unanswered: the logs hold no patch line for this record, which the run asked (its "
        "lines removed from the log: give the log as sample wrote it, whose lines say why; or "
        "the run killed before them: its sample command with --resume takes them), so the "
        "patch proved nothing"
    )
    assert document["summary"]["held"] == 1
    assert _record(document, "a")["category"] == "match"
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert "no patch line in the logs on b (unanswered)" in text.stdout
    bundle = run_k3diff("report", "t.json", "--out", "b1", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr


def test_a_run_that_sampled_the_base_alone_is_not_held(tmp_path: Path, fault_server: Any) -> None:
    """A log of the base alone (no --patch) holds no patch line for any record: the patch was
    never asked, which `unanswered` does not say of it (nothing held)."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    server = fault_server()
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    sampled = run_k3diff(
        "sample", "--base", server.url, "--prompts", "p.jsonl", "--repeats", "3", "--out", "run",
        cwd=tmp_path,
    )  # fmt: skip
    assert sampled.exit_code == 0, sampled.stderr
    result, document = _triage(tmp_path)
    assert result.exit_code == 0
    assert [("unanswered" in r["flags"], r["category"]) for r in document["records"]] == [
        (False, "inconclusive")
    ] * 2


def test_a_patch_that_answered_none_of_a_records_concurrent_requests_fails(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on a8f1b365: the patch answers b serially and resets every concurrent request of
    it (a server that fails under batching), the base answers all; b passed inconclusive, exit
    0, since the patch had answered in some mode. A side that answered none of a record's
    requests in a mode proved nothing there: held `unanswered`, exit 1, the mode named; and a
    document that drops the hold is refused by `report` read alone."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    delay = {"delay": 0.3}  # answers in flight together, seen by the gauge
    patch_faults = {"a": delay, "b": {**delay, "reset": [0, 0, 0, 1, 1, 1]}}
    servers = [
        fault_server("--metrics", "vllm", "--faults", json.dumps(faults))
        for faults in ({"a": delay, "b": delay}, patch_faults)
    ]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    sampled = run_k3diff(
        "sample", "--base", servers[0].url, "--patch", servers[1].url, "--prompts", "p.jsonl",
        "--repeats", "3", "--retries", "0", "--mode", "serial", "--mode", "concurrent",
        "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    assert sampled.exit_code == 1, sampled.stderr
    result, document = _triage(tmp_path)
    record = _record(document, "b")
    modes = {m["mode"]: (m["patch"]["n"], m["patch"]["errors"]) for m in record["modes"]}
    assert modes == {"serial": (3, 0), "concurrent": (0, 3)}
    assert result.exit_code == 1
    assert record["category"] == "inconclusive" and "unanswered" in record["flags"]
    assert record["reason"].startswith(
        "unanswered: every patch request for this record in concurrent failed (all 3 requests; "
    )
    assert "so the patch proved nothing in concurrent" in record["reason"]
    assert _record(document, "a")["category"] == "match"
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert "every patch request failed in a mode on b (unanswered)" in text.stdout

    record["flags"] = [f for f in record["flags"] if f != "unanswered"]
    document["summary"]["held"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "forged.json", "--out", "b2", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    assert "unanswered" in refused.stderr


def test_report_recounts_a_hold_whose_failed_requests_are_edited_away(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on a8f1b365: the unanswered record's failed requests edited to none (`errors` 0,
    `requests` empty), its flag dropped and the verdict made a pass, `report` read alone
    accepted the document (exit 0): it recounted only a side with failed requests. A side the
    document shows sampled (record a has its samples) with no sample of b is recounted too."""
    _run(tmp_path, fault_server, base={}, patch={"b": FAIL_500})
    _triage(tmp_path)
    document = json.loads((tmp_path / "t.json").read_text())
    record = _record(document, "b")
    record["flags"] = [f for f in record["flags"] if f not in ("unanswered", "errors-present")]
    for mode in record["modes"]:
        mode["patch"]["errors"], mode["requests"]["patch"] = 0, []
        mode["flags"] = [f for f in mode["flags"] if f != "errors-present"]
    document["summary"]["held"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "forged.json", "--out", "b2", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    (line,) = refused.stderr.splitlines()
    assert "forged.json" in line and "unanswered" in line
