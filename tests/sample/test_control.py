"""`--control`: one prompt K times at temperature 1 with distinct seeds shows the run could
have seen a difference; a replaying cache in front of a live server makes it vacuous, and a
vacuous run never passes (sample exit 1; triage fails every record it would have cleared)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from triage.helpers import compare_texts

from k3diff.sample.modes import CONTROL_SEED, control_body

from .support import read_samples, sample, write_prompts

PROMPTS = [{"key": "k0", "prompt": "p0", "fault": {"output": "seeded"}}]


def _run(tmp_path: Path, base: str, patch: str, *flags: str) -> tuple[int, Any, Path]:
    prompts = write_prompts(tmp_path / "p.jsonl", PROMPTS)
    out = tmp_path / "out"
    result = sample(
        "--base", base, "--patch", patch, "--prompts", prompts, "--repeats", "3",
        "--out", out, "--format", "json", *flags,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout), out


def _triage(tmp_path: Path, out: Path) -> tuple[int, Any]:
    # The seeded fault answers a request without a seed as seed 0.
    comparison = compare_texts(tmp_path, {"k0": ("seeded:x", "seeded:x")})
    result = run_k3diff("triage", str(comparison), str(out / "samples.jsonl"), "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def test_the_control_of_live_servers_varies_and_the_run_passes(
    fault_server: Any, tmp_path: Path
) -> None:
    base, patch = fault_server(), fault_server()
    code, summary, out = _run(tmp_path, base.url, patch.url, "--control", "seeds")
    assert code == 0
    assert summary["vacuous"] == []
    assert summary["control"] == {"base": {"n": 8, "distinct": 8}, "patch": {"n": 8, "distinct": 8}}
    header, lines = read_samples(out)
    control = [line for line in lines if line["mode"] == "control"]
    assert len(control) == 16 and header["control"] == "seeds"
    assert len({line["request_sha256"] for line in control if line["side"] == "base"}) == 8
    code, document = _triage(tmp_path, out)
    assert document["vacuous"] == []
    assert "vacuous" not in document["records"][0]["flags"]


def test_a_replaying_cache_in_front_of_a_live_server_is_vacuous_and_never_passes(
    fault_server: Any, replay_proxy: Any, tmp_path: Path
) -> None:
    live = fault_server()
    cached = replay_proxy(live.url)
    code, summary, out = _run(tmp_path, cached, cached, "--control", "seeds")
    assert summary["vacuous"] == ["base", "patch"]
    assert summary["control"]["base"] == {"n": 8, "distinct": 1}
    assert code == 1
    # Every sample agrees, so the record would be a match; the control says it proves nothing.
    code, document = _triage(tmp_path, out)
    record = document["records"][0]
    assert record["category"] == "inconclusive"
    assert "vacuous" in record["flags"]
    assert record["reason"].startswith("vacuous: the control")
    assert document["summary"]["vacuous"] == 1
    assert code == 1 and document["verdict"] == {"ok": False, "exit_code": 1}
    text = run_k3diff("triage", str(tmp_path / "cmp.json"), str(out / "samples.jsonl"))
    assert "result: VACUOUS: the control came back identical on the base and patch" in text.stdout
    markdown = run_k3diff(
        "triage", str(tmp_path / "cmp.json"), str(out / "samples.jsonl"), "--format", "markdown"
    )
    assert markdown.exit_code == 1 and "(exit 0)" not in markdown.stdout
    assert "**VACUOUS**: the control came back identical on the base and patch" in markdown.stdout
    # The bundle lists the vacuous run as coverage debt in its telemetry/coverage row.
    assert run_k3diff(
        "triage", str(tmp_path / "cmp.json"), str(out / "samples.jsonl"),
        "--format", "json", "-o", str(tmp_path / "triage.json"),
    ).exit_code == 1  # fmt: skip
    bundle = run_k3diff(
        "report", str(tmp_path / "cmp.json"), str(out / "samples.jsonl"),
        str(tmp_path / "triage.json"), "--out", str(tmp_path / "bundle"),
    )  # fmt: skip
    assert bundle.exit_code == 1, bundle.stderr
    matrix = json.loads((tmp_path / "bundle" / "summary.json").read_text())["matrix"]
    row = next(r for r in matrix if r["evidence"] == "telemetry/coverage")
    assert row["status"] == "FAIL"
    assert "coverage debt: vacuous run: the control came back identical" in row["finding"]
    assert row["finding"].count("vacuous run") == 1  # the log's and its triage's: said once
    qualifications = json.loads((tmp_path / "bundle" / "summary.json").read_text())[
        "qualifications"
    ]
    assert sum("came back identical" in q for q in qualifications) == 1
    # Without the triage document the bundle reads the control from the log itself.
    alone = run_k3diff(
        "report", str(tmp_path / "cmp.json"), str(out / "samples.jsonl"),
        "--out", str(tmp_path / "bundle-untriaged"),
    )  # fmt: skip
    assert alone.exit_code == 1
    matrix = json.loads((tmp_path / "bundle-untriaged" / "summary.json").read_text())["matrix"]
    row = next(r for r in matrix if r["evidence"] == "telemetry/coverage")
    assert row["status"] == "FAIL" and "vacuous run" in row["finding"]


def test_a_nonce_control_makes_every_prompt_distinct_and_keeps_the_request_fields() -> None:
    body = {"model": "m", "prompt": "p0", "temperature": 0, "max_tokens": 4}
    seeds = control_body(body, 2, "seeds")
    assert seeds == {**body, "temperature": 1, "seed": CONTROL_SEED + 2}
    one, two = control_body(body, 0, "nonce"), control_body(body, 1, "nonce")
    assert one["prompt"].startswith("p0 [") and one["prompt"] != two["prompt"]
    chat = {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]}
    nonce = control_body(chat, 0, "nonce")
    assert nonce["messages"][0] == {"role": "system", "content": "s"}
    assert nonce["messages"][1]["content"].startswith("u [")
    assert chat["messages"][1]["content"] == "u"  # the record's own body is left alone
