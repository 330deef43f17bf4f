"""hunt78: rapidfuzz's similarity costs time proportional to the product of the two texts'
lengths, and a record may hold 64 MiB: two 2 MiB answers that differ throughout took 261 s, a
pair at the cap would take days. The similarity decides nothing, so past the run's budget of
character pairs it is not computed: null in JSON, a note on the record saying why, the status
and exit code as before. A common prefix and suffix cost nothing: a long answer that differs
in one place keeps its similarity."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from cli_support import run_json, run_k3diff

SIZE = 3 << 19
"""1.5 MiB a text: 2.4 × 10^12 pairs, past the run's budget of 2^37 (before: about 150 s of
rapidfuzz)."""


def _texts(size: int) -> tuple[str, str]:
    rng = random.Random(7)
    base = "".join(rng.choice("abcdefgh ") for _ in range(size))
    patch = "".join("Z" if i % 1000 == 0 else c for i, c in enumerate(base))
    return base, patch


def _write(path: Path, records: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"key": k, "text": t}) + "\n" for k, t in records))
    return path


def test_texts_past_the_budget_are_compared_without_a_similarity(tmp_path: Path) -> None:
    base, patch = _texts(SIZE)
    one = _write(tmp_path / "base.jsonl", [("long", base), ("short", "a cat sat")])
    two = _write(tmp_path / "patch.jsonl", [("long", patch), ("short", "a cat sat down")])
    began = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "k3diff", "responses", str(one), str(two), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
    )
    assert time.monotonic() - began < 60
    assert proc.returncode == 1, proc.stderr
    records = {r["key"]: r for r in json.loads(proc.stdout)["records"]}
    long = records["long"]
    assert long["status"] == "text-differs" and long["similarity"] is None
    assert any(
        note.startswith("similarity not computed: the texts differ over 1,572,")
        for note in long["notes"]
    )
    assert records["short"]["similarity"] == 0.782609  # 2 × 9 / (9 + 14), as before


def test_a_long_answer_that_differs_in_one_place_keeps_its_similarity(tmp_path: Path) -> None:
    base, _ = _texts(SIZE)
    patch = base[: SIZE // 2] + "Z" + base[SIZE // 2 + 1 :]
    code, doc = run_json(
        "responses",
        _write(tmp_path / "base.jsonl", [("long", base)]),
        _write(tmp_path / "patch.jsonl", [("long", patch)]),
    )
    assert code == 1
    record = doc["records"][0]
    assert record["similarity"] == 0.999999 and record["notes"] == []


def test_a_record_of_unknown_similarity_is_listed_first_within_its_status(
    tmp_path: Path,
) -> None:
    """review78c: a record whose similarity was not computed sorted as 1.0, so it was listed
    last within its status; it may be the least similar, so it comes first."""
    wide = 100_000  # CJK characters differing throughout: 1.6 × 10^11 weighed pairs, past 2^37
    one = _write(tmp_path / "base.jsonl", [("a-short", "a cat sat"), ("z-long", "一" * wide)])
    two = _write(tmp_path / "patch.jsonl", [("a-short", "a dog ran"), ("z-long", "二" * wide)])
    code, doc = run_json("responses", one, two)
    assert code == 1
    records = {r["key"]: (r["status"], r["similarity"]) for r in doc["records"]}
    assert records == {"z-long": ("text-differs", None), "a-short": ("text-differs", 0.444444)}
    for form in ("text", "markdown"):
        shown = run_k3diff("responses", one, two, "--format", form)
        assert shown.exit_code == 1
        assert shown.stdout.index("z-long") < shown.stdout.index("a-short"), shown.stdout
    limited = run_k3diff("responses", one, two, "--limit", "1")  # the worst one is kept
    assert "z-long" in limited.stdout and "a-short" not in limited.stdout, limited.stdout
