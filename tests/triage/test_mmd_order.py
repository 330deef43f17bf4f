"""A patch that swaps two paragraphs of every answer (steps out of order: a change of meaning)
against the MMD test at temperature 1 (stats76). Past the first 1,024 characters and before the
last 20 the kernel read the text only through its position-free 3-gram counts, which a swap of
two paragraphs leaves alike but for the few grams at their boundaries: 40 answers a side of
about 1,800 characters, the swapped paragraphs near the end, the test's p was about 0.5 and the
record passed `both-nondeterministic`, exit 0 (1 of 10 seeded runs rejected at 40 a side, 0 of
10 at 20). The placed kernel (mmd77) counts each 3-gram with the thirty-second of the text it
lies in, so the order of the whole text is seen. (Where the swap lies in the first 1,024
characters the position-wise kernel saw it before: answers of 200 characters so swapped
rejected in 16 of 20 seeded runs at 40 a side, 9 of 20 at 20.)"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from cli_support import run_k3diff

from k3diff.triage import distribution as dist
from k3diff.triage.streams import record_stream
from triage.helpers import S, compare_texts, write_samples

WORDS = [
    "the",
    "a",
    "this",
    "that",
    "file",
    "package",
    "server",
    "command",
    "output",
    "value",
    "then",
    "now",
    "first",
    "next",
]
SIZE = 40


def _words(rng: np.random.Generator, count: int) -> str:
    return " ".join(WORDS[i] for i in rng.integers(len(WORDS), size=count))


def answer(rng: np.random.Generator, swapped: bool) -> str:
    """A sampled answer: an opening, 30 notes, two steps (stop the service, then delete its
    data; `swapped`: the other way round) and a closing line, each worded anew."""
    opening = f"Here is how to do it, {_words(rng, 3)}."
    notes = " ".join(f"Note {i}: {_words(rng, 8)}." for i in range(30))
    stop = f"Stop the {_words(rng, 2)} service before you touch {_words(rng, 4)}."
    delete = f"Delete the {_words(rng, 2)} data directory and {_words(rng, 4)}."
    closing = f"That is all, {_words(rng, 3)}."
    steps = [delete, stop] if swapped else [stop, delete]
    return " ".join([opening, notes, *steps, closing])


def test_a_patch_swapping_two_paragraphs_of_every_answer_is_a_distribution_shift(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(76)
    base = [answer(rng, False) for _ in range(SIZE)]
    patch = [answer(rng, True) for _ in range(SIZE)]
    assert all(len(text) > 1_024 + 200 for text in base + patch)
    cmp = compare_texts(tmp_path, {"q": (base[0], patch[0])})
    samples = [S("base", "q", t) for t in base] + [S("patch", "q", t) for t in patch]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    record = json.loads(result.stdout)["records"][0]
    assert record["category"] == "distribution-shift", (record["category"], record["reason"])
    assert result.exit_code == 1


def test_a_swap_is_rejected_in_nearly_every_seeded_run() -> None:
    # The test triage runs on a lone record (its stream, `permutations_for` a family of one) on
    # ten seeded draws of 40 answers a side: 10 reject at α = 0.05 (1 before mmd77), and at 20
    # a side 3 of 10 do (0 before).
    rejected = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        base = [answer(rng, False) for _ in range(SIZE)]
        patch = [answer(rng, True) for _ in range(SIZE)]
        stream = record_stream("q", "serial", "mmd")
        rejected += dist.mmd_test(patch, base, stream, dist.permutations_for(1, 0.05)).p <= 0.05
    assert rejected >= 9
