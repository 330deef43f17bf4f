"""Confirm k3diff's sampling rules on a real llama-cpp-python server, end to end.

    PYTHONPATH=$PWD .venv/bin/python scripts/try_llama_cpp.py [--work DIR] [--build]

What it needs (docs/evidence-conditions.md, "A real llama-cpp-python server"):

- llama-cpp-python with its server extra in its own venv, LLAMA_VENV (default
  ~/.cache/k3diff/llamacpp-venv). PyPI has only the sdist, so it is built here (--build, when
  the venv lacks it; 14.5 minutes on one core here) from LLAMA_SDIST (default
  /tmp/lcp/llama_cpp_python-0.3.36.tar.gz);
- the inference server's venv for the model builder (K3DIFF_SERVE_VENV, default
  ~/.cache/k3diff/serve-venv, scripts/install_inference_server.sh): scripts/llama_cpp_gguf.py
  builds tests/integration's tiny random Llama, a patch with one weight changed, and converts
  both to GGUF with the sdist's vendored converter.

Then it starts `python -m llama_cpp.server` twice (base and patch model, n_ctx 256), walks the
flagship path of each case in CASES (capture with httpx, `responses`, `sample`, `triage`,
`report`, the real CLI in subprocesses), stops both servers by pid and prints one line a case:
exit codes, categories, and what each mode's batches were (exercised / not-exercised /
unproven). Exit 0 when every case gave the exit codes it expects, else 1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from llama_cpp_run import (
    Case,
    Server,
    capture,
    k3diff,
    start_server,
    stop_server,
    stream_vs_whole,
)

HOME = Path.home() / ".cache" / "k3diff"
LLAMA_VENV = Path(os.environ.get("LLAMA_VENV", HOME / "llamacpp-venv"))
SERVE_VENV = Path(os.environ.get("K3DIFF_SERVE_VENV", HOME / "serve-venv"))
SDIST = Path(os.environ.get("LLAMA_SDIST", "/tmp/lcp/llama_cpp_python-0.3.36.tar.gz"))
SCRIPTS = Path(__file__).resolve().parent
CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF "
    "-DLLAMA_BUILD_TOOLS=OFF -DLLAVA_BUILD=OFF"
)
PROMPTS = [
    {"key": "fox", "prompt": "the quick brown fox"},
    {"key": "engines", "prompt": "engines sample tokens"},
    {"key": "kernels", "prompt": "kernels batch requests"},
    {"key": "dog", "prompt": "a lazy dog"},
]
GREEDY, WARM = 0.0, 0.8
STREAM_SEEDS = 25
"""Seeds per prompt of the stream-vs-whole probe (both decodings of one seeded request)."""
CASES = [
    # name, patch server, temperature, streamed, modes, repeats, expected exit of triage
    Case("greedy patch", "patch", GREEDY, False, ("serial", "concurrent"), 3, 1),
    Case("greedy patch streamed", "patch", GREEDY, True, ("serial", "concurrent"), 3, 1),
    # The same model passes where its serial samples suffice ...
    Case("greedy same", "base", GREEDY, False, ("serial",), 3, 0),
    Case("greedy same streamed", "base", GREEDY, True, ("serial",), 3, 0),
    # ... and not with a concurrent mode: no gauge, so its batches clear nothing (exit 1).
    Case("greedy same +concurrent", "base", GREEDY, False, ("serial", "concurrent"), 3, 1),
    Case("greedy same streamed +concurrent", "base", GREEDY, True, ("serial", "concurrent"), 3, 1),
    Case("T0.8 same", "base", WARM, False, ("serial",), 40, 0),
    Case("T0.8 patch", "patch", WARM, False, ("serial",), 40, 1),
    Case("T0.8 same streamed", "base", WARM, True, ("serial",), 40, 0),
    Case("T0.8 same streamed +concurrent", "base", WARM, True, ("serial", "concurrent"), 40, 1),
    # Streamed samples against whole captures: another condition, refused (exit 2).
    Case("T0.8 stream vs whole", "base", WARM, False, ("serial",), 3, 2, sample_stream=True),
]


def build_venv() -> None:
    """Build llama-cpp-python[server] from the sdist into LLAMA_VENV, one compile job at a time."""
    subprocess.run([sys.executable, "-m", "venv", str(LLAMA_VENV)], check=True)
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": "1", "CMAKE_ARGS": CMAKE_ARGS}
    pip = [str(LLAMA_VENV / "bin" / "pip"), "install", "--isolated"]
    pip += ["--index-url", "https://pypi.org/simple", f"{SDIST}[server]"]
    subprocess.run(["nice", "-n", "10", *pip], check=True, env=env)


def models(work: Path) -> tuple[Path, Path]:
    """base.gguf and patch.gguf under WORK (built once)."""
    out = work / "models"
    if not (out / "patch.gguf").exists():
        src = work / "sdist"
        if not src.exists():
            with tarfile.open(SDIST) as tar:
                members = [m for m in tar.getmembers() if "/vendor/llama.cpp/" in m.name]
                tar.extractall(src, members=members, filter="data")
        (llama_cpp,) = src.glob("*/vendor/llama.cpp")
        script = SCRIPTS / "llama_cpp_gguf.py"
        cmd = [str(SERVE_VENV / "bin" / "python"), str(script), str(llama_cpp), str(out)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out / "base.gguf", out / "patch.gguf"


def summarise(run: Path) -> dict[str, Any]:
    """Categories and each mode's batches, from triage.json."""
    triage = json.loads((run / "triage.json").read_text())
    categories = Counter(r["category"] for r in triage["records"])
    modes: dict[str, Counter[str]] = {}
    for record in triage["records"]:
        for mode in record["modes"]:
            count = modes.setdefault(mode["mode"], Counter())
            for side in ("base", "patch"):
                numbers = mode[side]
                count["batches"] += numbers["batches"]
                count["gauge"] += numbers["batches_by_gauge"]
                count["token-windows"] += numbers["batches_by_token_windows"]
                count["unproven"] += numbers["batches_unproven"]
            for flag in mode["flags"]:
                count[f"flag:{flag}"] += 1
    return {"categories": dict(categories), "modes": {m: dict(c) for m, c in modes.items()}}


