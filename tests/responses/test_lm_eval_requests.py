"""What two lm-eval runs asked of each doc is compared whole, whichever lm-eval wrote the logs.

Both logs with `prompt_hash`: the rest of the requests' `arguments` (a multiple-choice doc's
continuations, a generation's `until`, `max_gen_toks`, `temperature`) went uncompared, so a
patch run with other generation settings matched (exit 0). They are compared as values beside
the prompt hash; a doc whose arguments differ is not comparable, said as such.

A log of lm-eval 0.4.0-0.4.2 (`arguments` a list of argument lists, the target as the task
returned it) against one of 0.4.4 or later (`{"gen_args_i": {"arg_j": ...}}`, `str(target)`)
was not comparable on every doc: the two layouts of one request are read as the same request.

Every lm-eval version writes `target` and `doc` on every line: a line without one against a
line that holds it is not comparable (it went unchecked, exit 0).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .fixtures import write_json, write_jsonl

CONTEXT = "Q: 1+1?\nA: 2\n\nQ: {}?\nA:"
GENERATE = {"until": ["\n\n"], "do_sample": False, "max_gen_toks": 256}


def _sample(
    doc_id: int, arguments: list[list[Any]], resps: list[Any], target: Any
) -> dict[str, Any]:
    """One sample as lm-eval's evaluator holds it before writing (`arguments` a list of each
    request's `args`)."""
    doc = {"question": CONTEXT.format(doc_id), "answer": target}
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": target,
        "arguments": arguments,
        "resps": [[response] for response in resps],
        "filtered_resps": resps,
        "acc": 1.0,
    }


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _as_written_since_0_4_4(sample: dict[str, Any]) -> dict[str, Any]:
    """What `EvaluationTracker.save_results_samples` writes of it (lm-eval 0.4.4 and later):
    each request `gen_args_i`, each argument `arg_j`, every response a string, `str(target)`,
    beside the evaluator's hashes, `filter` and `metrics`."""

    def strings(value: Any) -> Any:
        return [strings(v) for v in value] if isinstance(value, list) else str(value)

    arguments = {
        f"gen_args_{i}": {f"arg_{j}": arg for j, arg in enumerate(request)}
        for i, request in enumerate(sample["arguments"])
    }
    return dict(
        sample,
        arguments=arguments,
        resps=strings(sample["resps"]),
        filtered_resps=strings(sample["filtered_resps"]),
        target=str(sample["target"]),
        filter="none",
        metrics=["acc"],
        doc_hash=_hash(json.dumps(sample["doc"], indent=2, ensure_ascii=False)),
        prompt_hash=_hash(sample["arguments"][0][0]),
        target_hash=_hash(str(sample["target"])),
    )


def _multiple_choice(doc_id: int, continuations: tuple[str, ...] = (" A", " B")) -> dict[str, Any]:
    context = CONTEXT.format(doc_id)
    arguments = [[context, choice] for choice in continuations]
    return _sample(doc_id, arguments, [[-1.25, True], [-3.5, False]][: len(continuations)], 0)


def _generation(doc_id: int, settings: dict[str, Any] = GENERATE) -> dict[str, Any]:
    return _sample(doc_id, [[CONTEXT.format(doc_id), settings]], ["2"], "2")


def _compare(tmp_path: Path, base: Any, patch: Any, *, old_base: bool = False) -> tuple[int, Any]:
    if old_base:  # 0.4.0-0.4.2 wrote the samples as one indented JSON array
        write_json(tmp_path / "base.jsonl", base)
    else:
        write_jsonl(tmp_path / "base.jsonl", base)
    write_jsonl(tmp_path / "patch.jsonl", patch)
    result = run_k3diff("responses", "base.jsonl", "patch.jsonl", "--format", "json", cwd=tmp_path)
    assert result.stderr == "", result.stderr
    return result.exit_code, json.loads(result.stdout)


def _outcome(doc: Any) -> list[tuple[str, list[str]]]:
    return [(r["status"], r["lm_eval"]["inputs_differ"]) for r in doc["records"]]


def test_other_generation_settings_or_continuations_are_not_comparable(tmp_path: Path) -> None:
    """Failed on base67: both logs hold `prompt_hash`, so docs 1-3 matched (exit 0) though the
    patch sampled at temperature 1, stopped at another string, or scored other choices."""
    base = [_generation(0), _generation(1), _generation(2), _multiple_choice(3)]
    patch = [
        _generation(0),
        _generation(1, {**GENERATE, "do_sample": True, "temperature": 1.0}),
        _generation(2, {**GENERATE, "until": ["\n"]}),
        _multiple_choice(3, (" A", " C")),
    ]
    written = (
        [_as_written_since_0_4_4(s) for s in base],
        [_as_written_since_0_4_4(s) for s in patch],
    )
    code, doc = _compare(tmp_path, *written)
    assert code == 1
    assert _outcome(doc) == [("match", [])] + [("not-comparable", ["arguments"])] * 3
    text = run_k3diff("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert (
        "lm-eval: the request arguments (a continuation or a generation setting: until, "
        "max_gen_toks, temperature, ...) differ: not comparable" in text.stdout
    )


