"""The "more" column says how many more samples a side would make a record decisive. Where both
sides are proven nondeterministic, no number of samples bounds a stable side (there is none):
the column reads "—" (JSON `more_samples` null), never 0, which read as "no more samples
needed" beside a patch bound of 1.00. A both-nondeterministic mode whose test could not have
detected --shift is held `novel-undecided` (stop 59): its column gives the samples a side that
would decide it, never 0 either."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from .helpers import S, compare_texts, write_samples


def _both_unstable(tmp_path: Path) -> None:
    """Both sides vary; the patch's one new answer among 20 is within what the base's own
    variation allows, so the record passes as both-nondeterministic."""
    compare_texts(tmp_path, {"q": ("a", "c")})
    samples = [S("base", "q", t) for t in "ab" * 10] + [S("patch", "q", t) for t in "ab" * 9 + "ac"]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)


def test_a_held_both_unstable_mode_asks_for_a_number_not_zero(tmp_path: Path) -> None:
    """Base a, b, a against patch c, d, c (nothing in common): held novel-undecided, and its
    more is the samples a side that would decide it."""
    compare_texts(tmp_path, {"q": ("a", "c")})
    samples = [S("base", "q", t) for t in "aba"] + [S("patch", "q", t) for t in "cdc"]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert out.exit_code == 1, out.stderr
    (record,) = json.loads(out.stdout)["records"]
    assert "novel-undecided" in record["flags"], record
    assert isinstance(record["more_samples"], int) and record["more_samples"] > 0, record


def test_both_sides_nondeterministic_more_is_a_dash_not_zero(tmp_path: Path) -> None:
    _both_unstable(tmp_path)
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert out.exit_code == 0, out.stderr
    lines = out.stdout.splitlines()
    header = next(line for line in lines if line.startswith("key "))
    row = next(line for line in lines if line.startswith("q "))
    more_at = header.index("more")
    assert row[more_at:].split()[0] == "—", (header, row)
    document = json.loads(
        run_k3diff(
            "triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path
        ).stdout
    )
    (record,) = document["records"]
    assert (
        record["modes"][0]["base"]["distinct"] == 2 and record["modes"][0]["patch"]["distinct"] == 3
    )
    assert record["more_samples"] is None
    assert record["modes"][0]["more_samples"] is None
    markdown = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "markdown", cwd=tmp_path
    ).stdout
    table = [line for line in markdown.splitlines() if line.startswith("| q ")]
    assert table and table[0].split("|")[9].strip() == "—", table
