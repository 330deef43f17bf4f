"""The extra sections `bench_wheels.py` prints after its cases: the provenance and explain
benchmarks (run as sibling scripts in subprocesses) and `--explain` end to end on the cublas
pair of case c."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_wheel_cases import prepare_case
from bench_wheel_runner import repeat_measured
from tabulate import tabulate

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent


def _helper_json(code: str) -> tuple[Any, str]:
    """Run a sibling bench helper in a subprocess; its last stdout line is JSON."""
    argv = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(SCRIPTS)!r})\n{code}"]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return None, (done.stderr.strip().splitlines() or ["no output"])[-1]
    return json.loads(lines[-1]), ""


PROVENANCE_CODE = """import json, tempfile
from pathlib import Path
from bench_provenance import bench_provenance
with tempfile.TemporaryDirectory() as tmp:
    print(json.dumps(bench_provenance(Path(tmp))))"""

EXPLAIN_CODE = """import json
from pathlib import Path
from bench_explain import bench_explain
print(json.dumps(bench_explain(Path({cache!r}))))"""


def _clip(value: Any, width: int = 90) -> Any:
    """Long summaries would make the table unreadable on a terminal."""
    text = str(value)
    return value if len(text) <= width else text[: width - 1] + "…"


def extra_sections(cache: Path, explain: bool) -> tuple[str, dict[str, Any]]:
    """Timings from bench_provenance.py and bench_explain.py (with `explain`: it needs the
    cublas wheels of case c), when they exist and run."""
    out, saved = [], {}
    helpers = [("provenance", PROVENANCE_CODE)]
    if explain:
        helpers.append(("explain", EXPLAIN_CODE.format(cache=str(cache))))
    for name, code in helpers:
        if not (SCRIPTS / f"bench_{name}.py").is_file():
            out.append(f"== {name}: scripts/bench_{name}.py not present, skipped")
            continue
        data, error = _helper_json(code)
        if data is None:
            out.append(f"== {name}: bench_{name} failed, skipped ({error})")
            continue
        saved[name] = data
        rows = [[k, v] for k, v in data.items()] if isinstance(data, dict) else data
        if isinstance(rows, list) and rows and isinstance(rows[0], dict):
            rows = [{k: _clip(v) for k, v in row.items()} for row in rows]
        headers: Any = ["timing", "value"] if isinstance(data, dict) else "keys"
        out.append(f"== {name} (scripts/bench_{name}.py)\n{tabulate(rows, headers=headers)}")
    return "\n\n".join(out), saved


def explain_cli_section(cache: Path, inflate_seconds: float | None, repeat: int) -> str:
    """Issue 4's budget end to end: `k3diff wheels --explain` on the two cublas releases (inflate
    to temporary files + explanation + the rest of the comparison) against a plain zlib inflate of
    the three changed libraries (measured by bench_explain), peak memory < 300 MB."""
    case = prepare_case("c", cache)
    base, patch = case.base, case.patch
    with tempfile.TemporaryDirectory(prefix="k3diff-bench-explain-") as tmp:
        argv = [sys.executable, "-m", "k3diff", "wheels", str(base), str(patch), "--explain"]
        argv += ["--no-file-hash", "--format", "json", "--output", f"{tmp}/explain.json"]
        timing = repeat_measured(argv, repeat, cwd=REPO)
        report = json.loads(Path(f"{tmp}/explain.json").read_text())
    explained = [e["path"] for e in report["entries"] if e.get("native")]
    rows = [["k3diff wheels --explain (cublas 12.9.0.13 vs 12.9.1.4)", f"{timing.seconds:.3f}", ""]]
    if inflate_seconds:
        ratio = timing.seconds / inflate_seconds
        verdict = "PASS" if ratio <= 3 else "FAIL"
        rows.append(["plain zlib inflate of the changed libraries", f"{inflate_seconds:.3f}", ""])
        rows.append(["--explain / inflate ≤ 3×", f"{ratio:.2f}×", verdict])
    peak = timing.peak_rss_mb
    rows.append(["peak RSS < 300 MB", f"{peak:.0f} MB", "PASS" if peak < 300 else "FAIL"])
    table = tabulate(rows, headers=["measurement", "value", "result"])
    return f"== explain end to end\n{table}\n  explained: {', '.join(explained)}"
