"""Benchmark `k3diff responses` on 100,000 records per side.

Generates two JSONL files of OpenAI completion objects with token ids (cached in a temp dir and
reused), runs `python -m k3diff responses` on them in a subprocess once per report format (text
and JSON by default), and prints for each the records per second, the child's peak resident
memory (through `peakrss`, so each run is measured on its own, not with this process's size) and the ratio to a baseline measured
in the same run: plain `json.loads` of every line of both files. The patch side differs from the
base in a known share of records (a changed word, a changed finish_reason), so the diff path is
exercised, not only the equal fast path.

    .venv/bin/python scripts/bench_responses.py [--records N] [--format FMT ...] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from peakrss import run_with_peak_rss

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


def run(base: Path, patch: Path, fmt: str, report: Path) -> tuple[float, float, int, str]:
    """Seconds, the child's peak RSS in MB, its exit code and stderr for one report format."""
    command = [sys.executable, "-m", "k3diff", "responses", str(base), str(patch)]
    command += ["--format", fmt, "--output", str(report)]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as stderr:
        measured = run_with_peak_rss(command, stdout=subprocess.DEVNULL, stderr=stderr)
        elapsed = time.perf_counter() - start
        stderr.seek(0)
        message = stderr.read().decode(errors="replace")
    return elapsed, measured.peak_rss_mb, measured.exit_code, message


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument(
        "--format",
        dest="formats",
        action="append",
        choices=["json", "text", "markdown"],
        help="report format to time (repeatable; default: text and json)",
    )
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "k3diff-bench")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    base = args.dir / f"base-{args.records}.jsonl"
    patch = args.dir / f"patch-{args.records}.jsonl"
    for path, patched in ((base, False), (patch, True)):
        if not path.exists():
            print(f"generating {path} ...", file=sys.stderr)
            generate(path, args.records, patched)
    floor = baseline([base, patch])
    total = 2 * args.records
    size_mb = (base.stat().st_size + patch.stat().st_size) / 1e6
    print(f"input: 2 x {args.records} records, {size_mb:.0f} MB (JSONL, token ids)")
    print(f"baseline json.loads of both files: {floor:.2f} s")
    for fmt in args.formats or ["text", "json"]:
        elapsed, peak_mb, code, stderr = run(base, patch, fmt, args.dir / f"report.{fmt}")
        if code not in (0, 1):
            print(stderr, file=sys.stderr)
            return 2
        print(
            f"--format {fmt}: {elapsed:.2f} s, exit {code}, {total / elapsed:,.0f} records/s, "
            f"peak RSS {peak_mb:.0f} MB, ratio to baseline {elapsed / floor:.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
