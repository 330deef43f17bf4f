#!/usr/bin/env bash
# The batch-variance sweep on a GPU machine, for a reviewer to rerun (issues 19 and 31):
# the same random Llama served twice by `transformers serve` on one GPU, the base with
# --continuous-batching and the patch without, sampled with k3diff (serial, concurrent and a
# sweep of concurrency levels, with the control), triaged, scanned (logs) and bundled.
# docs/gpu_sweep.md has the figures of a run on an H200 and how it was called.
#
#   scripts/gpu_sweep.sh OUT_DIR       (needs CUDA torch, transformers[serving], k3diff's deps)
#
#   MODEL       a model directory to serve instead of building the random Llama
#   MODEL_ARGS  options of tests/integration/make_tiny_llama.py (default: 1024 wide, 8 layers,
#               weights of std 0.05: varied greedy text with some near ties)
#   LEVELS      sweep levels (default 1,2,4,8,16)      REPEATS  per record and mode (default 16)
#   TOKENS      max_tokens (default 48)                 DTYPE    the servers' --dtype (default
#               bfloat16; float32 showed no batch variance on the H200)
#   DEVICE      the servers' --device (default cuda; cpu for a dry run)
#   CB_FLAGS    the base's --cb-* options (default: a KV cache of 256 blocks of 256 tokens)
#   SAMPLE_TIMEOUT  seconds for the main `k3diff sample` run (default 3600); the steps after
#               it run on what it logged by then
#   PYTHON      interpreter with torch and transformers[serving] (default python3)
#   K3DIFF_PYTHON  interpreter with k3diff's dependencies (default: PYTHON); k3diff itself is
#               imported from this checkout
#
# Both servers are stopped by pid on every exit path. Nothing is downloaded: the model is
# built from random weights unless MODEL is given, and the servers run offline with a Hugging
# Face cache of their own under OUT_DIR. OUT_DIR/timings.txt has the seconds of every step,
# OUT_DIR/env.txt the versions and the device, OUT_DIR/sweep.txt the curve per side.
set -euo pipefail
OUT="${1:?usage: scripts/gpu_sweep.sh OUT_DIR}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
K3DIFF_PYTHON="${K3DIFF_PYTHON:-$PYTHON}"
LEVELS="${LEVELS:-1,2,4,8,16}"
REPEATS="${REPEATS:-16}"
TOKENS="${TOKENS:-48}"
DTYPE="${DTYPE:-bfloat16}"
DEVICE="${DEVICE:-cuda}"
SAMPLE_TIMEOUT="${SAMPLE_TIMEOUT:-3600}"
MODEL_ARGS="${MODEL_ARGS:---hidden 1024 --layers 8 --heads 16 --kv-heads 4 --init-range 0.05}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
MODEL="${MODEL:-$OUT/model}"
# The KV cache of continuous batching, sized here: left to itself it takes 90 % of the free
# memory (on the CPU, of the host's RAM, which gets the server killed for memory).
if [ "$DEVICE" = cpu ]; then
    CB_FLAGS="${CB_FLAGS:---cb-block-size 32 --cb-num-blocks 64 --cb-max-batch-tokens 512}"
else
    CB_FLAGS="${CB_FLAGS:---cb-num-blocks 256 --cb-max-batch-tokens 4096}"
fi

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1
export HF_HUB_DISABLE_UPDATE_CHECK=1 TOKENIZERS_PARALLELISM=false
export HF_HOME="$OUT/hf-home" HF_HUB_CACHE="$OUT/hf-home/hub"
mkdir -p "$HF_HUB_CACHE"

T0=$SECONDS
LAST=$SECONDS
step() {  # step NAME: the seconds since the last step, to timings.txt
    echo "$1 $((SECONDS - LAST))" >> "$OUT/timings.txt"
    LAST=$SECONDS
}
: > "$OUT/timings.txt"

{
    "$PYTHON" -c 'import sys, torch, transformers
print("python", sys.version.split()[0])
print("torch", torch.__version__, "cuda", torch.version.cuda)
print("transformers", transformers.__version__)
if torch.cuda.is_available():
    print("gpu", torch.cuda.get_device_name(0))'
    echo "levels $LEVELS repeats $REPEATS tokens $TOKENS dtype $DTYPE device $DEVICE"
    echo "model ${MODEL_ARGS}"
    echo "base flags --continuous-batching $CB_FLAGS"
    command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total \
        --format=csv,noheader
} > "$OUT/env.txt" 2>&1 || true

# shellcheck disable=SC2086  # MODEL_ARGS is a list of options
[ -d "$MODEL" ] || "$PYTHON" "$HERE/tests/integration/make_tiny_llama.py" "$MODEL" $MODEL_ARGS
step model

PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

ready() {  # ready PORT: whether /health answers 200
    "$PYTHON" -c 'import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=2)' "$1" 2> /dev/null
}
serve() {  # serve NAME PORT [extra flags]: start one server, wait until /health answers
    local name="$1" port="$2"; shift 2
    # `python -m transformers.cli.transformers`: the console script need not be on PATH.
    "$PYTHON" -m transformers.cli.transformers serve "$MODEL" --host 127.0.0.1 --port "$port" \
        --device "$DEVICE" --dtype "$DTYPE" --log-level info "$@" > "$OUT/$name.log" 2>&1 &
    PIDS+=("$!")
    for _ in $(seq 600); do
        ready "$port" && return 0
        kill -0 "${PIDS[-1]}" 2>/dev/null || { tail -50 "$OUT/$name.log" >&2; return 1; }
        sleep 1
    done
    echo "$name did not answer in 600 s" >&2; return 1
}

