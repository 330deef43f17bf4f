"""Triage of a record with hundreds of distinct outputs a side runs in bounded memory (fuzz69:
a samples log under 1 MB took 2.9 GB in the MMD test's power simulation, which built a
draws-by-outputs-by-outputs array, and 7 GB in the novelty test, which compared every base
sample with every output for 8,192 labellings at once; 1,500 samples a side took 8 GB).

Each case runs `k3diff triage` in a child limited to 1 GiB of address space (BLAS on one
thread, so its buffers do not depend on the machine's cores): before, the child ran out of
memory (exit 2); now it reaches the verdict."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

from triage.helpers import S, compare_texts, write_samples

ADDRESS_SPACE = 1 << 30


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _triage(tmp_path: Path, base: list[str], patch: list[str]) -> dict[str, Any]:
    comparison = compare_texts(tmp_path, {"q": (base[0], patch[0])})
    samples = [S("base", "q", text) for text in base] + [S("patch", "q", text) for text in patch]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples)
    threads = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-m", "k3diff", "triage", str(comparison), str(log), "--format", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, **threads},
        preexec_fn=_limit,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1, done.stderr  # a regression candidate, not "out of memory"
    (record,) = json.loads(done.stdout)["records"]
    found: dict[str, Any] = record
    return found


def test_every_output_new_on_both_sides(tmp_path: Path) -> None:
    """400 distinct outputs a side: the MMD test and its power simulation."""
    record = _triage(tmp_path, [f"b{i}" for i in range(400)], [f"p{i}" for i in range(400)])
    assert record["category"] == "distribution-shift"


def test_outputs_repeating_among_hundreds(tmp_path: Path) -> None:
    """500 samples a side over 200 outputs, 200 of the patch's of 100 outputs the base never
    gave: the novelty test."""
    base = [f"out {i % 200}" for i in range(500)]
    patch = [f"out {i % 200}" for i in range(300)] + [f"new {i % 100}" for i in range(200)]
    record = _triage(tmp_path, base, patch)
    assert record["category"] == "patch-outside-base", record["category"]
