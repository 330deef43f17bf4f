"""Where one `k3diff wheels` run spends its time: a timeline of its phases, fresh process by process.

Each run is a fresh interpreter (a child of this script, started as the benchmarks start
k3diff: `python -c PROBE`, so interpreter start-up and `site` are in the figures) that wraps the
comparison's phases (`compare_wheels` and the steps it calls on the main thread, the report's
rendering and writing) and the pool's tasks, then runs `k3diff.cli.main` as the console script
does; each function is wrapped as its module's import ends, so the run imports in its own order
(`wheels.headstart` before the comparison). For every phase it records, on the calling thread: when it started (ms after this script
started the child), its wall time, its CPU time (`time.thread_time`), how long the thread waited
for a core (`/proc/thread-self/schedstat`: a loaded machine shows here, not in the CPU), and
its minor page faults (`RUSAGE_THREAD`). The pool's tasks are summed per worker thread. At the
end it reports when the process called `os._exit` and when this script reaped it, the CPU of
the process itself and of the children it waited for (the raw and sniff children).

A phase that returns a generator (`soundness_findings`, `layout_findings`, `shadowed_modules`)
is timed where it is consumed, inside its caller; so is a context manager's set-up
(`raw_compares`, `screened_heads`: between the directories and `read_facts`). A wrapped name the
tree does not have is skipped, so the script runs on older and newer trees alike.

    .venv/bin/python scripts/wheels_timeline.py [--runs 5] -- wheels BASE PATCH --no-file-hash

Prints the median of every figure over the runs (phases in the order they start). Linux only
(schedstat, `RUSAGE_THREAD`). Issue 41's case e was accounted with it (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

PHASES = (
    "k3diff.wheels.headstart.head_start",
    "k3diff.wheels.compare.compare_wheels",
    "k3diff.zip.archive.ZipArchive.open",
    "k3diff.wheels.early._candidates",
    "k3diff.wheels.rawchild._spawn",
    "k3diff.wheels.sniffchild.SniffChild.start",
    "k3diff.wheels.compare.read_facts",
    "k3diff.wheels.compare.screen_pair",
    "k3diff.wheels.compare.install_checks",
    "k3diff.wheels.compare.pair_installed",
    "k3diff.wheels.compare.pair_weights",
    "k3diff.zip.archive.ZipArchive.local_headers",
    "k3diff.wheels.schedule.submit_pairs",
    "k3diff.wheels.compare.check_archives",
    "k3diff.wheels.compare.collect",
    "k3diff.wheels.streamcheck.settle",
    "k3diff.wheels.compare._with_findings",
    "k3diff.cli.ci.emit_findings",
    "k3diff.report.wheels.render_chunks",
    "k3diff.output._write_file",
)
"""Functions timed on the main thread (module path, then attribute or Class.attribute)."""

TASKS = ("k3diff.wheels.schedule.compare_batch", "k3diff.wheels.schedule._compare_span")
"""The pool's tasks, summed per worker thread."""

PROBE = r"""
import importlib.machinery, json, os, resource, sys, threading, time
T0 = float(sys.argv[1])
OUT = int(sys.argv[2])
PHASES, TASKS = json.loads(sys.argv[3]), json.loads(sys.argv[4])
sys.argv = ["k3diff", *sys.argv[5:]]
stamps = {"start": (time.monotonic() - T0) * 1000}
rows, tasks = [], {}

def waited():
    with open("/proc/thread-self/schedstat") as f:
        return int(f.read().split()[1]) / 1e6

def faults():
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt

def wrap(dotted, on_task, module_name):
    owner = sys.modules[module_name]
    parts = dotted[len(module_name) + 1 :].split(".")
    for name in parts[:-1]:
        owner = getattr(owner, name, None)
    if owner is None or not hasattr(owner, parts[-1]):
        return False
    name = parts[-1]
    real = getattr(owner, name)
    main = threading.main_thread()
    def timed(*args, **kwargs):
        here = threading.current_thread()
        if not on_task and here is not main:
            return real(*args, **kwargs)
        start, cpu, queue, fault = time.monotonic(), time.thread_time(), waited(), faults()
        try:
            return real(*args, **kwargs)
        finally:
            figures = [
                (time.monotonic() - start) * 1000, (time.thread_time() - cpu) * 1000,
                waited() - queue, faults() - fault,
            ]
            if on_task:
                done = tasks.setdefault(here.name, [0, 0.0, 0.0, 0.0, 0])
                done[0] += 1
                for k, value in enumerate(figures):
                    done[k + 1] += value
            else:
                rows.append([dotted.split(".")[-1], (start - T0) * 1000, *figures])
    setattr(owner, name, timed)
    return True

pending = [(dotted, False) for dotted in PHASES] + [(dotted, True) for dotted in TASKS]

def settle(module_name):
    for item in list(pending):
        if item[0].startswith(module_name + ".") and wrap(*item, module_name):
            pending.remove(item)
    if module_name == "k3diff.wheels.compare":
        stamps["comparison imported"] = (time.monotonic() - T0) * 1000

class Wrapping:  # each k3diff module's functions wrapped as its import ends
    @staticmethod
    def find_spec(name, path=None, target=None):
        if not name.startswith("k3diff."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return None
        real = spec.loader.exec_module
        def exec_module(module):
            real(module)
            settle(name)
        spec.loader.exec_module = exec_module
        return spec

import k3diff.cli
stamps["k3diff.cli imported"] = (time.monotonic() - T0) * 1000
for module_name in [name for name in sys.modules if name.startswith("k3diff.")]:
    settle(module_name)
sys.meta_path.insert(0, Wrapping)

def report():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    answer = {
        "stamps": stamps, "rows": rows, "tasks": tasks,
        "process_cpu": (usage.ru_utime + usage.ru_stime) * 1000,
        "children_cpu": (children.ru_utime + children.ru_stime) * 1000,
        "main_cpu": time.thread_time() * 1000,
    }
    os.write(OUT, json.dumps(answer).encode())
    os.close(OUT)

real_exit = os._exit
def leaving(code):
    stamps["os._exit"] = (time.monotonic() - T0) * 1000
    report()
    real_exit(code)
os._exit = leaving
code = k3diff.cli.main()
stamps["main returned"] = (time.monotonic() - T0) * 1000
report()
sys.exit(code)
"""


