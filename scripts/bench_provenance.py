"""Time source provenance on a repository the size of a large inference engine.

Builds (with one ``git fast-import``) a repository holding 2,400 Python files under ``python/``
plus 2,000 unrelated files, then a range of 200 commits that each edit 12 of the Python files.
The "wheel" is the package as of commit 150 with a few local patches, so the range check has
stale, mismatched and matching files to sort out. Run standalone to print the timings:

    .venv/bin/python scripts/bench_provenance.py
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from k3diff.provenance.check import check_source, check_source_range

PYTHON_FILES = 2400
OTHER_FILES = 2000
RANGE_COMMITS = 200
EDITS_PER_COMMIT = 12
BUILT_AT = 150
PATCHED_FILES = 20


def _module(name: str, version: int) -> bytes:
    # Like a real commit, a new version touches a few lines of a 90-line module; a rewrite of
    # every line would time difflib rather than provenance.
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(30))
    return f'"""Module {name}."""\n\nVERSION = {version}\n\n{body}'.encode()


def _blob_command(path: str, data: bytes) -> bytes:
    return b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data)


def _commit_command(n: int, files: dict[str, bytes], parent: bool) -> bytes:
    stamp = 1_700_000_000 + n * 60
    who = b"Bench <bench@example.com> %d +0000" % stamp
    message = b"commit %d" % n
    head = b"commit refs/heads/main\nmark :%d\nauthor %s\ncommitter %s\n" % (n + 1, who, who)
    head += b"data %d\n%s\n" % (len(message), message)
    if parent:
        head += b"from :%d\n" % n
    return head + b"".join(_blob_command(p, d) for p, d in files.items())


def build_repo(repo: Path) -> tuple[dict[str, bytes], str]:
    """Create the benchmark repository; return the wheel's files and the range spec."""
    rng = random.Random(3)
    modules = [f"pkg/sub{i % 40:02d}/mod{i:04d}.py" for i in range(PYTHON_FILES)]
    versions = dict.fromkeys(modules, 0)
    first = {f"python/{m}": _module(m, 0) for m in modules}
    first.update({f"docs/page{i:04d}.md": b"doc %d\n" % i for i in range(OTHER_FILES)})
    stream = [_commit_command(0, first, parent=False)]
    wheel: dict[str, bytes] = {}
    for n in range(1, RANGE_COMMITS + 1):
        edits = {}
        for module in rng.sample(modules, EDITS_PER_COMMIT):
            versions[module] = n
            edits[f"python/{module}"] = _module(module, n)
        stream.append(_commit_command(n, edits, parent=True))
        if n == BUILT_AT:
            wheel = {m: _module(m, v) for m, v in versions.items()}
    for module in rng.sample(modules, PATCHED_FILES):
        wheel[module] += b"# local patch\n"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "fast-import", "--quiet"], input=b"".join(stream), check=True
    )
    return wheel, f"main~{RANGE_COMMITS}..main"


def _best_of(runs: int, call: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def bench_provenance(tmpdir: Path) -> dict[str, float]:
    """Build the repository in `tmpdir` and time both checks (seconds, best of 3)."""
    repo = tmpdir / "provenance-repo"
    start = time.perf_counter()
    wheel, commits = build_repo(repo)
    built = time.perf_counter() - start
    report = check_source_range(repo, commits, wheel)
    counts = report.counts()
    if counts["stale"] == 0 or counts["mismatch"] == 0 or counts["match"] == 0:
        raise RuntimeError(f"benchmark repository did not produce every status: {counts}")
    return {
        "files": float(len(wheel)),
        "range_commits": float(RANGE_COMMITS),
        "build_repo_s": built,
        "check_source_s": _best_of(3, lambda: check_source(repo, "main", wheel)),
        "check_source_range_s": _best_of(3, lambda: check_source_range(repo, commits, wheel)),
        **{f"status_{status}": float(n) for status, n in counts.items()},
    }


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="k3diff-bench-provenance-") as tmp:
        results = bench_provenance(Path(tmp))
    for name, value in results.items():
        print(f"{name:24} {value:.4f}" if name.endswith("_s") else f"{name:24} {value:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
