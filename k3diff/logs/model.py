"""What a log scan found: frozen values, rendered by `k3diff.report.logs`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from k3diff.exitcodes import ExitCode
from k3diff.output import plural


class Severity(StrEnum):
    """How much a rule's finding weighs."""

    ERROR = "error"
    """Can fail the run (new on the patch, or any with `--strict`)."""
    WARNING = "warning"
    """Listed and counted, never failing."""


@dataclass(frozen=True)
class Context:
    """A line of the same file that belongs to a finding's place: a traceback's `Traceback`
    line, the error line that announced it."""

    role: str
    """"traceback" or "announced by"."""
    line: int
    """1-based line number."""
    text: str
    """The raw line (capped)."""


@dataclass(frozen=True)
class Location:
    """Where a finding was seen."""

    file: str
    """The log file as given (or relative to the directory given)."""
    line: int
    """1-based line number (a traceback's exception line; its `Traceback` line where it has
    none: cut off at the end of the file); `WHOLE_LOG` for a finding about the log as a whole."""
    text: str
    """The raw line (capped)."""
    context: tuple[Context, ...] = ()
    """For a traceback: the line that announced it, if any, and its `Traceback` line."""


WHOLE_LOG = 0
"""The line of a finding about a log as a whole, which no one line holds: a restart, its start
announcements counted over the whole log (and its rotated pieces)."""


def place(file: str, line: int) -> str:
    """'server.log:12', or 'server.log (the whole log)' for a finding at `WHOLE_LOG`
    (newuser80: a restart read `server.log:0:`, a line no file has, in the report, the bundle's
    next step and the CI annotations)."""
    return f"{file} (the whole log)" if line == WHOLE_LOG else f"{file}:{line}"


@dataclass(frozen=True)
class LogFinding:
    """One rule and normalised message, counted on one side."""

    rule: str
    """The rule that matched."""
    severity: Severity
    """The rule's severity."""
    message: str
    """The normalised message: what two runs are matched on."""
    count: int
    """Lines (or tracebacks) of this side that gave this message."""
    examples: tuple[Location, ...]
    """The first few places it was seen."""
    consequence_of: tuple[str, str] | None = None
    """(rule, message) of the crash this follows from, where its first place followed a crash
    in the same file and it names an engine dead of it (vLLM's `EngineDeadError`; logs64):
    listed after that crash, the root cause first."""


@dataclass(frozen=True)
class FileScan:
    """One log file read."""

    path: str
    """As given, or relative to the directory given."""
    lines: int
    """Lines read."""
    size: int
    """Bytes on disk (compressed size for a `.gz` log)."""
    compressed: bool
    """True when the file was gzip-compressed and read through it."""
    starts: int
    """How many times a server announced its start in this file."""
    long_lines: int
    """Lines longer than the line cap: scanned up to the cap, the rest skipped."""
    sha256: str | None = None
    """SHA-256 of the bytes read (the file given, a `.gz` log compressed), when hashed: every
    file a side reads is (what `report` ties the files to the document by)."""
    name: str = ""
    """The name `report` finds it by: relative to the directory given (`/`-separated), or the
    path as given for a file given itself."""
    unread: tuple[tuple[int, str], ...] = ()
    """(line, rule) for each line longer than the cap whose rest, past what was scanned, an
    error rule matches: the file was not read whole (hunt71)."""


@dataclass(frozen=True)
class Skipped:
    """An entry found on a side and not read as a log: it fails the verdict (logs64), since a
    side read in part could hide anything."""

    entry: str
    """The entry as reports name it (the directory given, joined with its path under it)."""
    why: str
    """Why it was not read: "binary", "a FIFO", "a link to X, outside the directory: not
    followed", … (never naming the directory given, so a run on a copy elsewhere says the
    same)."""

    def __str__(self) -> str:
        return f"{self.entry} ({self.why})"


def unread_phrase(side: str, skipped: tuple[Skipped, ...]) -> str:
    """'2 patch entries not read: p/crash.log (a link to /var/x, outside the directory: not
    followed), p/fifo (a FIFO: never opened)' (the first three)."""
    shown = ", ".join(map(str, skipped[:3])) + (", …" if len(skipped) > 3 else "")
    return f"{plural(len(skipped), f'{side} entry', f'{side} entries')} not read: {shown}"


