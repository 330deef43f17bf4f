"""lm-eval's inputs compared whichever way a log holds them, and the grouping that was scored.

A log written with lm-eval's hashes beside one whose lines hold only the values (or the other
way round) had its target and doc left uncompared: a changed gold target passed (exit 0). The
value is now hashed as lm-eval hashes it (`hash_string`: SHA-256 of `str(target)`, of the doc's
JSON indented by 2, of the first request's context) and compared with the other log's hash.

Under `--lm-eval-field filtered_resps` the grouping of `resps` was compared though the filter
had reduced each request's repeats to one answer: a regrouping the filter undoes failed the run.
The grouping compared is the compared field's own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .fixtures import write_jsonl
from .lm_eval_logs import doc_hash, generate_current, target_hash

FEW_SHOT = "Q: 1+1?\nA: 2\n\nQ: {}?\nA:"


def _compare(tmp_path: Path, base: list[Any], patch: list[Any], *args: str) -> tuple[int, Any]:
    write_jsonl(tmp_path / "base.jsonl", base)
    write_jsonl(tmp_path / "patch.jsonl", patch)
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", *args, cwd=tmp_path
    )
    assert result.stderr == "", result.stderr
    return result.exit_code, json.loads(result.stdout)


def _docs(count: int) -> list[dict[str, Any]]:
    return [
        generate_current(n, FEW_SHOT.format(n), ["42"], "42", "none", 1.0) for n in range(count)
    ]


def _without(row: dict[str, Any], *names: str) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key not in names}


def test_a_target_or_doc_against_lm_evals_hash_of_it_is_compared(tmp_path: Path) -> None:
    """Failed on main: docs 1-3 matched, exit 0, their targets or docs changed."""
    base = _docs(4)
    patch = [
        _without(base[0], "target", "doc"),  # the same target and doc, as hashes only
        dict(_without(base[1], "target"), target_hash=target_hash("41")),
        dict(_without(base[2], "doc"), doc_hash=doc_hash({"question": "Q: 7?", "answer": "42"})),
        # A value beside a hash that says otherwise: the value is what was scored.
        dict(base[3], target="41", target_hash=target_hash("42")),
    ]
    base[3] = _without(base[3], "target")
    code, doc = _compare(tmp_path, base, patch)
    statuses = [r["status"] for r in doc["records"]]
    assert code == 1 and statuses == ["match"] + ["not-comparable"] * 3
    differ = [r["lm_eval"]["inputs_differ"] for r in doc["records"]]
    assert differ == [[], ["target"], ["doc"], ["target"]]
    # Compared the other way round too: a hash on the base's side against the patch's value.
    code, doc = _compare(tmp_path, patch[:3], base[:3])
    assert code == 1 and [r["status"] for r in doc["records"]] == ["match"] + ["not-comparable"] * 2


def test_a_doc_hashed_as_lm_eval_hashes_it_keeps_non_ascii_and_key_order(tmp_path: Path) -> None:
    """The doc's hash is of its JSON as lm-eval writes it: non-ASCII kept, keys in order."""
    base = _docs(2)
    for row in base:
        row["doc"] = {"question": "¿cuántos?", "answer": "42"}
        row["doc_hash"] = doc_hash(row["doc"])
    reordered = {"answer": "42", "question": "¿cuántos?"}
    patch = [
        _without(base[0], "doc"),
        dict(_without(base[1], "doc"), doc_hash=doc_hash(reordered)),
    ]
    code, doc = _compare(tmp_path, base, patch)
    assert code == 1 and [r["status"] for r in doc["records"]] == ["match", "not-comparable"]


def test_a_prompt_hash_against_the_requests_arguments_is_compared(tmp_path: Path) -> None:
    """One log keeps only `prompt_hash`, the other only its arguments: its first context is
    hashed as lm-eval hashes it, so a changed prompt is named as the prompt. Failed on main:
    every such doc was not comparable on its prompt (exit 1). The generation settings the other
    log does not hold cannot be compared (lmrep68): such a doc is not comparable on its
    arguments, never a match."""
    base = [_without(row, "arguments") for row in _docs(2)]
    patch = [_without(row, "prompt_hash") for row in _docs(2)]
    patch[1]["arguments"]["gen_args_0"]["arg_0"] = FEW_SHOT.format(1) + " "
    code, doc = _compare(tmp_path, base, patch)
    outcome = [
        (r["status"], r["lm_eval"]["prompt_differs"], r["lm_eval"]["inputs_differ"])
        for r in doc["records"]
    ]
    assert outcome == [
        ("not-comparable", False, ["arguments-unknown"]),
        ("not-comparable", True, []),
    ]
    assert code == 1


def _two_requests(resps: list[Any], filtered: list[Any]) -> dict[str, Any]:
    row = generate_current(0, FEW_SHOT.format(0), ["42"], "42", "none", 1.0)
    arguments = {f"gen_args_{n}": {"arg_0": FEW_SHOT.format(0), "arg_1": {}} for n in (0, 1)}
    return dict(row, arguments=arguments, resps=resps, filtered_resps=filtered)


def test_filtered_resps_are_grouped_as_filtered_not_as_the_raw_responses(tmp_path: Path) -> None:
    """`take_first` reduces `[["42", "7"], ["7"]]` and `[["42"], ["7", "7"]]` alike to
    `["42", "7"]`: what the metrics were computed from is equal. Failed on main: the raw
    grouping differed, so the doc differed (exit 1)."""
    base = [_two_requests([["42", "7"], ["7"]], ["42", "7"])]
    patch = [_two_requests([["42"], ["7", "7"]], ["42", "7"])]
    code, doc = _compare(tmp_path, base, patch, "--lm-eval-field", "filtered_resps")
    (record,) = doc["records"]
    assert (code, record["status"], record["lm_eval"]["resps_grouping"]) == (0, "match", None)
    # The raw responses, compared, are regrouped: the harness sent other requests.
    code, doc = _compare(tmp_path, base, patch)
    (record,) = doc["records"]
    assert (code, record["status"]) == (1, "fields-differ")
    assert record["lm_eval"]["resps_grouping"] == {"base": [2, 1], "patch": [1, 2]}


def test_a_filter_that_kept_several_answers_is_compared_by_its_grouping(tmp_path: Path) -> None:
    """A filter without `take_first` leaves a list a request: one request's two answers are not
    two requests' one answer each. Failed on main: such a log was refused (exit 2)."""
    base = [_two_requests([["42", "43"]], [["42", "43"]])]
    regrouped = [_two_requests([["42", "43"]], [["42"], ["43"]])]
    code, doc = _compare(tmp_path, base, regrouped, "--lm-eval-field", "filtered_resps")
    (record,) = doc["records"]
    assert (code, record["status"]) == (1, "fields-differ")
    assert record["lm_eval"]["resps_grouping"] == {"base": [2], "patch": [1, 1]}
    text = run_k3diff("responses", "base.jsonl", "patch.jsonl", "--lm-eval-field",
                      "filtered_resps", cwd=tmp_path)  # fmt: skip
    assert text.exit_code == 1
    assert (
        "lm-eval resps_grouping (responses per request of filtered_resps): [2] → [1, 1]"
        in text.stdout
    )
    code, doc = _compare(tmp_path, base, base, "--lm-eval-field", "filtered_resps")
    assert code == 0 and doc["records"][0]["lm_eval"]["generations"] == [2, 2]
