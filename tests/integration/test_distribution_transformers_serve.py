"""Triage's distribution test against a real inference server: `transformers serve` sampling at
temperature 1 (issue 37's integration case).

- Same distribution: base and patch are one server (the suite's tiny model). Every sample is a
  new text on both sides, the texts differ, and triage must not call it a `distribution-shift`:
  exit 0, with the MMD test's own statement of what it could have detected.
- Changed sampling default: the patch is the same weights with `top_k: 2` in the model's
  generation config (`serve.TOP_K`; the server has no request field for top-k, so the
  request's temperature 1 leaves it in force). Before triage is trusted, the test checks on its
  own that the patch samples differently: one seeded request gives the base's text twice and
  another text from the patch on every prompt. Triage: every record `distribution-shift`, exit 1,
  and the bundle's bottom line fails them.

- Few samples (stop 59): the top-k patch at 5 samples a side, α = 0.05, passed with exit 0; its
  test could detect only 92 % of the answers moved. Now held no-power (exit 1), and it passes
  only where the run is judged at a --shift above what its test could detect.

Both runs use α = 0.001, so the control fails by chance in at most 0.1 % of runs (the test
cannot seed the server's sampling without making every serial sample identical). Power of the
shifted case, measured while building the test: 24 samples a side on each of 3 prompts, the
pooled test (labels permuted within each prompt) at α / 4 = 0.00025 rejected in 40 of 40
subsamples of 60 samples a side (single prompts: 40 of 40); top-k 5 at the same n rejected in
24 of 40 only, so the patch is top-k 2. The same server passes only where its test could detect
--shift 0.35: at α / 4 the plan's exact Fisher figure is 38 a side, and the MMD test on these
answers detected 38-40 % at 24 a side, 30-32 % at 32, 28-32 % at 40 and 22-24 % at 48
(measured for stop 59), so both runs take 48. Sampling 64 a side took 8 s. Since mmdpower75 the
stated figure is honest (the permutation test's own law against a new answer as like the base as
its most typical sample): about 36 % at 48, so the same-server run is judged at --shift 0.45.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_support import run_k3diff

from .serve import InferenceServer

pytestmark = pytest.mark.xdist_group("inference_server")

ALPHA = "0.001"
REPEATS = 48
FEW = 5
"""Samples a side at which the top-k patch passed (exit 0) before stop 59."""
MAX_TOKENS = 12
PROMPTS: list[dict[str, Any]] = [
    {"key": "fox", "prompt": "the quick brown fox"},
    {"key": "dog", "prompt": "a lazy dog"},
    {"key": "engines", "prompt": "engines sample tokens"},
]


def _complete(client: httpx.Client, prompt: str, **fields: Any) -> dict[str, Any]:
    body = {"prompt": prompt, "max_tokens": MAX_TOKENS, "temperature": 1, **fields}
    response = client.post("/v1/completions", json=body)
    assert response.status_code == 200, response.text
    raw: dict[str, Any] = response.json()
    return raw


def _capture(server: InferenceServer, out: Path) -> None:
    """One temperature-1 response per prompt, as `k3diff responses` reads them."""
    lines = []
    with httpx.Client(base_url=server.base_url, timeout=120) as client:
        for p in PROMPTS:
            raw = _complete(client, p["prompt"])
            body = {"prompt": p["prompt"], "max_tokens": MAX_TOKENS, "temperature": 1}
            lines.append(json.dumps({"key": p["key"], "request": body, "response": raw}))
    out.write_text("".join(line + "\n" for line in lines))


def _run(
    tmp_path: Path,
    base: InferenceServer,
    patch: InferenceServer,
    repeats: int = REPEATS,
    alpha: str = ALPHA,
    shift: str = "0.35",
) -> tuple[int, Any]:
    """capture -> responses -> sample (temperature 1) -> triage; triage's exit and document."""
    (tmp_path / "prompts.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PROMPTS))
    _capture(base, tmp_path / "base.jsonl")
    _capture(patch, tmp_path / "patch.jsonl")
    # The two servers load one model from two directories, and transformers serve names each
    # answer by its directory: the comparison leaves the model name out, so the sides are judged
    # as one model (test_served_model_transformers_serve holds what the names are).
    compared = run_k3diff(
        "responses", tmp_path / "base.jsonl", tmp_path / "patch.jsonl", "--key", "key",
        "--ignore-field", "model", "--format", "json", "-o", tmp_path / "cmp.json",
    )  # fmt: skip
    assert compared.exit_code == 1, compared.stderr  # sampled texts differ
    sampled = run_k3diff(
        "sample", "--base", base.base_url, "--patch", patch.base_url,
        "--prompts", tmp_path / "prompts.jsonl", "--repeats", str(repeats), "--mode", "serial",
        "--param", "temperature=1", "--param", f"max_tokens={MAX_TOKENS}",
        "--out", tmp_path / "run",
    )  # fmt: skip
    assert sampled.exit_code == 0, (sampled.stdout, sampled.stderr)
    assert "the requests sampled (base, patch)" in sampled.stdout
    assert f"this run took {repeats} or more per record and side" in sampled.stdout
    samples = [
        json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()
    ][1:]
    texts: dict[tuple[str, str], set[str]] = {}
    for s in samples:
        assert s["error"] is None and s["status"] == 200, s
        texts.setdefault((s["key"], s["side"]), set()).add(s["text"])
    # Sampling: (nearly) every output new on each side, so set membership says nothing.
    assert all(len(found) >= repeats - 4 for found in texts.values()), texts
    # One server as both sides is an A/A run on purpose here: --allow-same-server, or triage
    # holds every record same-server (server71).
    same = ["--allow-same-server"] if base.base_url == patch.base_url else []
    triaged = run_k3diff(
        "triage", tmp_path / "cmp.json", tmp_path / "run" / "samples.jsonl", "--alpha", alpha,
        "--format", "json", "-o", tmp_path / "triage.json", "--shift", shift, *same,
    )  # fmt: skip
    assert triaged.exit_code in (0, 1), triaged.stderr
    return triaged.exit_code, json.loads((tmp_path / "triage.json").read_text())


def _distribution(record: dict[str, Any]) -> dict[str, Any]:
    (mode,) = record["modes"]
    assert mode["mode"] == "serial" and mode["base"]["n"] == mode["patch"]["n"] == REPEATS
    test: dict[str, Any] = mode["distribution"]
    assert test["test"] == "mmd" and test["sampled"] is True, test
    assert test["pooled_records"] == len(PROMPTS), test
    # 20 / (α / 2 / (3 records + 1 pooled test)) - 1 = 159,999 permutations (sized at the level
    # the sampled tests are judged at, aa78; 79,999 at α / 4 before): past the ceiling, 99,999.
    assert test["permutations"] == 99_999, test
    return test


def test_the_same_server_at_temperature_one_is_no_distribution_shift(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    # At 48 a side the MMD test on these answers detects about 36 % (mmdpower75's honest figure:
    # the test's own law, the new answer as like the base as its most typical sample; stop 59's
    # model said 22-24 %): the A/A run is judged at --shift 0.45.
    code, triage = _run(tmp_path, inference_server, inference_server, shift="0.45")
    assert code == 0, [r["reason"] for r in triage["records"]]
    assert triage["summary"].get("distribution-shift", 0) == 0
    assert triage["distribution_tests"] == len(PROMPTS) + 1
    for record in triage["records"]:
        assert record["category"] == "both-nondeterministic", record["reason"]
        assert record["regression_candidate"] is False
        test = _distribution(record)
        assert test["p_adjusted"] > 0.001 and test["pooled_p_adjusted"] > 0.001, test
        # What the run could have detected, stated in the verdict (its power at this n).
        assert "the requests sampled; no shift detected (MMD test" in record["reason"]
        assert "80 % power against" in record["reason"], record["reason"]
        # A pass: the test could have detected --shift 45 % of the answers moved.
        assert 0.0 < test["detectable_shift"] <= 0.45, test
        assert "no-power" not in record["flags"]


def test_a_changed_top_k_default_is_a_distribution_shift(
    top_k_server: InferenceServer, inference_server: InferenceServer, tmp_path: Path
) -> None:
    # Independently of triage: the generation config's top_k really changes what is sampled.
    with (
        httpx.Client(base_url=inference_server.base_url, timeout=120) as base,
        httpx.Client(base_url=top_k_server.base_url, timeout=120) as patch,
    ):
        for p in PROMPTS:
            first, again = (_complete(base, p["prompt"], seed=7) for _ in range(2))
            other = _complete(patch, p["prompt"], seed=7)
            text = first["choices"][0]["text"]
            assert again["choices"][0]["text"] == text, p  # the seed pins the base's draw
            assert other["choices"][0]["text"] != text, p  # the same draw, top-2 only

    code, triage = _run(tmp_path, inference_server, top_k_server)
    assert code == 1, [r["reason"] for r in triage["records"]]
    assert triage["summary"]["distribution-shift"] == len(PROMPTS)
    for record in triage["records"]:
        assert record["category"] == "distribution-shift", record["reason"]
        assert record["regression_candidate"] is True
        test = _distribution(record)
        assert test["pooled_p_adjusted"] <= 0.001, test
        assert "the patch's outputs do not follow the base's distribution" in record["reason"]

    bundle = tmp_path / "bundle"
    result = run_k3diff(
        "report", tmp_path / "cmp.json", tmp_path / "run" / "samples.jsonl",
        tmp_path / "triage.json", "--out", bundle,
    )  # fmt: skip
    assert result.exit_code == 1, (result.stdout, result.stderr)
    bottom = (bundle / "REPORT.md").read_text().split("## Bottom line", 1)[1].split("\n## ")[0]
    assert bottom.strip().startswith("**FAIL"), bottom
    assert (
        f"distribution tests on {len(PROMPTS)} records ({len(PROMPTS)} sampled, judged at "
        "--shift 35 %): " in bottom
    ), bottom
    assert f"{len(PROMPTS)} shifted" in bottom, bottom


def test_the_top_k_patch_at_few_samples_is_held_no_power(
    top_k_server: InferenceServer, inference_server: InferenceServer, tmp_path: Path
) -> None:
    # Stop 59: at 5 samples a side (α = 0.05, level α / 4) this regression passed with exit 0,
    # its test stating 80 % power only against 92 % of the answers moved. At 5 the tests reject
    # it in some runs (measured: a record or more in 6 of 10 runs, all 3 in 4): every run fails,
    # and a run without a rejection shows the hold, so up to 6 runs are taken until one does.
    for attempt in range(6):
        where = tmp_path / str(attempt)
        where.mkdir()
        code, triage = _run(where, inference_server, top_k_server, FEW, "0.05")
        assert code == 1, [r["reason"] for r in triage["records"]]
        assert triage["shift"] == 0.35
        held = [r for r in triage["records"] if not r["regression_candidate"]]
        for record in held:  # a record the test rejected fails on its own
            assert record["category"] == "inconclusive", record["reason"]
            assert "no-power" in record["flags"], record["reason"]
            (mode,) = record["modes"]
            # At α / 2 / 4 (aa77) the MMD test at 5 a side may detect no shift at all
            # (`detectable_shift` null): the hold is the same, with nothing to scale.
            detectable = mode["distribution"]["detectable_shift"]
            assert detectable is None or detectable > 0.35, mode["distribution"]
            held_why = "above --shift 35 %" if detectable else "less than 80 % power against any"
            assert held_why in mode["reason"], mode["reason"]
            # The larger of the plan's exact Fisher figure at the test's level (25 a side at
            # 0.05 / 2 / 4: aa77 judges a sampled test at α / 2, the novelty test having the
            # other half) and n scaled by (detectable / shift)² (the least shift the MMD test
            # detects falls about as 1/√n): at 5 a side detecting ~92 %, about 35 a side.
            assert mode["distribution"]["level"] == 0.00625
            scaled = 0 if detectable is None else math.ceil(FEW * (detectable / 0.35) ** 2 - 1e-9)
            assert record["more_samples"] == max(25, scaled, FEW + 1) - FEW, record
        if len(held) == len(triage["records"]):
            # What it did before: judged at a shift its test could detect, the same logs pass
            # (where each test could detect some shift: at α / 2 / 4 one may detect none).
            if all(r["modes"][0]["distribution"]["detectable_shift"] for r in held):
                again = run_k3diff(
                    "triage", where / "cmp.json", where / "run" / "samples.jsonl", "--shift", "1"
                )
                assert again.exit_code == 0, again.stdout
            break
