"""What a determinism review relies on (issue 21): the right records are paired, logprobs and
lost evidence are never silent, counts mean what they say, and engine dumps are read.

Every test runs the real `k3diff responses` command and recounts its numbers independently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import xxhash

from k3diff.documents.catalog import load_schema
from k3diff.sample.prompts import read_prompts

from .engines import sglang_answer, trtllm_record, vllm_logprob, vllm_output
from .fixtures import chat, completion, completion_chunks, sse_transcript, write_json, write_jsonl

GROUP = "responses"
QUESTIONS = {"Capital of France?": "Paris.", "2+2?": "Four.", "Sky colour?": "Blue."}


def run(k3diff_cli: Any, tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = k3diff_cli(
        "responses", "base.jsonl", "patch.jsonl", *args, "--format", "json", cwd=tmp_path
    )
    assert result.stderr == "", result.stderr
    return result.exit_code, json.loads(result.stdout)


def wrapped(rid: str, prompt: str, answer: str, max_tokens: int = 16) -> dict[str, Any]:
    """A capture line as a client logs it: the request it sent and the server's chat answer."""
    request = {
        "model": "m",
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "temperature": 0,
    }
    return {"id": rid, "request": request, "response": chat(rid, answer)}


# 1. Pairing never pairs different requests.


