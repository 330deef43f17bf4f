"""The scanner's rules: an ordered registry, specific before generic, first match wins."""

from __future__ import annotations

import re
from dataclasses import dataclass

from k3diff.errors import UsageError
from k3diff.logs.model import Severity


@dataclass(frozen=True)
class Rule:
    """One thing a reviewer looks for in a server log."""

    name: str
    """Stable name, used by `--ignore-rule` and in every report."""
    severity: Severity
    """`error` findings can fail the run; `warning` findings are listed, never failing."""
    pattern: re.Pattern[str]
    """Searched in each line (after a worker prefix such as `(EngineCore pid=7)` is removed)."""
    builtin: bool = True
    """False for a rule given with `--rule` / `--warn-rule`."""


Span = tuple[str, str]
"""A `_then` rule's (first, later)."""


def _rule(name: str, severity: Severity, pattern: str, flags: int = 0) -> Rule:
    return Rule(name, severity, re.compile(pattern, flags))


def _then(first: str, later: str) -> str:
    """A pattern for `first`, then `later` anywhere after it in the line (`first.*later`), tried
    from `first`'s first place only: `.*` from each place scanned to the line's end, so a line
    repeating `first` took quadratic time (review64b: a megabyte of `worker ` some hours, past
    `--max-seconds`). The same lines match: when `later` follows none of `first`'s places, it
    follows no later one."""
    return f"^(?:(?!{first}).)*{first}.*{later}"


TRACEBACK_START = re.compile(
    r"^Traceback \(most recent call last\):|Traceback \(most recent call last\):\s*$"
)
"""A Python traceback's first line; the scanner reads on to its exception line. It may end a
line that announces it: SGLang logs `[time TP0] Scheduler hit an exception: Traceback (most
recent call last):` and the frames after it; a progress bar left without its newline (tqdm's
`Loading safetensors checkpoint shards:  50% ... 1.1it/s]Traceback (most recent call last):`,
review71e) leads it too."""

CONSEQUENCE = re.compile(
    r"EngineDeadError|output_handler failed"
    r"|See (?:the )?(?:stack trace|root cause) \(?above\)?|is already dead"
    r"|Background loop has errored already|" + _then(r"Engine ?core proc\b", r"\bdied unexpectedly")
)
"""What an engine says when it fails because its engine core died, pointing back at the cause:
vLLM V1's `EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the
root cause.` (`vllm/v1/engine/exceptions.py`), the `AsyncLLM output_handler failed.` that
announces it, `Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.`, `Engine
core initialization failed. See root cause above.`; V0's `AsyncEngineDeadError: Background loop
has errored already.` and `MQLLMEngine is already dead`. After a crash in the same file, a
finding these name is that crash's consequence (`k3diff.logs.matcher`)."""

STARTUP = re.compile(r"Application startup complete|The server is fired up")
"""A server announcing that it is up (uvicorn's line, which vLLM, SGLang, TensorRT-LLM and
`transformers serve` all print; SGLang's own): more often than once in one file, it restarted."""

STARTUP_KINDS = ("Application startup complete", "The server is fired up")
"""The announcements counted apart: a server printing both once started once."""

_E, _W = Severity.ERROR, Severity.WARNING
_ASSERTION: Span = (r"Assertion [`'\"(]", r"[`'\")] failed")
_ENGINE_CORE: Span = ("Engine ?core ", "(?:died|failed|dead)")
_WORKER: Span = ("worker ", "died")

BUILTIN_RULES: tuple[Rule, ...] = (
    # A traceback is recognised by the scanner (multi-line); this rule only names it.
    Rule("traceback", _E, TRACEBACK_START),
    _rule(
        "out-of-memory",
        _E,
        r"out of memory|OutOfMemoryError|\bOOM\b|std::bad_alloc|\bMemoryError\b"
        r"|Cannot allocate memory|oom-kill",
        re.IGNORECASE,
    ),
    _rule(
        "cuda-error",
        _E,
        r"CUDA error|cudaError\w*|illegal memory access|CUBLAS_STATUS_(?!SUCCESS)\w+"
        r"|CUDNN_STATUS_(?!SUCCESS)\w+|device-side assert|CUDA driver error|\bXid\b",
    ),
    _rule(
        "nccl-error",
        _E,
        r"NCCL WARN|NCCL error|nccl\w*Error|ncclSystemError|ncclInternalError"
        r"|ncclUnhandledCudaError|NCCL watchdog|Watchdog caught collective operation timeout",
    ),
    _rule(
        "nan-inf",
        _E,
        r"\b(?:nan|inf)s? (?:detected|found|encountered|values?|in (?:logits|output|loss"
        r"|tensor|hidden))|non-finite|NaN or Inf|contains? (?:nan|inf)\b|isnan|isinf"
        r"|NaN in the (?:logits|probability)",
        re.IGNORECASE,
    ),
    _rule(
        "assertion",
        _E,
        r"\bAssertionError\b|assert(?:ion)? failed|" + _then(*_ASSERTION),
        re.IGNORECASE,
    ),
    _rule(
        "crash",
        _E,
        r"Segmentation fault|core dumped|Fatal Python error|SIGSEGV|SIGABRT|SIGBUS"
        r"|terminate called|EngineDeadError|\bKilled\b"
        r"|exited (?:unexpectedly|with (?:exit )?code [1-9])|Received sigquit from a child process"
        f"|{_then(*_ENGINE_CORE)}|{_then(*_WORKER)}",
        re.IGNORECASE,
    ),
    _rule("trtllm-error", _E, r"\[TRT-LLM\]\s*\[E\]"),
    _rule("trtllm-warning", _W, r"\[TRT-LLM\]\s*\[W\]"),
    # SGLang's retraction (its preemption), a warning its level-less prefix hides from the level
    # rules: `KV cache pool is full. Retract requests. #retracted_reqs: 1, ...`
    # (`Scheduler.update_running_batch`).
    _rule("kv-retract", _W, r"KV cache pool is full\. Retract requests"),
    _rule("engine-error", _E, r"(?<![\w.-])(?:ERROR|CRITICAL|FATAL)(?![\w-])"),
    _rule("engine-warning", _W, r"(?<![\w.-])(?:WARNING|WARN)(?![\w-])"),
    # Derived per file: the server announced its start more than once (it crashed and came back).
    Rule("restart", _E, STARTUP),
)
"""Built-in rules in the order they are tried."""