def one_run(argv: Sequence[str]) -> dict[str, object]:
    """One fresh process running `k3diff ARGV` with the probe; its figures."""
    read, write = os.pipe()
    started = time.monotonic()
    probe = [PROBE, repr(started), str(write), json.dumps(PHASES), json.dumps(TASKS)]
    child = subprocess.Popen(
        [sys.executable, "-c", *probe, *argv],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        text = answer.read()
    _, status, usage = os.wait4(child.pid, 0)
    reaped = (time.monotonic() - started) * 1000
    child.returncode = os.waitstatus_to_exitcode(status)
    figures: dict[str, object] = json.loads(text) if text else {}
    figures["reaped"] = reaped
    figures["reaped_cpu"] = (usage.ru_utime + usage.ru_stime) * 1000
    figures["exit_code"] = child.returncode
    return figures


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def summary(runs: list[dict[str, object]]) -> list[str]:
    """The printed table: medians over `runs` of every phase and total."""
    lines = [
        f"{'phase (main thread)':<28}{'start':>8}{'wall':>8}{'cpu':>8}{'runq':>8}{'faults':>8}"
    ]
    order: list[str] = []
    by_phase: dict[str, list[list[float]]] = {}
    for run in runs:
        seen: dict[str, int] = {}
        for name, start, wall, cpu, queue, fault in run["rows"]:  # type: ignore[attr-defined]
            seen[name] = seen.get(name, 0) + 1
            key = name if seen[name] == 1 else f"{name} #{seen[name]}"
            if key not in by_phase:
                by_phase[key] = []
                order.append(key)
            by_phase[key].append([start, wall, cpu, queue, fault])
    order.sort(key=lambda key: _median([row[0] for row in by_phase[key]]))
    for key in order:
        cells = [_median([row[k] for row in by_phase[key]]) for k in range(5)]
        lines.append(f"{key:<28}" + "".join(f"{cell:8.1f}" for cell in cells))
    workers: dict[str, list[list[float]]] = {}
    for run in runs:
        for name, done in run["tasks"].items():  # type: ignore[attr-defined]
            workers.setdefault(name, []).append(done)
    for name in sorted(workers):
        count, wall, cpu, queue, fault = (
            _median([done[k] for done in workers[name]]) for k in range(5)
        )
        lines.append(
            f"pool {name}: {count:.0f} tasks, wall {wall:.1f}, cpu {cpu:.1f}, "
            f"runq {queue:.1f}, faults {fault:.0f}"
        )
    stamps: dict[str, list[float]] = {}
    for run in runs:
        for name, at in run["stamps"].items():  # type: ignore[attr-defined]
            stamps.setdefault(name, []).append(at)
    lines.append(
        "ms after the spawn: "
        + ", ".join(f"{name} {_median(values):.1f}" for name, values in stamps.items())
        + f", reaped {_median([float(run['reaped']) for run in runs]):.1f}"  # type: ignore[arg-type]
    )
    totals = ("main_cpu", "process_cpu", "children_cpu", "reaped_cpu")
    lines.append(
        "cpu ms: "
        + ", ".join(
            f"{name} {_median([float(run[name]) for run in runs if name in run]):.1f}"  # type: ignore[arg-type]
            for name in totals
        )
        + " (children: the raw and sniff children the run waited for)"
    )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes (default 5)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- wheels BASE PATCH ...")
    args = parser.parse_args(argv)
    command = [part for part in args.command if part != "--"] or ["--help"]
    runs = [one_run(command) for _ in range(args.runs)]
    codes = sorted({int(run["exit_code"]) for run in runs})  # type: ignore[call-overload]
    print(f"k3diff {' '.join(command)}: {args.runs} runs, exit codes {codes}")
    print("\n".join(summary([run for run in runs if "rows" in run])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