def test_server_ids_in_arrival_order_do_not_pair_different_prompts(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    base = [wrapped(f"chatcmpl-{n}", q, a) for n, (q, a) in enumerate(QUESTIONS.items())]
    patch_answers = {"Capital of France?": "Lyon.", "2+2?": "Five.", "Sky colour?": "Blue."}
    arrival = ["Sky colour?", "Capital of France?", "2+2?"]  # the patch server saw another order
    patch = [wrapped(f"chatcmpl-{n}", q, patch_answers[q]) for n, q in enumerate(arrival)]
    write_jsonl(tmp_path / "base.jsonl", base)
    write_jsonl(tmp_path / "patch.jsonl", patch)
    code, doc = run(k3diff_cli, tmp_path)
    regressed = sum(QUESTIONS[q] != patch_answers[q] for q in QUESTIONS)
    assert code == 1 and doc["pairing"]["key"] == "prompt-hash"
    assert doc["summary"]["paired"] == 3 and doc["summary"]["differing"] == regressed == 2
    # Asked to pair by those ids anyway, the tool refuses to compare different requests.
    refused = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--key", "id", cwd=tmp_path)
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr == (
        "k3diff: error: base.jsonl:1 and patch.jsonl:1 are paired by --key id (key "
        "'chatcmpl-0') but their prompts differ: they answer different requests; pass --key "
        "FIELD (a field that names the request on both sides) or --by-order\n"
    )


def test_same_prompt_other_parameters_is_refused(k3diff_cli: Any, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "base.jsonl", [wrapped("a", "2+2?", "Four.", max_tokens=16)])
    write_jsonl(tmp_path / "patch.jsonl", [wrapped("b", "2+2?", "Four.", max_tokens=32)])
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 2
    assert "their request parameters differ" in result.stderr
    assert "base.jsonl:1 and patch.jsonl:1" in result.stderr


def test_sample_prompts_keys_are_the_comparisons_keys(k3diff_cli: Any, tmp_path: Path) -> None:
    """One default pairing function: `sample --prompts` keys a capture as `responses` pairs it."""
    for name, rows in (
        (
            "custom_id",
            [
                {"custom_id": f"q{n}", **wrapped("x", q, a)}
                for n, (q, a) in enumerate(QUESTIONS.items())
            ],
        ),
        (
            "prompt-hash",
            [wrapped(f"chatcmpl-{n}", q, a) for n, (q, a) in enumerate(QUESTIONS.items())],
        ),
    ):
        write_jsonl(tmp_path / "base.jsonl", rows)
        write_jsonl(tmp_path / "patch.jsonl", rows)
        code, doc = run(k3diff_cli, tmp_path)
        assert code == 0 and doc["pairing"]["label"] == name
        sample_keys = [record.key for record in read_prompts(tmp_path / "base.jsonl")]
        assert sample_keys == [record["key"] for record in doc["records"]]


# 2. Logprobs are compared; evidence on one side only is never silent.


def lp_completion(text: str, logprobs: list[float], token_ids: list[int] | None = None) -> Any:
    tokens = text.split(" ")
    tokens = [tokens[0]] + [" " + t for t in tokens[1:]]
    shape = {
        "tokens": tokens,
        "token_logprobs": logprobs,
        "top_logprobs": [{t: lp} for t, lp in zip(tokens, logprobs, strict=True)],
    }
    return completion("r", text, logprobs=shape, token_ids=token_ids)


def test_moved_logprobs_with_the_same_text_fail_unless_tolerated(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    base = [-0.1, -0.5, -0.2]
    patch = [-0.1, -0.7, -0.2]
    write_jsonl(tmp_path / "base.jsonl", [lp_completion("The cat sat", base)])
    write_jsonl(tmp_path / "patch.jsonl", [lp_completion("The cat sat", patch)])
    largest = max(abs(a - b) for a, b in zip(base, patch, strict=True))
    code, doc = run(k3diff_cli, tmp_path)
    (record,) = doc["records"]
    assert code == 1 and record["status"] == "logprobs-differ" and record["text_match"] is True
    assert record["logprobs"]["max_abs_delta"] == round(largest, 6)
    assert record["logprobs"]["token_index"] == 1 and record["logprobs"]["compared"] == 3
    assert doc["summary"]["logprobs_differ"] == 1 and doc["summary"]["differing"] == 1
    text = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert "max |Δ| 0.200000 at token 1, beyond --logprob-tol 0" in text.stdout
    code, doc = run(k3diff_cli, tmp_path, "--logprob-tol", "0.25")
    assert code == 0 and doc["records"][0]["status"] == "match"
    assert doc["summary"]["logprobs_differ"] == 0 and doc["summary"]["logprobs_compared"] == 1


def test_evidence_on_one_side_only_is_noted_and_counted(k3diff_cli: Any, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "base.jsonl", [completion("r", "same", token_ids=[1, 2])])
    write_jsonl(tmp_path / "patch.jsonl", [completion("r", "same")])
    code, doc = run(k3diff_cli, tmp_path)
    assert code == 0  # information, not a failure
    assert doc["records"][0]["notes"] == ["evidence-missing: token ids only in base, not compared"]
    assert doc["summary"]["evidence_missing"] == 1
    text = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path).stdout
    assert "evidence-missing: token ids only in base" in text
    assert "1 with evidence on one side only" in text


# 3. Counts mean what they say.


def test_counts_after_normalize_and_similarity_of_a_near_copy(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    big = "x" * 2_000_000
    rows = [("a", "same", "same"), ("b", "end  ", "end"), ("c", big, big[:-1] + "y")]
    write_jsonl(tmp_path / "base.jsonl", [{"id": k, "text": b} for k, b, _ in rows])
    write_jsonl(tmp_path / "patch.jsonl", [{"id": k, "text": p} for k, _, p in rows])
    code, doc = run(k3diff_cli, tmp_path, "--normalize", "trailing-whitespace")
    byte_equal = sum(b == p for _, b, p in rows)
    records = {r["key"]: r for r in doc["records"]}
    assert doc["summary"]["exact_match"] == byte_equal == 1
    assert doc["summary"]["normalized_match"] == 1 and records["b"]["status"] == "match"
    for record in records.values():
        digests_equal = record["base"]["text_xxh3"] == record["patch"]["text_xxh3"]
        assert record["text_match"] is digests_equal
    assert records["c"]["status"] == "text-differs" and code == 1
    assert records["c"]["similarity"] < 1.0


# 4. Engine shapes.


def test_vllm_request_outputs_with_n_choices(k3diff_cli: Any, golden: Any, tmp_path: Path) -> None:
    lps = [
        [
            vllm_logprob([(3681, -0.1, " Paris"), (4, -2.5, " Lyon")]),
            vllm_logprob([(29889, -0.05, ".")]),
        ]
    ]
    base = [
        vllm_output("0", "The capital of France is", [(" Paris.", [3681, 29889])], logprobs=lps),
        vllm_output("1", "Two plus two is", [(" four", [3023]), (" 4", [29946])]),
    ]
    patch = [
        vllm_output("0", "Two plus two is", [(" four", [3023]), (" five", [5320])]),
        vllm_output(
            "1", "The capital of France is", [(" Paris.", [3681, 29889])], logprobs=lps, cached=16
        ),
    ]
    write_jsonl(tmp_path / "base.jsonl", base)
    write_jsonl(tmp_path / "patch.jsonl", patch)
    code, doc = run(k3diff_cli, tmp_path)
    assert code == 1 and doc["summary"]["paired"] == 3  # one single output, two choices
    statuses = {
        r["key"].rsplit("#", 1)[-1] if "#" in r["key"] else "single": r["status"]
        for r in doc["records"]
    }
    assert statuses == {"single": "match", "0": "match", "1": "text-differs"}
    assert doc["summary"]["differing"] == 1 and doc["summary"]["logprobs_compared"] == 1
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    golden.check(GROUP, "engine-vllm", result)


def test_trtllm_beams(k3diff_cli: Any, golden: Any, tmp_path: Path) -> None:
    base = [trtllm_record("Hello", [(" world", [995]), (" there", [727])])]
    patch = [trtllm_record("Hello", [(" world", [995]), (" friend", [4238])])]
    write_jsonl(tmp_path / "base.jsonl", base)
    write_jsonl(tmp_path / "patch.jsonl", patch)
    code, doc = run(k3diff_cli, tmp_path)
    assert code == 0 and doc["records"][0]["token_match"] is True  # beam 0
    code, doc = run(k3diff_cli, tmp_path, "--beam", "1")
    assert code == 1 and doc["records"][0]["status"] == "text-differs"
    too_far = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--beam", "2", cwd=tmp_path)
    assert too_far.exit_code == 2
    assert "base.jsonl:1: record has 2 beam(s); --beam 2 is not among them" in too_far.stderr
    golden.check(
        GROUP,
        "engine-trtllm-beam-1",
        k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--beam", "1", cwd=tmp_path),
    )


def test_beams_not_compared_are_counted_in_every_output(k3diff_cli: Any, tmp_path: Path) -> None:
    # review66: only beam 0 (or --beam N) was compared and nothing said other beams existed,
    # so a verdict covering one beam read as covering the records.
    two = ("Hello", [(" world", [995]), (" there", [727])])
    one = ("One", [(" a", [5])])
    three = ("Bye", [(" now", [1]), (" then", [2]), (" later", [3])])
    changed = ("Bye", [(" now", [1]), (" then", [2]), (" soon", [4])])  # beam 2 differs
    base = [trtllm_record(p, b) for p, b in (two, three, one)]
    patch = [trtllm_record(p, b) for p, b in (two, changed, one)]
    write_jsonl(tmp_path / "base.jsonl", base)
    write_jsonl(tmp_path / "patch.jsonl", patch)
    code, doc = run(k3diff_cli, tmp_path)
    assert code == 0 and doc["summary"]["differing"] == 0  # beam 2 is not compared: kept
    widths = {len(r["text"]) for r in base + patch}
    several = [sum(len(r["text"]) > 1 for r in side) for side in (base, patch)]
    assert doc["beams"] == {
        "compared": 0,
        "records_with_other_beams": {"base": several[0], "patch": several[1]},
        "beams_per_record": sorted(widths),
        "possible": list(range(min(widths))),
    }
    jsonschema.validate(doc, load_schema("responses"))
    said = "only beam 0 compared: 2 records in base and 2 in patch hold 2 to 3 beams"
    for fmt in ("text", "markdown"):
        shown = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--format", fmt, cwd=tmp_path)
        assert f"{said} (only --beam 0 possible)" in shown.stdout.splitlines()[-1], shown.stdout
    # Without the one-beam record, --beam 1 reads every record: the note names it and 0 or 1.
    write_jsonl(tmp_path / "base.jsonl", base[:2])
    write_jsonl(tmp_path / "patch.jsonl", patch[:2])
    code, doc = run(k3diff_cli, tmp_path, "--beam", "1")
    assert code == 0 and doc["beams"]["compared"] == 1 and doc["beams"]["possible"] == [0, 1]
    text = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--beam", "1", cwd=tmp_path)
    assert text.stdout.rstrip().endswith(
        "only beam 1 compared: 2 records in base and 2 in patch hold 2 to 3 beams "
        "(--beam 0 or 1 possible) (exit 0)"
    ), text.stdout
    # One beam a record: nothing left out, nothing said.
    write_jsonl(tmp_path / "base.jsonl", base[2:])
    write_jsonl(tmp_path / "patch.jsonl", patch[2:])
    code, doc = run(k3diff_cli, tmp_path)
    assert code == 0 and "beams" not in doc


def test_sglang_generate_answers(k3diff_cli: Any, golden: Any, tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "base.jsonl",
        [
            sglang_answer("Paris.", [3681, 29889], rid="b1", key="q1"),
            sglang_answer("Four.", [3023, 29889], rid="b2", key="q2"),
        ],
    )
    write_jsonl(
        tmp_path / "patch.jsonl",
        [
            sglang_answer("Four.", [3023, 29889], rid="p1", key="q2"),
            sglang_answer("Paris!", [3681, 29991], rid="p2", key="q1"),
        ],
    )
    code, doc = run(k3diff_cli, tmp_path)
    assert code == 1 and doc["pairing"]["label"] == "key"
    records = {r["key"]: r for r in doc["records"]}
    assert records["q2"]["status"] == "match" and records["q1"]["status"] == "text-differs"
    assert records["q1"]["base"]["finish_reason"] == "stop"
    golden.check(
        GROUP, "engine-sglang", k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    )


def test_text_and_tokens_fields_name_any_layout(
    k3diff_cli: Any, golden: Any, tmp_path: Path
) -> None:
    def row(qid: str, text: str, ids: list[int]) -> dict[str, Any]:
        return {"qid": qid, "result": {"generations": [{"out": text, "ids": ids}]}}

    write_jsonl(tmp_path / "base.jsonl", [row("a", "yes", [1]), row("b", "no", [2])])
    write_jsonl(tmp_path / "patch.jsonl", [row("a", "yes", [1]), row("b", "no", [3])])
    args = (
        "--key",
        "qid",
        "--text-field",
        "result.generations[0].out",
        "--tokens-field",
        "result.generations.0.ids",
    )
    code, doc = run(k3diff_cli, tmp_path, *args)
    assert code == 1 and [r["status"] for r in doc["records"]] == ["match", "tokens-differ"]
    without = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert without.exit_code == 2 and "--text-field PATH" in without.stderr
    golden.check(
        GROUP,
        "text-field",
        k3diff_cli("responses", "base.jsonl", "patch.jsonl", *args, cwd=tmp_path),
    )


def test_null_text_says_so(k3diff_cli: Any, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "base.jsonl", [{"id": "a", "text": None}])
    write_jsonl(tmp_path / "patch.jsonl", [{"id": "a", "text": "x"}])
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == "k3diff: error: base.jsonl:1: text is null (field 'text')\n"


def test_cut_stream_is_an_error_record_counted_as_a_difference(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    answers = ["Paris.", "Four.", "Blue."]
    base = sse_transcript(
        [completion_chunks(f"cmpl-{n}", [a[:2], a[2:]]) for n, a in enumerate(answers)]
    )
    streams = [completion_chunks(f"cmpl-{n}", [a[:2], a[2:]]) for n, a in enumerate(answers)]
    cut = "\n".join(f"data: {json.dumps(c)}\n" for c in streams[1][:1])  # no [DONE]
    patch = sse_transcript(streams[:1]) + "\n" + cut + "\n" + sse_transcript(streams[2:])
    (tmp_path / "base.sse").write_text(base)
    (tmp_path / "patch.sse").write_text(patch)
    result = k3diff_cli("responses", "base.sse", "patch.sse", "--format", "json", cwd=tmp_path)
    doc = json.loads(result.stdout)
    statuses = [r["status"] for r in doc["records"]]
    assert result.exit_code == 1 and statuses == ["match", "error", "match"]
    assert doc["summary"]["errors"] == 1 == doc["summary"]["differing"]
    assert doc["records"][1]["patch"]["error"] == "stream ended without [DONE] after 1 chunks"


# 5. Smaller: messages that point the way.


def test_duplicate_prompts_suggest_key_or_by_order(k3diff_cli: Any, tmp_path: Path) -> None:
    rows = [{"prompt": "p", "text": "x"}, {"prompt": "p", "text": "y"}]
    write_jsonl(tmp_path / "base.jsonl", rows)
    write_jsonl(tmp_path / "patch.jsonl", rows)
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 2
    assert "duplicate prompt-hash keys: prompt 'p' at lines 1, 2" in result.stderr
    assert "--key FIELD" in result.stderr and "--by-order" in result.stderr


def test_one_line_json_array_names_the_element(k3diff_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "base.json").write_text(json.dumps([{"id": "a", "text": "x"}, {"id": "b"}]))
    write_json(tmp_path / "patch.json", [{"id": "a", "text": "x"}])
    result = k3diff_cli("responses", "base.json", "patch.json", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.startswith("k3diff: error: base.json:1[1]: ")
    rows = [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}]
    (tmp_path / "base.json").write_text(json.dumps(rows))
    (tmp_path / "patch.json").write_text(json.dumps([rows[0], {"id": "b", "text": "z"}]))
    result = k3diff_cli("responses", "base.json", "patch.json", "--format", "json", cwd=tmp_path)
    doc = json.loads(result.stdout)
    assert [r["base"]["location"] for r in doc["records"]] == ["base.json:1[0]", "base.json:1[1]"]


def test_prompt_hash_is_the_prompts_xxh3(k3diff_cli: Any, tmp_path: Path) -> None:
    rows = [{"prompt": q, "text": a} for q, a in QUESTIONS.items()]
    write_jsonl(tmp_path / "base.jsonl", rows)
    write_jsonl(tmp_path / "patch.jsonl", rows[::-1])
    code, doc = run(k3diff_cli, tmp_path)
    assert code == 0
    assert [r["key"] for r in doc["records"]] == [
        xxhash.xxh3_128_hexdigest(q.encode()) for q in QUESTIONS
    ]


@pytest.mark.parametrize("option", ["--text-field", "--tokens-field"])
def test_empty_field_path_is_a_usage_error(option: str, k3diff_cli: Any, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "base.jsonl", [{"id": "a", "text": "x"}])
    write_jsonl(tmp_path / "patch.jsonl", [{"id": "a", "text": "x"}])
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", option, "a..b", cwd=tmp_path)
    assert result.exit_code == 2 and "empty field name" in result.stderr
