"""The evidence chain: `k3diff report` cannot be fed contradictory, duplicated, concatenated or
mixed-run evidence without saying so. Every hostile document is derived from real command output
(the seed scenario run through the scripted engines, `k3diff sample` and `k3diff triage`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from triage.helpers import compare_texts

from .helpers import sampled_seed, wheels_json


def _report(tmp_path: Path, *inputs: str) -> Any:
    return run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)


def _refused(result: Any, *fragments: str) -> str:
    assert result.exit_code == 2, result.stderr
    (line,) = str(result.stderr).splitlines()
    for fragment in fragments:
        assert fragment in line, line
    return line


def _edit(path: Path, change: Any) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document, indent=2))


def test_a_comparison_edited_to_pass_is_refused(tmp_path: Path, engines: dict[str, str]) -> None:
    comparison, _, _ = sampled_seed(tmp_path, engines)
    cmp = tmp_path / comparison
    original = json.loads(cmp.read_text())
    differing = [r["key"] for r in original["records"] if r["status"] == "text-differs"]
    assert len(differing) == 4 and original["summary"]["paired"] == 8

    def to_pass(document: dict[str, Any]) -> None:
        document["summary"] |= {"exact_match": 8, "differing": 0}
        document["summary"]["by_status"] |= {"match": 8, "text-differs": 0}
        document["verdict"] = {"ok": True, "exit_code": 0, "reasons": []}

    _edit(cmp, to_pass)
    line = _refused(
        _report(tmp_path, comparison),
        "cmp.json: the document disagrees with itself",
        "summary.exact_match is 8 but its records give 4",
        "summary.differing is 0 but its records give 4",
        "verdict.exit_code 0 does not follow from its records (1 failing: 4 of 8 paired records differ)",
    )
    assert "regenerate" in line
    assert not (tmp_path / "bundle").exists()


def test_a_triage_edited_to_pass_is_refused(tmp_path: Path, engines: dict[str, str]) -> None:
    comparison, samples, triage = sampled_seed(tmp_path, engines)
    records = json.loads((tmp_path / triage).read_text())["records"]
    first = records[0]["category"]

    def relabel(document: dict[str, Any]) -> None:
        document["records"][0]["regression_candidate"] = True

    _edit(tmp_path / triage, relabel)
    _refused(
        _report(tmp_path, comparison, samples, triage),
        "triage.json: the document disagrees with itself",
        "summary.regression_candidates is 0 but its records give 1",
        "verdict.exit_code 0 does not follow from its records (1 failing: 1 regression candidates)",
    )
    assert first


def test_a_wheels_document_with_edited_counts_is_refused(tmp_path: Path) -> None:
    name = wheels_json(tmp_path, native_changed=True)
    _edit(tmp_path / name, lambda d: d["summary"]["native"].update(identical=1, changed=0))
    _refused(
        _report(tmp_path, name),
        "native: summary.identical is 1 but its records give 0",
        "native: summary.changed is 0 but its records give 1",
    )


def test_a_repeated_sample_line_and_concatenated_logs_are_refused(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    comparison, samples, _ = sampled_seed(tmp_path, engines)
    lines = (tmp_path / samples).read_text().splitlines(keepends=True)
    (tmp_path / "dup.jsonl").write_text("".join(lines + [lines[1]] * 1000))
    _refused(_report(tmp_path, comparison, "dup.jsonl"), f"dup.jsonl:{len(lines) + 1}: repeat 0 of")
    (tmp_path / "cat.jsonl").write_text("".join(lines * 2))
    _refused(
        _report(tmp_path, comparison, "cat.jsonl"),
        f"cat.jsonl:{len(lines) + 1}: a second header line: two logs concatenated",
    )


def test_a_log_of_a_second_run_is_refused_unless_pooled_and_then_each_run_is_listed(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    comparison, samples, triage = sampled_seed(tmp_path, engines)
    first_run = json.loads((tmp_path / samples).read_text().splitlines()[0])["run"]["run_id"]
    shutil.copy(tmp_path / "responses" / "base.jsonl", tmp_path / "prompts2.jsonl")
    with (tmp_path / "prompts2.jsonl").open("a") as handle:
        handle.write("\n")  # another prompts file: same requests, another digest
    second = run_k3diff(
        "sample", "--base", engines["base"], "--patch", engines["patch"],
        "--prompts", "prompts2.jsonl", "--repeats", "2", "--out", "run2", cwd=tmp_path,
    )  # fmt: skip
    assert second.exit_code == 0, second.stderr
    _refused(
        _report(tmp_path, comparison, samples, "run2/samples.jsonl"),
        "2 different runs",
        f"run/samples.jsonl (run {first_run}",
        "--pool-runs",
    )
    _refused(
        _report(tmp_path, comparison, "run2/samples.jsonl", triage),
        f"triage.json was made from run(s) {first_run}",
    )
    pooled = run_k3diff(
        "report", comparison, samples, "run2/samples.jsonl", triage, "--pool-runs",
        "--out", "bundle", cwd=tmp_path,
    )  # fmt: skip
    assert pooled.exit_code == 0, pooled.stderr
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    runs = {i["name"]: i["run_ids"] for i in summary["inputs"]}
    assert runs[samples] == [first_run] and runs["run2/samples.jsonl"] != [first_run]
    assert runs[triage] == [first_run]
    sampling = next(row for row in summary["matrix"] if row["evidence"] == "sampling")
    assert {d["name"]: d["run_ids"] for d in sampling["documents"]} == {
        samples: runs[samples],
        "run2/samples.jsonl": runs["run2/samples.jsonl"],
    }
    checked = {d["name"]: d["cross_checked"] for row in summary["matrix"] for d in row["documents"]}
    assert checked.pop(comparison) is False  # judged alone: its inputs not given (labels61)
    assert all(checked.values())
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    # polish62: a samples log reads what was checked, never "cross-checked" (nothing is
    # beside it to check it against); summary.json keeps cross_checked true.
    assert f"run/samples.jsonl (run {first_run[:12]}, every line checked)" in report
    assert f"run/samples.jsonl (run {first_run[:12]}, cross-checked)" not in report
    rows = [line for line in report.splitlines() if line.startswith(f"| {samples} | k3diff.")]
    assert rows and all(row.endswith("| every line checked |") for row in rows), rows
    assert ">every line checked</td></tr>" in (tmp_path / "bundle" / "report.html").read_text()
    assert "samples of 2 different runs were bundled together (--pool-runs)" in report
    assert f"run/samples.jsonl (run {first_run}, started" in report


def test_samples_without_triage_are_stated_and_stray_keys_named(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    comparison, samples, _ = sampled_seed(tmp_path, engines)
    lines = [json.loads(line) for line in (tmp_path / samples).read_text().splitlines()]
    stray = [line | {"key": "nowhere"} for line in lines[1:3]]
    lines[0]["run"]["keys"].append("nowhere")  # a record of the prompts, not of cmp.json
    (tmp_path / "stray.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in [*lines, *stray])
    )
    result = _report(tmp_path, comparison, "stray.jsonl")
    assert result.exit_code == 1, result.stderr
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "none implied by this evidence" not in report
    assert "samples given, not triaged: the base gave 2 or more distinct outputs" in report
    assert "2 samples have keys that match no record of cmp.json (nowhere)" in report
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    sampling = next(s for s in summary["stages"] if s["evidence"] == "sampling")
    assert sampling["counts"]["samples"] == len(lines) - 1
    varied = {
        key
        for key in {line["key"] for line in lines[1:]}
        if len({s["text_xxh3"] for s in lines[1:] if s["key"] == key and s["side"] == "base"}) > 1
    }
    assert varied, "the scripted base varies on some prompts"
    assert f"on {len(varied)} record" in report


def test_a_log_written_before_run_ids_is_still_one_run(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    comparison, samples, _ = sampled_seed(tmp_path, engines)
    lines = (tmp_path / samples).read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    for later in ("run_id", "keys", "log_format"):  # a log before run ids had none of them
        del header["run"][later]
    (tmp_path / "old.jsonl").write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    triaged = run_k3diff(
        "triage", comparison, "old.jsonl", "--format", "json", "-o", "old-triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert triaged.exit_code == 1, triaged.stderr  # it cannot show its lines (samples71)
    result = _report(tmp_path, comparison, "old.jsonl", "old-triage.json")
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    runs = {i["name"]: i["run_ids"] for i in summary["inputs"]}
    assert runs["old.jsonl"] == runs["old-triage.json"] and runs["old.jsonl"][0].startswith(
        "header-"
    )


def test_wheels_and_audit_verdicts_edited_to_pass_are_refused(tmp_path: Path) -> None:
    name = wheels_json(tmp_path, native_changed=True)
    _edit(tmp_path / name, lambda d: d["verdict"].update(ok=True, exit_code=0))
    _refused(
        _report(tmp_path, name),
        "verdict.exit_code 0 does not follow from its findings (1 failing: W101 pkg/_native.so)",
    )

    wheel = "base/pkg-1.0-py3-none-any.whl"
    (tmp_path / "SHA256SUMS").write_text(f"{'0' * 64}  pkg-1.0-py3-none-any.whl\n")
    audited = run_k3diff(
        "audit", wheel, "--manifest", "SHA256SUMS", "--format", "json", "-o", "audit.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert audited.exit_code == 1, audited.stderr
    _edit(tmp_path / "audit.json", lambda d: d["verdict"].update(ok=True, exit_code=0))
    _refused(_report(tmp_path, "audit.json"), "audit.json: the document disagrees with itself")


def test_a_document_that_fails_although_its_records_pass_is_refused_too(tmp_path: Path) -> None:
    """The verdict is judged again by the command's own rule, in both directions: a verdict
    that does not follow from the records was edited, whichever way it points."""
    compare_texts(tmp_path, {"a": ("same", "same"), "b": ("also", "also")})
    assert _report(tmp_path, "cmp.json").exit_code == 0
    _edit(tmp_path / "cmp.json", lambda d: d["verdict"].update(ok=False, exit_code=1))
    _refused(
        _report(tmp_path, "cmp.json"),
        "verdict.exit_code 1 does not follow from its records (none failing)",
    )


def test_samples_none_of_whose_keys_match_do_not_say_only_the_base_was_sampled(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    # Both sides were sampled, under keys no compared record has: nothing was counted, and the
    # bundle says so; it never says the patch was not sampled.
    comparison, samples, _ = sampled_seed(tmp_path, engines)
    lines = [json.loads(line) for line in (tmp_path / samples).read_text().splitlines()]
    keys = [f"elsewhere-{key}" for key in lines[0]["run"]["keys"]]  # its prompts' records
    header = lines[0] | {"run": lines[0]["run"] | {"keys": keys}}
    stray = [header, *(line | {"key": f"elsewhere-{line['key']}"} for line in lines[1:])]
    assert {line["side"] for line in stray[1:]} == {"base", "patch"}
    (tmp_path / "stray.jsonl").write_text("".join(json.dumps(line) + "\n" for line in stray))
    _report(tmp_path, comparison, "stray.jsonl")
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "have keys that match no record of cmp.json" in report
    assert "only the base was sampled" not in report
    base_only = [lines[0], *(line for line in lines[1:] if line["side"] == "base")]
    (tmp_path / "base-only.jsonl").write_text("".join(json.dumps(x) + "\n" for x in base_only))
    _report(tmp_path, comparison, "base-only.jsonl")
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "only the base was sampled: the patch's own stability is not measured" in report
