"""Benchmark `k3diff logs` on large server logs: throughput, peak memory, ratio to a read floor.

Writes two logs of `--mib` MiB each in vLLM's line layout (request and metrics lines, a warning
every 1,000 lines, a traceback and an OOM line in the patch; cached in a temp dir and reused),
runs `python -m k3diff logs` on them in a subprocess (peak RSS through `peakrss`), and prints the
MB/s, the peak RSS and the ratio to a floor measured in the same run: a plain Python loop that
reads every line of both files (`for line in f`), which any line scanner has to do.

    .venv/bin/python scripts/bench_logs.py [--mib 1024] [--dir DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from peakrss import run_with_peak_rss

LINE = (
    "INFO 05-12 10:{m:02d}:{s:02d} [logger.py:39] Received request cmpl-{i:x}: prompt: "
    "'The quick brown fox jumps over the lazy dog', params: SamplingParams(n=1, temperature=0.0,"
    " max_tokens=64), prompt_token_ids: [1, 450, 4996, 17354, 1701, 29916, 432], lora: None\n"
)
WARN = "WARNING 05-12 10:00:00 [scheduler.py:1500] Sequence group {i} is preempted by RECOMPUTE\n"


def _write(path: Path, mib: int, patched: bool) -> None:
    if path.exists() and path.stat().st_size >= mib << 20:
        return
    target = mib << 20
    with path.open("w") as out:
        written = i = 0
        chunk: list[str] = []
        while written < target:
            line = WARN.format(i=i) if i % 1000 == 999 else LINE.format(m=i % 60, s=i % 60, i=i)
            chunk.append(line)
            written += len(line)
            i += 1
            if len(chunk) == 10_000:
                out.write("".join(chunk))
                chunk.clear()
        if patched:
            chunk.append('Traceback (most recent call last):\n  File "x.py", line 1\n')
            chunk.append("RuntimeError: CUDA error: an illegal memory access was encountered\n")
            chunk.append("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB\n")
        out.write("".join(chunk))


def _floor(paths: list[Path]) -> float:
    start = time.perf_counter()
    for path in paths:
        with path.open("rb") as f:
            for _ in f:
                pass
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=1024, help="size of each log (MiB)")
    parser.add_argument(
        "--dir", type=Path, default=Path(tempfile.gettempdir()) / "k3diff-bench-logs"
    )
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    base, patch = args.dir / f"base-{args.mib}.log", args.dir / f"patch-{args.mib}.log"
    _write(base, args.mib, patched=False)
    _write(patch, args.mib, patched=True)
    total = base.stat().st_size + patch.stat().st_size
    floor = _floor([base, patch])
    start = time.perf_counter()
    measured = run_with_peak_rss(
        [sys.executable, "-m", "k3diff", "logs", str(base), str(patch)],
        stdout=subprocess.DEVNULL,
    )
    elapsed = time.perf_counter() - start
    mb = total / 1e6
    print(
        f"logs: 2 × {args.mib} MiB, exit {measured.exit_code} (expected 1: the patch's traceback)"
    )
    print(
        f"  k3diff logs   {elapsed:7.2f} s  {mb / elapsed:7.1f} MB/s  peak {measured.peak_rss_mb:.0f} MiB"
    )
    print(f"  read floor    {floor:7.2f} s  {mb / floor:7.1f} MB/s  (Python line loop, same run)")
    print(f"  ratio to the floor: {elapsed / floor:.2f}×")
    return 0 if measured.exit_code == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
