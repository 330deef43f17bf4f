"""Time one command in a fresh process and read that process's own peak memory.

Each measurement is a child process spawned through `peakrss`, so its peak RSS is its own and
not the maximum over every earlier child. Run as a script, this module is also the child for the
baselines `k3diff wheels` is compared against (stdlib only, so they start as fast as possible,
except that the inflate floor uses ISA-L when it is installed, as k3diff does):

    python scripts/bench_wheel_runner.py walk BASE.whl PATCH.whl     # zipfile + sha256 per entry
    python scripts/bench_wheel_runner.py read BASE.whl PATCH.whl     # read each file once
    python scripts/bench_wheel_runner.py sha256 BASE.whl PATCH.whl   # sha256 of each whole file
    python scripts/bench_wheel_runner.py inflate BASE.whl PATCH.whl  # inflate all, all cores
"""

from __future__ import annotations

import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from peakrss import run_with_peak_rss

CHUNK = 1 << 20
"""Bytes per read in every baseline (1 MiB)."""

INFLATE_STEP = 512 << 10
"""Compressed bytes per inflate step in the inflate floor: the step k3diff's reader uses
(`k3diff.zip.archive._INFLATE_INPUT`), so floor and k3diff differ only in what k3diff adds.
128 KiB steps measured no faster (3.08-3.25 s against 3.04-3.10 s on case b)."""


@dataclass(frozen=True)
class Run:
    """One finished child process."""

    seconds: float
    """Wall time from spawn to exit, interpreter start-up included."""
    peak_rss_mb: float
    """The child's own peak resident set size, in MiB."""
    exit_code: int
    """The child's exit status."""
    stderr: str
    """The child's standard error (last 2,000 characters)."""
    cpu_seconds: float = 0.0
    """User + system CPU seconds of the child (every thread): on a loaded machine a fairer
    measure of the work done than wall time."""


@dataclass(frozen=True)
class Timing:
    """Repeated runs of one command."""

    runs: tuple[Run, ...]
    """Every run, in order."""

    @property
    def seconds(self) -> float:
        """Median wall time."""
        return statistics.median(run.seconds for run in self.runs)

    @property
    def cpu_seconds(self) -> float:
        """Median CPU time (user + system)."""
        return statistics.median(run.cpu_seconds for run in self.runs)

    @property
    def peak_rss_mb(self) -> float:
        """Largest peak RSS of any run."""
        return max(run.peak_rss_mb for run in self.runs)


def run_measured(argv: Sequence[str], cwd: Path | None = None) -> Run:
    """Run `argv` to completion; stdout is discarded, stderr kept for error messages."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        measured = run_with_peak_rss(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errors)
        elapsed = time.perf_counter() - start
        errors.seek(0)
        stderr = errors.read().decode("utf-8", "replace")[-2000:]
    return Run(elapsed, measured.peak_rss_mb, measured.exit_code, stderr, measured.cpu_seconds)


def repeat_measured(argv: Sequence[str], repeat: int, cwd: Path | None = None) -> Timing:
    """Run `argv` `repeat` times, each in a fresh process."""
    return Timing(tuple(run_measured(argv, cwd) for _ in range(repeat)))


def interleaved_measured(
    commands: dict[str, Sequence[str]], repeat: int, cwd: Path | None = None
) -> dict[str, Timing]:
    """Run every command once per round, `repeat` rounds: on a machine shared with other work,
    the load then moves all measurements alike instead of favouring whichever block ran in a
    quiet minute, so their ratios stay meaningful."""
    runs: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            runs[name].append(run_measured(argv, cwd))
    return {name: Timing(tuple(done)) for name, done in runs.items()}


def baseline_argv(baseline: str, paths: Sequence[Path]) -> list[str]:
    """The command line that runs one baseline of this module in a fresh interpreter."""
    return [sys.executable, str(Path(__file__).resolve()), baseline, *map(str, paths)]


def walk(paths: Sequence[Path]) -> None:
    """The plain approach: inflate every entry with zipfile and hash it with sha256."""
    for path in paths:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                digest = hashlib.sha256()
                with archive.open(info) as stream:
                    while chunk := stream.read(CHUNK):
                        digest.update(chunk)


def read_once(paths: Sequence[Path]) -> None:
    """The floor: every byte of both files read once, nothing computed."""
    buffer = bytearray(CHUNK)
    for path in paths:
        with open(path, "rb", buffering=0) as handle:
            while handle.readinto(buffer):
                pass


def file_sha256(paths: Sequence[Path]) -> None:
    """Whole-file SHA-256 of each file (what the report's `sha256` fields cost on their own)."""
    for path in paths:
        with open(path, "rb") as handle:
            hashlib.file_digest(handle, "sha256")


def inflate_all(paths: Sequence[Path]) -> None:
    """The floor for a pair whose entries were all recompressed: every entry of both files
    inflated with the fastest installed library, largest first on all cores, nothing compared
    or kept. No tool that proves such a pair by content can finish faster than this."""
    try:
        from isal import isal_zlib as inflater
    except ImportError:  # pragma: no cover - depends on the platform
        import zlib as inflater
    fds = {path: os.open(path, os.O_RDONLY) for path in paths}
    jobs = []
    for path in paths:
        with zipfile.ZipFile(path) as archive:
            jobs += [(fds[path], info) for info in archive.infolist() if info.compress_type == 8]
    jobs.sort(key=lambda job: -job[1].compress_size)

    def inflate(job: tuple[int, zipfile.ZipInfo]) -> None:
        fd, info = job
        header = os.pread(fd, 30, info.header_offset)
        position = info.header_offset + 30 + int.from_bytes(header[26:28], "little")
        position += int.from_bytes(header[28:30], "little")
        end = position + info.compress_size
        decompressor = inflater.decompressobj(-15)
        while position < end:
            data = os.pread(fd, min(INFLATE_STEP, end - position), position)
            position += len(data)
            decompressor.decompress(data)

    queue = iter(jobs)
    lock = threading.Lock()

    def worker() -> None:  # a bare thread pulling jobs: no per-task future to pay for
        while True:
            with lock:
                job = next(queue, None)
            if job is None:
                return
            inflate(job)

    threads = [threading.Thread(target=worker) for _ in range(os.cpu_count() or 1)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        for fd in fds.values():
            os.close(fd)


def warm_page_cache(paths: Sequence[Path]) -> None:
    """Read the files once so that every timed run sees them in the page cache."""
    read_once(paths)


def byte_compile(package: Path) -> str:
    """Byte-compile `package`, as `pip install` does, and say so. Under PYTHONDONTWRITEBYTECODE
    (set on the shared machines) no `.pyc` is ever written, so every timed run would compile
    k3diff's few hundred modules from source (0.1 s of CPU) while the baselines import only
    the standard library, which is compiled: that is set-up, not the work compared."""
    import compileall

    compileall.compile_dir(str(package), quiet=1)
    flag = " (PYTHONDONTWRITEBYTECODE is set)" if sys.dont_write_bytecode else ""
    return f"k3diff byte-compiled before timing, as an installed package is{flag}"


BASELINES: dict[str, Callable[[Sequence[Path]], None]] = {
    "walk": walk,
    "read": read_once,
    "sha256": file_sha256,
    "inflate": inflate_all,
}


def main(argv: Sequence[str]) -> int:
    if len(argv) < 2 or argv[0] not in BASELINES:
        print(f"usage: bench_wheel_runner.py {{{','.join(BASELINES)}}} FILE...", file=sys.stderr)
        return 2
    BASELINES[argv[0]]([Path(arg) for arg in argv[1:]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
