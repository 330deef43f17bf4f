"""Server logs as the engines print them, and the CLI as a user runs it, for the `k3diff logs`
tests (vLLM's `LEVEL MM-DD HH:MM:SS [file:line]` prefix on every line of a traceback, uvicorn's
start lines, a CUDA out-of-memory line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from cli_support import run_k3diff

from k3diff.documents.catalog import load_schema

CLEAN = """\
INFO 05-12 10:00:00 [api_server.py:1043] Starting vLLM API server 0 on http://127.0.0.1:{port}
INFO:     Started server process [{pid}]
INFO:     Application startup complete.
INFO 05-12 10:00:03 [logger.py:39] Received request cmpl-{rid}: prompt: 'hello', params: ...
INFO:     127.0.0.1:{client} - "POST /v1/completions HTTP/1.1" 200 OK
WARNING 05-12 10:00:04 [scheduler.py:1500] Sequence group {rid} is preempted by PreemptionMode.RECOMPUTE
"""

TRACEBACK = """\
ERROR 05-12 10:{minute}:05 [core.py:{line}] EngineCore encountered a fatal error.
ERROR 05-12 10:{minute}:05 [core.py:{line}] Traceback (most recent call last):
ERROR 05-12 10:{minute}:05 [core.py:{line}]   File "/usr/lib/python3/vllm/engine/core.py", line 500, in run_busy_loop
ERROR 05-12 10:{minute}:05 [core.py:{line}]     outputs = self.step()
ERROR 05-12 10:{minute}:05 [core.py:{line}] RuntimeError: CUDA error: an illegal memory access was encountered
"""

OOM = (
    "(EngineCore_0 pid={pid}) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
    "{mib}.00 MiB. GPU 0 has a total capacity of 139.81 GiB of which 2.19 MiB is free.\n"
)


def clean(pid: int = 4242, port: int = 8000, rid: str = "0c1f9e") -> str:
    """One clean vLLM start and request, as its server prints it."""
    return CLEAN.format(pid=pid, port=port, rid=rid, client=50000 + pid % 1000)


def write(path: Path, text: str) -> Path:
    """`text` written to `path` (its directory made), UTF-8."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run_json(*args: str | Path, cwd: Path | None = None) -> tuple[int, dict[str, Any]]:
    """`k3diff logs ARGS --format json` (run in `cwd`): its exit code (0 or 1) and document,
    checked against its schema."""
    result = run_k3diff("logs", *args, "--format", "json", cwd=cwd)
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(document, load_schema("logs"))
    return result.exit_code, document
