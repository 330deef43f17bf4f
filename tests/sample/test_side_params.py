"""A/B two request settings: `--base-param` / `--patch-param` change one side's requests only
(users compare temperature 0 with top_k 1 on one server); the log records each side's
request, and triage pools each side as it always does."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .support import read_samples, sample, write_prompts

PROMPT = {"key": "s", "prompt": "s", "model": "m", "fault": {"output": "seeded"}}


def _sha(body: dict[str, Any]) -> str:
    """SHA-256 of the canonical request body, computed here from the contract's definition."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _ab_run(url: str, tmp_path: Path, *extra: str) -> Any:
    prompts = write_prompts(tmp_path / "p.jsonl", [PROMPT])
    return sample(
        "--base", url, "--patch", url, "--prompts", prompts, "--repeats", "3",
        "--param", "temperature=0", *extra, "--out", tmp_path / "out",
    )  # fmt: skip


def test_each_side_sends_its_own_fields_and_the_log_says_which(
    fault_server: Any, tmp_path: Path
) -> None:
    result = _ab_run(
        fault_server().url,
        tmp_path,
        "--base-param", "seed=1",
        "--patch-param", "seed=2",
        "--patch-param", "top_k=1",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    run, samples = read_samples(tmp_path / "out")
    assert run["params"] == {"temperature": 0}
    assert run["side_params"] == {"base": {"seed": 1}, "patch": {"seed": 2, "top_k": 1}}
    request = {k: v for k, v in PROMPT.items() if k != "key"}
    base_body = {**request, "temperature": 0, "seed": 1}
    patch_body = {**request, "temperature": 0, "seed": 2, "top_k": 1}
    assert {s["request_sha256"] for s in samples if s["side"] == "base"} == {_sha(base_body)}
    assert {s["request_sha256"] for s in samples if s["side"] == "patch"} == {_sha(patch_body)}
    # The seeded output is a function of the seed: each side stable, the two apart.
    texts = {side: {s["text"] for s in samples if s["side"] == side} for side in ("base", "patch")}
    assert len(texts["base"]) == len(texts["patch"]) == 1 and texts["base"] != texts["patch"]

    (tmp_path / "cmp.json").write_text(
        json.dumps(
            {
                "schema": "k3diff.responses/1",
                "summary": {
                    "records": 1,
                    "paired": 1,
                    "exact_match": 0,
                    "only_base": 0,
                    "only_patch": 0,
                    "differing": 1,
                    "errors": 0,
                },
                "verdict": {"ok": False, "exit_code": 1},
                "records": [
                    {
                        "key": "s",
                        "status": "text-differs",
                        "base": {"text_xxh3": samples[0]["text_xxh3"]},
                        "patch": {"text_xxh3": samples[1]["text_xxh3"]},
                    }
                ],
            }
        )
    )
    triage = run_k3diff("triage", "cmp.json", "out/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert triage.exit_code == 1, triage.stderr  # each side pooled: a deterministic divergence
    assert json.loads(triage.stdout)["records"][0]["category"] == "deterministic-divergence"


def test_a_run_without_side_fields_keeps_its_header_and_resumes(
    fault_server: Any, tmp_path: Path
) -> None:
    url = fault_server().url
    assert _ab_run(url, tmp_path).exit_code == 0
    run, _ = read_samples(tmp_path / "out")
    assert "side_params" not in run
    resumed = _ab_run(url, tmp_path, "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    changed = _ab_run(url, tmp_path, "--resume", "--base-param", "seed=1")
    assert changed.exit_code == 2
    assert "differs from the logged one in --base-param seed (logged absent, now 1)" in (
        changed.stderr
    )


def test_patch_fields_without_a_patch_and_malformed_fields_are_usage_errors(
    tmp_path: Path,
) -> None:
    prompts = write_prompts(tmp_path / "p.jsonl", [PROMPT])
    base = ("--base", "http://127.0.0.1:9", "--prompts", prompts, "--repeats", "1")
    result = sample(*base, "--patch-param", "top_k=1", "--out", tmp_path / "a")
    assert result.exit_code == 2
    assert result.stderr == "k3diff: error: --patch-param needs --patch (the side it changes)\n"
    result = sample(*base, "--base-param", "top_k", "--out", tmp_path / "b")
    assert result.exit_code == 2
    assert "--base-param 'top_k': expected key=value" in result.stderr


def test_one_server_on_both_sides_is_noted_once(fault_server: Any, tmp_path: Path) -> None:
    # Found by the new-user trial: a mistyped port (`--patch` the same URL as `--base`) ran
    # without a word, measuring one server against itself. Deliberate too (A/B by side fields,
    # a control run), so it is one note on stderr, not an error.
    url = fault_server().url
    same = _ab_run(url, tmp_path)
    assert same.exit_code == 0, same.stderr
    notes = [line for line in same.stderr.splitlines() if "the same server" in line]
    assert notes == [
        f"k3diff: note: --base and --patch are the same server ({url}, both loopback port "
        f"{url.rsplit(':', 1)[1]}): the run measures that server against itself, and triage "
        "holds it unless --allow-same-server"
    ]
    (tmp_path / "ab").mkdir()
    sided = _ab_run(f"{url}/v1", tmp_path / "ab", "--patch-param", "top_k=1")
    assert sided.exit_code == 0, sided.stderr
    assert "the same server" not in sided.stderr


def test_a_param_that_streams_one_side_is_refused_for_stream(
    fault_server: Any, tmp_path: Path
) -> None:
    """newuser64b: `--patch-param stream=true` streamed the patch's requests while the log said
    no side streamed; streaming is `--stream`'s, for both sides alike."""
    for option, value in (("--patch-param", "stream=true"), ("--param", "stream_options={}")):
        (tmp_path / option).mkdir()
        result = _ab_run(fault_server().url, tmp_path / option, option, value)
        assert result.exit_code == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and option in lines[0] and "--stream" in lines[0], lines
        assert "Traceback" not in result.stderr
        assert not (tmp_path / option / "out" / "samples.jsonl").exists()