LEVEL_RULES = frozenset({"engine-error", "engine-warning"})
"""Rules that match a log level word, not what went wrong."""

MULTILINE_RULES = frozenset({"traceback", "restart"})
"""Rules the scanner applies itself, not line by line: a traceback is read to its exception
line; a restart is a file in which the server announced its start more than once."""

BUILTIN_NAMES = frozenset(r.name for r in BUILTIN_RULES)

KEYWORDS: dict[str, tuple[str, ...]] = {
    "traceback": ("traceback (",),
    "out-of-memory": ("memory", "oom", "bad_alloc"),
    "cuda-error": ("cuda", "illegal memory", "cublas_status_", "cudnn_status_", "device-side", "xid"),
    "nccl-error": ("nccl", "watchdog"),
    "nan-inf": ("nan", "inf ", "infs ", "non-finite", "isinf", "contain inf", "contains inf"),
    "assertion": ("assert",),
    "crash": (
        "segmentation", "core dumped", "fatal python", "sigsegv", "sigabrt", "sigbus",
        "terminate called", "enginedead", "engine", "killed", "exited", "died",
        "sigquit",
    ),
    "trtllm-error": ("[trt-llm]",),
    "trtllm-warning": ("[trt-llm]",),
    "kv-retract": ("retract requests",),
    "engine-error": ("error", "critical", "fatal"),
    "engine-warning": ("warn",),
    "restart": ("startup complete", "fired up"),
}  # fmt: skip
"""Per built-in rule, lower-case literals one of which every match of its pattern contains
(case-insensitively). The scanner looks at a line only when it holds one of them: a plain
substring search over a whole block runs at memory speed, where Python's regular expressions
run at a few MB/s (tests check every rule's examples against it)."""


def _prefilter() -> tuple[bytes, ...]:
    words = sorted({w for ws in KEYWORDS.values() for w in ws}, key=len)
    # A keyword holding a shorter one adds nothing ("enginedead" holds "engine").
    kept = [w for i, w in enumerate(words) if not any(k in w for k in words[:i])]
    return tuple(w.encode("ascii") for w in kept)


PREFILTER = _prefilter()
"""The keywords the scanner searches each block for."""


def parse_user_rule(spec: str, severity: Severity) -> Rule:
    """`NAME=REGEX` (from `--rule` or `--warn-rule`) as a Rule; UsageError when malformed."""
    name, sep, pattern = spec.partition("=")
    name = name.strip()
    if not sep or not name or not pattern:
        raise UsageError(f"rule {spec!r} is not NAME=REGEX")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise UsageError(f"rule name {name!r}: use letters, digits, '.', '_' and '-'")
    if name in BUILTIN_NAMES:
        raise UsageError(
            f"rule name {name!r} is a built-in rule; choose another name "
            f"(or --ignore-rule {name} to drop the built-in one)"
        )
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise UsageError(f"rule {name}: invalid regular expression {pattern!r}: {exc}") from None
    return Rule(name, severity, compiled, builtin=False)


def active_rules(user: tuple[Rule, ...], ignored: tuple[str, ...]) -> tuple[Rule, ...]:
    """User rules first (they are the specific ones), then the built-in rules, minus `ignored`;
    UsageError for an ignored name that names no rule, or a user rule given twice."""
    names = [r.name for r in user]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise UsageError(f"rule {duplicate!r} is given more than once")
    known = BUILTIN_NAMES | set(names)
    unknown = sorted(set(ignored) - known)
    if unknown:
        raise UsageError(
            f"--ignore-rule {unknown[0]}: no such rule (rules: {', '.join(sorted(known))})"
        )
    return tuple(r for r in (*user, *BUILTIN_RULES) if r.name not in ignored)
