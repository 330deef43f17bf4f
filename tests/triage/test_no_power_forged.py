"""A triage document that drops `no-power` from a sampled, powerless record is refused on read."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples
from triage.test_distribution import BASE_MASS, _sampled_logs


def test_a_forged_triage_document_cannot_drop_no_power(tmp_path: Path) -> None:
    cmp, log = _sampled_logs(tmp_path, 1, BASE_MASS, "ANSWER={} !!", n=2)
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    document = json.loads(result.stdout)
    summary = document["summary"]
    for record in document["records"]:
        assert "no-power" in record["flags"]
        record["flags"] = [f for f in record["flags"] if f != "no-power"]
        record["category"] = "both-nondeterministic"
        for mode in record["modes"]:
            mode["category"] = "both-nondeterministic"
            mode["flags"] = [f for f in mode.get("flags", []) if f != "no-power"]
    n = len(document["records"])
    summary["inconclusive"] = 0
    summary["both-nondeterministic"] = summary.get("both-nondeterministic", 0) + n
    for field in ("held", "no_power", "powerless"):
        if field in summary:
            summary[field] = 0
    document["verdict"] = {**document["verdict"], "ok": True, "exit_code": 0}
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(document))
    out = run_k3diff("report", str(forged), "--out", str(tmp_path / "bundle"), cwd=tmp_path)
    assert out.exit_code == 2, out.stdout + out.stderr


def test_a_sampled_patch_stuck_on_one_new_answer_at_no_power_fails(tmp_path: Path) -> None:
    # At temperature 1 the base varies; the patch ignores the temperature and gives one answer
    # the base never gave, 2 times of 2. The novelty test cannot call it at n = 2, nor can the
    # distribution test (no power): the record is undecided and, sampled without power, must
    # not pass.

    base = ["The answer is 3.", "The answer is 5.", "The answer is 8."]
    cmp = compare_texts(tmp_path, {"q": (base[0], "Z")})
    samples = [S("base", "q", t) for t in base[1:]] + [S("patch", "q", "Z") for _ in range(2)]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    record = json.loads(result.stdout)["records"][0]
    assert result.exit_code == 1, (
        record["category"],
        record["flags"],
        record["modes"][0]["reason"],
    )


def test_a_sampled_record_with_one_patch_answer_is_not_a_pass(tmp_path: Path) -> None:
    # At temperature 1 the patch answered once (its other requests failed): no test ran at all,
    # so nothing could have seen a shift; sampled, that clears nothing either.
    base = ["The answer is 3.", "The answer is 5.", "The answer is 8.", "The answer is 1."]
    cmp = compare_texts(tmp_path, {"q": (base[0], "Z")})
    samples = [S("base", "q", t) for t in base[1:]]
    samples += [S("patch", "q", "Z"), S("patch", "q", None), S("patch", "q", None)]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    record = json.loads(result.stdout)["records"][0]
    assert result.exit_code == 1, (record["category"], record["flags"], record["reason"])
