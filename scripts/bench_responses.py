"""Benchmark `k3diff responses` on 100,000 records per side.

Generates two JSONL files of OpenAI completion objects with token ids (cached in a temp dir and
reused), runs `python -m k3diff responses` on them in a subprocess once per report format (text
and JSON by default), and prints for each the records per second, the child's peak resident
memory (through `peakrss`, so each run is measured on its own, not with this process's size) and the ratio to a baseline measured
in the same run: plain `json.loads` of every line of both files. The patch side differs from the
base in a known share of records (a changed word, a changed finish_reason), so the diff path is
exercised, not only the equal fast path.

    .venv/bin/python scripts/bench_responses.py [--records N] [--format FMT ...] [--dir DIR]
                                                [--repeat N] [--against DIR]

With `--against DIR` (a checkout of an earlier commit, say a `git worktree`), that k3diff runs
each format in the same rounds, for a before/after measured under one load. With `--repeat N`
the baseline and each format run in turn N times (one of each per round, so a
shared machine's load moves them alike) and the medians of wall and CPU seconds are compared;
the budget (DESIGN.md: within 3x of `json.loads` of both files, under 500 MB) is printed with
PASS or FAIL, and the exit status is 1 when one fails. Both k3diffs are byte-compiled first, as
an install is (`precompile.py`): where PYTHONDONTWRITEBYTECODE is set, a checkout without bytecode
compiled every module it imports in every timed run (≈ 50 ms CPU for `responses`), which a
checkout that happened to hold `__pycache__` did not, so two trees compared unevenly.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Iterator
from pathlib import Path

from peakrss import run_with_peak_rss
from precompile import compile_k3diff

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


BUDGET_RATIO = 3.0
BUDGET_MB = 500.0


def baseline(paths: list[Path]) -> tuple[float, float]:
    """(wall, CPU) seconds to json.loads every line of the files: the floor any JSONL reader
    pays."""
    start, cpu = time.perf_counter(), time.process_time()
    for path in paths:
        with path.open("rb") as handle:
            for line in handle:
                json.loads(line)
    return time.perf_counter() - start, time.process_time() - cpu


def work_floor(base: Path, patch: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of the work no comparison can skip, on top of `baseline`: json.loads
    of every line, each record's text and token ids hashed (xxh3-128, as the report carries
    them), and rapidfuzz's ratio for each pair whose texts differ (pairs by line here; the
    files are written in one order)."""
    import xxhash
    from rapidfuzz import fuzz

    start, cpu = time.perf_counter(), time.process_time()
    with base.open("rb") as first, patch.open("rb") as second:
        for base_line, patch_line in zip(first, second, strict=True):
            texts = []
            for line in (base_line, patch_line):
                choice = json.loads(line)["choices"][0]
                texts.append(choice["text"])
                xxhash.xxh3_128_hexdigest(choice["text"].encode("utf-8"))
                xxhash.xxh3_128_hexdigest(array("q", choice["token_ids"]).tobytes())
            if texts[0] != texts[1]:
                fuzz.ratio(texts[0], texts[1])
    return time.perf_counter() - start, time.process_time() - cpu


