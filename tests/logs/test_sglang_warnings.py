"""SGLang logs its warnings with no level word (`[time TPn] message`), so the level rules never
see them (newuser61: they needed `--warn-rule`). Two that a patch reviewer must see are built in:
the sampler's NaN guard (`Detected errors during sampling! NaN in the logits.`, logged at
warning level while the server goes on with the NaNs replaced: an `nan-inf` error) and KV-cache
retraction (`KV cache pool is full. Retract requests. ...`: the `kv-retract` warning). Neither
fires on what a healthy SGLang run prints."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff

from .logs_support import run_json, write

HEALTHY = """\
[2026-12-05 00:00:01] server_args=ServerArgs(model_path='Qwen/Qwen2.5-0.5B-Instruct', port=30000)
[2026-12-05 00:00:05 TP0] Load weight begin. avail mem=78.50 GB
[2026-12-05 00:00:09 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, \
avail mem=77.40 GB, mem usage=1.10 GB.
[2026-12-05 00:00:09 TP0] KV Cache is allocated. #tokens: 6000000, K size: 34.00 GB, \
V size: 34.00 GB
[2026-12-05 00:00:09 TP0] Memory pool end. avail mem=8.90 GB
[2026-12-05 00:00:10 TP0] Capture cuda graph begin. This can take up to several minutes. \
avail mem=8.80 GB
[2026-12-05 00:00:20 TP0] Capture cuda graph end. Time elapsed: 10.00 s. mem usage=0.30 GB. \
avail mem=8.50 GB.
[2026-12-05 00:00:21 TP0] max_total_num_tokens=6000000, chunked_prefill_size=8192, \
max_prefill_tokens=16384, max_running_requests=4096, context_len=32768, \
available_gpu_mem=8.50 GB
[2026-12-05 00:00:22] INFO:     Started server process [1234]
[2026-12-05 00:00:22] INFO:     Waiting for application startup.
[2026-12-05 00:00:22] INFO:     Application startup complete.
[2026-12-05 00:00:22] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)
[2026-12-05 00:00:23 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, \
token usage: 0.00, #running-req: 0, #queue-req: 0,
[2026-12-05 00:00:24] INFO:     127.0.0.1:50000 - "POST /generate HTTP/1.1" 200 OK
[2026-12-05 00:00:24] The server is fired up and ready to roll!
[2026-12-05 00:00:30 TP0] Decode batch. #running-req: 8, #token: 1200, token usage: 0.02, \
cuda graph: True, gen throughput (token/s): 900.00, #queue-req: 0,
"""

TROUBLE = """\
[2026-12-05 00:00:31 TP0] Detected errors during sampling! NaN in the logits.
[2026-12-05 00:00:32 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1, \
#new_tokens_gained: 646, #new_token_ratio: 0.0980 -> 0.3487
"""


def test_sglangs_nan_guard_fails_and_its_retraction_is_counted(tmp_path: Path) -> None:
    base = write(tmp_path / "base.log", HEALTHY)
    patch = write(tmp_path / "patch.log", HEALTHY + TROUBLE)
    code, doc = run_json(base, patch)
    assert code == 1, doc
    rules = {r["name"]: r for r in doc["rules"]}
    assert rules["nan-inf"]["patch"] == 1 and rules["nan-inf"]["new_on_patch"], rules["nan-inf"]
    assert rules["kv-retract"]["severity"] == "warning"
    assert (rules["kv-retract"]["base"], rules["kv-retract"]["patch"]) == (0, 1)
    # The healthy run: no error or warning line at all.
    assert doc["base"]["error_lines"] == doc["base"]["warning_lines"] == 0, doc["base"]
    text = run_k3diff("logs", base, patch).stdout
    assert "kv-retract" in text and "nan-inf" in text
