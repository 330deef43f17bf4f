"""A record whose captured prompts differ (`not-comparable`) is no pass.

`k3diff responses` fails such a record (exit 1: nothing was compared for it), but triage let it
pass: samples repeat one request, so when they agreed the record read `match` and the run
passed (exit 0) although the patch's capture answered another prompt than the base's, one
never judged (a harness or template change the patch brought would hide there). It stays
`inconclusive`, flagged `not-comparable`, and fails the run whatever `--fail-inconclusive` says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, run_k3diff
from responses.fixtures import write_jsonl
from responses.lm_eval_logs import generate_current, target_hash

from .helpers import S, side, write_samples

FEW_SHOT = "Q: 1+1?\nA: 2\n\nQ: {}?\nA:"


def _setup(tmp_path: Path, patch_text: str, samples: list[S] | None = None, **changed: Any) -> None:
    """lm-eval captures of docs 0 and 1: the patch's prompt of doc 0 differs (a trailing
    blank; its doc the same), its answer `patch_text`, unless `changed` names the fields of
    the patch's doc 0 that differ instead; doc 1 matches. Both docs sampled alike on both
    sides unless `samples` says otherwise."""
    base = [generate_current(n, FEW_SHOT.format(n), ["42"], "42", "none", 1.0) for n in (0, 1)]
    prompt = FEW_SHOT.format(0) + ("" if changed else " ")
    first = generate_current(0, prompt, [patch_text], patch_text, "none", 1.0)
    first = {**first, "doc": base[0]["doc"], "doc_hash": base[0]["doc_hash"], **changed}
    patch = [first, base[1]]
    for name, rows in (("base", base), ("patch", patch)):
        (tmp_path / name).mkdir()
        write_jsonl(tmp_path / name / "samples_gsm8k.jsonl", rows)
    compared = run_k3diff(
        "responses", "base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl", "--format",
        "json", "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 1, compared.stderr
    statuses = [r["status"] for r in json.loads((tmp_path / "cmp.json").read_text())["records"]]
    assert statuses == ["not-comparable", "match"]
    if samples is None:
        samples = [
            s for key in ("0", "1") for who in ("base", "patch") for s in side(key, who, ["42"] * 3)
        ]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)


def _triage(tmp_path: Path, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", *args, cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    return result, json.loads(result.stdout)


def test_a_record_whose_prompts_differ_fails_though_its_samples_agree(tmp_path: Path) -> None:
    """Failed on main: record 0 read `match` and triage exited 0."""
    _setup(tmp_path, "42")
    result, document = _triage(tmp_path)
    first, second = document["records"]
    assert result.exit_code == 1
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    assert (first["category"], second["category"]) == ("inconclusive", "match")
    assert "not-comparable" in first["flags"]
    assert first["reason"].startswith("not-comparable: the captured prompts differ")
    assert "capture both sides with the same prompts" in first["reason"]
    assert document["summary"]["held"] == 1
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert "captures whose prompts differ (not-comparable)" in text.stdout


def test_a_record_whose_prompts_differ_fails_unsampled_too(tmp_path: Path) -> None:
    """Without a sample of it, it was inconclusive and passed unless --fail-inconclusive."""
    _setup(tmp_path, "42", side("1", "base", ["42"] * 3) + side("1", "patch", ["42"] * 3))
    result, document = _triage(tmp_path)
    assert result.exit_code == 1
    assert "not-comparable" in document["records"][0]["flags"]


def test_a_regression_candidate_whose_prompts_differ_stays_one(tmp_path: Path) -> None:
    samples = side("0", "base", ["42"] * 3) + side("0", "patch", ["41"] * 3)
    _setup(tmp_path, "41", samples + side("1", "base", ["42"] * 3) + side("1", "patch", ["42"] * 3))
    result, document = _triage(tmp_path)
    first = document["records"][0]
    assert result.exit_code == 1
    assert first["category"] == "deterministic-divergence"
    assert "not-comparable" not in first["flags"]


OTHER_DOC = {"question": "Q: 7?", "answer": "42"}


@pytest.mark.parametrize(
    ("changed", "flag", "words"),
    [
        ({"target": "41", "target_hash": target_hash("41")}, "target-changed",
         "the gold target changed"),
        ({"doc": OTHER_DOC}, "doc-changed", "the document changed"),
        # lmeval67: another generation setting, the prompt, doc and target the same.
        ({"arguments": {"gen_args_0": {"arg_0": FEW_SHOT.format(0), "arg_1": {"until": ["\n"]}}}},
         "arguments-changed", "the request arguments changed"),
        # lmrep68: the patch's log without its arguments (prompt_hash alone): not known.
        ({"arguments": None}, "arguments-unknown",
         "the request arguments are missing from one log or both"),
        # left68: neither its arguments nor its prompt_hash: the prompt is not known, it did
        # not change (it read "the captured prompts differ").
        ({"arguments": None, "prompt_hash": None}, "prompt-unknown",
         "the prompt is in one log only"),
    ],
)  # fmt: skip
def test_a_changed_target_or_document_is_held_in_its_own_words(
    tmp_path: Path, changed: dict[str, Any], flag: str, words: str
) -> None:
    """resp67: a doc whose gold target or document changed (its prompt the same) read
    "not-comparable: the captured prompts differ" and "captures whose prompts differ", in
    triage and in the bundle: advice to fix a prompt that never changed."""
    _setup(tmp_path, "42", **changed)
    result, document = _triage(tmp_path)
    first = document["records"][0]
    assert result.exit_code == 1 and first["category"] == "inconclusive"
    assert [f for f in first["flags"] if f in ("not-comparable", flag)] == ["not-comparable", flag]
    assert first["reason"].startswith(f"not-comparable: {words} (")
    assert "prompts differ" not in first["reason"]
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert f"{words} ({flag})" in text.stdout and "prompts differ" not in text.stdout
    triage = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    assert triage.exit_code == 1
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert f"1 record held: {words} (0)" in report
    assert f"their {words.removeprefix('the ')} ({flag})" in report
    # left68: the triage row counted the record as a text that differs.
    assert "text differs on 0 of 2 records, 1 not comparable (0)" in report
    # left68: an input one log alone holds read "their prompt or eval inputs differ".
    compared = "1 record not comparable (their prompt or eval inputs differ): 0"
    unknown = (
        "1 record not comparable (their prompt or request arguments are missing from a log): 0"
    )
    said, unsaid = (unknown, compared) if flag.endswith("-unknown") else (compared, unknown)
    assert said in report and unsaid not in report
    assert "prompts differ" not in report


def test_a_changed_document_names_what_changed_with_it(tmp_path: Path) -> None:
    _setup(tmp_path, "42", doc=OTHER_DOC, target="41", target_hash=target_hash("41"))
    _result, document = _triage(tmp_path)
    reason = document["records"][0]["reason"]
    assert reason.startswith("not-comparable: the document changed (")
    assert "under this doc id; its gold target differs too)" in reason
    assert "target-changed" not in document["records"][0]["flags"]
