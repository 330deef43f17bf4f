"""Benchmark the import cost of the running hot commands against `python -c "import click"`.

`bench_startup.py` times `--help`; this measures what `k3diff wheels`, `k3diff audit` and
`k3diff responses` import while they RUN (at start-up and lazily during the work alike), which
counts against each command's budget: the whole `k3diff wheels --no-file-hash` of the torch CPU
pair must stay ≥ 15x faster than the zipfile+sha256 walk, so every millisecond of imports is
one the comparison cannot spend.

Each measurement is a fresh interpreter that times every import with the CPU clock of its thread
(`time.thread_time`, so a shared machine's load, which stretches wall time, moves the figure
little), through a wrapper around the import system's `_find_and_load`: unlike `-X importtime` it
also sees modules loaded by `importlib.import_module` (the command group's lazy subcommands).
The figure is the CPU time spent inside top-level imports (nested imports are inside their
importer's figure; a module imported inside a function during the work is top-level too); the
interpreter's own start-up and `site` are outside it, as they are the same for every run. Each
round runs the baseline (`import click`) and every command once, in turn; the medians and the
median of the per-round ratios to `import click` are printed, with the modules that cost the
most (each module's own time, less its nested imports; median over rounds; `--top N`).

Inputs: the torch 2.13 CPU wheel pair of the wheels benchmark (case e) where it is on disk, else
two small built wheels; 1,000 generated records per side for `responses` (a few differ in a
field, so the field comparison runs). k3diff is byte-compiled first, as an install is
(`precompile.py`). With `--against DIR` (an earlier checkout, e.g. `git archive` of a commit),
that tree's k3diff (first on PYTHONPATH) runs each command in the same rounds.

    .venv/bin/python scripts/bench_imports.py [--repeat 5] [--top 12] [--against DIR]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench_responses import generate
from precompile import compile_k3diff

TORCH = Path("/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl")
TORCH_PATCH = (
    Path(os.environ.get("K3DIFF_BENCH_CACHE", Path.home() / ".cache" / "k3diff" / "bench"))
    / "patch-a-v1"
    / TORCH.name
)
RECORDS = 1_000
BASELINE = "import click"

PROBE = r"""
import importlib._bootstrap as bootstrap, io, sys, time
real = bootstrap._find_and_load
stack = []
spent = {}
own = {}
def timed(name, import_):
    if name in sys.modules:
        return real(name, import_)
    start = time.thread_time()
    stack.append(0.0)
    try:
        return real(name, import_)
    finally:
        took = time.thread_time() - start
        own[name] = own.get(name, 0.0) + took - stack.pop()
        if stack:
            stack[-1] += took
        else:
            spent[name] = spent.get(name, 0.0) + took
bootstrap._find_and_load = timed
code = 0
if sys.argv[1] == "--code":
    exec(sys.argv[2])
else:
    from k3diff.cli import main
    stdout, sys.stdout = sys.stdout, io.StringIO()
    try:
        code = main(sys.argv[1:])
    finally:
        sys.stdout = stdout
bootstrap._find_and_load = real
import json
sys.stderr.write("\nIMPORTS " + json.dumps({"code": code, "spent": spent, "own": own}) + "\n")
"""
"""Runs `k3diff ARGV` (or `--code SOURCE`) with every top-level import's thread CPU time kept,
then writes them as the last stderr line: `spent` has the outermost import of each chain (they
add up without double counting), `own` every module's time less its nested imports'."""


def _measured(
    argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[dict[str, float], dict[str, float]]:
    """(top-level module -> CPU seconds of its import, module -> CPU seconds of its own body)
    for one run of the probe on `argv`. It runs in `cwd`, a directory without a k3diff of its
    own: `python -c` puts the current directory first on sys.path, before PYTHONPATH."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        check=False,
    )
    last = done.stderr.rstrip().rsplit("\n", 1)[-1]
    if done.returncode != 0 or not last.startswith("IMPORTS "):
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    answer = json.loads(last.removeprefix("IMPORTS "))
    if answer["code"] not in (0, 1):
        raise SystemExit(f"k3diff {' '.join(argv)}: exit {answer['code']}\n{done.stderr[-2000:]}")
    return (
        {name: float(seconds) for name, seconds in answer["spent"].items()},
        {name: float(seconds) for name, seconds in answer["own"].items()},
    )


