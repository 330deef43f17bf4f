"""Masking what changes from run to run, so the same message in two runs is one finding.

Applied in this order: worker prefixes, timestamps, UUIDs, request ids, long hex runs,
addresses, host:port, temp paths, pids, then every remaining number; whitespace folded. An exit
code or signal number is kept (`KEPT_NUMBERS`): it says how a process ended, not which run it
was.
"""

from __future__ import annotations

import re

WORKER_PREFIX = re.compile(r"^\s*\((?:[^()]{0,80}?\b)?pid=\d+\) ?")
"""`(EngineCore_0 pid=123) ` / `(VllmWorker rank=1 pid=9) `: vLLM's prefix on a worker's lines.
One space after it is the prefix's; the rest is the line's own (logs64: a traceback a worker
printed unformatted, `(EngineCore_DP0 pid=104)   File "…"`, lost its frames' indent, so its
first frame read as its exception line)."""

LOG_PREFIX = re.compile(
    r"^(?:(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? \[[^\]]*\] ?"
    r"|\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[^\]]*\] ?"
    r"|\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[.,]\d+ - [\w.]+ - [A-Z]+ - )"
)
"""A logger's line prefix: vLLM's `ERROR 05-12 10:11:12 [core.py:42] `, SGLang's
`[2025-05-12 10:11:12 TP0] `, Python logging's `2025-05-12 10:11:12,345 - name - ERROR - `.
Removed before a traceback is recognised, since vLLM prefixes every line of one."""

_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"
            r"|\b\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?|\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
        ),
        "<time>",
    ),
    (
        re.compile(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
        ),
        "<uuid>",
    ),
    (
        re.compile(r"\b(chatcmpl|cmpl|req|request|batch|resp|run|seq)([-_])[A-Za-z0-9][\w-]*"),
        r"\1\2<id>",
    ),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "0x<addr>"),
    (re.compile(r"\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{6,}\b"), "<hex>"),
    (
        re.compile(r"\b(?:\d{1,3}(?:\.\d{1,3}){3}|localhost|\[[0-9a-fA-F:]+\]):\d{1,5}\b"),
        "<host>:<port>",
    ),
    (re.compile(r"/tmp/[\w.-]+"), "/tmp/<tmp>"),
    (re.compile(r"\bpid[=: ]\s*\d+", re.IGNORECASE), "pid=<pid>"),
    (re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"), "<n>"),
)


TERMINAL_CODES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
"""A terminal's escape sequences (CSI such as the colour `ESC[1;31m`, OSC, two-byte ones): a
logger writing to a terminal colours its level (`ESC[31mERROR ESC[0m`), and a log kept from
one (`docker run -t`, `script`) holds them (review64: a coloured ERROR line matched no rule,
exit 0). An OSC is removed with its terminator (BEL or ESC \\) only: one left open removes its
`ESC ]` alone, the line's text kept (review64b: an open OSC removed the rest of the line, so
`ESC ]0;` before a CUDA error hid it, exit 0)."""


def strip_terminal_codes(line: str) -> str:
    """`line` as a terminal shows it: without its escape sequences."""
    return TERMINAL_CODES.sub("", line) if "\x1b" in line else line


def strip_worker_prefix(line: str) -> str:
    """`line` without a leading worker prefix."""
    return WORKER_PREFIX.sub("", line, count=1)


def strip_log_prefix(line: str) -> str:
    """`line` without a logger's prefix (see LOG_PREFIX)."""
    return LOG_PREFIX.sub("", line, count=1)


KEPT_NUMBERS = re.compile(
    r"\b(exit(?:ed)?(?: with)?(?: code| status)|exit_?code|return_?code|returncode"
    r"|killed by signal|signal|signum)(\s*(?:[=:]\s*)?)(-?\d{1,3})\b",
    re.IGNORECASE,
)
"""How a process ended: `exit code 139`, `exitcode=-11`, `returncode: 1`, `signal 9`. Every
other number is masked as run-specific, but these are the failure itself: a worker that exited
with code 1 on the base is no excuse for one killed by SIGSEGV (139, -11, signal 11) on the
patch (review64: both read `exit code <n>`, one finding, so the patch's was excused). One run of
spaces before the number, never two in a row (review64b: `\\s*[=:]?\\s*` split a run of n spaces
n ways, so `signal` and a megabyte of spaces held the scan for hours, past `--max-seconds`)."""

_KEPT = "\ue000"
"""Stands for a kept number while the masks run (a private-use character: no mask matches it).
One the message holds is shown as U+FFFD first, so every marker is a kept number's (review64b:
a message holding it kept no number, so `exit code 1` and `exit code 139` were one again)."""


def normalize(message: str) -> str:
    """The message with run-specific parts masked and whitespace folded; exit codes and signal
    numbers kept (`KEPT_NUMBERS`)."""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(3))
        return f"{match.group(1)}{match.group(2)}{_KEPT}"

    message = KEPT_NUMBERS.sub(keep, message.replace(_KEPT, "\ufffd"))
    for pattern, replacement in _MASKS:
        message = pattern.sub(replacement, message)
    if kept:
        numbers = iter(kept)
        message = re.sub(_KEPT, lambda _: next(numbers), message)
    return " ".join(message.split())
