"""`k3diff sample` says OK only when its samples are what it claims, and says what a reviewer
should know of the conditions they were taken under (a fresh-clone trial found each of these
ending "OK" without a word):

- answers out of step (a server or proxy answering one request twice): each is refused and its
  request sent again; the summary counts them per side, in text and JSON, and the log keeps
  the count per sample (`out_of_step`);
- a side whose answers of one record name several models: triage refuses such a log, so the
  run fails (exit 1, `MIXED MODELS`); one model on the base and another on the patch is a note
  (triage keeps those records from clearing, it refuses nothing);
- request fields sent differently to the two sides: a note before the first request and in the
  summary (triage keeps those records from clearing), the verdict unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from cli_support import run_k3diff
from triage.helpers import compare_texts, completion

from k3diff.documents.catalog import load_schema

from .support import flat, headline, read_samples, sample, write_prompts


def _json_run(*args: str | Path) -> tuple[int, dict[str, Any], str]:
    """`k3diff sample ARGS --format json`: exit code, document (valid against its schema, each
    log line against the log's), stderr."""
    result = sample(*args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    document = json.loads(result.stdout)
    validator = jsonschema.Draft202012Validator
    jsonschema.validate(document, load_schema("sample"), cls=validator)
    lines = (Path(document["out"]) / "samples.jsonl").read_text().splitlines()
    for line in lines:
        jsonschema.validate(json.loads(line), load_schema("samples"), cls=validator)
    return result.exit_code, document, result.stderr


def test_answers_out_of_step_are_counted_per_side(
    hostile_server: str, fault_server: Any, tmp_path: Path
) -> None:
    """The base answers every request twice (a proxy answering twice): each extra answer is
    read as the next request's, refused, and that request sent again on a new connection."""
    patch = fault_server()
    records = [{"key": f"k{i}", "prompt": f"p{i}", "hostile": "twice"} for i in range(3)]
    prompts = write_prompts(tmp_path / "p.jsonl", records)
    args = ("--base", hostile_server, "--patch", patch.url, "--prompts", prompts,
            "--repeats", "3", "--metrics-url", "off")  # fmt: skip
    code, document, _ = _json_run(*args, "--out", tmp_path / "json")
    assert code == 0  # every sample is its own request's answer: a note, not a failure
    _, lines = read_samples(tmp_path / "json")
    assert all(line["error"] is None for line in lines)
    # No other fault: every retry was an answer out of step, so the attempts beyond the first
    # count them; the patch's server answers once, the base's twice.
    retried = {side: sum(line["attempts"] - 1 for line in lines if line["side"] == side)
               for side in ("base", "patch")}  # fmt: skip
    assert retried["base"] > 0 and retried["patch"] == 0
    assert document["out_of_step"] == retried
    logged = sum(line.get("out_of_step", 0) for line in lines if line["side"] == "base")
    assert logged == retried["base"]
    assert document["verdict"] == {"ok": True, "exit_code": 0}

    text = sample(*args, "--out", tmp_path / "text")
    assert text.exit_code == 0, text.stderr
    _, lines = read_samples(tmp_path / "text")
    base = sum(line["attempts"] - 1 for line in lines if line["side"] == "base")
    said = headline(text.stdout)
    assert said.startswith("OK: ")
    assert (
        f"out of step: base {base}, patch 0 answers arrived before their request was sent (a "
        "server or proxy answering one request more than once): each was refused and its "
        "request sent again on a new connection"
    ) in said


def test_one_record_answered_as_several_models_fails_the_run_as_triage_refuses_it(
    fault_server: Any, tmp_path: Path
) -> None:
    """Replicas behind the base's URL serve two checkpoints in turn: triage refuses a side
    whose samples of one record name two models, so the run that took them is no pass."""
    base, patch = fault_server("--model-cycle", "m,ckpt-8"), fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    args = ("--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "4",
            "--metrics-url", "off")  # fmt: skip
    code, document, _ = _json_run(*args, "--out", tmp_path / "json")
    assert code == 1
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    assert document["summary"]["failed"] == 0  # every answer taken: their models fail the run
    assert document["models"]["base"] == {
        "answered": {"m": 2, "ckpt-8": 2},
        "unnamed": 0,
        "torn_streams": 0,
        "requested": ["m"],
        "mixed": ["k0"],
    }
    assert document["models"]["patch"]["answered"] == {"m": 4}
    assert document["models"]["patch"]["mixed"] == []

    text = sample(*args, "--out", tmp_path / "text")
    assert text.exit_code == 1, text.stderr
    said = headline(text.stdout)
    assert said.startswith("MIXED MODELS: 8 of 8 planned samples taken")
    assert (
        'models: base answered as "m" (2), "ckpt-8" (2), requested "m", patch answered as "m" '
        "(4); base answered 1 record as more than one model: triage refuses such samples"
    ) in said
    # Triage agrees: it refuses the log this run failed.
    comparison = compare_texts(tmp_path, {"k0": ("echo:p0", "echo:p0")})
    triage = run_k3diff("triage", str(comparison), str(tmp_path / "text" / "samples.jsonl"))
    assert triage.exit_code == 2
    assert 'answered as model one of "m", "ckpt-8"' in triage.stderr


def test_sides_answered_as_different_models_are_a_note(fault_server: Any, tmp_path: Path) -> None:
    """The patch's server names another model every time (a checkpoint copy named by its
    path): triage keeps the record from clearing and refuses nothing, so the run passes and
    says it; and says that a comparison ignoring `model` lets triage clear it (newuser67: it
    said "triage clears none of them" after README's two-model-directory run, whose comparison
    ignores `model` and whose triage cleared them)."""
    base, patch = fault_server(), fault_server("--model", "/ckpt/copy")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    args = ("--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "2",
            "--metrics-url", "off")  # fmt: skip
    code, document, _ = _json_run(*args, "--out", tmp_path / "json")
    assert code == 0
    assert document["models_differ"] == ["k0"]
    assert document["models"]["patch"]["answered"] == {"/ckpt/copy": 2}
    assert document["models"]["patch"]["mixed"] == []
    text = sample(*args, "--out", tmp_path / "text")
    assert text.exit_code == 0, text.stderr
    said = headline(text.stdout)
    assert said.startswith("OK: ")
    assert (
        'models: base answered as "m" (2), patch answered as "/ckpt/copy" (2), requested "m"; '
        "base and patch answered 1 record as different models: triage clears none of them "
        "unless its comparison ignores `model`"
    ) in said
    # The command the note gives, run on the two captures as printed, lets triage clear it
    # (left67b: it gave `--ignore-field model` alone, and the captures' requests still differ).
    command = said.split("compare the two captures again with `", 1)[1].split("`", 1)[0]
    words = command.split()
    assert words[:4] == ["k3diff", "responses", "BASE", "PATCH"], command
    for side, model in (("BASE", "m"), ("PATCH", "/ckpt/copy")):
        answer = {**completion("k0", "echo:p0"), "model": model}
        line = {"custom_id": "k0", "request": {"body": {"model": model, "prompt": "p0"}}}
        (tmp_path / side).write_text(json.dumps({**line, "response": answer}) + "\n")
    alone = run_k3diff(*words[1:4], "--ignore-field", "model", cwd=tmp_path)
    assert alone.exit_code == 1, alone.stdout  # request.model still differs
    compared = run_k3diff(*words[1:], "--format", "json", "-o", "cmp.json", cwd=tmp_path)
    assert compared.exit_code == 0, compared.stdout
    triage = run_k3diff("triage", tmp_path / "cmp.json", tmp_path / "text" / "samples.jsonl")
    assert triage.exit_code == 0, triage.stdout


def test_request_fields_sent_otherwise_to_each_side_are_said_before_and_after(
    fault_server: Any, tmp_path: Path
) -> None:
    base, patch = fault_server(), fault_server()
    records: list[dict[str, Any]] = [
        {"key": "a", "prompt": "a"},
        {"key": "b", "prompt": "b", "top_k": 1},
    ]
    prompts = write_prompts(tmp_path / "p.jsonl", records)
    args = ("--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "2",
            "--base-param", "temperature=0", "--patch-param", "temperature=1",
            "--patch-param", "top_k=5", "--metrics-url", "off")  # fmt: skip
    code, document, stderr = _json_run(*args, "--out", tmp_path / "json")
    assert code == 0  # deliberate in an A/B run: a note
    assert document["side_fields"] == [
        {"field": "temperature", "base": 0, "patch": 1, "records": 2},
        {"field": "top_k", "patch": 5, "records": 1},  # the base sent none: its server's default
        {"field": "top_k", "base": 1, "patch": 5, "records": 1},
    ]
    said = (
        "base and patch {} sent different request fields (temperature: base 0, patch 1; top_k: "
        "base unset, patch 5 on 1 of 2 records; top_k: base 1, patch 5 on 1 of 2 records): "
        "triage clears none of these records"
    )
    notes = [line for line in stderr.splitlines() if "different request fields" in line]
    assert len(notes) == 1 and notes[0].startswith("k3diff: note: " + said.format("are")), notes

    text = sample(*args, "--out", tmp_path / "text")
    assert text.exit_code == 0, text.stderr
    assert said.format("were") in headline(text.stdout)
    assert said.format("are") in flat(text.stderr)

    # The same fields on both sides: nothing said.
    same = sample("--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats",
                  "1", "--param", "temperature=0", "--out", tmp_path / "same")  # fmt: skip
    assert same.exit_code == 0, same.stderr
    assert "different request fields" not in same.stdout + same.stderr
