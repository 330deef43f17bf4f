"""Write the demo's captured responses and a samples log: the seed scenario (8 records, 4
mismatched; on those the base gives 3 distinct outputs of 3, the patch 1 of 3).

    DIR/responses/base.jsonl, DIR/responses/patch.jsonl   /v1/completions responses
    DIR/run/samples.jsonl                                 a `k3diff.samples/1` log

Until `k3diff sample` lands on main the log is written here in the contract's format.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from k3diff.responses.model import text_digest

MISMATCHED = [f"q{n}" for n in range(4)]
MATCHED = [f"q{n}" for n in range(4, 8)]


def _completion(key: str, text: str) -> str:
    choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": "stop"}
    return (
        json.dumps(
            {
                "id": key,
                "object": "text_completion",
                "created": 1_700_000_000,
                "model": "engine",
                "choices": [choice],
            }
        )
        + "\n"
    )


def _sample(side: str, key: str, repeat: int, text: str) -> str:
    body = {"model": "engine", "prompt": key, "max_tokens": 16, "temperature": 0}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return (
        json.dumps(
            {
                "side": side,
                "key": key,
                "mode": "serial",
                "repeat": repeat,
                "request_sha256": hashlib.sha256(canonical).hexdigest(),
                "status": 200,
                "text": text,
                "text_xxh3": text_digest(text),
                "token_ids_xxh3": None,
                "finish_reason": "stop",
                "usage": None,
                "latency_s": round(0.04 + 0.013 * ((repeat + len(key) + len(side)) % 5), 3),
                "fingerprint": None,
                "error": None,
                "attempts": 1,
                "started": "2024-01-01T00:00:00Z",
            }
        )
        + "\n"
    )


def main(directory: Path) -> None:
    texts = {k: (f"base {k} #0", f"patch {k}") for k in MISMATCHED}
    texts |= {k: (f"same {k}", f"same {k}") for k in MATCHED}
    (directory / "responses").mkdir(parents=True, exist_ok=True)
    for index, side in enumerate(("base", "patch")):
        rows = [_completion(k, pair[index]) for k, pair in texts.items()]
        (directory / "responses" / f"{side}.jsonl").write_text("".join(rows))
    header = {
        "schema": "k3diff.samples/1",
        "run": {
            "command": ["k3diff", "sample", "--repeats", "2"],
            "servers": {"base": "http://127.0.0.1:8000", "patch": "http://127.0.0.1:8001"},
            "modes": ["serial"],
            "endpoint": "completions",
            "stream": False,
            "params": {"temperature": 0},
            "repeats": 2,
            "concurrency": 1,
            "k3diff_version": "0.1.0",
            "started": "2024-01-01T00:00:00Z",
        },
    }
    lines = [json.dumps(header) + "\n"]
    for key in MISMATCHED + MATCHED:
        for repeat in range(2):
            base = f"base {key} #{repeat + 1}" if key in MISMATCHED else f"same {key}"
            lines.append(_sample("base", key, repeat, base))
            lines.append(_sample("patch", key, repeat, texts[key][1]))
    (directory / "run").mkdir(parents=True, exist_ok=True)
    (directory / "run" / "samples.jsonl").write_text("".join(lines))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
