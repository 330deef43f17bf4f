"""The MMD test compares at most 1,000 samples a side (its cost grows with their square); past
that it draws them from every request, not the first 1,000: a patch whose answers after its
1,000th request turned to garbage (a third of its 1,500) passed as `both-nondeterministic`,
exit 0, `no shift detected` (hunt73), while the reason said an output given 0.107 % of the time
would have been seen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples

N = 1_500


def _run(tmp_path: Path, broken_after: int | None) -> tuple[int, dict[str, Any]]:
    rng = np.random.default_rng(5)
    letters = list("abcdefghijklmnopqrstuvwxyz")

    def answer(lead: str = "The answer is ") -> str:
        return lead + "".join(rng.choice(letters, 10))

    base = [answer() for _ in range(N + 1)]
    patch = [
        answer(
            "!!!! garbage " if broken_after is not None and i > broken_after else "The answer is "
        )
        for i in range(N + 1)
    ]
    compare_texts(tmp_path, {"q": (base[0], patch[0])})
    samples = [S("base", "q", t) for t in base[1:]] + [S("patch", "q", t) for t in patch[1:]]
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    (record,) = json.loads(result.stdout)["records"]
    return result.exit_code, record


def test_answers_broken_after_the_first_1000_requests_are_a_shift(tmp_path: Path) -> None:
    code, record = _run(tmp_path, broken_after=1_000)
    assert code == 1, record["reason"]
    assert record["category"] == "distribution-shift"
    test = record["modes"][0]["distribution"]
    (moved,) = [m for m in test["moved"] if m["side"] == "patch"]
    # 1,000 of the patch's 1,500 drawn from every request: about a third of them broken.
    assert moved["prefix"].startswith("!!!! garbage") and moved["n"] == 1_000
    assert 250 <= moved["count"] <= 420


def test_the_same_answers_throughout_still_pass(tmp_path: Path) -> None:
    code, record = _run(tmp_path, broken_after=None)
    assert code == 0, record["reason"]
    assert record["category"] == "both-nondeterministic"
