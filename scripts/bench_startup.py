"""Benchmark start-up: every command's `--help` against `python -c "import click"`.

Each round runs the baseline and every `k3diff CMD --help` once, in turn (so a shared machine's
changing load moves them alike), each a fresh process measured by `os.wait4`: CPU seconds (user
+ system) and wall seconds. It prints per command the median of each and the median of the
per-round ratios to the baseline of the same round, with the budget (DESIGN: within 5x), and
whether scipy, numpy or matplotlib were loaded (they must not be). Exit 1 when a CPU ratio is
over the budget or a heavy library loads. k3diff is byte-compiled first, as an install is
(`precompile.py`): without it, where PYTHONDONTWRITEBYTECODE is set, every run compiled its
modules from source while click's bytecode was there.

    .venv/bin/python scripts/bench_startup.py [--repeat 7] [--budget 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

from precompile import compile_k3diff

from k3diff.cli import COMMANDS

HEAVY = ("scipy", "numpy", "matplotlib")
BASELINE = "import click"
PROBE = (
    "import contextlib, io, sys\n"
    "from k3diff.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    main(sys.argv[1:])\n"
    "print(' '.join(name for name in {heavy!r} if name in sys.modules))\n"
)


def _timed(argv: Sequence[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of `argv`, its output thrown away."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {process.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def _heavy(command: str) -> str:
    """The heavy libraries `k3diff COMMAND --help` loads (space-separated, empty if none)."""
    script = PROBE.format(heavy=HEAVY)
    args = [*command.split(), "--help"]
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--budget", type=float, default=5.0, help="CPU ratio budget (5)")
    args = parser.parse_args()
    commands = ["", *sorted(COMMANDS)]
    baseline = [sys.executable, "-c", BASELINE]
    runs = {name: [sys.executable, "-m", "k3diff", *name.split(), "--help"] for name in commands}
    print(compile_k3diff())  # as an install is: click's bytecode is there too
    for argv in [baseline, *runs.values()]:  # warm-up: files cached
        _timed(argv)
    base_cpu: list[float] = []
    base_wall: list[float] = []
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    wall: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        b_cpu, b_wall = _timed(baseline)
        base_cpu.append(b_cpu)
        base_wall.append(b_wall)
        for name, argv in runs.items():
            c, w = _timed(argv)
            cpu[name].append(c / b_cpu)
            wall[name].append(w / b_wall)
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; {args.repeat} rounds")
    print(
        f"baseline `python -c {BASELINE!r}`: CPU {statistics.median(base_cpu) * 1000:.0f} ms, "
        f"wall {statistics.median(base_wall) * 1000:.0f} ms (medians)"
    )
    print(f"{'command':<22}{'CPU ratio':>10}{'wall ratio':>11}  budget  heavy")
    failed = False
    for name in commands:
        ratio = statistics.median(cpu[name])
        heavy = _heavy(name)
        ok = ratio <= args.budget and not heavy
        failed |= not ok
        label = f"k3diff {name} --help".replace("  ", " ")
        print(
            f"{label:<22}{ratio:>9.2f}x{statistics.median(wall[name]):>10.2f}x  "
            f"<= {args.budget:g}x {'PASS' if ok else 'FAIL'}  {heavy or '-'}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
