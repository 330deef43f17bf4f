"""Benchmark `k3diff responses` on 100,000 records per side.

Generates two JSONL files of OpenAI completion objects with token ids (cached in a temp dir and
reused), runs `python -m k3diff responses` on them in a subprocess, and prints records per second,
the child's peak memory, and a baseline measured in the same run: plain `json.loads` of every line
of both files. The patch side differs from the base in a known share of records (a changed word,
a changed finish_reason), so the diff path is exercised, not only the equal fast path.

    .venv/bin/python scripts/bench_responses.py [--records N] [--format json|text] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "seven",
    "wizards",
    "quietly",
    "box",
    "jam",
]


def _record(index: int, rng: random.Random, patched: bool) -> dict[str, object]:
    words = [rng.choice(WORDS) for _ in range(48)]
    token_ids = [rng.randrange(100, 50_000) for _ in range(64)]
    finish = "stop"
    if patched and index % 100 == 7:
        words[20] = "CHANGED"
        token_ids[30] += 1
    if patched and index % 200 == 11:
        finish = "length"
    return {
        "id": f"cmpl-{index}",
        "object": "text_completion",
        "created": 1_700_000_000 + (index if patched else 0),
        "model": "bench-model",
        "system_fingerprint": "fp-patch" if patched else "fp-base",
        "choices": [
            {
                "index": 0,
                "text": " ".join(words),
                "token_ids": token_ids,
                "logprobs": None,
                "finish_reason": finish,
                "stop_reason": None,
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 64, "total_tokens": 76},
    }


def generate(path: Path, records: int, patched: bool) -> None:
    """Write `records` completion objects, one per line (same seed per index on both sides)."""
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for index in range(records):
            rng = random.Random(index)
            handle.write(json.dumps(_record(index, rng, patched)) + "\n")
    tmp.replace(path)


def baseline(paths: list[Path]) -> float:
    """Seconds to json.loads every line of the files: the floor any JSONL reader pays."""
    start = time.perf_counter()
    for path in paths:
        with path.open("rb") as handle:
            for line in handle:
                json.loads(line)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--format", default="json", choices=["json", "text", "markdown"])
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "k3diff-bench")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    base = args.dir / f"base-{args.records}.jsonl"
    patch = args.dir / f"patch-{args.records}.jsonl"
    for path, patched in ((base, False), (patch, True)):
        if not path.exists():
            print(f"generating {path} ...", file=sys.stderr)
            generate(path, args.records, patched)
    report = args.dir / f"report.{args.format}"
    command = [sys.executable, "-m", "k3diff", "responses", str(base), str(patch)]
    command += ["--format", args.format, "--output", str(report)]
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        print(proc.stderr, file=sys.stderr)
        return 2
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    floor = baseline([base, patch])
    total = 2 * args.records
    size_mb = (base.stat().st_size + patch.stat().st_size) / 1e6
    print(f"input: 2 x {args.records} records, {size_mb:.0f} MB (JSONL, token ids)")
    print(f"k3diff responses --format {args.format}: {elapsed:.2f} s, exit {proc.returncode}")
    print(f"records/second: {total / elapsed:,.0f}")
    print(f"peak memory (child max RSS): {peak_mb:.0f} MB")
    print(f"baseline json.loads of both files: {floor:.2f} s")
    print(f"ratio k3diff / baseline: {elapsed / floor:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
