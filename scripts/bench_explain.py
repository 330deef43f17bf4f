"""Benchmark `explain_native` on the native entries that differ between two nvidia-cublas wheels.

Budget (issue 4): explaining an entry takes at most 3x a plain zlib inflate of both versions of
it, with peak memory below 300 MB, on libraries of up to 750 MB. Each entry is inflated once to a
scratch directory outside the repository; the explanation runs in a fresh subprocess so that its
peak RSS is its own (VmHWM from /proc, else ru_maxrss, which can include the parent's size at
fork).

    python scripts/bench_explain.py [CACHE_DIR]   # default ~/.cache/k3diff/bench
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path
from typing import Any

BASE_WHEEL = "nvidia_cublas_cu12-12.9.0.13-*.whl"
PATCH_WHEEL = "nvidia_cublas_cu12-12.9.1.4-*.whl"
TIME_RATIO_BUDGET = 3.0
PEAK_RSS_BUDGET_MIB = 300
CHUNK = 1 << 20
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")

CHILD = """
import json, resource, sys, time
from pathlib import Path
from k3diff.native import explain_native
start = time.perf_counter()
result = explain_native(Path(sys.argv[1]), Path(sys.argv[2]))
seconds = time.perf_counter() - start
peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
# ru_maxrss survives exec, so it can report the parent's size at fork; VmHWM is this image's own.
status = Path("/proc/self/status")
if status.exists():
    hwm = [line for line in status.read_text().splitlines() if line.startswith("VmHWM:")]
    peak_mib = int(hwm[0].split()[1]) / 1024 if hwm else peak_mib
print(json.dumps({"seconds": seconds, "peak_rss_mib": peak_mib,
                  "classification": list(result.classification), "summary": result.summary}))
"""


def _find(cache_dir: Path, pattern: str) -> Path:
    found = sorted(cache_dir.glob(pattern))
    if not found:
        raise FileNotFoundError(f"{cache_dir}: no wheel matching {pattern}")
    return found[0]


def _differing_natives(base: zipfile.ZipFile, patch: zipfile.ZipFile) -> list[str]:
    patch_infos = {info.filename: info for info in patch.infolist()}
    names = []
    for info in base.infolist():
        other = patch_infos.get(info.filename)
        if other is None or ".so" not in info.filename:
            continue
        if (info.file_size, info.CRC) != (other.file_size, other.CRC):
            names.append(info.filename)
    return names


def _raw_inflate(archive: Path, info: zipfile.ZipInfo, sink: Any) -> float:
    """Seconds to zlib-inflate one entry's raw deflate stream (writing to `sink` untimed)."""
    with open(archive, "rb") as stream:
        stream.seek(info.header_offset)
        fields = _LOCAL_HEADER.unpack(stream.read(_LOCAL_HEADER.size))
        stream.seek(info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10])
        inflater, remaining, elapsed = zlib.decompressobj(-15), info.compress_size, 0.0
        while remaining:
            raw = stream.read(min(CHUNK, remaining))
            remaining -= len(raw)
            start = time.perf_counter()
            out = inflater.decompress(raw)
            elapsed += time.perf_counter() - start
            if sink is not None:
                sink.write(out)
        return elapsed


def _explain_in_child(base: Path, patch: Path) -> dict[str, Any]:
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(base), str(patch)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(run.stdout)
    return result


def bench_explain(cache_dir: Path) -> list[dict[str, Any]]:
    """One row per native entry that differs between the two cublas wheels in `cache_dir`."""
    base_wheel, patch_wheel = _find(cache_dir, BASE_WHEEL), _find(cache_dir, PATCH_WHEEL)
    rows = []
    with (
        zipfile.ZipFile(base_wheel) as base_zip,
        zipfile.ZipFile(patch_wheel) as patch_zip,
        tempfile.TemporaryDirectory(prefix="k3diff-bench-explain-") as scratch,
    ):
        for name in _differing_natives(base_zip, patch_zip):
            paths, inflate_seconds = [], 0.0
            for side, wheel, archive in (
                ("base", base_wheel, base_zip),
                ("patch", patch_wheel, patch_zip),
            ):
                path = Path(scratch) / side / Path(name).name
                path.parent.mkdir(exist_ok=True)
                with open(path, "wb") as sink:
                    inflate_seconds += _raw_inflate(wheel, archive.getinfo(name), sink)
                paths.append(path)
            measured = _explain_in_child(paths[0], paths[1])
            rows.append(
                {
                    "entry": name,
                    "base_size": paths[0].stat().st_size,
                    "patch_size": paths[1].stat().st_size,
                    "inflate_seconds": round(inflate_seconds, 3),
                    "explain_seconds": round(measured["seconds"], 3),
                    "ratio": round(measured["seconds"] / inflate_seconds, 3),
                    "peak_rss_mib": round(measured["peak_rss_mib"], 1),
                    "classification": measured["classification"],
                    "summary": measured["summary"],
                }
            )
            for path in paths:
                path.unlink()
    return rows


def within_budget(row: dict[str, Any]) -> bool:
    return bool(row["ratio"] <= TIME_RATIO_BUDGET and row["peak_rss_mib"] < PEAK_RSS_BUDGET_MIB)


def main(argv: list[str]) -> int:
    cache_dir = Path(argv[0]) if argv else Path.home() / ".cache" / "k3diff" / "bench"
    rows = bench_explain(cache_dir)
    total_inflate = sum(row["inflate_seconds"] for row in rows)
    total_explain = sum(row["explain_seconds"] for row in rows)
    for row in rows:
        verdict = "ok" if within_budget(row) else "OVER BUDGET"
        print(
            f"{row['entry']}: {row['base_size']:,} → {row['patch_size']:,} B; "
            f"inflate {row['inflate_seconds']:.3f}s, explain {row['explain_seconds']:.3f}s "
            f"(x{row['ratio']:.2f}), peak RSS {row['peak_rss_mib']:.0f} MiB: {verdict}"
        )
        print(f"    {row['summary']}")
    print(
        f"total: inflate {total_inflate:.3f}s, explain {total_explain:.3f}s "
        f"(x{total_explain / total_inflate:.2f}; budget x{TIME_RATIO_BUDGET})"
    )
    return 0 if all(within_budget(row) for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