@dataclass(frozen=True)
class Link:
    """A symbolic link under a side's directory to a file or directory read anyway (inside the
    same directory): named, not read twice, and failing nothing."""

    name: str
    """The link, relative to the directory given (`/`-separated)."""
    target: str
    """What it resolves to, relative to the same directory."""


@dataclass(frozen=True)
class SideScan:
    """Everything read on one side."""

    paths: tuple[str, ...]
    """The files or directories given."""
    files: tuple[FileScan, ...]
    """Each log file read, in order."""
    skipped: tuple[Skipped, ...]
    """Entries of a given directory not read (a link out of it or to what is not read, a FIFO,
    a device, a directory that cannot be listed, a binary file), each with why."""
    findings: tuple[LogFinding, ...]
    """Every distinct (rule, message), most frequent first."""
    overflow: int
    """Lines whose message was not kept because the distinct-message cap was reached (they
    are counted in `overflow_by_rule`, never dropped silently)."""
    overflow_by_rule: tuple[tuple[str, int], ...]
    """Per rule, the lines counted past the distinct-message cap."""
    links: tuple[Link, ...] = ()
    """Links under a given directory to what it holds and is read anyway."""
    downgraded: tuple[tuple[str, str, int], ...] = ()
    """(user warning rule, built-in error rule, lines) for each error rule whose lines a
    `--warn-rule` matched first, counted as warnings (records76)."""

    @property
    def digest(self) -> tuple[str, int] | None:
        """(SHA-256, size) of the side's one file as read, None for a side given as a
        directory (or as several paths)."""
        one = len(self.paths) == 1 and len(self.files) == 1 and self.files[0].path == self.paths[0]
        if not one or self.files[0].sha256 is None:
            return None
        return self.files[0].sha256, self.files[0].size

    @property
    def read(self) -> tuple[tuple[str, str, int], ...] | None:
        """Each file read, in the order read, by name (`FileScan.name`), SHA-256 and size: a
        side given as a directory or several files (rerun63); None for one given as one file
        (`digest`), or where a file was not hashed."""
        if self.digest is not None or any(f.sha256 is None for f in self.files):
            return None
        return tuple((f.name, str(f.sha256), f.size) for f in self.files)

    @property
    def lines(self) -> int:
        """Lines read on this side."""
        return sum(f.lines for f in self.files)

    def count(self, rule: str) -> int:
        """Lines of this side matched by `rule`."""
        kept = sum(f.count for f in self.findings if f.rule == rule)
        return kept + dict(self.overflow_by_rule).get(rule, 0)


@dataclass(frozen=True)
class RuleSummary:
    """One rule across both sides."""

    name: str
    severity: Severity
    builtin: bool
    pattern: str
    base: int
    """Matches on the base side."""
    patch: int
    """Matches on the patch side."""
    new_on_patch: int
    """Distinct messages of this rule seen on the patch and never on the base."""


@dataclass(frozen=True)
class Settings:
    """Every setting that changes what `k3diff logs` writes: what `report` runs it again with
    (the document's `rerun`)."""

    rules: tuple[tuple[str, Severity, str], ...] = ()
    """The user rules as parsed (`--rule`, `--warn-rule`): name, severity, pattern."""
    ignored: tuple[str, ...] = ()
    """`--ignore-rule`."""
    strict: bool = False
    """`--strict`."""
    max_inflated: int = 0
    """`--max-inflated-bytes`."""
    max_seconds: float = 0.0
    """`--max-seconds`."""


@dataclass(frozen=True)
class LogsReport:
    """The comparison of the two sides' logs, with its verdict."""

    base: SideScan
    patch: SideScan
    rules: tuple[RuleSummary, ...]
    """Every active rule, in the order they are tried."""
    new_on_patch: tuple[LogFinding, ...]
    """Patch findings whose (rule, message) the base never gave."""
    gone_on_patch: tuple[LogFinding, ...]
    """Base findings whose (rule, message) the patch never gave."""
    strict: bool
    """`--strict`: any error finding on either side fails."""
    failures: tuple[str, ...]
    """Why the run fails, one phrase per reason (empty when it passes)."""
    settings: Settings = Settings()
    """What it ran with (the document's `rerun`)."""

    @property
    def exit_code(self) -> ExitCode:
        """1 when anything fails the policy, else 0."""
        return ExitCode.FINDINGS if self.failures else ExitCode.OK