def _wheels(scratch: Path) -> tuple[Path, Path]:
    """The torch CPU pair of the wheels benchmark, else two small built wheels."""
    if TORCH.exists() and TORCH_PATCH.exists():
        return TORCH, TORCH_PATCH
    from wheelkit import make_wheel

    made = []
    for side, body in (("base", b"x = 1\n"), ("patch", b"x = 2\n")):
        files = {"engine/__init__.py": body, "engine/_C.cpython-311-x86_64-linux-gnu.so": b"\0"}
        made.append(make_wheel(scratch / side, "engine", "1.0", files))
    return made[0], made[1]


def commands(scratch: Path) -> dict[str, list[str]]:
    """Hot command label -> its `k3diff` arguments."""
    base, patch = _wheels(scratch)
    records = [scratch / "base.jsonl", scratch / "patch.jsonl"]
    for path, patched in zip(records, (False, True), strict=True):
        if not path.exists():
            generate(path, RECORDS, patched)
    out = str(scratch / "responses.txt")
    if TORCH.exists() and TORCH_PATCH.exists():
        print(f"wheels: {TORCH} and its patch-a-v1 copy; responses: 2 x {RECORDS} records")
    return {
        "wheels --no-file-hash": ["wheels", "--no-file-hash", str(base), str(patch)],
        "audit": ["audit", str(base)],
        "responses": ["responses", *map(str, records), "--output", out],
    }


def _group(module: str) -> str:
    """The package a module's cost is summed under: k3diff's subpackages apart, the standard
    library's `email` and `importlib` apart, any other by its top-level name."""
    parts = module.split(".")
    if parts[0] == "k3diff" and len(parts) > 2:
        return ".".join(parts[:2])
    if parts[0] == "k3diff":
        return "k3diff (top-level modules)"
    return parts[0]


def _environment(tree: Path | None) -> dict[str, str] | None:
    if tree is None:
        return None
    return {**os.environ, "PYTHONPATH": str(tree.resolve())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--top", type=int, default=12, help="costliest imports listed (12)")
    parser.add_argument("--against", type=Path, metavar="DIR", help="an earlier checkout")
    args = parser.parse_args()
    print(compile_k3diff())
    if args.against is not None and not compileall.compile_dir(args.against / "k3diff", quiet=1):
        raise SystemExit(f"byte-compiling {args.against / 'k3diff'} failed")
    trees: dict[str, Path | None] = {"": None}
    if args.against is not None:
        trees[" (--against)"] = args.against
    with tempfile.TemporaryDirectory(prefix="k3diff-bench-imports-") as tmp:
        runs = commands(Path(tmp))
        labels = [BASELINE, *(name + tag for tag in trees for name in runs)]
        totals: dict[str, list[float]] = {label: [] for label in labels}
        ratios: dict[str, list[float]] = {label: [] for label in labels}
        modules: dict[str, dict[str, list[float]]] = {label: {} for label in labels}
        for _ in range(args.repeat):
            measured = {BASELINE: _measured(["--code", BASELINE], Path(tmp))}
            for tag, tree in trees.items():
                for name, argv in runs.items():
                    measured[name + tag] = _measured(argv, Path(tmp), _environment(tree))
            for label, (spent, own) in measured.items():
                total = sum(spent.values())
                totals[label].append(total)
                ratios[label].append(total / sum(measured[BASELINE][0].values()))
                for module, seconds in own.items():
                    modules[label].setdefault(module, []).append(seconds)
    load = " ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"load average {load}; medians of {args.repeat} interleaved rounds (thread CPU time)")
    print(f"{'run':<36}{'imports ms':>11}{'vs import click':>17}")
    for label in labels:
        ms = statistics.median(totals[label]) * 1000
        print(f"{label:<36}{ms:>11.1f}{statistics.median(ratios[label]):>16.2f}x")
    for label in labels[1:]:
        costs = {module: statistics.median(values) for module, values in modules[label].items()}
        groups: dict[str, float] = {}
        for module, seconds in costs.items():
            groups[_group(module)] = groups.get(_group(module), 0.0) + seconds
        ranked = sorted(groups.items(), key=lambda item: -item[1])
        listed = ", ".join(f"{group} {seconds * 1000:.1f}" for group, seconds in ranked[: args.top])
        print(f"{label}: {len(costs)} modules loaded; by package (ms): {listed}")
        costliest = sorted(costs.items(), key=lambda item: -item[1])[: args.top]
        listed = ", ".join(f"{module} {seconds * 1000:.1f}" for module, seconds in costliest)
        print(f"costliest modules of {label} (ms, own time less nested imports): {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
