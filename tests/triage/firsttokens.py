"""Sample logs whose lines carry the first position's logprobs, as `k3diff sample` writes them
from a server that reports them: each sample's first token drawn from a known distribution,
its `trace` holding the reported alternatives of that position."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from triage.helpers import S, compare_texts, write_samples

Dist = dict[str, float]
"""First token -> probability (summing to at most 1)."""

BASE: Dist = {" The": 0.42, " A": 0.3, " It": 0.18, " In": 0.1}
SHARPER: Dist = {" The": 0.83, " A": 0.1, " It": 0.05, " In": 0.02}
"""A sampler that sharpens BASE (total variation 0.41 from it)."""
PROMPTS = ("p1", "p2", "p3")


def draw(rng: np.random.Generator, dist: Dist, n: int) -> list[str]:
    """n first tokens sampled from `dist` (its mass below 1 goes to ' Other')."""
    names = [*dist, " Other"]
    probs = [*dist.values(), max(0.0, 1.0 - sum(dist.values()))]
    return [str(t) for t in rng.choice(names, size=n, p=probs)]


def trace(token: str, reported: Dist | None) -> dict[str, Any]:
    """A sample line's `trace` for an answer starting with `token` (None: no logprobs)."""
    if reported is None:
        return {"positions": 2, "kept": 2, "token_ids": [1, 2], "tokens": None,
                "logprobs": None, "margins": None}  # fmt: skip
    top = sorted(reported.items(), key=lambda kv: -kv[1])
    chosen = math.log(reported[token]) if token in reported else math.log(1e-4)
    return {
        "positions": 2,
        "kept": 2,
        "token_ids": [1, 2],
        "tokens": [token, " end"],
        "logprobs": [round(chosen, 6), -0.1],
        "margins": [None, None],
        "first_top": [[t, round(math.log(p), 6)] for t, p in top],
    }


def write_run(
    tmp_path: Path,
    seed: int,
    patch_samples: Dist,
    n: int = 12,
    base_samples: Dist = BASE,
    base_reports: Dist | None = BASE,
    patch_reports: Dist | None = BASE,
    params: dict[str, Any] | None = None,
) -> tuple[Path, Path]:
    """A comparison and a sampled log of `PROMPTS`, n samples a side each: every answer new (a
    random tail after the first token), the first token drawn from `*_samples` and the
    reports of that position `*_reports` (None: the line carries no logprobs)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    params = {"temperature": 1, "logprobs": 5} if params is None else params
    rng = np.random.default_rng(seed)
    firsts = {
        (key, side): draw(rng, base_samples if side == "base" else patch_samples, n + 1)
        for key in PROMPTS
        for side in ("base", "patch")
    }
    letters = list("abcdefghijklmnop")
    texts = {
        pair: [f"{t} end {''.join(rng.choice(letters, 8))}" for t in tokens]
        for pair, tokens in firsts.items()
    }
    return write_texts(tmp_path, texts, PROMPTS, params, base_reports, patch_reports)


Texts = dict[tuple[str, str], list[str]]
"""(key, side) -> texts, the first the captured answer, the rest the samples."""


def write_texts(
    tmp_path: Path,
    texts: Texts,
    keys: tuple[str, ...],
    params: dict[str, Any],
    base_reports: Dist | None = BASE,
    patch_reports: Dist | None = BASE,
) -> tuple[Path, Path]:
    """A comparison and a sampled log of `keys`' texts, records in that order."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    cmp = compare_texts(
        tmp_path, {key: (texts[(key, "base")][0], texts[(key, "patch")][0]) for key in keys}
    )
    samples = [
        S(side, key, text)
        for key in keys
        for side in ("base", "patch")
        for text in texts[(key, side)][1:]
    ]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params=params)
    lines = log.read_text().splitlines()
    written = [lines[0]]
    for line in lines[1:]:
        sample = json.loads(line)
        reported = base_reports if sample["side"] == "base" else patch_reports
        sample["trace"] = trace(sample["text"].split(" end")[0], reported)
        sample["request_params"] = {"max_tokens": 16, **params}
        written.append(json.dumps(sample))
    log.write_text("\n".join(written) + "\n")
    return cmp, log
