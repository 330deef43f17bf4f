"""Evaluation logs compared as their authors mean them, run state kept apart from output, and
labels that are true (issue 32). Every test runs `k3diff responses` and recounts by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .engines import sglang_answer
from .fixtures import chat, chat_logprobs, completion, write_jsonl
from .lm_eval_logs import (
    generate_current,
    generate_old,
    loglikelihood_current,
    loglikelihood_old,
)

GROUP = "responses"
FEW_SHOT = "Q: 1+1?\nA: 2\n\nQ: {}?\nA:"


def run(k3diff_cli: Any, tmp_path: Path, *args: str, name: str = "samples_gsm8k.jsonl") -> Any:
    base, patch = f"base/{name}", f"patch/{name}"
    result = k3diff_cli("responses", base, patch, *args, "--format", "json", cwd=tmp_path)
    assert result.stderr == "", result.stderr
    return result.exit_code, json.loads(result.stdout)


def write_sides(
    tmp_path: Path, base: list[Any], patch: list[Any], name: str = "samples_gsm8k.jsonl"
) -> None:
    for side, rows in (("base", base), ("patch", patch)):
        (tmp_path / side).mkdir(exist_ok=True)
        write_jsonl(tmp_path / side / name, rows)


# lm-eval as lm-eval means it.


def _repeats(third: str) -> list[Any]:
    rows = []
    for doc in range(3):
        gens = ["42", "42", third if doc == 1 else "42"]
        for filt in ("maj@3", "first"):
            rows.append(generate_current(doc, FEW_SHOT.format(doc), gens, "42", filt, 1.0))
    return rows


def test_every_repeat_is_compared_and_a_doc_counts_once(
    k3diff_cli: Any, golden: Any, tmp_path: Path
) -> None:
    write_sides(tmp_path, _repeats("42"), _repeats("41"))
    code, doc = run(k3diff_cli, tmp_path)
    differing = [r for r in doc["records"] if r["status"] != "match"]
    assert code == 1 and {r["key"] for r in differing} == {"1/maj@3", "1/first"}
    assert all(r["lm_eval"]["differing_generations"] == [2] for r in differing)
    lm = doc["summary"]["lm_eval"]
    assert (lm["field"], lm["docs"], lm["docs_differing"]) == ("resps", 3, 1)
    assert doc["pairing"]["label"] == "doc_id+filter"
    # What the metrics were computed from (the majority vote) did not change.
    code, doc = run(k3diff_cli, tmp_path, "--lm-eval-field", "filtered_resps")
    assert code == 0 and doc["summary"]["lm_eval"]["field"] == "filtered_resps"
    result = k3diff_cli(
        "responses", "base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl", cwd=tmp_path
    )
    assert "lm-eval (resps compared): 3 docs, 1 differ" in result.stdout
    # The result line counts (doc, filter) records, the lm-eval line docs (docs/responses.md).
    assert "result: 2 of 6 paired records differ (exit 1)" in result.stdout
    golden.check(GROUP, "lm-eval-current-repeats", result)


def test_old_layout_edited_prompt_is_not_comparable(
    k3diff_cli: Any, golden: Any, tmp_path: Path
) -> None:
    base = [generate_old(n, FEW_SHOT.format(n), "42", 1.0) for n in range(3)]
    patch = [dict(row) for row in base]
    patch[2] = generate_old(2, FEW_SHOT.replace("1+1", "2+2").format(2), "42", 1.0)
    write_sides(tmp_path, base, patch)
    code, doc = run(k3diff_cli, tmp_path)
    statuses = [r["status"] for r in doc["records"]]
    assert code == 1 and statuses == ["match", "match", "not-comparable"]
    assert doc["summary"]["not_comparable"] == 1 and doc["summary"]["differing"] == 0
    assert doc["summary"]["lm_eval"]["docs_not_comparable"] == 1
    assert any("not comparable" in reason for reason in doc["verdict"]["reasons"])
    result = k3diff_cli(
        "responses", "base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl", cwd=tmp_path
    )
    golden.check(GROUP, "lm-eval-old-layout-prompt", result)


def test_changed_prompt_hash_is_not_comparable_rather_than_a_difference(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    base = [generate_current(0, FEW_SHOT.format(0), ["42"], "42", "none", 1.0)]
    patch = [generate_current(0, FEW_SHOT.format(0) + " ", ["41"], "41", "none", 0.0)]
    write_sides(tmp_path, base, patch)
    code, doc = run(k3diff_cli, tmp_path)
    (record,) = doc["records"]
    assert code == 1 and record["status"] == "not-comparable"
    assert record["field_changes"] == [] and doc["summary"]["differing"] == 0


def _mmlu(layout: Any, second_ll: float, greedy: bool, acc: float) -> list[Any]:
    return [
        layout(0, "Q0", [(-1.0, True), (-3.0, False)], 1.0),
        layout(1, "Q1", [(-2.0, not greedy), (second_ll, greedy)], acc),
    ]


def test_loglikelihood_tasks_compare_choices_and_report_metric_flips(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    for layout in (loglikelihood_current, loglikelihood_old):
        write_sides(
            tmp_path,
            _mmlu(layout, -2.5, False, 1.0),
            _mmlu(layout, -1.5, True, 0.0),
            name="samples_mmlu.jsonl",
        )
        code, doc = run(k3diff_cli, tmp_path, name="samples_mmlu.jsonl")
        records = {r["key"]: r for r in doc["records"]}
        assert code == 1 and records["0"]["status"] == "match"
        moved = records["1"]
        assert moved["status"] == "logprobs-differ" and moved["divergence"] is None
        assert moved["lm_eval"]["loglikelihood_deltas"] == [
            {"choice": 1, "base": -2.5, "patch": -1.5}
        ]
        assert len(moved["lm_eval"]["greedy_flips"]) == 2
        flips = doc["summary"]["lm_eval"]["metric_flips"]
        assert flips == [{"metric": "acc", "filter": flips[0]["filter"], "gained": 0, "lost": 1}]
    # Jitter within --logprob-tol and no flip passes.
    write_sides(
        tmp_path,
        _mmlu(loglikelihood_current, -2.5, False, 1.0),
        _mmlu(loglikelihood_current, -2.5000004, False, 1.0),
        name="samples_mmlu.jsonl",
    )
    code, _doc = run(k3diff_cli, tmp_path, "--logprob-tol", "1e-6", name="samples_mmlu.jsonl")
    assert code == 0


# Run state is not output; one logprob rule for every shape.


def test_cache_hits_are_run_state_and_never_fail(k3diff_cli: Any, tmp_path: Path) -> None:
    base = completion("r", "same")
    patch = completion("r", "same")
    base["usage"]["prompt_tokens_details"] = {"cached_tokens": 0}
    patch["usage"]["prompt_tokens_details"] = {"cached_tokens": 16}
    write_sides(tmp_path, [base], [patch], name="openai.jsonl")
    code, doc = run(k3diff_cli, tmp_path, name="openai.jsonl")
    (record,) = doc["records"]
    assert code == 0 and record["status"] == "match"
    assert record["run_state"] == [
        {
            "path": "usage.prompt_tokens_details",
            "change": "changed",
            "base": {"cached_tokens": 0},
            "patch": {"cached_tokens": 16},
        }
    ]
    assert doc["summary"]["run_state_differs"] == 1 and doc["run_state"]["fails"] is False
    write_sides(
        tmp_path,
        [sglang_answer("x", [1], key="k", cached=0, latency=0.2)],
        [sglang_answer("x", [1], key="k", cached=48, latency=0.9)],
        name="sglang.jsonl",
    )
    code, doc = run(k3diff_cli, tmp_path, name="sglang.jsonl")
    (record,) = doc["records"]
    assert code == 0 and record["status"] == "match"
    assert {c["path"] for c in record["run_state"]} == {
        "meta_info.cached_tokens",
        "meta_info.e2e_latency",
    }


def test_sglang_and_openai_logprobs_follow_one_rule(k3diff_cli: Any, tmp_path: Path) -> None:
    jitter = 3e-7
    write_sides(
        tmp_path,
        [sglang_answer("ab", [5, 6], key="k", logprobs=[-0.1, -0.2])],
        [sglang_answer("ab", [5, 6], key="k", logprobs=[-0.1 + jitter, -0.2])],
        name="sglang.jsonl",
    )
    code, doc = run(k3diff_cli, tmp_path, name="sglang.jsonl")
    assert code == 1 and doc["records"][0]["status"] == "logprobs-differ"
    assert doc["records"][0]["field_changes"] == []  # not compared raw as a field
    code, doc = run(k3diff_cli, tmp_path, "--logprob-tol", "1e-6", name="sglang.jsonl")
    assert code == 0 and doc["summary"]["logprobs_compared"] == 1
    lp = chat_logprobs([("a", -0.1, [("a", -0.1)]), ("b", -0.2, [("b", -0.2)])])
    moved = chat_logprobs([("a", -0.1 + jitter, [("a", -0.1)]), ("b", -0.2, [("b", -0.2)])])
    write_sides(
        tmp_path,
        [chat("c", "ab", logprobs=lp)],
        [chat("c", "ab", logprobs=moved)],
        name="chat.jsonl",
    )
    assert run(k3diff_cli, tmp_path, name="chat.jsonl")[0] == 1
    assert run(k3diff_cli, tmp_path, "--logprob-tol", "1e-6", name="chat.jsonl")[0] == 0


# True labels.


def _divergence(k3diff_cli: Any, tmp_path: Path, base_top: Any, patch_top: Any) -> Any:
    base_lp = chat_logprobs([("The", -0.01, [("The", -0.01)]), base_top])
    patch_lp = chat_logprobs([("The", -0.01, [("The", -0.01)]), patch_top])
    write_sides(
        tmp_path,
        [chat("a", "The" + base_top[0], logprobs=base_lp)],
        [chat("a", "The" + patch_top[0], logprobs=patch_lp)],
        name="chat.jsonl",
    )
    result = k3diff_cli("responses", "base/chat.jsonl", "patch/chat.jsonl", cwd=tmp_path)
    doc = run(k3diff_cli, tmp_path, name="chat.jsonl")[1]
    return result.stdout, doc["records"][0]["divergence"]["logprobs"]


def test_near_tie_only_within_near_tie_else_decisive_with_its_gap(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    text, gap = _divergence(
        k3diff_cli,
        tmp_path,
        (" cat", -0.60, [(" cat", -0.60), (" dog", -0.62)]),
        (" dog", -0.60, [(" dog", -0.60), (" cat", -0.62)]),
    )
    assert gap["label"] == "near-tie" and gap["gap"] == round(-0.60 - -0.62, 6)
    assert "near-tie flip (|gap| 0.0200 ≤ --near-tie 0.1)" in text and gap["swapped_top2"]
    text, gap = _divergence(
        k3diff_cli,
        tmp_path,
        (" cat", -0.20, [(" cat", -0.20), (" dog", -1.70)]),
        (" dog", -0.20, [(" dog", -0.20), (" cat", -1.70)]),
    )
    assert gap["label"] == "decisive" and gap["gap"] == 1.5
    assert "decisive change (|gap| 1.5000 > --near-tie 0.1)" in text and "near-tie flip" not in text
    assert gap["in_top_n"] is True and "in-top-2 swap" in text


def test_a_runner_up_that_is_another_token_is_no_swapped_pair(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    text, gap = _divergence(
        k3diff_cli,
        tmp_path,
        (" cat", -0.60, [(" cat", -0.60), (" dog", -0.62)]),
        (" dog", -0.10, [(" dog", -0.10), (" cow", -3.0)]),
    )
    assert gap["swapped_top2"] is False and gap["in_top_n"] is False
    # The patch chose " dog" 2.9 nats ahead of anything else: not a flip a rounding causes.
    assert gap["label"] == "decisive" and gap["gap"] == round(-0.10 - -3.0, 6)
    assert "swapped the top-2 pair" not in text


def test_the_gap_is_the_sampled_token_minus_the_best_other_and_its_sign_is_explained(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    # llama.cpp applies its repeat penalty after the logprobs: the sampled token sits below its
    # runner-up. A 1.52-nat deficit is no near tie; a 0.0437 one is, by its size.
    text, gap = _divergence(
        k3diff_cli,
        tmp_path,
        (" cat", -0.60, [(" cat", -0.60), (" dog", -0.62)]),
        (" dog", -1.70, [(" cat", -0.18), (" dog", -1.70)]),
    )
    assert gap["patch"]["sampled_gap"] == round(-1.70 - -0.18, 6)
    assert gap["base"]["sampled_gap"] == round(-0.60 - -0.62, 6)
    assert gap["label"] == "decisive" and gap["gap"] == -1.52
    assert "decisive change (|gap| 1.5200 > --near-tie 0.1)" in text
    assert "negative gap on patch: the sampled token was not the most likely one" in text
    text, gap = _divergence(
        k3diff_cli,
        tmp_path,
        (" cat", -0.60, [(" cat", -0.60), (" dog", -0.62)]),
        (" dog", -0.6437, [(" cat", -0.60), (" dog", -0.6437)]),
    )
    assert gap["label"] == "near-tie" and gap["gap"] == -0.0437
    assert "near-tie flip (|gap| 0.0437 ≤ --near-tie 0.1)" in text
    assert 'patch " dog" gap -0.0437 (best other " cat")' in text


def test_empty_partial_character_tokens_do_not_run_the_token_prefix_past_the_text(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    # llama.cpp reports "" for each token holding part of a UTF-8 character: "é" vs "è" split
    # at character 3 are two different byte tokens that both read "".
    base_lp = chat_logprobs(
        [("The", -0.01, [("The", -0.01)]), ("", -0.3, [("", -0.3)]), ("é", -0.1, [("é", -0.1)])]
    )
    patch_lp = chat_logprobs(
        [("The", -0.01, [("The", -0.01)]), ("", -0.2, [("", -0.2)]), ("è", -0.1, [("è", -0.1)])]
    )
    write_sides(
        tmp_path,
        [chat("a", "Theé", logprobs=base_lp)],
        [chat("a", "Theè", logprobs=patch_lp)],
        name="chat.jsonl",
    )
    record = run(k3diff_cli, tmp_path, name="chat.jsonl")[1]["records"][0]
    assert record["divergence"]["char_offset"] == 3
    assert record["divergence"]["logprobs"]["token_index"] == 1


# n > 1, client keys, the pairing key named.


def _batch_line(custom_id: str, answers: list[str]) -> dict[str, Any]:
    body = chat("chatcmpl-x", answers[0])
    body["choices"] = [
        dict(body["choices"][0], index=n, message={"role": "assistant", "content": a})
        for n, a in enumerate(answers)
    ]
    request = {"model": "m", "messages": [{"role": "user", "content": custom_id}], "n": 2}
    return {
        "id": f"batch_req_{custom_id}",
        "custom_id": custom_id,
        "request": {"method": "POST", "url": "/v1/chat/completions", "body": request},
        "response": {"status_code": 200, "request_id": "r", "body": body},
        "error": None,
    }


def test_batch_output_with_two_choices_counts_per_choice(k3diff_cli: Any, tmp_path: Path) -> None:
    base = [_batch_line("q1", ["A", "B"]), _batch_line("q2", ["C", "D"])]
    patch = [_batch_line("q2", ["C", "E"]), _batch_line("q1", ["A", "B"])]
    write_sides(tmp_path, base, patch, name="batch.jsonl")
    code, doc = run(k3diff_cli, tmp_path, name="batch.jsonl")
    keys = {r["key"]: r["status"] for r in doc["records"]}
    assert code == 1 and keys == {
        "q1#0": "match",
        "q1#1": "match",
        "q2#0": "match",
        "q2#1": "text-differs",
    }
    assert doc["summary"]["paired"] == 4 and doc["summary"]["differing"] == 1
    text = k3diff_cli("responses", "base/batch.jsonl", "patch/batch.jsonl", cwd=tmp_path).stdout
    assert "paired by custom_id;" in text


def test_top_level_request_id_pairs_by_default(k3diff_cli: Any, tmp_path: Path) -> None:
    base = [
        {"request_id": f"r{n}", "messages": [{"role": "user", "content": "hi"}], "text": f"t{n}"}
        for n in range(2)
    ]
    write_sides(tmp_path, base, base[::-1], name="cap.jsonl")
    code, doc = run(k3diff_cli, tmp_path, name="cap.jsonl")
    assert code == 0 and doc["pairing"]["label"] == "request_id"
    assert [r["key"] for r in doc["records"]] == ["r0", "r1"]


def test_regrouped_resps_are_a_difference_not_a_match(k3diff_cli: Any, tmp_path: Path) -> None:
    """stream66: `[["42", "43"]]` (one request's two answers) against `[["42"], ["43"]]` (two
    requests') matched: the flattened generations are equal, what the harness scored is not."""
    base = [
        generate_current(n, FEW_SHOT.format(n), ["42", "43"], "42", "none", 1.0) for n in (0, 1)
    ]
    patch = [dict(row) for row in base]
    patch[1] = dict(patch[1], resps=[["42"], ["43"]])
    write_sides(tmp_path, base, patch)
    code, doc = run(k3diff_cli, tmp_path)
    first, second = doc["records"]
    assert code == 1 and (first["status"], second["status"]) == ("match", "fields-differ")
    assert first["lm_eval"]["resps_grouping"] is None
    assert second["lm_eval"]["resps_grouping"] == {"base": [2], "patch": [1, 1]}
    assert doc["summary"]["lm_eval"]["docs_differing"] == 1
    text = k3diff_cli("responses", "base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl",
                      cwd=tmp_path)  # fmt: skip
    assert text.exit_code == 1
    assert "lm-eval resps_grouping (responses per request): [2] → [1, 1]" in text.stdout


def test_a_changed_target_or_doc_is_not_comparable(k3diff_cli: Any, tmp_path: Path) -> None:
    """stream66: the same prompt and metrics with another `target` (or `doc`) matched: the two
    runs did not score the same task. Not comparable, as an edited prompt is, inputs named."""
    base = [generate_current(n, FEW_SHOT.format(n), ["42"], "42", "none", 1.0) for n in range(4)]
    patch = [dict(row) for row in base]
    patch[1] = dict(patch[1], target="41", target_hash="0" * 64)
    patch[2] = dict(patch[2], doc={"question": "other"})
    del base[3]["target"], patch[3]["target"]  # only the hashes: compared as lm-eval wrote them
    patch[3]["target_hash"] = "1" * 64
    write_sides(tmp_path, base, patch)
    code, doc = run(k3diff_cli, tmp_path)
    statuses = [r["status"] for r in doc["records"]]
    assert code == 1 and statuses == ["match"] + ["not-comparable"] * 3
    assert [r["lm_eval"]["inputs_differ"] for r in doc["records"]] == [[], ["target"], ["doc"],
                                                                       ["target"]]  # fmt: skip
    assert doc["summary"]["not_comparable"] == 3 and doc["summary"]["differing"] == 0
    text = k3diff_cli("responses", "base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl",
                      cwd=tmp_path)  # fmt: skip
    assert "lm-eval: the target differs: not comparable" in text.stdout
    assert "3 not comparable (their prompts or eval inputs differ" in text.stdout
