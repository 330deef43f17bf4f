"""`k3diff logs`' built-in rules: each finds the lines it is for (the engines' own wording), and the
keyword prefilter that skips lines no rule can match lets each rule's examples through."""

from __future__ import annotations

from pathlib import Path

import pytest

from .logs_support import clean, run_json, write

EXAMPLES = {
    "out-of-memory": [
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "RuntimeError: [enforce fail at alloc_cpu.cpp:83] Out of memory",
        "kernel: oom-kill:constraint=CONSTRAINT_NONE",
        "terminate called after throwing an instance of 'std::bad_alloc'",
        "MemoryError",
        "OSError: [Errno 12] Cannot allocate memory",
        "OOM while allocating KV cache",
    ],
    "cuda-error": [
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "cudaErrorIllegalAddress raised by kernel",
        "CUBLAS_STATUS_EXECUTION_FAILED when calling cublasGemmEx",
        "CUDNN_STATUS_INTERNAL_ERROR",
        "device-side assert triggered",
        "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus",
        "CUDA driver error: unknown error",
    ],
    "nccl-error": [
        "node1:123:456 [0] NCCL WARN Cuda failure 'out of' ",
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970",
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed",
        "ncclUnhandledCudaError: Call to CUDA function failed.",
        "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)",
    ],
    "nan-inf": [
        "NaN detected in logits at step 12",
        "found inf values in hidden states",
        "output contains NaN",
        "the tensor contains inf",
        "non-finite loss",
        "NaN or Inf found in input tensor.",
        "[2026-12-05 00:00:31 TP0] Detected errors during sampling! NaN in the logits.",
        "[2026-12-05 00:00:31 TP0] Detected errors during sampling! NaN in the probability.",
    ],
    "assertion": [
        "AssertionError: expected 4 blocks",
        "Assertion `idx < size' failed.",
        "assertion failed: mTokens > 0",
    ],
    "crash": [
        "Segmentation fault (core dumped)",
        "Fatal Python error: Aborted",
        "Received signal SIGSEGV",
        "terminate called without an active exception",
        "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.",
        "Engine core proc EngineCore_0 died unexpectedly, shutting down client.",
        "Killed",
        "Worker process exited with code 137",
        "worker 3 died",
        "[2026-12-05 00:03:00] Received sigquit from a child process. It usually means the child failed.",
    ],
    "trtllm-error": ["[TRT-LLM] [E] Failed to load engine"],
    "trtllm-warning": ["[TRT-LLM] [W] Logits post-processor is deprecated"],
    "kv-retract": [
        "[2026-12-05 00:00:32 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1, "
        "#new_tokens_gained: 646, #new_token_ratio: 0.0980 -> 0.3487",
        "[2026-12-05 00:00:32] KV cache pool is full. Retract requests. #retracted_reqs: 3, "
        "#new_token_ratio: 0.4000 -> 0.7000",
    ],
    "engine-error": [
        "ERROR 05-12 10:11:12 [serving.py:200] request failed",
        "[2025-05-12 10:11:12] ERROR: Exception in ASGI application",
        "CRITICAL shutting down",
    ],
    "engine-warning": [
        "WARNING 05-12 10:11:12 [config.py:1] slow",
        "[W] WARN: low memory headroom",
    ],
}


@pytest.mark.parametrize("rule", sorted(EXAMPLES))
def test_every_builtin_rule_finds_its_examples_through_the_prefilter(
    tmp_path: Path, rule: str
) -> None:
    """The scanner only looks at lines holding a rule's keyword; each example of each rule,
    written among thousands of ordinary lines, must still be found by that rule."""
    filler = clean() * 2000
    base = write(tmp_path / "b.log", filler)
    patch = write(tmp_path / "p.log", filler + "\n".join(EXAMPLES[rule]) + "\n")
    _code, doc = run_json(base, patch)
    counts = {r["name"]: r for r in doc["rules"]}[rule]
    assert counts["patch"] - counts["base"] == len(EXAMPLES[rule]), counts


def test_prefilter_keywords_cover_each_rule() -> None:
    from k3diff.logs.rules import BUILTIN_RULES, KEYWORDS, PREFILTER

    assert set(KEYWORDS) == {r.name for r in BUILTIN_RULES}
    for rule, lines in EXAMPLES.items():
        for line in lines:
            assert any(k in line.lower() for k in KEYWORDS[rule]), (rule, line)
            assert any(k.decode() in line.lower() for k in PREFILTER), (rule, line)
