"""review78c: the similarity budget (2^37 character pairs, "about 10 s") counted every pair
alike, but rapidfuzz looks a character past U+00FF up in a hash map, not a table: two texts of
CJK characters that differ throughout took ten times as long a pair (120,000 characters each:
8.8 s against 0.87 s of ASCII), so the budget let a run spend about 100 s. Such a pair now
weighs 16; a short CJK answer keeps its similarity."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from cli_support import run_json

SIZE = 96_000
"""Characters a text: 9.2 × 10^9 pairs, within 2^37 as pairs alike, past it at 16 a pair."""


def _write(path: Path, records: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"key": k, "text": t}) + "\n" for k, t in records))
    return path


def test_wide_texts_weigh_more_of_the_budget(tmp_path: Path) -> None:
    rng = random.Random(7)
    alphabet = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    base = "".join(rng.choices(alphabet, k=SIZE))
    patch = "".join(rng.choices(alphabet, k=SIZE))
    began = time.monotonic()
    code, doc = run_json(
        "responses",
        _write(tmp_path / "base.jsonl", [("long", base), ("short", "猫が座った")]),
        _write(tmp_path / "patch.jsonl", [("long", patch), ("short", "猫が座っていた")]),
    )
    assert code == 1
    records = {r["key"]: r for r in doc["records"]}
    long = records["long"]
    assert long["status"] == "text-differs" and long["similarity"] is None, long["similarity"]
    assert any(
        note.startswith("similarity not computed: the texts differ over 96,000 and 96,000 ")
        and "each pair weighing 16 (characters past U+00FF)" in note
        for note in long["notes"]
    )
    assert records["short"]["similarity"] == 0.833333  # 2 × 5 / (5 + 7)
    assert time.monotonic() - began < 30


def test_latin_1_texts_weigh_one_a_pair(tmp_path: Path) -> None:
    """Accented Latin text (every character up to U+00FF) is looked up in rapidfuzz's table:
    the same size as above keeps its similarity."""
    rng = random.Random(7)
    alphabet = list("éèàçüöäßñ ")
    base, patch = ("".join(rng.choices(alphabet, k=SIZE)) for _ in range(2))
    code, doc = run_json(
        "responses",
        _write(tmp_path / "base.jsonl", [("long", base)]),
        _write(tmp_path / "patch.jsonl", [("long", patch)]),
    )
    assert code == 1
    record = doc["records"][0]
    assert record["similarity"] is not None and record["notes"] == []
