"""A record is one request: the base's samples and the patch's count only for that request.
Where one side's capture records the request and the other's does not, both sides' samples are
checked against the one recorded; and a base sampled with other request fields than the patch
(`--base-param temperature=1`) spreads by its own sampling, which excuses nothing of the patch,
whether or not the captures record their requests (review63)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from k3diff.sample.prompts import prompt_digest

from .helpers import besides_counters, completion, given_side_params, side, write_samples

GREEDY = {"temperature": 0, "max_tokens": 8}


def _log(tmp_path: Path, sent: dict[str, dict[str, Any]], base: list[str]) -> Path:
    """A log of key k0 (prompt p0): the base's serial outputs `base`, the patch's 'B' six times,
    each side's lines logging the request fields `sent[side]` (as `k3diff sample` logs them)."""
    log = write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("k0", "base", base) + side("k0", "patch", ["B"] * 6),
        params={},
    )
    header, *lines = log.read_text().splitlines()
    run = json.loads(header)
    given_side_params(run["run"], sent)
    rows = []
    for text in lines:
        row = json.loads(text)
        row.update(
            prompt_xxh3=prompt_digest("p0"), prompt_preview="p0", request_params=sent[row["side"]]
        )
        rows.append(json.dumps(row))
    log.write_text("\n".join([json.dumps(run), *rows]) + "\n")
    return log


def _compare(tmp_path: Path, base: dict[str, Any], patch: dict[str, Any], code: int = 1) -> None:
    for name, line in (("base", base), ("patch", patch)):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(line) + "\n")
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--key", "custom_id", "--format", "json",
        "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == code, result.stderr


def _triage(tmp_path: Path, *args: str) -> Any:
    return run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", *args, cwd=tmp_path
    )


def test_base_samples_are_checked_against_the_patch_captures_request(tmp_path: Path) -> None:
    """The patch's capture records its greedy request, the base's is a bare answer. The base
    sampled at temperature 1 gave the patch's captured B among its outputs: was exit 0,
    base-nondeterminism, and "the captures record their prompts but not their stream or
    sampling fields", though the patch's capture records them."""
    bare = {**completion("r", "A"), "custom_id": "k0"}
    wrapped = {
        "custom_id": "k0",
        "request": {"prompt": "p0", **GREEDY},
        "response": completion("r", "B"),
    }
    _compare(tmp_path, bare, wrapped)
    _log(tmp_path, {"base": {**GREEDY, "temperature": 1}, "patch": GREEDY}, ["A", "B"] * 3)
    refused = _triage(tmp_path)
    assert refused.exit_code == 2, refused.stdout
    assert "key 'k0' (base): the samples' temperature is 1 but the captured request's" in (
        refused.stderr
    )
    shown = _triage(tmp_path, "--allow-condition-mismatch")
    assert shown.exit_code == 1, shown.stderr
    (record,) = json.loads(shown.stdout)["records"]
    assert record["category"] == "inconclusive"
    assert "samples-of-another-condition" in record["flags"]


def test_a_base_sampled_with_other_fields_than_the_patch_clears_nothing(tmp_path: Path) -> None:
    """Neither capture records its request; the base was sampled at temperature 1, the patch
    greedy, and the base's spread holds the patch's captured B: was exit 0, base-nondeterminism,
    the qualification naming only the base's temperature 1."""
    _compare(
        tmp_path,
        {"custom_id": "k0", "prompt": "p0", "text": "A"},
        {"custom_id": "k0", "prompt": "p0", "text": "B"},
    )
    _log(tmp_path, {"base": {**GREEDY, "temperature": 1}, "patch": GREEDY}, ["A", "B"] * 3)
    result = _triage(tmp_path)
    assert result.exit_code == 1, result.stdout
    (record,) = json.loads(result.stdout)["records"]
    assert record["category"] == "inconclusive"
    assert "samples-of-another-condition" in record["flags"]
    assert record["reason"].startswith(
        "the base's and the patch's samples were sent with other request fields "
        "(temperature: base 1, patch 0): they clear nothing; "
    )
    # More of such samples clear nothing either, so none is asked for (newuser79).
    assert record["more_samples"] is None, record
    # The qualification names both conditions, not the first sample's alone (the other: the
    # flat captures name no model).
    qualification, model = besides_counters(json.loads(result.stdout)["qualifications"])
    assert model.startswith("the captures do not name the model that answered them")
    assert "one of: max_tokens 8, temperature 1, " in qualification
    assert "; max_tokens 8, temperature 0, " in qualification
    report = run_k3diff("report", "cmp.json", "run/samples.jsonl", "--out", "b", cwd=tmp_path)
    assert report.exit_code == 1, report.stderr


