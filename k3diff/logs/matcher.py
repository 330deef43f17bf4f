"""The rules applied to one log file's lines, and the findings of one side as they are seen.

A Python traceback is one finding, read from `Traceback (most recent call last):` to its
exception line: located at that line (the one a reader greps for), its `Traceback` line and the
error line that announced it (vLLM's `EngineCore encountered a fatal error.`) kept as the
place's context. Where an error rule names the exception (`torch.OutOfMemoryError: CUDA out of
memory`), the crash is that rule's finding, its message marked `(in a traceback)`, so one crash
is one finding that names what went wrong, and never the same finding as that error logged
without a crash (a base that logged the line alone does not excuse a patch that crashed on it).

An engine failing because its engine core died (vLLM V1's `EngineDeadError`, announced by
`AsyncLLM output_handler failed.`; `Engine core proc … died unexpectedly`: `rules.CONSEQUENCE`)
after a crash in the same file is that crash's consequence: still a finding of its own (matched
and failing as before), marked with the crash it follows from and listed after it, so the root
cause leads (logs64).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from k3diff.logs.model import Context, Location, LogFinding, Severity
from k3diff.logs.normalize import normalize, strip_log_prefix, strip_worker_prefix
from k3diff.logs.rules import (
    CONSEQUENCE,
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


Key = tuple[str, str]
"""A finding's rule name and normalised message: what two runs are matched on."""


@dataclass
class _Bucket:
    rule: Rule
    message: str
    count: int = 0
    examples: list[Location] = field(default_factory=list)
    root: Key | None = None
    """The crash its first place followed, where it names an engine dead of it."""


@dataclass
class Collector:
    """Findings of one side as they are seen."""

    buckets: dict[tuple[str, str], _Bucket] = field(default_factory=dict)
    overflow: dict[str, int] = field(default_factory=dict)
    downgraded: dict[tuple[str, str], int] = field(default_factory=dict)
    """(user warning rule, built-in error rule) → lines the warning rule matched first that the
    error rule matches too: an error counted as a warning (records76)."""

    def add(self, rule: Rule, message: str, where: Location, root: Key | None = None) -> Key:
        """Count `message` of `rule` seen at `where` (`root`: the crash it is a consequence
        of); its key."""
        key = (rule.name, normalize(message))
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= DISTINCT_CAP:
                self.overflow[rule.name] = self.overflow.get(rule.name, 0) + 1
                return key
            bucket = self.buckets[key] = _Bucket(rule, key[1], root=root if root != key else None)
        bucket.count += 1
        if len(bucket.examples) < EXAMPLES:
            bucket.examples.append(where)
        return key

    def findings(self) -> tuple[LogFinding, ...]:
        """Most frequent first, each crash followed by its consequences (logs64: vLLM's
        `EngineDeadError` was listed before the out-of-memory error that killed the engine)."""
        ordered = sorted(self.buckets.values(), key=lambda b: (-b.count, b.rule.name, b.message))
        after: dict[Key, list[_Bucket]] = {}
        for bucket in ordered:
            if bucket.root in self.buckets:
                after.setdefault(bucket.root, []).append(bucket)
        listed: dict[Key, _Bucket] = {}
        # Causes first, then anything left (none can be: a root was seen before its consequence)
        for start in [b for b in ordered if b.root not in self.buckets] + ordered:
            stack = [start]
            while stack:  # depth-first without recursion: a log could chain thousands
                bucket = stack.pop()
                key = (bucket.rule.name, bucket.message)
                if key not in listed:
                    listed[key] = bucket
                    stack.extend(reversed(after.get(key, [])))
        return tuple(
            LogFinding(
                b.rule.name,
                b.rule.severity,
                b.message,
                b.count,
                tuple(b.examples),
                b.root if b.root in self.buckets else None,
            )
            for b in listed.values()
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
    """The `Traceback` line as logged."""
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
        self.held: tuple[int, Rule, str, Location, Key | None] | None = None
        self.root: Key | None = None
        """The last crash of this file that is no consequence of another: what a line naming
        an engine dead (`CONSEQUENCE`) follows from."""
        self.raw = ""
        """The line being matched as logged, what a finding quotes (newuser64: quoted without
        its worker prefix, `(EngineCore_DP0 pid=104)`, which names the process that logged it)."""

    def line(self, number: int, text: str) -> None:
        self.raw = text
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
            self.pending = _Traceback(number, body, text[:TEXT_CAP], announced)
            return
        self._release()
        announcing = STARTUP.search(line)
        if announcing is not None:
            self.starts[announcing.group(0)] += 1
        self._match(number, line, body)

    def _match(
        self, number: int, line: str, body: str, rules: tuple[Rule, ...] | None = None
    ) -> None:
        tried = self.line_rules if rules is None else rules
        rule = first_rule(tried, line)
        if rule is not None and not rule.builtin and rule.severity is Severity.WARNING:
            # The built-in rule the line was left to, had no user rule matched: an error line
            # counted as a warning only where that rule is an error rule (review77c: a
            # `[TRT-LLM] [W] … ERROR …` line, trtllm-warning's before engine-error's, was
            # counted, and the bundle held a warning rule over warnings)
            over = first_rule(tuple(r for r in tried if r.builtin), line)
            if over is not None and over.severity is Severity.ERROR:
                key = (rule.name, over.name)
                self.collector.downgraded[key] = self.collector.downgraded.get(key, 0) + 1
        if rule is not None:
            where = Location(self.shown, number, self.raw[:TEXT_CAP])
            root = self.root if CONSEQUENCE.search(line) else None
            if rule.name == "engine-error" and self.traceback_rule is not None:
                self.held = (number, rule, body, where, root)  # counted unless a traceback follows
            else:
                self.collector.add(rule, body, where, root)

    def _release(self) -> None:
        """Count the error line held back to see whether a traceback followed it."""
        if self.held is not None:
            _, rule, body, where, root = self.held
            self.collector.add(rule, body, where, root)
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
        where = Location(self.shown, number, self.raw[:TEXT_CAP], self._context(pending))
        if self._consequence(pending, line):
            self.collector.add(rule, message, where, self.root)
        else:
            self.root = self.collector.add(rule, message, where)
        self.pending = None

    @staticmethod
    def _consequence(pending: _Traceback, line: str) -> bool:
        """Whether a traceback is an engine's failure for its engine core's death (its exception
        line or the line announcing it names one: `CONSEQUENCE`)."""
        texts = (line, *(c.text for c in pending.announced))
        return any(CONSEQUENCE.search(text) for text in texts)

    def _cut(self, pending: _Traceback, message: str) -> None:
        """A traceback without its exception line (past `TRACEBACK_LINES`, another traceback
        begun, the file ended): a finding located at its `Traceback` line."""
        assert self.traceback_rule is not None
        where = Location(self.shown, pending.start, pending.raw, pending.announced)
        root = self.root if self._consequence(pending, "") else None
        self.collector.add(self.traceback_rule, message, where, root)
        self.pending = None

    def finish(self) -> dict[str, int]:
        """Close the file; how many times its server announced its start, per announcement
        (a restart is counted over the whole log stream, `scan._Restarts`)."""
        self._release()
        if self.pending is not None:
            self._cut(self.pending, "traceback cut off at the end of the file")
        return self.starts
