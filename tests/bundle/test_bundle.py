"""`k3diff report` on real command outputs: the bottom line, the matrix, what is missing, the
exit code, and REPORT.md against golden files."""

from __future__ import annotations

import html as html_text
import json
import re
from pathlib import Path
from typing import Any

from cli_support import CliResult, Golden, run_k3diff

from .helpers import sampled_seed, seed, wheels_json

SEED_CHECKED = "samples checked against each capture's request and model"
"""What the seed's samples were held to, where its captures record their requests."""


def seed_line(checked: str = SEED_CHECKED) -> str:
    """The seed scenario's follow-up line; `checked`: what its samples were held to."""
    return (
        "serially, the patch reproduces the base on 8 of 8 records; text differs on 4 of 8 "
        "records; all 4 are base nondeterminism (the base gave 3 distinct outputs in 3 samples on "
        "each record); caveat: "
        "the patch's stability is bounded only by 0.78 (3 samples: up to 77.6 % of its outputs "
        "may differ from its usual one), 60 per side would bound it by 0.05, both at α = 0.05; "
        f"{checked}; the base gave 8 other outputs on 4 records "
        "besides each record's first sampled one (no output was more common than another); "
        "margins where they parted from it unknown (no logprobs in the samples); with 3 "
        "patch samples, an output the patch gives at least 41.5 % of the time would have been "
        "seen with 80 % power; distribution tests on 4 records: none shifted; at least one "
        "could not detect any shift to a new answer with 80 % power"
    )


SEED_LINE = seed_line()
"""The seed's follow-up line where its captures record their requests (the demo's)."""


def _report(tmp_path: Path, *inputs: str, extra: tuple[str, ...] = ()) -> CliResult:
    return run_k3diff("report", *inputs, "--out", "bundle", *extra, cwd=tmp_path)