@contextlib.contextmanager
def _python_path(tree: Path) -> Iterator[None]:
    """Children started inside import k3diff from `tree` (PYTHONPATH), not this checkout."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tree.resolve())
    try:
        yield
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved


def run(base: Path, patch: Path, fmt: str, report: Path) -> tuple[float, float, int, str, float]:
    """Seconds, the child's peak RSS in MB, its exit code, stderr and CPU seconds for one report
    format. The child runs in the data directory, so `python -m k3diff` imports the k3diff of
    the environment (or of PYTHONPATH), never one in the current directory."""
    command = [sys.executable, "-m", "k3diff", "responses", str(base.resolve())]
    command += [str(patch.resolve()), "--format", fmt, "--output", str(report.resolve())]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as stderr:
        measured = run_with_peak_rss(
            command, cwd=report.resolve().parent, stdout=subprocess.DEVNULL, stderr=stderr
        )
        elapsed = time.perf_counter() - start
        stderr.seek(0)
        message = stderr.read().decode(errors="replace")
    return elapsed, measured.peak_rss_mb, measured.exit_code, message, measured.cpu_seconds


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
    parser.add_argument("--repeat", type=int, default=1, help="rounds (median; default 1)")
    parser.add_argument(
        "--against",
        type=Path,
        metavar="DIR",
        help="another checkout (a git worktree of an earlier commit): its k3diff is timed in the "
        "same rounds (on PYTHONPATH), each format's ratio printed beside this one's",
    )
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    base = args.dir / f"base-{args.records}.jsonl"
    patch = args.dir / f"patch-{args.records}.jsonl"
    for path, patched in ((base, False), (patch, True)):
        if not path.exists():
            print(f"generating {path} ...", file=sys.stderr)
            generate(path, args.records, patched)
    formats = args.formats or ["text", "json"]
    print(compile_k3diff(), file=sys.stderr)
    if args.against is not None and not compileall.compile_dir(args.against / "k3diff", quiet=1):
        raise SystemExit(f"byte-compiling {args.against / 'k3diff'} failed")
    floors: list[tuple[float, float]] = []
    work_floors: list[tuple[float, float]] = []
    runs: dict[str, list[tuple[float, float, int, str, float]]] = {fmt: [] for fmt in formats}
    for _ in range(args.repeat):
        floors.append(baseline([base, patch]))
        work_floors.append(work_floor(base, patch))
        for fmt in formats:
            runs[fmt].append(run(base, patch, fmt, args.dir / f"report.{fmt}"))
            if args.against is not None:
                with _python_path(args.against):
                    other = run(base, patch, fmt, args.dir / f"against.{fmt}")
                runs.setdefault(f"{fmt} (--against)", []).append(other)
    total = 2 * args.records
    size_mb = (base.stat().st_size + patch.stat().st_size) / 1e6
    floor = statistics.median(wall for wall, _ in floors)
    floor_cpu = statistics.median(cpu for _, cpu in floors)
    load = " ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"input: 2 x {args.records} records, {size_mb:.0f} MB (JSONL, token ids)")
    print(f"load average {load}; medians of {args.repeat} interleaved rounds")
    work_cpu = statistics.median(cpu for _, cpu in work_floors)
    print(f"baseline json.loads of both files: {floor:.2f} s ({floor_cpu:.2f} s CPU)")
    print(
        f"floor (json.loads + xxh3 of every text and token ids + rapidfuzz of differing pairs): "
        f"{work_cpu:.2f} s CPU = {work_cpu / floor_cpu:.2f}x json.loads"
    )
    failed = False
    for fmt in runs:
        done = runs[fmt]
        if any(code not in (0, 1) for _, _, code, _, _ in done):
            print(done[-1][3], file=sys.stderr)
            return 2
        elapsed = statistics.median(r[0] for r in done)
        cpu = statistics.median(r[4] for r in done)
        peak_mb = max(r[1] for r in done)
        ratio = cpu / floor_cpu
        ok = ratio <= BUDGET_RATIO and peak_mb < BUDGET_MB
        failed |= not ok and "(--against)" not in fmt
        print(
            f"--format {fmt}: {elapsed:.2f} s ({cpu:.2f} s CPU), exit {done[-1][2]}, "
            f"{total / elapsed:,.0f} records/s, peak RSS {peak_mb:.0f} MB; ratio to baseline "
            f"{elapsed / floor:.2f}x wall, {ratio:.2f}x CPU (budget <= {BUDGET_RATIO:g}x, "
            f"< {BUDGET_MB:g} MB): {'PASS' if ok else 'FAIL'}; {cpu / work_cpu:.2f}x the floor"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
