"""A sample logged as a success whose finish_reason says its text is not whole (a log written
before the finish rule, or edited by hand) is read as a failed sample: not counted, and said.

Counted, base samples cut short (no finish_reason) looked like the base's own nondeterminism
and explained a patch that cuts its answers, so the record passed; less evidence must never
pass: the record is inconclusive (failing under --fail-inconclusive), never cleared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import S, compare_texts, side, write_samples


def _run(
    tmp_path: Path, finish: str | None, header: list[str] | None = None, patch_finish: str = "stop"
) -> tuple[int, dict[str, Any]]:
    compare_texts(tmp_path, {"k1": ("a long answer", "a long")})  # base full, patch cut
    full, cut = "a long answer", "a long"
    samples = [
        S("base", "k1", text, finish=finish if text == cut else "stop") for text in [full, cut] * 4
    ]
    samples += [
        S("patch", "k1", text, finish=patch_finish if text == cut else "stop")
        for text in [full, cut] * 4
    ]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples)
    if header is not None:
        lines = log.read_text().splitlines()
        first = json.loads(lines[0])
        first["run"]["finish_reasons"] = header
        log.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    result = run_k3diff(
        "triage",
        "cmp.json",
        "run/samples.jsonl",
        "--format",
        "json",
        "--fail-inconclusive",
        cwd=tmp_path,
    )
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def test_a_logged_success_without_a_finish_reason_is_not_counted(tmp_path: Path) -> None:
    code, document = _run(tmp_path, None)
    assert code == 1 and document["verdict"]["ok"] is False
    (record,) = document["records"]
    assert record["category"] == "inconclusive"  # counted, they made it base-nondeterministic
    assert record["modes"][0]["base"]["n"] == 4
    assert record["modes"][0]["base"]["errors"] == 4
    (said,) = [q for q in document["qualifications"] if "not counted" in q]
    assert said.startswith("4 samples logged as successes were not counted")
    assert "run/samples.jsonl:3: logged as a success, but the answer has no finish_reason" in said


def test_an_unknown_or_gave_up_finish_reason_is_not_counted(tmp_path: Path) -> None:
    for reason in ("null", "abort", "\u200b"):
        code, document = _run(tmp_path, reason)
        assert code == 1, reason
        assert document["records"][0]["modes"][0]["base"]["errors"] == 4, reason


def test_a_reason_the_header_adds_counts_as_whole(tmp_path: Path) -> None:
    """`--finish-reason model_length` was recorded in the header: the sample counts, so the
    base's nondeterminism explains the patch (as when it said stop; the patch's cut answers
    end as the base's do: a finish reason the base never gave a text with is output the base
    never gave, `test_finish_reason_shift`)."""
    _, plain = _run(tmp_path, "model_length", header=["model_length"], patch_finish="model_length")
    (tmp_path / "stop").mkdir()
    _, stopped = _run(tmp_path / "stop", "stop")
    assert plain["records"][0]["category"] == stopped["records"][0]["category"]
    assert plain["records"][0]["modes"][0]["base"]["errors"] == 0
    assert not any("not counted" in q for q in plain["qualifications"])


def test_a_header_adding_a_gave_up_reason_is_refused(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"k1": ("a", "a")})
    log = write_samples(
        tmp_path / "s.jsonl", side("k1", "base", ["a"]) + side("k1", "patch", ["a"])
    )
    lines = log.read_text().splitlines()
    first = json.loads(lines[0])
    first["run"]["finish_reasons"] = ["abort"]
    log.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    result = run_k3diff("triage", "cmp.json", "s.jsonl", cwd=tmp_path)
    assert result.exit_code == 2
    assert "s.jsonl:1: 'finish_reasons'" in result.stderr
