"""Records are named as the user names them: a capture paired by prompt hash whose lines carry
the user's own `"id": "r1"` shows `r1` in every output, with the pairing key beside it in JSON.
Printed magnitudes that fail a tolerance are never rounded to zero."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .fixtures import chat, chat_logprobs, write_jsonl


def _line(rid: str, prompt: str, text: str) -> dict[str, Any]:
    return {"id": rid, "prompt": prompt, "text": text, "temperature": 0}


def _write(tmp_path: Path, base: list[Any], patch: list[Any]) -> None:
    write_jsonl(tmp_path / "base.jsonl", base)
    write_jsonl(tmp_path / "patch.jsonl", patch)


def _run(k3diff_cli: Any, tmp_path: Path, fmt: str) -> Any:
    return k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--format", fmt, cwd=tmp_path)


def test_user_ids_name_records_paired_by_prompt_hash(k3diff_cli: Any, tmp_path: Path) -> None:
    prompts = {"r1": "What is the capital of France?", "r2": "Two plus two?", "r3": "Sky?"}
    base = [_line(rid, prompt, "same") for rid, prompt in prompts.items()]
    patch = [
        _line(rid, prompt, "same" if rid != "r2" else "other") for rid, prompt in prompts.items()
    ]
    _write(tmp_path, base, patch)
    doc = json.loads(_run(k3diff_cli, tmp_path, "json").stdout)
    assert doc["pairing"]["key"] == "prompt-hash"
    by_label = {r["label"]: r for r in doc["records"]}
    assert set(by_label) == {"r1", "r2", "r3"}
    # The key still pairs: the prompt's digest, not the label.
    assert all(len(r["key"]) == 32 and r["key"] != r["label"] for r in doc["records"])
    assert by_label["r2"]["status"] == "text-differs"
    for fmt in ("text", "markdown"):
        out = _run(k3diff_cli, tmp_path, fmt).stdout
        assert "r2" in out and by_label["r2"]["key"] not in out, fmt


def test_server_ids_are_not_labels_the_prompt_names_the_record(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    # A completion object's id is the server's, per run: it names nothing.
    prompt = {"prompt": "Capital of France?"}
    _write(
        tmp_path, [chat("chatcmpl-7", "Paris.") | prompt], [chat("chatcmpl-2", "Lyon.") | prompt]
    )
    doc = json.loads(_run(k3diff_cli, tmp_path, "json").stdout)
    assert doc["records"][0]["label"] == "Capital of France?"
    assert "chatcmpl" not in _run(k3diff_cli, tmp_path, "text").stdout.split("\n\n")[1]


def test_per_run_wrapper_ids_that_disagree_are_not_labels(k3diff_cli: Any, tmp_path: Path) -> None:
    _write(
        tmp_path,
        [_line("run1-0", "Sky colour?", "Blue.")],
        [_line("run2-0", "Sky colour?", "Blue.")],
    )
    doc = json.loads(_run(k3diff_cli, tmp_path, "json").stdout)
    assert doc["records"][0]["label"] == "Sky colour?"


def test_custom_id_labels_each_choice(k3diff_cli: Any, tmp_path: Path) -> None:
    def line(answers: list[str]) -> dict[str, Any]:
        body = chat("chatcmpl-x", answers[0])
        body["choices"] = [
            dict(body["choices"][0], index=n, message={"role": "assistant", "content": a})
            for n, a in enumerate(answers)
        ]
        return {"custom_id": "q-7", "response": {"status_code": 200, "body": body}}

    _write(tmp_path, [line(["a", "b"])], [line(["a", "c"])])
    doc = json.loads(_run(k3diff_cli, tmp_path, "json").stdout)
    assert sorted(r["label"] for r in doc["records"]) == ["q-7#0", "q-7#1"]


def test_a_tiny_logprob_change_that_fails_prints_as_itself(k3diff_cli: Any, tmp_path: Path) -> None:
    base = chat_logprobs([("a", -0.1, [("a", -0.1)]), ("b", -0.2, [("b", -0.2)])])
    moved = chat_logprobs([("a", -0.1 + 4.8e-7, [("a", -0.1)]), ("b", -0.2, [("b", -0.2)])])
    _write(tmp_path, [chat("c", "ab", logprobs=base)], [chat("c", "ab", logprobs=moved)])
    result = _run(k3diff_cli, tmp_path, "text")
    assert result.exit_code == 1
    assert "max |Δ| 4.8e-07 at token 0, beyond --logprob-tol 0" in result.stdout
    assert "0.000000" not in result.stdout
