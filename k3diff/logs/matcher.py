"""The rules applied to one log file's lines, and the findings of one side as they are seen.

A Python traceback is one finding, read from `Traceback (most recent call last):` to its
exception line: located at that line (the one a reader greps for), its `Traceback` line and the
error line that announced it (vLLM's `EngineCore encountered a fatal error.`) kept as the
place's context. Where an error rule names the exception (`torch.OutOfMemoryError: CUDA out of
memory`), the crash is that rule's finding, its message marked `(in a traceback)`, so one crash
is one finding that names what went wrong, and never the same finding as that error logged
without a crash (a base that logged the line alone does not excuse a patch that crashed on it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from k3diff.logs.model import Context, Location, LogFinding, Severity
from k3diff.logs.normalize import normalize, strip_log_prefix, strip_worker_prefix
from k3diff.logs.rules import (
    LEVEL_RULES,
    MULTILINE_RULES,
    STARTUP,
    STARTUP_KINDS,
    TRACEBACK_START,
    Rule,
)

TEXT_CAP = 300
"""Characters of a line kept as an example."""

EXAMPLES = 3
"""Places kept per finding."""

DISTINCT_CAP = 10_000
"""Distinct (rule, message) pairs kept per side."""

TRACEBACK_LINES = 400
"""Lines a traceback may span before the scanner gives up looking for its exception line."""

IN_TRACEBACK = " (in a traceback)"
"""How a crash's message is told from the same error logged without one."""


@dataclass
class _Bucket:
    rule: Rule
    message: str
    count: int = 0
    examples: list[Location] = field(default_factory=list)


@dataclass
class Collector:
    """Findings of one side as they are seen."""

    buckets: dict[tuple[str, str], _Bucket] = field(default_factory=dict)
    overflow: dict[str, int] = field(default_factory=dict)

    def add(self, rule: Rule, message: str, where: Location) -> None:
        key = (rule.name, normalize(message))
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= DISTINCT_CAP:
                self.overflow[rule.name] = self.overflow.get(rule.name, 0) + 1
                return
            bucket = self.buckets[key] = _Bucket(rule, key[1])
        bucket.count += 1
        if len(bucket.examples) < EXAMPLES:
            bucket.examples.append(where)

    def findings(self) -> tuple[LogFinding, ...]:
        ordered = sorted(self.buckets.values(), key=lambda b: (-b.count, b.rule.name, b.message))
        return tuple(
            LogFinding(b.rule.name, b.rule.severity, b.message, b.count, tuple(b.examples))
            for b in ordered
        )


def first_rule(rules: tuple[Rule, ...], line: str) -> Rule | None:
    """The first of `rules` whose pattern is found in `line`."""
    for rule in rules:
        if rule.pattern.search(line):
            return rule
    return None


@dataclass
class _Traceback:
    start: int
    first: str
    """The `Traceback` line's body (its logger prefix removed)."""
    raw: str
    """The `Traceback` line as logged (a worker prefix removed)."""
    announced: tuple[Context, ...] = ()
    """The error line just before it that announced it, if any."""
    lines: int = 0


class FileMatcher:
    """The rules applied to one file's lines, in order (only to lines the prefilter passes,
    plus every line while a traceback is open)."""

    def __init__(self, shown: str, rules: tuple[Rule, ...], collector: Collector) -> None:
        self.shown = shown
        self.collector = collector
        self.line_rules = tuple(r for r in rules if r.name not in MULTILINE_RULES)
        # Inside a traceback the log level on every line (vLLM's `ERROR ... [core.py:42]`) is
        # the traceback's own; what else a line names (a CUDA error, an OOM) is matched too.
        self.inner_rules = tuple(r for r in self.line_rules if r.name not in LEVEL_RULES)
        self.traceback_rule = next((r for r in rules if r.name == "traceback"), None)
        self.starts = dict.fromkeys(STARTUP_KINDS, 0)
        self.pending: _Traceback | None = None
        self.held: tuple[int, Rule, str, Location] | None = None

    def line(self, number: int, text: str) -> None:
        line = strip_worker_prefix(text)
        body = strip_log_prefix(line)
        pending = self.pending
        if pending is not None and body[:1].isspace():
            pending.lines += 1
            if pending.lines < TRACEBACK_LINES:
                # An error printed inside a traceback (a CUDA error in a frame's message)
                # counts as itself too: the traceback alone would match the base's.
                self._match(number, body, body.strip(), self.inner_rules)
                return
        starts = self.traceback_rule is not None and TRACEBACK_START.search(body) is not None
        if pending is not None:
            if pending.lines < TRACEBACK_LINES and not starts:
                self._crash(pending, number, line, body)  # its exception line: one finding
                return
            self._cut(pending, body if pending.lines < TRACEBACK_LINES else pending.first)
        if starts:
            held = self.held
            announced: tuple[Context, ...] = ()
            if held is not None and held[0] == number - 1:
                # "ERROR: Exception in ASGI application", vLLM's "EngineCore encountered a
                # fatal error.": not a finding of its own, quoted as the traceback's context
                announced = (Context("announced by", held[0], held[3].text),)
                self.held = None
            self._release()
            self.pending = _Traceback(number, body, line[:TEXT_CAP], announced)
            return
        self._release()
        announcing = STARTUP.search(line)
        if announcing is not None:
            self.starts[announcing.group(0)] += 1
        self._match(number, line, body)

    def _match(
        self, number: int, line: str, body: str, rules: tuple[Rule, ...] | None = None
    ) -> None:
        rule = first_rule(self.line_rules if rules is None else rules, line)
        if rule is not None:
            where = Location(self.shown, number, line[:TEXT_CAP])
            if rule.name == "engine-error" and self.traceback_rule is not None:
                self.held = (number, rule, body, where)  # counted unless a traceback follows
            else:
                self.collector.add(rule, body, where)

    def _release(self) -> None:
        """Count the error line held back to see whether a traceback followed it."""
        if self.held is not None:
            _, rule, body, where = self.held
            self.collector.add(rule, body, where)
            self.held = None

    def _context(self, pending: _Traceback) -> tuple[Context, ...]:
        return (*pending.announced, Context("traceback", pending.start, pending.raw))

    def _crash(self, pending: _Traceback, number: int, line: str, body: str) -> None:
        """The traceback closed by its exception line `line`: one finding, located there, of the
        error rule that names the exception (marked `IN_TRACEBACK`), else of `traceback`."""
        assert self.traceback_rule is not None
        rule = first_rule(self.line_rules, line)
        if rule is None or rule.severity is not Severity.ERROR or rule.name in LEVEL_RULES:
            rule, message = self.traceback_rule, body
        else:
            message = f"{body}{IN_TRACEBACK}"
        where = Location(self.shown, number, line[:TEXT_CAP], self._context(pending))
        self.collector.add(rule, message, where)
        self.pending = None

    def _cut(self, pending: _Traceback, message: str) -> None:
        """A traceback without its exception line (past `TRACEBACK_LINES`, another traceback
        begun, the file ended): a finding located at its `Traceback` line."""
        assert self.traceback_rule is not None
        where = Location(self.shown, pending.start, pending.raw, pending.announced)
        self.collector.add(self.traceback_rule, message, where)
        self.pending = None

    def finish(self) -> dict[str, int]:
        """Close the file; how many times its server announced its start, per announcement
        (a restart is counted over the whole log stream, `scan._Restarts`)."""
        self._release()
        if self.pending is not None:
            self._cut(self.pending, "traceback cut off at the end of the file")
        return self.starts
