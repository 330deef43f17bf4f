"""inspect_ai logs and `vllm bench serve` results built in their frameworks' documented layouts.

inspect_ai (src/inspect_ai/log/_recorders/eval.py): a `.eval` log is a zip holding
`_journal/start.json`, `_journal/summaries/N.json`, `samples/{id}_epoch_{epoch}.json` (one
`EvalSample` each), `summaries.json`, `reductions.json` and `header.json`; its JSON form is the
whole `EvalLog` with a `samples` list. vLLM (vllm/benchmarks/serve.py): `--save-result
--save-detailed` writes one JSON object whose per-request lists run in request order.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

EVAL_SPEC = {"task": "gsm8k", "model": "vllm/qwen", "run_id": "r1", "created": "2026-12-02"}


def inspect_sample(
    sample_id: int | str,
    epoch: int,
    question: str,
    completion: str,
    scores: dict[str, Any],
    time: float = 0.5,
) -> dict[str, Any]:
    """One `EvalSample` as inspect_ai dumps it (messages carry per-run ids)."""
    return {
        "id": sample_id,
        "epoch": epoch,
        "input": [{"id": f"msg-{time}", "role": "user", "content": question, "source": "input"}],
        "target": "42",
        "messages": [{"id": f"m-{time}", "role": "user", "content": question}],
        "output": {
            "model": "vllm/qwen",
            "choices": [
                {
                    "message": {"role": "assistant", "content": completion, "id": f"a-{time}"},
                    "stop_reason": "stop",
                }
            ],
            "completion": completion,
            "usage": {"input_tokens": 10, "output_tokens": 3, "total_tokens": 13},
            "time": time,
        },
        "scores": {
            name: {"value": value, "answer": completion, "explanation": f"graded at {time}"}
            for name, value in scores.items()
        },
        "metadata": {},
        "total_time": time + 0.1,
        "working_time": time,
    }


def _summary(sample: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "epoch", "input", "target", "scores")
    return {key: sample[key] for key in keys}


def write_eval_log(path: Path, samples: list[dict[str, Any]]) -> Path:
    """A finished `.eval` log, entries in the order the recorder writes them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    start = {"version": 2, "eval": EVAL_SPEC, "plan": {"steps": []}}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_journal/start.json", json.dumps(start, indent=2))
        for sample in samples:
            name = f"samples/{sample['id']}_epoch_{sample['epoch']}.json"
            archive.writestr(name, json.dumps(sample, indent=2))
        summaries = [_summary(s) for s in samples]
        archive.writestr("_journal/summaries/1.json", json.dumps(summaries, indent=2))
        archive.writestr("summaries.json", json.dumps(summaries, indent=2))
        header = {**start, "status": "success", "stats": {}, "results": {"scores": []}}
        archive.writestr("header.json", json.dumps(header, indent=2))
    return path


def write_json_log(path: Path, samples: list[dict[str, Any]]) -> Path:
    """The same log in inspect_ai's JSON form (pretty-printed, as `to_json(indent=2)`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    log = {
        "version": 2,
        "status": "success",
        "eval": EVAL_SPEC,
        "plan": {"steps": []},
        "results": {"scores": []},
        "stats": {},
        "samples": samples,
    }
    path.write_text(json.dumps(log, indent=2))
    return path


def bench_result(
    texts: list[str], errors: list[str] | None = None, ttft: float = 0.02
) -> dict[str, Any]:
    """`vllm bench serve --save-result --save-detailed` output for these generated texts."""
    count = len(texts)
    return {
        "date": "20261202-070000",
        "backend": "vllm",
        "model_id": "qwen",
        "num_prompts": count,
        "duration": 1.5,
        "completed": count,
        "input_lens": [12] * count,
        "output_lens": [len(t.split()) for t in texts],
        "ttfts": [ttft + i / 1000 for i in range(count)],
        "itls": [[0.01, 0.012 + ttft] for _ in range(count)],
        "latencies": [0.1 + ttft] * count,
        "start_times": [float(i) for i in range(count)],
        "generated_texts": texts,
        "errors": errors if errors is not None else [""] * count,
        "mean_ttft_ms": ttft * 1000,
    }


def write_bench(path: Path, result: dict[str, Any]) -> Path:
    """One line of JSON, as vLLM's `json.dump` writes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))
    return path