def test_a_changed_prompt_is_said_as_the_prompt_not_its_arguments(tmp_path: Path) -> None:
    base = [_as_written_since_0_4_4(_generation(0))]
    changed = _generation(0)
    changed["arguments"][0][0] += " "
    code, doc = _compare(tmp_path, base, [_as_written_since_0_4_4(changed)])
    (record,) = doc["records"]
    assert (code, record["status"], record["lm_eval"]["prompt_differs"]) == (
        1,
        "not-comparable",
        True,
    )
    assert record["lm_eval"]["inputs_differ"] == []


def test_an_old_log_against_a_new_one_reads_the_same_requests_alike(tmp_path: Path) -> None:
    """Failed on base67: every doc was not comparable (the arguments' two layouts, the target
    `0` against `"0"`), exit 1 whatever the model did."""
    samples = [
        _multiple_choice(0),
        _generation(1),
        _sample(2, [[CONTEXT.format(2), " A"]], [[-1.0, True]], [1, 2]),
    ]
    new = [_as_written_since_0_4_4(s) for s in samples]
    code, doc = _compare(tmp_path, samples, new, old_base=True)
    assert (code, _outcome(doc)) == (0, [("match", [])] * 3)
    # The same layouts still tell another request or another target apart.
    other = [
        _multiple_choice(0, (" A", " C")),
        _sample(1, [[CONTEXT.format(1), GENERATE]], ["2"], "3"),
    ]
    code, doc = _compare(
        tmp_path, samples[:2], [_as_written_since_0_4_4(s) for s in other], old_base=True
    )
    assert code == 1
    assert _outcome(doc) == [
        ("not-comparable", ["arguments"]),
        ("not-comparable", ["target", "doc"]),
    ]


def test_two_old_logs_tell_a_number_from_its_string(tmp_path: Path) -> None:
    """Where neither writer made the target a string, `0` (a choice's index) and `"0"` (a
    choice's text) are other targets."""
    base = [_multiple_choice(0)]
    patch = [dict(_multiple_choice(0), target="0")]
    code, doc = _compare(tmp_path, base, patch, old_base=True)
    assert (code, _outcome(doc)) == (1, [("not-comparable", ["target"])])


def test_a_line_without_its_target_or_doc_is_not_comparable(tmp_path: Path) -> None:
    """Failed on base67: the field absent on one side (value and hash) went unchecked, exit 0."""
    base = [_as_written_since_0_4_4(_generation(n)) for n in range(3)]

    def without(row: dict[str, Any], *names: str) -> dict[str, Any]:
        return {key: value for key, value in row.items() if key not in names}

    patch = [
        base[0],
        without(base[1], "target", "target_hash"),
        without(base[2], "doc", "doc_hash"),
    ]
    code, doc = _compare(tmp_path, base, patch)
    assert code == 1
    assert _outcome(doc) == [
        ("match", []),
        ("not-comparable", ["target"]),
        ("not-comparable", ["doc"]),
    ]
    # Either way round, and two lines both without it have nothing to tell apart.
    code, doc = _compare(tmp_path, patch[1:], base[1:])
    assert code == 1 and [r["status"] for r in doc["records"]] == ["not-comparable"] * 2
    code, doc = _compare(tmp_path, patch[1:], patch[1:])
    assert code == 0


