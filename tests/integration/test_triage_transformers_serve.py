"""`k3diff triage` end to end against real inference servers: capture, compare, sample, triage, report.

Two configurations (serve.py):

- a regression: the suite's server as base and a second server with the same weights but a
  repetition penalty in its generation config as patch, greedy (temperature 0). A greedy path that
  would repeat a token goes another way on the patch, so some prompts' outputs differ, stably on
  each side: `deterministic-divergence`, exit 1. Other prompts agree (`match`), among them one that
  sets `frequency_penalty: 0`, which overrides the patch's penalty, so it agrees by construction.
- nondeterminism: the same server as base and patch at temperature 1 without a seed: every side
  gives new outputs, so the mismatches are the base's own nondeterminism, exit 0.

Each step is the real CLI on the previous step's real documents; what a verdict claims is checked
against the captures and the sample log, read back here.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_support import run_k3diff

from k3diff.responses.model import text_digest

from .serve import InferenceServer

pytestmark = pytest.mark.xdist_group("inference_server")

MAX_TOKENS = 12
REPEATS = 3
SAMPLED_REPEATS = 40
"""Samples a side at temperature 1: enough for the distribution test to have power against
--shift 0.35 (a pass needs it). The plan's exact Fisher figure at α / 3 tests is 22; the MMD test
on these answers needs more (measured on this server: 48 % at 16 a side, 34 % at 24, 28 % at 32,
24 % at 40; sampling 64 a side took 8 s). Since mmdpower75 the stated power is the permutation
test's own against a rewording as like the base as its most typical answer: at 48 a side these
answers gave 36 % (the integration test of the distribution), so this test asks for 50 %."""
SAMPLED_SHIFT = 0.5
"""The `--shift` the sampled triage is judged at: one `SAMPLED_REPEATS` a side can support."""
GREEDY_PROMPTS: list[dict[str, Any]] = [
    # The penalty changes these greedy paths (found on the tiny model; the test checks it below).
    {"key": "fox", "prompt": "the quick brown fox"},
    {"key": "engines", "prompt": "engines sample tokens"},
    {"key": "kernels", "prompt": "kernels batch requests"},
    # Its greedy path repeats nothing: the penalty leaves it alone.
    {"key": "dog", "prompt": "a lazy dog"},
    # The request's frequency_penalty overrides the server's repetition penalty on both sides.
    {"key": "fox-pinned", "prompt": "the quick brown fox", "frequency_penalty": 0},
]
PENALIZED = {"fox", "engines", "kernels"}
NONDETERMINISM_PROMPTS: list[dict[str, Any]] = [
    {"key": "fox", "prompt": "the quick brown fox"},
    {"key": "dog", "prompt": "a lazy dog"},
]
NONDETERMINISTIC = {"base-nondeterminism", "both-nondeterministic"}


def _requests(prompts: list[dict[str, Any]], temperature: float) -> list[dict[str, Any]]:
    return [{**p, "max_tokens": MAX_TOKENS, "temperature": temperature} for p in prompts]


def _capture(server: InferenceServer, requests: list[dict[str, Any]], out: Path) -> dict[str, str]:
    """POST each request once; write `{key, request, response}` lines (the responses loaders'
    wrapped shape) to OUT; return each key's text."""
    texts: dict[str, str] = {}
    lines = []
    with httpx.Client(base_url=server.base_url, timeout=120) as client:
        for request in requests:
            body = {k: v for k, v in request.items() if k != "key"}
            response = client.post("/v1/completions", json=body)
            assert response.status_code == 200, response.text
            raw = response.json()
            texts[request["key"]] = raw["choices"][0]["text"]
            lines.append(json.dumps({"key": request["key"], "request": body, "response": raw}))
    out.write_text("".join(line + "\n" for line in lines))
    return texts


