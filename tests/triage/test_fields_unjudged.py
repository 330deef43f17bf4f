"""A record whose captured texts agree and whose other fields differ (`k3diff responses`:
fields-differ, which fails the comparison) is held fields-unjudged by triage, never cleared:
triage judges texts, so a patch whose tool calls, stop token or model changed under an equal
text passed triage with exit 0 (newuser58c, real `transformers serve` servers serving from two
directories). `--ignore-field` for a field that does not matter clears it; `k3diff report`
recounts the hold from the record's comparison status, so a document that drops it is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from triage.helpers import S, completion, write_samples


def _stopped(key: str, stop_reason: int | None) -> dict[str, Any]:
    """A completion whose choice says which stop token ended it (vLLM's `stop_reason`)."""
    answer = completion(key, "A")
    answer["choices"][0]["stop_reason"] = stop_reason
    return answer


def _write(tmp_path: Path, base: list[dict[str, Any]], patch: list[dict[str, Any]]) -> None:
    for name, rows in (("base", base), ("patch", patch)):
        lines = "".join(json.dumps({"key": r["id"], "response": r}) + "\n" for r in rows)
        (tmp_path / f"{name}.jsonl").write_text(lines)


def _compare(tmp_path: Path, *extra: str) -> int:
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--key", "key", "--format", "json",
        "-o", "cmp.json", *extra, cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code


def _samples(tmp_path: Path, text: str, models: dict[str, str] | None = None) -> Path:
    """Three samples of `text` a side, answered as `models` per side (default: the helpers'
    `m`, the model `completion` captures name)."""
    samples = [S(side, "q", text) for side in ("base", "patch") for _ in range(3)]
    return write_samples(tmp_path / "run" / "samples.jsonl", samples, models=models)


def test_fields_that_differ_under_equal_texts_fail_triage(tmp_path: Path) -> None:
    _write(tmp_path, [_stopped("q", None)], [_stopped("q", 50256)])
    assert _compare(tmp_path) == 1
    log = _samples(tmp_path, "A")
    result = run_k3diff("triage", "cmp.json", str(log), "--format", "json", cwd=tmp_path)
    (record,) = json.loads(result.stdout)["records"]
    assert result.exit_code == 1, record["reason"]
    assert record["category"] == "inconclusive"
    assert "fields-unjudged" in record["flags"]
    assert "stop_reason" in record["reason"]
    text = run_k3diff("triage", "cmp.json", str(log), cwd=tmp_path)
    assert text.exit_code == 1
    assert "fields other than the text that differ (fields-unjudged)" in text.stdout


def test_a_field_that_does_not_matter_is_ignored_and_clears(tmp_path: Path) -> None:
    base = [completion("q", "A") | {"model": "/srv/base"}]
    patch = [completion("q", "A") | {"model": "/srv/patch"}]
    _write(tmp_path, base, patch)
    assert _compare(tmp_path) == 1
    # Each side sampled from its own server, answering as its own directory.
    log = _samples(tmp_path, "A", {"base": "/srv/base", "patch": "/srv/patch"})
    held = run_k3diff("triage", "cmp.json", str(log), "--format", "json", cwd=tmp_path)
    assert held.exit_code == 1
    (record,) = json.loads(held.stdout)["records"]
    assert "fields-unjudged" in record["flags"]
    # The reason names the option that clears it (newuser60b: `request.model` needed its own).
    assert "compare again with `k3diff responses --ignore-field model`" in record["reason"]
    assert _compare(tmp_path, "--ignore-field", "model") == 0
    cleared = run_k3diff("triage", "cmp.json", str(log), "--format", "json", cwd=tmp_path)
    assert cleared.exit_code == 0, cleared.stdout
    assert json.loads(cleared.stdout)["records"][0]["category"] == "match"


def test_report_refuses_a_document_that_drops_the_hold(tmp_path: Path) -> None:
    _write(tmp_path, [_stopped("q", None)], [_stopped("q", 50256)])
    _compare(tmp_path)
    log = _samples(tmp_path, "A")
    result = run_k3diff("triage", "cmp.json", str(log), "--format", "json", cwd=tmp_path)
    document = json.loads(result.stdout)
    record = document["records"][0]
    record["category"], record["flags"] = "match", []
    summary = document["summary"]
    summary["inconclusive"], summary["match"] = 0, 1
    summary.pop("held", None)
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    out = run_k3diff("report", "forged.json", "--out", "b", cwd=tmp_path)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "fields-unjudged" in out.stderr


def test_no_sample_clears_the_hold_so_none_is_asked_for(tmp_path: Path) -> None:
    """newuser60b, real `transformers serve` servers: the held record's `more` read 57 and the
    text ended `next: to take the 57 more samples a side the inconclusive records ask for, grow
    the run: ... --resume --repeats 60`, while its reason said no sample clears it."""
    _write(tmp_path, [_stopped("q", None)], [_stopped("q", 50256)])
    _compare(tmp_path)
    log = _samples(tmp_path, "A")
    result = run_k3diff("triage", "cmp.json", str(log), "--format", "json", cwd=tmp_path)
    (record,) = json.loads(result.stdout)["records"]
    assert "fields-unjudged" in record["flags"] and record["more_samples"] is None
    text = run_k3diff("triage", "cmp.json", str(log), cwd=tmp_path)
    assert text.exit_code == 1
    assert "next:" not in text.stdout and "--resume" not in text.stdout


def _called(key: str, text: str, tool: str) -> dict[str, Any]:
    """A chat answer with its text and one tool call."""
    call = {"id": "c0", "type": "function", "function": {"name": tool, "arguments": "{}"}}
    return {
        "id": key,
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
    }


def test_a_tool_call_that_differs_beside_a_text_the_base_also_gave_is_held(
    tmp_path: Path,
) -> None:
    """review64: the patch's tool call went from get_weather to delete_all_files and its text
    from A to B; the base, sampled, gave A and B: triage said base-nondeterminism and report
    "Nothing in this evidence fails", both exit 0. Samples record texts, not tool calls: the
    record is held fields-unjudged, and the bundle fails."""
    _write(tmp_path, [_called("q", "A", "get_weather")], [_called("q", "B", "delete_all_files")])
    assert _compare(tmp_path) == 1
    samples = [S("base", "q", text) for text in "ABABAB"] + [S("patch", "q", "B")] * 6
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples)
    header, *lines = log.read_text().splitlines()
    run = json.loads(header)
    run["run"]["endpoint"] = "chat"
    log.write_text("\n".join([json.dumps(run), *lines]) + "\n")
    result = run_k3diff(
        "triage", "cmp.json", str(log), "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    (record,) = json.loads((tmp_path / "t.json").read_text())["records"]
    assert record["category"] == "inconclusive" and "fields-unjudged" in record["flags"]
    assert record["reason"].startswith(
        "fields-unjudged: besides the captured texts, choice.message.tool_calls[0].function.name "
        "differ (the comparison's text-differs)"
    )
    report = run_k3diff("report", "cmp.json", "t.json", str(log), "--out", "b", cwd=tmp_path)
    assert report.exit_code == 1, report.stderr
    assert "Nothing in this evidence fails" not in (tmp_path / "b" / "REPORT.md").read_text()
