#!/usr/bin/env bash
# The batch-variance sweep on a GPU machine, for a reviewer to rerun (issues 19 and 31):
# the same tiny random Llama served twice by `transformers serve` on one GPU, the base with
# --continuous-batching and the patch without, sampled with k3diff (serial, concurrent and a
# sweep of concurrency levels, with the control), triaged, scanned (logs) and bundled.
#
#   scripts/gpu_sweep.sh OUT_DIR            (needs CUDA torch, transformers[serving], k3diff)
#
#   MODEL   a model directory to serve instead of building the tiny Llama
#   LEVELS  sweep levels (default 1,2,4,8,16,32)   REPEATS  per record and mode (default 16)
#   TOKENS  max_tokens (default 64)                PYTHON   interpreter with all of the above
#
# Both servers are stopped by pid on every exit path. Nothing is downloaded: the model is
# built from random weights (tests/integration/make_tiny_llama.py) unless MODEL is given.
set -euo pipefail
OUT="${1:?usage: scripts/gpu_sweep.sh OUT_DIR}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
LEVELS="${LEVELS:-1,2,4,8,16,32}"
REPEATS="${REPEATS:-16}"
TOKENS="${TOKENS:-64}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
MODEL="${MODEL:-$OUT/tiny-llama}"
[ -d "$MODEL" ] || "$PYTHON" "$HERE/tests/integration/make_tiny_llama.py" "$MODEL"

PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

command -v transformers > /dev/null || { echo "needs the transformers console script" >&2; exit 2; }
serve() {  # serve NAME PORT [extra flags]: start one server, wait until /v1/models answers
    local name="$1" port="$2"; shift 2
    transformers serve "$MODEL" --host 127.0.0.1 --port "$port" --device cuda --log-level info \
        "$@" > "$OUT/$name.log" 2>&1 &
    PIDS+=("$!")
    for _ in $(seq 600); do
        curl -sf "http://127.0.0.1:$port/v1/models" > /dev/null && return 0
        kill -0 "${PIDS[-1]}" 2>/dev/null || { tail -50 "$OUT/$name.log"; return 1; }
        sleep 1
    done
    echo "$name did not answer in 600 s" >&2; return 1
}

serve base 8100 --continuous-batching
serve patch 8101
K3DIFF=("$PYTHON" -m k3diff)
cd "$OUT"
printf '%s\n' \
    '{"key": "p0", "prompt": "the quick brown fox"}' \
    '{"key": "p1", "prompt": "kernels batch requests so numerics drift"}' \
    '{"key": "p2", "prompt": "seven wizards box nimbly"}' \
    '{"key": "p3", "prompt": "engines sample tokens from logits"}' > prompts.jsonl

# One capture per side, taken in a batch of 16 on the base (as a benchmark would have).
"${K3DIFF[@]}" sample --base http://127.0.0.1:8100 --patch http://127.0.0.1:8101 \
    --prompts prompts.jsonl --repeats 1 --mode serial --control off \
    --param temperature=0 --param max_tokens="$TOKENS" --param logprobs=2 --out capture
"$PYTHON" - <<'PY'
import json
lines = [json.loads(x) for x in open("capture/samples.jsonl").read().splitlines()[1:]]
for side in ("base", "patch"):
    with open(f"{side}.jsonl", "w") as out:
        for s in lines:
            if s.get("side") == side and s.get("error") is None:
                out.write(json.dumps({"key": s["key"], "text": s["text"]}) + "\n")
PY
"${K3DIFF[@]}" responses base.jsonl patch.jsonl --key key --format json -o cmp.json || true
"${K3DIFF[@]}" sample --base http://127.0.0.1:8100 --patch http://127.0.0.1:8101 \
    --prompts prompts.jsonl --repeats "$REPEATS" --mode serial --mode concurrent \
    --mode sweep --levels "$LEVELS" --concurrency "$REPEATS" --stream \
    --param temperature=0 --param max_tokens="$TOKENS" --param logprobs=2 --out run || true
"${K3DIFF[@]}" triage cmp.json run/samples.jsonl || true
"${K3DIFF[@]}" triage cmp.json run/samples.jsonl --format json -o triage.json || true
"${K3DIFF[@]}" logs base.log patch.log --format json -o logs.json || true
"${K3DIFF[@]}" telemetry run/samples.jsonl --format json -o telemetry.json || true
"${K3DIFF[@]}" report cmp.json run/samples.jsonl triage.json logs.json telemetry.json \
    --out bundle || true
echo "bundle: $OUT/bundle/report.html"
