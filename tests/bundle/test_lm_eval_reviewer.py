"""What a reviewer reads about an lm-eval run whose docs are not comparable (newuser68): four
docs under `strict-match`, the patch's log without `arguments` (all four `arguments-unknown`),
doc 2's patch answer `""` (its `exact_match` lost) from a request that failed when sampled
(HTTP 500). Each exit was 1, but the lost doc, its empty answer and the server's error were in
JSON only, or nowhere in the bundle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from responses.fixtures import write_jsonl
from responses.lm_eval_logs import generate_current
from triage.helpers import S, side, write_samples

FILTER = "strict-match"
CUDA = "HTTP 500: CUDA error: an illegal memory access was encountered"


def _captures(tmp_path: Path) -> None:
    base = [generate_current(n, f"Q: {n}+2?\nA:", [" 4"], " 4", FILTER, 1.0) for n in range(4)]
    patch = [{k: v for k, v in row.items() if k != "arguments"} for row in base]
    patch[2] = dict(patch[2], resps=[[""]], filtered_resps=[""], exact_match=0.0)
    for name, rows in (("base", base), ("patch", patch)):
        (tmp_path / name).mkdir()
        write_jsonl(tmp_path / name / "samples_gsm8k.jsonl", rows)


def _sampled(tmp_path: Path, error: str = CUDA) -> None:
    """The comparison (cmp.json), the samples (run/samples.jsonl: doc 2's every patch request
    failed with `error`, HTTP 500) and triage's document (t.json)."""
    _captures(tmp_path)
    compared = run_k3diff(
        "responses", "base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl", "--format",
        "json", "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 1, compared.stderr
    samples: list[S] = []
    for n in range(4):
        key = f"{n}/{FILTER}"
        samples += side(key, "base", [" 4"] * 3)
        if n == 2:
            samples += [S("patch", key, None, status=500, error=error) for _ in range(3)]
        else:
            samples += side(key, "patch", [" 4"] * 3)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    triage = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert triage.exit_code == 1, triage.stderr


def _bundle(tmp_path: Path) -> tuple[str, str, dict[str, Any]]:
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    out = tmp_path / "b"
    summary = json.loads((out / "summary.json").read_text())
    return (out / "REPORT.md").read_text(), (out / "report.html").read_text(), summary


def test_responses_names_the_doc_not_comparable_that_lost_its_metric(tmp_path: Path) -> None:
    """Failed on 1c0c05fb: the text said `exact_match [strict-match]: 1 lost` and no more."""
    _captures(tmp_path)
    args = ("responses", "base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl")
    text = run_k3diff(*args, cwd=tmp_path)
    assert text.exit_code == 1
    block = text.stdout.split(f"\n2/{FILTER} (not-comparable, ")[1].split("\n\n")[0]
    assert "lm-eval: the request arguments are missing from one log or both" in block
    assert "lm-eval resps: generation(s) 0 of 1 differ (base 2 chars, patch 0)" in block
    assert "lm-eval metric exact_match: 1.0 → 0.0" in block
    assert 'base  @0: " 4"' in block and 'patch @0: ""' in block
    for other in (0, 1, 3):  # docs whose answers and scores agree say only why
        said = text.stdout.split(f"\n{other}/{FILTER} (not-comparable, ")[1].split("\n\n")[0]
        assert "metric" not in said and "generation(s)" not in said
    markdown = run_k3diff(*args, "--format", "markdown", cwd=tmp_path)
    assert markdown.exit_code == 1
    assert "lm-eval metric exact_match: 1.0 → 0.0" in markdown.stdout
    assert "generation(s) 0 of 1 differ (base 2 chars, patch 0)" in markdown.stdout
    assert 'patch @0: ""' in markdown.stdout
    document = json.loads(run_k3diff(*args, "--format", "json", cwd=tmp_path).stdout)
    statuses = [r["status"] for r in document["records"]]
    assert statuses == ["not-comparable"] * 4  # shown, still not compared
    assert document["records"][2]["divergence"]["char_offset"] == 0
    assert [r["divergence"] for r in document["records"][:2]] == [None, None]


def test_the_bundle_shows_the_metric_change_and_the_failed_requests(tmp_path: Path) -> None:
    """Failed on 1c0c05fb: neither the lost exact_match nor the HTTP 500 was in REPORT.md,
    report.html or summary.json."""
    _sampled(tmp_path)
    report, html, summary = _bundle(tmp_path)
    metrics = summary["tables"]["metric_changes"]
    assert metrics["rows"] == [[f"2/{FILTER}", "exact_match", FILTER, 1.0, 0.0, "not-comparable"]]
    assert (
        "| 2/strict-match | exact\\_match | strict-match | 1.0 | 0.0 | not-comparable |" in report
    )
    failed = summary["tables"]["failed_requests"]
    assert failed["rows"] == [["run/samples.jsonl", "patch", f"2/{FILTER}", "serial", 3, 500, CUDA]]
    assert "CUDA error: an illegal memory access was encountered" in report
    assert "CUDA error: an illegal memory access was encountered" in html
    assert "Failed requests (samples)" in html and "Metric changes (lm-eval)" in html


def test_a_failed_requests_error_is_escaped_and_capped(tmp_path: Path) -> None:
    """A server's words: its control characters shown as escapes, at most 200 characters."""
    _sampled(tmp_path, error="HTTP 500: \x1b[31mboom\x1b[0m\n" + "x" * 500)
    report, html, summary = _bundle(tmp_path)
    (row,) = summary["tables"]["failed_requests"]["rows"]
    error = row[-1]
    assert len(error) == 200 and error.endswith("…")
    assert "\x1b" not in error and "\n" not in error and error.startswith("HTTP 500: \\x1b[31m")
    assert "\x1b" not in report and "\x1b" not in html