def _compare(
    tmp_path: Path,
    base: InferenceServer,
    patch: InferenceServer,
    temperature: float,
    prompts: list[dict[str, Any]],
    *options: str,
) -> tuple[dict[str, str], dict[str, str]]:
    requests = _requests(prompts, temperature)
    (tmp_path / "prompts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in requests))
    base_texts = _capture(base, requests, tmp_path / "base.jsonl")
    patch_texts = _capture(patch, requests, tmp_path / "patch.jsonl")
    differs = base_texts != patch_texts
    assert _responses(tmp_path, *options) == (1 if differs else 0)
    return base_texts, patch_texts


def _responses(tmp_path: Path, *options: str) -> int:
    result = run_k3diff(
        "responses", tmp_path / "base.jsonl", tmp_path / "patch.jsonl", "--key", "key",
        "--format", "json", "-o", tmp_path / "cmp.json", *options,
    )  # fmt: skip
    assert result.exit_code in (0, 1), (result.stdout, result.stderr)
    return result.exit_code


def _sample(
    tmp_path: Path, base: InferenceServer, patch: InferenceServer, repeats: int = REPEATS
) -> list[dict[str, Any]]:
    out = tmp_path / "run"
    shutil.rmtree(out, ignore_errors=True)
    result = run_k3diff(
        "sample", "--base", base.base_url, "--patch", patch.base_url,
        "--prompts", tmp_path / "prompts.jsonl", "--repeats", str(repeats), "--mode", "serial",
        "--out", out, "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, (result.stdout, result.stderr)
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    samples = [line for line in lines[1:] if "schema" not in line]
    assert all(s["error"] is None and s["status"] == 200 for s in samples), samples
    return samples


def _distinct(samples: list[dict[str, Any]]) -> dict[tuple[str, str], set[str]]:
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for s in samples:
        assert s["text_xxh3"] == text_digest(s["text"])
        seen[(s["key"], s["side"])].add(s["text"])
    return seen


def _triage(tmp_path: Path, *options: str) -> tuple[int, dict[str, Any]]:
    result = run_k3diff(
        "triage", tmp_path / "cmp.json", tmp_path / "run" / "samples.jsonl", "--format", "json",
        "-o", tmp_path / "triage.json", *options,
    )  # fmt: skip
    assert result.exit_code in (0, 1), (result.stdout, result.stderr)
    return result.exit_code, json.loads((tmp_path / "triage.json").read_text())


def _report(tmp_path: Path, *options: str) -> tuple[int, str]:
    bundle = tmp_path / "bundle"
    result = run_k3diff(
        "report", tmp_path / "cmp.json", tmp_path / "run" / "samples.jsonl",
        tmp_path / "triage.json", "--out", bundle, *options,
    )  # fmt: skip
    assert result.exit_code in (0, 1), (result.stdout, result.stderr)
    return result.exit_code, (bundle / "REPORT.md").read_text()


def _records(triage: dict[str, Any]) -> dict[str, dict[str, Any]]:
    records = {r["key"]: r for r in triage["records"]}
    assert len(records) == len(triage["records"])
    return records


def _check_numbers(
    record: dict[str, Any], distinct: dict[tuple[str, str], set[str]], repeats: int = REPEATS
) -> None:
    """The serial verdict's numbers are present and agree with the sample log (the capture is
    evidence of its own, not one of the n)."""
    (mode,) = record["modes"]
    assert mode["mode"] == "serial"
    for side in ("base", "patch"):
        numbers = mode[side]
        assert (numbers["n"], numbers["errors"]) == (repeats, 0), (side, record)
        assert numbers["distinct"] == len(distinct[(record["key"], side)]), (side, record)
        low, high = numbers["deviation_ci"]
        assert 0.0 <= low <= high <= 1.0
    assert 0.0 <= mode["p"] <= 1.0 and 0.0 <= mode["p_adjusted"] <= 1.0


def test_a_differently_configured_server_is_a_deterministic_divergence_where_outputs_differ(
    penalty_server: InferenceServer, inference_server: InferenceServer, tmp_path: Path
) -> None:
    # The two servers serve the model from two directories, and name it in `model`: compared
    # as it is, every record differs in that field, and triage holds the records whose texts
    # agree (fields-unjudged: it judges texts); the user leaves the field out.
    base_texts, patch_texts = _compare(
        tmp_path, inference_server, penalty_server, 0, GREEDY_PROMPTS
    )
    differing = {key for key in base_texts if base_texts[key] != patch_texts[key]}
    distinct = _distinct(_sample(tmp_path, inference_server, penalty_server))
    code, triage = _triage(tmp_path)
    held = {r["key"] for r in triage["records"] if "fields-unjudged" in r["flags"]}
    assert code == 1 and held == set(base_texts) - differing, triage["records"]
    assert _responses(tmp_path, "--ignore-field", "model") == 1
    # What the configuration implies: the penalty moves the repeating greedy paths, and a request
    # that pins frequency_penalty gets the same output from both servers.
    assert differing == PENALIZED, (base_texts, patch_texts)
    for key in base_texts:  # greedy: one output per side, the captured one
        assert distinct[(key, "base")] == {base_texts[key]}, key
        assert distinct[(key, "patch")] == {patch_texts[key]}, key

    code, triage = _triage(tmp_path)
    assert code == 1
    records = _records(triage)
    assert set(records) == set(base_texts)
    for key, record in records.items():
        expected = "deterministic-divergence" if key in differing else "match"
        assert record["category"] == expected, record
        assert record["regression_candidate"] is (key in differing), record
        # The texts decide, the `model` field left out.
        status = "text-differs" if key in differing else "match"
        assert record["comparison_status"] == status, record
        _check_numbers(record, distinct)
        for side in ("base", "patch"):
            numbers = record["modes"][0][side]
            assert numbers["distinct"] == 1 and numbers["modal_share"] == 1.0, record
            # 1 - alpha^(1/(n-1)) at the default alpha 0.05, computed here, not by the tool
            bound = 1 - 0.05 ** (1 / (REPEATS - 1))
            assert numbers["nonmodal_bound"] == pytest.approx(bound), record
        assert record["serial_parity"] is (key not in differing), record
    assert triage["summary"]["serial_agree"] == len(base_texts) - len(differing)

    code, report = _report(tmp_path)
    assert code == 1
    bottom = _bottom_line(report)
    assert bottom.startswith("**FAIL"), bottom
    assert f"{len(differing)} regression candidates: " in bottom, bottom
    # The last "regression candidates: " names them (an earlier one may name their categories).
    named = bottom.rsplit("regression candidates: ", 1)[1].split("\n", 1)[0]
    assert set(named.replace(";", ",").split(", ")) >= differing, bottom
    assert not any(key in named.split(", ") for key in set(base_texts) - differing), bottom


def test_the_same_server_at_temperature_one_is_nondeterminism_not_a_regression(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    base_texts, patch_texts = _compare(
        tmp_path, inference_server, inference_server, 1, NONDETERMINISM_PROMPTS
    )
    # The comparison fails (exit 1, checked in _compare): the captures differ, as sampling does.
    assert all(base_texts[key] != patch_texts[key] for key in base_texts), (base_texts, patch_texts)
    # At 3 samples a side the distribution test cannot reject (no labelling gives p below
    # 2 / C(6, 3) = 0.1): its silence is no evidence, so nothing is cleared (no-power, exit 1).
    # One server as both sides on purpose (an A/A run): --allow-same-server, or triage holds
    # every record same-server (server71).
    _sample(tmp_path, inference_server, inference_server)
    code, triage = _triage(tmp_path, "--allow-same-server")
    assert code == 1
    for record in _records(triage).values():
        assert record["category"] == "inconclusive", record
        assert "no-power" in record["flags"], record
        assert record["modes"][0]["distribution"]["detectable_shift"] is None, record
    # With enough samples the test could have seen --shift 50 % and did not: nondeterminism.
    distinct = _distinct(_sample(tmp_path, inference_server, inference_server, SAMPLED_REPEATS))
    for key in base_texts:  # no seed: new outputs nearly every time, on each side
        assert len(distinct[(key, "base")]) >= 2, distinct
        assert len(distinct[(key, "patch")]) >= 2, distinct

    code, triage = _triage(tmp_path, "--allow-same-server", "--shift", str(SAMPLED_SHIFT))
    assert code == 0
    records = _records(triage)
    assert set(records) == set(base_texts)
    for record in records.values():
        assert record["category"] in NONDETERMINISTIC, record
        assert record["regression_candidate"] is False, record
        assert record["modes"][0]["distribution"]["detectable_shift"] <= SAMPLED_SHIFT, record
        _check_numbers(record, distinct, SAMPLED_REPEATS)
        base = record["modes"][0]["base"]
        assert base["distinct"] >= 2 and base["modal_share"] < 1.0, record
        assert 0.0 < record["good_turing_base"] <= 1.0, record
        # transformers serve returns no logprobs (null, asked or not): the split tree counts
        # characters, one branch per non-modal output, margins unknown.
        tree = record["modes"][0]["splits"]["base"]
        assert tree["unit"] == "character", tree
        assert len(tree["branches"]) == base["distinct"] - 1, tree
        assert (
            sum(b["samples"] for b in tree["branches"]) + tree["modal_samples"] == SAMPLED_REPEATS
        )
        assert all(b["margin"] is None for b in tree["branches"]), tree

    # The triage's --allow-same-server is its author's word: held without the reviewer's (gate74).
    assert _report(tmp_path)[0] == 1
    code, report = _report(tmp_path, "--allow-same-server")
    bottom = _bottom_line(report)
    # report holds a sampled pass to the house --shift 35 % (hunt76): a record whose test
    # could detect only up to --shift 50 % is held no-power there.
    held = [
        k for k, r in records.items() if r["modes"][0]["distribution"]["detectable_shift"] > 0.35
    ]
    if held:
        assert code == 1, bottom
        assert "at the house --shift 35 % and --power 80 % (the document's 50 % and 80 %)" in bottom
        return
    assert code == 0
    # One server as both sides: the bottom line says it was an A/A run (small71).
    assert bottom.startswith("**A/A run of one server (report --allow-same-server): "), bottom
    assert "validates no patched build; nothing in it fails its policy" in bottom, bottom
    assert "regression candidate" not in bottom, bottom
    every = "both" if len(base_texts) == 2 else f"all {len(base_texts)}"  # numbers.all_of's words
    assert (
        f"text differs on {len(base_texts)} of {len(base_texts)} records; {every} are" in bottom
    ), bottom
    assert "base nondeterminism" in bottom or "nondeterministic on both sides" in bottom, bottom


def _bottom_line(report: str) -> str:
    """REPORT.md's "Bottom line" section."""
    return report.split("## Bottom line", 1)[1].split("\n## ", 1)[0].strip()
