"""A triage document whose MMD test names another kernel (the three Hamming kernels before
kernel73 added the 3-gram cosine; kernel73's, whose 3-gram counts stopped at character 65,536
before mmd74 counted every character; mmd74's, before mmd77 added the placed 3-gram counts) is
not re-derived with today's kernel: `report` refuses it, exit 2, one line naming both kernels;
triage run again on the same evidence is believed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff.triage import kernel

SAMPLED = Path(__file__).parent / "data" / "triage_31411530" / "sampled"
OLD = "hamming, mean of first 20, last 20 and first 1,024 characters"
KERNEL73 = (
    "mean of hamming on first 20, last 20 and first 1,024 characters and cosine of hashed"
    " 3-gram counts of first 65,536 characters (xxh64 seed 0x6b3d, 4,096 buckets)"
)
KERNEL74 = (
    "mean of hamming on first 20, last 20 and first 1,024 characters and cosine of hashed"
    " 3-gram counts of all characters (splitmix64, 4,096 buckets)"
)
EVIDENCE = ("cmp.json", "run/samples.jsonl", "triage.json")


@pytest.mark.parametrize("old", [OLD, KERNEL73, KERNEL74])
def test_a_triage_of_an_older_kernel_is_refused_naming_it(tmp_path: Path, old: str) -> None:
    where = tmp_path / "sampled"
    shutil.copytree(SAMPLED, where)
    again = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=where)
    assert again.exit_code in (0, 1), again.stderr
    (where / "triage.json").write_text(again.stdout)
    believed = run_k3diff("report", *EVIDENCE, "--out", "today", cwd=where)
    assert believed.exit_code in (0, 1), believed.stderr
    document = json.loads(again.stdout)
    for record in document["records"]:
        assert record["modes"][0]["distribution"]["kernel"] == kernel.DESCRIPTION
        record["modes"][0]["distribution"]["kernel"] = old
    (where / "triage.json").write_text(json.dumps(document))
    result = run_k3diff("report", *EVIDENCE, "--out", "old", cwd=where)
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "triage.json: does not follow from the evidence" in result.stderr
    assert f"its MMD test's kernel is {json.dumps(old)}" in result.stderr
    assert f"triage's today {json.dumps(kernel.DESCRIPTION)}" in result.stderr