def _summary(tmp_path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((tmp_path / "bundle/summary.json").read_text())
    return document


def _golden(golden: Golden, case: str, tmp_path: Path, result: CliResult) -> None:
    markdown = (tmp_path / "bundle/REPORT.md").read_text(encoding="utf-8")
    golden.check("bundle", case, CliResult(result.exit_code, markdown, result.stderr))


def test_golden_seed_scenario_with_a_wheel_pair(tmp_path: Path, golden: Golden) -> None:
    wheels = wheels_json(tmp_path)
    comparison, samples, triage = seed(tmp_path)
    result = _report(tmp_path, wheels, comparison, samples, triage)
    assert result.exit_code == 0, result.stderr
    report = (tmp_path / "bundle/REPORT.md").read_text()
    # Its captures are raw completions: their requests could not be checked.
    unchecked = "request or model unchecked on 8 of 8 records (see qualifications)"
    assert f"- {seed_line(unchecked)}" in report
    assert "native entries: 1 of 1 byte-identical (proof: raw bytes 1)" in report
    assert (
        "; audit (k3diff audit); runtime logs (k3diff logs); telemetry/coverage (k3diff telemetry)\n"
        in report
    )
    summary = _summary(tmp_path)
    assert summary["schema"] == "k3diff.report/2"
    assert summary["verdict"] == {"ok": True, "exit_code": 0}
    rows = {row["evidence"]: row["status"] for row in summary["matrix"]}
    assert rows["record-level comparison"] == "explained"
    assert rows["audit"] == "missing" and rows["source match"] == "missing"
    assert [i["name"] for i in summary["inputs"]] == [wheels, comparison, samples, triage]
    _golden(golden, "seed-and-wheels", tmp_path, result)


def test_golden_failing_native_change_alone(tmp_path: Path, golden: Golden) -> None:
    result = _report(tmp_path, wheels_json(tmp_path, native_changed=True))
    assert result.exit_code == 1
    summary = _summary(tmp_path)
    assert summary["bottom_line"][0] == "FAIL: artifact identity (wheels.json) fails its policy"
    missing = [m["evidence"] for m in summary["missing"]]
    assert missing == [
        "source match",
        "record-level comparison",
        "sampling",
        "nondeterminism follow-up",
        "audit",
        "runtime logs",
        "telemetry/coverage",
    ]
    assert "1 changed: pkg/_native.so" in summary["bottom_line"][1]
    _golden(golden, "native-changed", tmp_path, result)


def test_a_comparison_without_triage_fails_and_says_the_follow_up_is_missing(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    comparison, _, _ = sampled_seed(tmp_path, engines)
    result = _report(tmp_path, comparison)
    assert result.exit_code == 1
    summary = _summary(tmp_path)
    assert summary["matrix"][2]["status"] == "FAIL"
    assert summary["matrix"][4] == {
        "evidence": "nondeterminism follow-up",
        "status": "missing",
        "finding": "no document: run k3diff triage",
        "sources": [],
        "documents": [],
    }


def test_a_deterministic_divergence_fails_the_bundle(tmp_path: Path) -> None:
    comparison, samples, triage = seed(tmp_path, base_stable=True)
    result = _report(tmp_path, comparison, samples, triage)
    assert result.exit_code == 1
    bottom = _summary(tmp_path)["bottom_line"]
    # The failing rows' sentences first, each named by its row (report67: in the matrix's
    # order, the follow-up's stood second to last among the passing rows').
    failing = [line for line in bottom[1:] if line.startswith("FAIL (")]
    assert bottom[1 : len(failing) + 1] == failing, bottom
    (follow_up,) = [line for line in failing if line.startswith("FAIL (nondeterminism")]
    assert "regression candidates" in follow_up, follow_up


def test_differences_the_triage_could_not_decide_leave_the_comparison_failing(
    tmp_path: Path,
) -> None:
    comparison, samples, triage = seed(tmp_path, sample_mismatched=False)
    triage_doc = json.loads((tmp_path / triage).read_text())
    # differing records never sampled fail triage itself (unsampled), and the follow-up row
    assert triage_doc["verdict"]["exit_code"] == 1
    assert triage_doc["summary"]["inconclusive"] == 4 == triage_doc["summary"]["unsampled"]
    result = _report(tmp_path, comparison, samples, triage)
    assert result.exit_code == 1
    rows = {row["evidence"]: row for row in _summary(tmp_path)["matrix"]}
    assert rows["record-level comparison"]["status"] == "FAIL"
    assert rows["nondeterminism follow-up"]["status"] == "FAIL"


def test_required_evidence_missing_fails_even_when_the_rest_passes(tmp_path: Path) -> None:
    wheels = wheels_json(tmp_path)
    assert _report(tmp_path, wheels).exit_code == 0
    result = _report(tmp_path, wheels, extra=("--require", "nondeterminism follow-up"))
    assert result.exit_code == 1
    assert _summary(tmp_path)["bottom_line"][0] == (
        "FAIL: required evidence missing: nondeterminism follow-up"
    )


def test_triage_whose_comparison_is_not_given_is_qualified(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    _, samples, triage = sampled_seed(tmp_path, engines)
    result = _report(tmp_path, samples, triage)
    assert result.exit_code == 0
    assert any("cmp.json, which is not among" in q for q in _summary(tmp_path)["qualifications"])


def test_every_number_in_the_html_is_in_the_summary_and_no_temp_path(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    comparison, samples, triage = sampled_seed(tmp_path, engines)
    result = _report(tmp_path, wheels_json(tmp_path), comparison, samples, triage)
    assert result.exit_code == 0, result.stderr
    assert f"- {SEED_LINE}" in (tmp_path / "bundle/REPORT.md").read_text()
    html = (tmp_path / "bundle/report.html").read_text()
    visible = re.sub(r"<svg.*?</svg>|<style>.*?</style>|<script>.*?</script>", "", html, flags=re.S)
    visible = html_text.unescape(re.sub(r"<[^>]+>", " ", visible))
    summary_text = (tmp_path / "bundle/summary.json").read_text()
    stored = {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", summary_text)}
    shown = {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", visible)}
    assert shown, "no numbers found in the HTML"
    assert shown - stored == set()
    for name in ("summary.json", "REPORT.md", "report.html"):
        text = (tmp_path / "bundle" / name).read_text()
        assert str(tmp_path) not in text and "/tmp/" not in text


def test_rewriting_replaces_the_set_and_refuses_foreign_directories(tmp_path: Path) -> None:
    wheels = wheels_json(tmp_path)
    assert _report(tmp_path, wheels).exit_code == 0
    assert _report(tmp_path, wheels).exit_code == 0
    assert sorted(p.name for p in (tmp_path / "bundle").iterdir()) == [
        "REPORT.md",
        "report.html",
        "summary.json",
    ]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".bundle")]
    (tmp_path / "bundle" / "notes.txt").write_text("mine")
    result = _report(tmp_path, wheels)
    assert result.exit_code == 2
    assert result.stderr == (
        "k3diff: error: bundle: holds 'notes.txt', which is not part of a bundle; choose an "
        "empty or new directory\n"
    )


def test_a_python_file_absent_at_the_source_commit_fails_the_source_row(tmp_path: Path) -> None:
    """`wheels` fails a changed file the commit does not hold (W402); the bundle must not read
    the same evidence as a pass."""
    import wheelkit

    from bundle.helpers import pkg_source_repo

    pkg_source_repo(tmp_path)
    files = {"pkg/__init__.py": b""}
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files)
    wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", {**files, "pkg/new.py": b"x = 1\n"})
    wheel = "pkg-1.0-py3-none-any.whl"
    result = run_k3diff(
        "wheels", f"base/{wheel}", f"patch/{wheel}", "--source", "src", "--commit", "HEAD",
        "--format", "json", "-o", "wheels.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    report = run_k3diff("report", "wheels.json", "--out", "bundle", cwd=tmp_path)
    assert report.exit_code == 1
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    row = next(r for r in summary["matrix"] if r["evidence"] == "source match")
    assert row["status"] == "FAIL", row


def test_one_document_is_singular(tmp_path: Path) -> None:
    """'(1 document)', not '(1 documents)'; a wheels document given without its wheels is
    judged alone, and the bottom line counts it (polish62b)."""
    result = _report(tmp_path, wheels_json(tmp_path))
    assert result.exit_code == 0, result.stderr
    bottom = _summary(tmp_path)["bottom_line"][0]
    assert bottom.endswith("fails its policy (1 document, 1 judged alone)")


def test_the_bundle_names_bare_k3diff_whatever_program_made_it(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """polish62: triage's `next:` line names the k3diff the user ran (`.venv/bin/k3diff`, stop
    61); a bundle does not. It is read later, elsewhere, where its maker's path means nothing,
    and holds no machine's path: its commands say bare `k3diff`, and REPORT.md says once that
    this is the reader's own k3diff."""
    import shutil

    from k3diff import program

    monkeypatch.setattr(program, "_argv0", "my venv/bin/k3diff")
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    assert program.program() == "'my venv/bin/k3diff'"
    wheels = wheels_json(tmp_path)
    assert _report(tmp_path, wheels, *seed(tmp_path)).exit_code == 0
    bundle = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "bundle").iterdir()}
    assert not [name for name, text in bundle.items() if "my venv" in text]
    report = bundle["REPORT.md"]
    assert "Missing evidence (made by; `k3diff` is your k3diff install):" in report
    assert "- audit: `k3diff audit`" in report
    assert "no control was run (k3diff sample --control seeds)" in report
    assert "no document: run k3diff audit" in bundle["report.html"]