serve patch 8101
# shellcheck disable=SC2086  # CB_FLAGS is a list of options
serve base 8100 --continuous-batching $CB_FLAGS
step servers
K3DIFF=(env "PYTHONPATH=$HERE${PYTHONPATH:+:$PYTHONPATH}" "$K3DIFF_PYTHON" -m k3diff)
cd "$OUT"
printf '%s\n' \
    '{"key": "p0", "prompt": "the quick brown fox"}' \
    '{"key": "p1", "prompt": "kernels batch requests so numerics drift"}' \
    '{"key": "p2", "prompt": "seven wizards box nimbly"}' \
    '{"key": "p3", "prompt": "engines sample tokens from logits"}' > prompts.jsonl

# One greedy capture per side, serially (as a benchmark's reference run would be), streamed
# like the run below: `transformers serve` streams no text for a trailing partial UTF-8
# sequence that its whole-text answer renders as U+FFFD, so a capture taken without --stream
# is not reproduced by streamed samples of the same tokens (seen on the H200 run).
# Note: the base's continuous-batching manager takes its sampling settings from the first
# request it serves (transformers 5.17 and 5.18) and keeps them, so this greedy capture fixes
# greedy decoding for every later base request, the control's temperature 1 included.
"${K3DIFF[@]}" sample --base http://127.0.0.1:8100 --patch http://127.0.0.1:8101 \
    --prompts prompts.jsonl --repeats 1 --mode serial --control off --stream \
    --param temperature=0 --param max_tokens="$TOKENS" --out capture || true
"$K3DIFF_PYTHON" - <<'PY'
import json
lines = [json.loads(x) for x in open("capture/samples.jsonl").read().splitlines()[1:]]
for side in ("base", "patch"):
    with open(f"{side}.jsonl", "w") as out:
        for s in lines:
            if s.get("side") == side and s.get("error") is None:
                out.write(json.dumps({"key": s["key"], "text": s["text"]}) + "\n")
PY
"${K3DIFF[@]}" responses base.jsonl patch.jsonl --key key --format json -o cmp.json || true
step capture
# The modes in this order, so that SAMPLE_TIMEOUT, if it strikes, takes the concurrent mode
# (the sweep's top level again) first; what was taken by then is in the log all the same.
timeout "$SAMPLE_TIMEOUT" "${K3DIFF[@]}" sample --base http://127.0.0.1:8100 \
    --patch http://127.0.0.1:8101 --prompts prompts.jsonl --repeats "$REPEATS" \
    --mode serial --mode sweep --mode concurrent --levels "$LEVELS" --concurrency "$REPEATS" --stream \
    --param temperature=0 --param max_tokens="$TOKENS" --out run --format json \
    > sample.json || true
step sample
cleanup
PIDS=()
step stop
"${K3DIFF[@]}" triage cmp.json run/samples.jsonl > triage.txt || true
"${K3DIFF[@]}" triage cmp.json run/samples.jsonl --format json -o triage.json || true
"${K3DIFF[@]}" logs base.log patch.log --format json -o logs.json || true
"${K3DIFF[@]}" telemetry run/samples.jsonl > telemetry.txt || true
"${K3DIFF[@]}" telemetry run/samples.jsonl --format json -o telemetry.json || true
# Each document with what it was made from (report65): the two captures cmp.json compared and
# the two servers' logs logs.json scanned, so `report` runs responses and logs again on them
# (tied by the SHA-256 each document records) instead of judging those two documents alone;
# triage and telemetry are run again from run/samples.jsonl beside them.
"${K3DIFF[@]}" report cmp.json base.jsonl patch.jsonl run/samples.jsonl triage.json \
    logs.json base.log patch.log telemetry.json --out bundle || true
# The curve per side, recounted from the log (not from triage): per mode and level, the
# samples, the distinct texts and how many differ from that side's serial text of the record.
REPEATS="$REPEATS" "$K3DIFF_PYTHON" - <<'PY' > sweep.txt
import collections, json, os
lines = [json.loads(x) for x in open("run/samples.jsonl").read().splitlines()[1:]]
modes = ("serial", "concurrent", "sweep")
ok = [s for s in lines if s.get("error") is None and s.get("mode") in modes]
print(f"failed samples: {sum(1 for s in lines if s.get('error') is not None)}")
serial = collections.defaultdict(collections.Counter)
for s in ok:
    if s["mode"] == "serial":
        serial[s["side"], s["key"]][s["text"]] += 1
groups = collections.defaultdict(list)
for s in ok:
    level = {"serial": 1, "concurrent": int(os.environ["REPEATS"])}.get(s["mode"], s.get("level"))
    groups[s["side"], modes.index(s["mode"]), level].append(s)
print("side   mode        level  samples  distinct per prompt  differ from serial")
for (side, mode, level), group in sorted(groups.items()):
    keys = sorted({s["key"] for s in group})
    distinct = ",".join(str(len({s["text"] for s in group if s["key"] == k})) for k in keys)
    differ = sum(1 for s in group if s["text"] != serial[side, s["key"]].most_common(1)[0][0])
    share = f"{differ}/{len(group)} ({differ / len(group):.0%})"
    print(f"{side:6} {modes[mode]:11} {level:5} {len(group):8}  {distinct:19}  {share}")
PY
step analysis
echo "total $((SECONDS - T0))" >> "$OUT/timings.txt"
echo "bundle: $OUT/bundle/report.html"
