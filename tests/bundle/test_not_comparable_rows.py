"""A comparison's records that could not be compared are said as such in the bundle, with what
differs of what the two runs were given: not as records whose text differs (lmeval67: an lm-eval
doc run with other generation settings read "text differs on 1 record")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from responses.fixtures import write_jsonl
from responses.lm_eval_logs import generate_current


def _bottom_line(tmp_path: Path, base: list[Any], patch: list[Any]) -> list[str]:
    write_jsonl(tmp_path / "base.jsonl", base)
    write_jsonl(tmp_path / "patch.jsonl", patch)
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", cwd=tmp_path
    )
    assert compared.exit_code == 1, compared.stderr
    (tmp_path / "cmp.json").write_text(compared.stdout)
    result = run_k3diff("report", "cmp.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "bundle/summary.json").read_text())
    return list(summary["bottom_line"])


def test_not_comparable_records_are_said_with_what_differs(tmp_path: Path) -> None:
    """Failed on base67: 'text differs on 2 records: 1, 2', though no text was compared."""
    base = [generate_current(n, f"Q: {n}?\nA:", ["42"], "42", "none", 1.0) for n in range(4)]
    patch = [dict(row) for row in base]
    patch[1]["arguments"] = {"gen_args_0": {"arg_0": "Q: 1?\nA:", "arg_1": {"until": ["\n"]}}}
    patch[2] = dict(base[2], target="41", target_hash=None)
    patch[3] = generate_current(3, "Q: 3?\nA:", ["7"], "7", "none", 0.0)
    first, row = _bottom_line(tmp_path, base, patch)[:2]
    assert first.startswith(
        "FAIL: text differs on 1 record: 3; 2 records not comparable (their prompt or eval "
        "inputs differ): 1, 2; "
    )
    assert row.startswith(
        "FAIL (record-level comparison): 1 of 4 paired records differ: text differs on 1 (3); "
        "2 not comparable, their inputs differ (request arguments on 1; gold target on 2); "
        "exact text match 1; "
    )