def test_a_log_without_arguments_leaves_the_settings_uncompared_so_not_comparable(
    tmp_path: Path,
) -> None:
    """Failed on base68: one log keeps the requests' `arguments`, the other only lm-eval's
    `prompt_hash`: the prompt compared as lm-eval hashes it, the generation settings went
    uncompared, and a patch run at another `temperature` and `until` matched (exit 0). Its
    settings cannot be compared, so the doc is not comparable on its arguments (named
    `arguments-unknown`, never said to have changed); a prompt that differs is the prompt, and
    one that nothing on one side says (neither arguments nor hash) is unknown (left68: it read
    "the prompt differs"): `prompt-unknown`, which covers the arguments with it. Two logs both
    without `arguments` state no settings either (triage69: they matched, exit 0): not
    comparable, `arguments-unknown`."""
    base = [_as_written_since_0_4_4(_generation(n)) for n in range(3)]
    sampled = {**GENERATE, "do_sample": True, "temperature": 1.0, "until": ["\n"]}

    def stripped(row: dict[str, Any], *names: str) -> dict[str, Any]:
        return {key: value for key, value in row.items() if key not in names}

    patch = [
        stripped(_as_written_since_0_4_4(_generation(0, sampled)), "arguments"),
        stripped(_as_written_since_0_4_4(_generation(1, sampled)), "arguments", "prompt_hash"),
        dict(stripped(base[2], "arguments"), prompt_hash=_hash(CONTEXT.format(2) + " ")),
    ]
    code, doc = _compare(tmp_path, base, patch)
    assert code == 1
    assert _outcome(doc) == [
        ("not-comparable", ["arguments-unknown"]),
        ("not-comparable", ["prompt-unknown"]),
        ("not-comparable", []),
    ]
    assert [r["lm_eval"]["prompt_differs"] for r in doc["records"]] == [False, False, True]
    # Either way round; two logs that both lack them do not compare their settings either.
    text = run_k3diff("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert (
        "lm-eval: the request arguments are missing from one log or both (lm-eval writes them "
        "on every line), so its continuations and generation settings (until, max_gen_toks, "
        "temperature, ...) cannot be compared: not comparable" in text.stdout
    )
    assert (
        "lm-eval: the prompt is in one log only (the other holds neither the request arguments "
        "nor prompt_hash), so the prompts cannot be compared: not comparable" in text.stdout
    )
    assert text.stdout.count("lm-eval: the prompt differs") == 1, text.stdout
    code, doc = _compare(tmp_path, patch[1:2], base[1:2])
    assert (code, _outcome(doc)) == (1, [("not-comparable", ["prompt-unknown"])])
    code, doc = _compare(tmp_path, patch[1:2], patch[1:2])
    assert (code, _outcome(doc)) == (1, [("not-comparable", ["arguments-unknown"])])
    code, doc = _compare(tmp_path, patch[:1], base[:1])
    assert (code, _outcome(doc)) == (1, [("not-comparable", ["arguments-unknown"])])
    code, doc = _compare(tmp_path, patch[:1], patch[:1])
    assert (code, _outcome(doc)) == (1, [("not-comparable", ["arguments-unknown"])])
    code, doc = _compare(tmp_path, base[:1], base[:1])
    assert (code, _outcome(doc)) == (0, [("match", [])])


def test_two_logs_without_arguments_are_not_comparable(tmp_path: Path) -> None:
    """Failed on base69: two logs both without `arguments` (lm-eval writes them on every line)
    matched, exit 0, though neither says what it asked of the model: the base run greedy, the
    patch at temperature 1 with another `until`, read as one request. Not comparable,
    `arguments-unknown`, and the text says the arguments are missing from a log."""
    sampled = {**GENERATE, "do_sample": True, "temperature": 1.0, "until": ["\n"]}
    base = [_as_written_since_0_4_4(_generation(n)) for n in range(2)]
    patch = [_as_written_since_0_4_4(_generation(n, sampled)) for n in range(2)]
    for name in ("arguments", "prompt_hash"):
        without = [{k: v for k, v in row.items() if k != name} for row in (*base, *patch)]
        base, patch = without[:2], without[2:]
        code, doc = _compare(tmp_path, base, patch)
        assert code == 1, name
        assert _outcome(doc) == [("not-comparable", ["arguments-unknown"])] * 2, name
    text = run_k3diff("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert "lm-eval: the request arguments are missing from one log or both" in text.stdout


def test_arguments_that_hold_no_argument_are_missing(tmp_path: Path) -> None:
    """Failed on a8f1b365: two logs whose `arguments` hold no argument (`{}`, `[]`, `[{}]`,
    `{"gen_args_0": {}}`, a bare value) matched, exit 0, though they state no more of what was
    asked of the model than logs without them (`arguments-unknown`, triage69). Not comparable,
    `arguments-unknown`, either alone or against a log that holds its arguments."""
    whole = [_as_written_since_0_4_4(_generation(n)) for n in range(2)]
    hollows: list[Any] = [
        {},
        [],
        [{}],
        [[]],
        {"gen_args_0": {}},
        {"gen_args_0": {"arg_0": None}},
        0,
    ]
    for empty in hollows:
        hollow = [dict(row, arguments=empty) for row in whole]
        code, doc = _compare(tmp_path, hollow, hollow)
        assert (code, _outcome(doc)) == (1, [("not-comparable", ["arguments-unknown"])] * 2), empty
        code, doc = _compare(tmp_path, whole, hollow)
        assert (code, _outcome(doc)) == (1, [("not-comparable", ["arguments-unknown"])] * 2), empty
    code, doc = _compare(tmp_path, whole, whole)
    assert (code, _outcome(doc)) == (0, [("match", [])] * 2)
