"""The "more" column says how many more samples a side would make a record decisive. Where both
sides are proven nondeterministic, no number of samples bounds a stable side (there is none):
the column reads "—" (JSON `more_samples` null), never 0, which read as "no more samples
needed" beside a patch bound of 1.00."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from .helpers import S, compare_texts, write_samples


def _both_unstable(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"q": ("a", "c")})
    samples = [S("base", "q", t) for t in "aba"] + [S("patch", "q", t) for t in "cdc"]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)


def test_both_sides_nondeterministic_more_is_a_dash_not_zero(tmp_path: Path) -> None:
    _both_unstable(tmp_path)
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert out.exit_code in (0, 1), out.stderr
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
        record["modes"][0]["base"]["distinct"] == 2 and record["modes"][0]["patch"]["distinct"] == 2
    )
    assert record["more_samples"] is None
    assert record["modes"][0]["more_samples"] is None
    markdown = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "markdown", cwd=tmp_path
    ).stdout
    table = [line for line in markdown.splitlines() if line.startswith("| q ")]
    assert table and table[0].split("|")[9].strip() == "—", table