def run_case(case: Case, work: Path, servers: dict[str, Server]) -> dict[str, Any]:
    run = work / case.name.replace(" ", "-")
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir(parents=True)
    requests = [{**p, "max_tokens": 12, "temperature": case.temperature} for p in PROMPTS]
    (run / "prompts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in requests))
    base, patch = servers["base"], servers[case.patch]
    capture(base, requests, case.stream, run / "base.jsonl")
    capture(patch, requests, case.stream, run / "patch.jsonl")
    codes: dict[str, int] = {}
    cmp, samples = run / "cmp.json", run / "samples" / "samples.jsonl"
    codes["responses"] = k3diff(
        "responses", run / "base.jsonl", run / "patch.jsonl", "--key", "key",
        "--ignore-field", "model", "--format", "json", "-o", cmp,
    )  # fmt: skip
    modes = [arg for m in case.modes for arg in ("--mode", m)]
    stream = ["--stream"] if case.stream or case.sample_stream else []
    codes["sample"] = k3diff(
        "sample", "--base", base.url, "--patch", patch.url, "--prompts", run / "prompts.jsonl",
        "--repeats", str(case.repeats), *modes, "--concurrency", "4", *stream,
        "--out", run / "samples", "--format", "json", "-o", run / "sample.json",
    )  # fmt: skip
    codes["triage"] = k3diff(
        "triage", cmp, samples, "--format", "json", "-o", run / "triage.json",
        stderr=run / "triage.err",
    )  # fmt: skip
    result: dict[str, Any] = {"case": case.name, "codes": codes, "expected": case.expected}
    if codes["triage"] == 2:
        result["refusal"] = (run / "triage.err").read_text().strip().splitlines()[-1:]
        return result
    codes["report"] = k3diff("report", cmp, samples, run / "triage.json", "--out", run / "bundle")
    return result | summarise(run)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, help="working directory (default: a new temp dir)")
    parser.add_argument("--build", action="store_true", help="build LLAMA_VENV when it lacks it")
    parser.add_argument("--case", action="append", help="run only this case (repeatable)")
    args = parser.parse_args()
    cases = [c for c in CASES if not args.case or c.name in args.case]
    if not (LLAMA_VENV / "bin" / "python").exists():
        if not args.build:
            sys.exit(f"no llama-cpp-python venv at {LLAMA_VENV}: run with --build")
        build_venv()
    work = args.work or Path(tempfile.mkdtemp(prefix="k3diff-llamacpp-"))
    base_model, patch_model = models(work)
    servers: dict[str, Server] = {}
    try:
        for side, model in (("base", base_model), ("patch", patch_model)):
            servers[side] = start_server(LLAMA_VENV, model, work / f"{side}.log")
        results = [run_case(case, work, servers) for case in cases]
        warm = [{**p, "max_tokens": 12, "temperature": WARM} for p in PROMPTS]
        differ = stream_vs_whole(servers["base"], warm, STREAM_SEEDS)
    finally:
        for server in servers.values():
            stop_server(server)
    for result in results:
        print(json.dumps(result, sort_keys=True))
    print(
        f"streamed text differs from the whole one (same seed): {len(differ)} of "
        f"{len(PROMPTS) * STREAM_SEEDS} requests {differ[:8]}"
    )
    failed = [r["case"] for r in results if r["codes"]["triage"] != r["expected"]]
    print(f"work: {work}; cases whose triage exit differs from the expected: {failed or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