def test_sides_sampled_alike_are_unaffected(tmp_path: Path) -> None:
    _compare(
        tmp_path,
        {"custom_id": "k0", "prompt": "p0", "text": "A"},
        {"custom_id": "k0", "prompt": "p0", "text": "B"},
    )
    _log(tmp_path, {"base": GREEDY, "patch": {**GREEDY, "cache_salt": "x"}}, ["A", "B"] * 3)
    result = _triage(tmp_path)
    (record,) = json.loads(result.stdout)["records"]
    assert record["category"] == "base-nondeterminism", record
    assert result.exit_code == 0


def _strip(log: Path, *names: str) -> Path:
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    for row in rows[1:]:
        for name in names:
            row.pop(name, None)
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return log


def test_samples_that_do_not_log_their_prompt_say_so(tmp_path: Path) -> None:
    """A log without `prompt_xxh3` (written before it, or edited) cannot be held to the
    captured prompt: its records are flagged and triage says so. An edited one that kept its
    request fields was checked silently (no flag, no qualification); an older one's
    qualification spoke of request fields alone."""
    request = {"prompt": "p0", **GREEDY}
    _compare(
        tmp_path,
        {"custom_id": "k0", "request": request, "response": completion("r", "A")},
        {"custom_id": "k0", "request": request, "response": completion("r", "B")},
    )
    log = _log(tmp_path, {"base": GREEDY, "patch": GREEDY}, ["A", "B"] * 3)
    edited = _strip(log, "prompt_xxh3", "prompt_preview")
    result = _triage(tmp_path)
    (record,) = json.loads(result.stdout)["records"]
    assert "condition-unchecked" in record["flags"]
    (qualification,) = besides_counters(json.loads(result.stdout)["qualifications"])
    assert "do not log their prompts (1 record)" in qualification, qualification
    old = _strip(edited, "request_params")
    result = _triage(tmp_path)
    (qualification,) = besides_counters(json.loads(result.stdout)["qualifications"])
    assert qualification.startswith("the samples do not log their request fields (1 record)")
    assert qualification.endswith(
        "; the samples do not log their prompts (1 record): that they repeat the captured "
        "prompts could not be checked"
    )
    assert old == log


def test_a_match_of_sides_sent_other_fields_explains_no_captured_difference(
    tmp_path: Path,
) -> None:
    """The patch ignores its `stop` (the regression): captured, the base stopped at A and the
    patch ran on to B. Sampled, the patch was sent the capture's stop and the base was not, so
    both ran on to B: the base's samples are of another request than the patch's and do not
    say that the base gives B for the captured one. Was `match`, exit 0, the captured
    difference cleared by a base sent other fields (review80a)."""
    _compare(
        tmp_path,
        {"custom_id": "k0", "prompt": "p0", "text": "A"},
        {"custom_id": "k0", "prompt": "p0", "text": "B"},
    )
    _log(tmp_path, {"base": GREEDY, "patch": {**GREEDY, "stop": ["\n"]}}, ["B"] * 6)
    result = _triage(tmp_path)
    (record,) = json.loads(result.stdout)["records"]
    assert record["category"] == "inconclusive", record
    assert "samples-of-another-condition" in record["flags"]
    assert record["reason"].startswith(
        "the base's and the patch's samples were sent with other request fields "
        '(stop: base unset, patch ["\\n"]): they clear nothing; '
    ), record["reason"]
    assert record["more_samples"] is None, record
    assert result.exit_code == 1, result.stdout


def test_a_match_of_sides_sent_other_fields_stays_where_the_captures_agree(
    tmp_path: Path,
) -> None:
    """Captures that agree leave nothing for the samples to explain: a match stays one."""
    line = {"custom_id": "k0", "prompt": "p0", "text": "B"}
    _compare(tmp_path, line, line, code=0)
    _log(tmp_path, {"base": GREEDY, "patch": {**GREEDY, "stop": ["\n"]}}, ["B"] * 6)
    result = _triage(tmp_path)
    (record,) = json.loads(result.stdout)["records"]
    assert record["category"] == "match", record
    assert "samples-of-another-condition" in record["flags"]
    assert result.exit_code == 0, result.stdout
