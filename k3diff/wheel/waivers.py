"""Waivers: a reviewed finding passes, with its reason, until its expiry date.

A waiver file is TOML, one `[[waiver]]` table per waiver (TensorRT-LLM keeps such a list with
reasons, `waives.txt`; TOML gives it types and comments):

    [[waiver]]
    code = "W101"                      # the finding code, exactly
    path = "demo/_native.so"           # glob on the archive path ('' is the artifact as a whole;
                                       # W101-W103 and A103 take one exact path, as written)
    reason = "rebuilt with the new toolchain, reviewed"
    expires = 2027-01-31               # optional: the last day it applies
    artifact = "demo-*.whl"            # optional: glob on the wheel or artifact file name
    literal = true                     # optional: `path` is compared as written, never a glob

A waived finding is never silent: it is listed with its reason in every format and counted in
the verdict line. An expired waiver does not apply and is said to have expired; a waiver that
matched nothing is reported as unused, so a stale list does not rot unseen.

A native library is accepted one file at a time: its change, removal or addition (W101-W103),
content that contradicts its RECORD hash (A103), and, for a native entry, RECORD not vouching
for it at all (`UNVOUCHED_CODES`: A105 unlisted, A107 no hash, ...) are covered only by a
waiver whose path is the entry's own, compared as a string: `pkg/lib[x].so` names the file
`lib[x].so`, and `pkg/*` on A105 never covers an unlisted `pkg/evil.so`. So is code RECORD
does not vouch for (`runs_as_code`: a module, bytecode, `.pth` or extension by name, a copied
script), under A105-style codes and `wheels`' W302 alike: pip 26 installs an unlisted
`pkg/extra.py` and `import pkg.extra` runs it, so `pkg/*` covers an unlisted `pkg/notes.txt`
but never it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError
from k3diff.wheel.artifactglob import artifact_name
from k3diff.wheel.codes import (
    UNVOUCHED_CODES,
    UNWAIVABLE,
    WAIVER_PLACEHOLDER_REASON,
    Code,
    Finding,
)

_KEYS = frozenset({"code", "path", "reason", "expires", "artifact", "literal"})
EXACT_PATH = frozenset({Code.W101, Code.W102, Code.W103, Code.A103})
"""Codes a waiver names one exact path for, compared as written (`[` and `]` are characters of
the name): a native library changed, missing or added, and content that does not match its
RECORD hash. A glob over them would accept any later tampered library unseen; a reviewer
accepts one file. A `*` or `?` in such a path reads as a glob and is refused (exit 2) unless
the waiver says `literal = true` (a file whose name really holds one)."""
PLAIN_GLOB_CHARACTERS = "*?"
"""What marks a path as meant for a glob: `[` is also a character of real names
(`lib[x].so`), `*` and `?` nearly never are."""
RECORD_TRUST_CODES = UNVOUCHED_CODES | {Code.W302}
"""Codes that say RECORD does not vouch for an entry: audit's `UNVOUCHED_CODES`, and `wheels`'
W302 (not listed, hash mismatch, listed but absent). On code (`runs_as_code`) a waiver for one
names the path exactly."""
CODE_SUFFIXES = (".py", ".pyw", ".pyc", ".pyo", ".pth", ".so", ".pyd")
"""Names the import system runs (source, bytecode, extension modules; `.pth` lines run at
start-up), matched case-insensitively."""
MAX_WAIVERS = 10_000
"""More waivers than any real list holds: a larger file is refused, not matched quadratically."""


@dataclass(frozen=True)
class Waiver:
    """One reviewed exception to the policy."""

    number: int
    """1-based position in its file (how the reports name it)."""
    code: Code
    """The finding code it waives."""
    path: str
    """The finding's archive path: a glob (`fnmatch`, case-sensitive; `*` crosses '/'), or the
    path as written where `matches_path` says so."""
    reason: str
    """Why the finding is acceptable: shown beside every finding it waives."""
    expires: dt.date | None
    """The last day the waiver applies; None: it never expires."""
    artifact: str | None
    """Glob on the artifact's file name (either wheel's, for a pair); None: any artifact."""
    literal: bool = False
    """`literal = true`: `path` is compared as written for every finding, never as a glob."""

    def expired(self, today: dt.date) -> bool:
        """True once `today` is past the expiry date."""
        return self.expires is not None and today > self.expires

    def matches_path(self, path: str, native: bool = False) -> bool:
        """True when this waiver's path names `path`: as written for an exact-path code
        (`EXACT_PATH`), a native entry RECORD does not vouch for (`native`, on a code of
        `UNVOUCHED_CODES`), code RECORD does not vouch for (`runs_as_code`, on a code of
        `RECORD_TRUST_CODES`) or a `literal` waiver; else as a glob (`fnmatch`,
        case-sensitive)."""
        if self.literal or self.code in EXACT_PATH or (native and self.code in UNVOUCHED_CODES):
            return path == self.path
        if self.code in RECORD_TRUST_CODES and runs_as_code(path):
            return path == self.path
        return fnmatchcase(path, self.path)

    def covers(self, finding: Finding, artifacts: Iterable[str]) -> bool:
        """True when this waiver's code, path and artifact globs all match `finding`."""
        if finding.code is not self.code or not self.matches_path(finding.path, finding.native):
            return False
        if self.artifact is None:
            return True
        return any(fnmatchcase(artifact_name(name), self.artifact) for name in artifacts)

    def globs_only(self, finding: Finding, artifacts: Iterable[str]) -> bool:
        """True when this waiver would cover `finding` by its glob but may not: code RECORD
        does not vouch for is waived by its exact path (`matches_path`)."""
        if finding.code is not self.code or self.literal or self.code in EXACT_PATH:
            return False
        if not fnmatchcase(finding.path, self.path) or self.covers(finding, artifacts):
            return False
        return self.artifact is None or any(
            fnmatchcase(artifact_name(name), self.artifact) for name in artifacts
        )

    def label(self) -> str:
        """`waiver 3 (W101 demo/*.so)`: how a report names it."""
        path = self.path or "''"
        return f"waiver {self.number} ({self.code.name} {path})"


def runs_as_code(path: str) -> bool:
    """True when pip installs the entry at `path` as code that runs: a module, bytecode,
    extension or `.pth` by its name (`CODE_SUFFIXES`), or a copied script (`.data/scripts/`,
    `.data/data/bin/`: a command on PATH)."""
    if path.lower().endswith(CODE_SUFFIXES):
        return True
    top, _, rest = path.partition("/")
    return top.endswith(".data") and rest.startswith(("scripts/", "data/bin/"))


@dataclass(frozen=True)
class WaiverSet:
    """The waivers of one `--waivers` file, judged on one day."""

    source: str
    """The file as the user gave it."""
    waivers: tuple[Waiver, ...]
    """Every waiver, in file order."""
    today: dt.date
    """The day the run judges expiry by."""

    def active_for(self, finding: Finding, artifacts: Iterable[str]) -> Waiver | None:
        """The first unexpired waiver that covers `finding`, or None."""
        names = tuple(artifacts)
        for waiver in self.waivers:
            if not waiver.expired(self.today) and waiver.covers(finding, names):
                return waiver
        return None

    def expired_for(self, finding: Finding, artifacts: Iterable[str]) -> Waiver | None:
        """An expired waiver that would have covered `finding` (said, never applied)."""
        names = tuple(artifacts)
        for waiver in self.waivers:
            if waiver.expired(self.today) and waiver.covers(finding, names):
                return waiver
        return None


@dataclass(frozen=True)
class WaiverOutcome:
    """What a run's waivers did, for every report format."""

    source: str
    """The waiver file as given."""
    applied: tuple[tuple[Waiver, Finding, str], ...]
    """Each waived finding with its waiver and the artifact it was found in."""
    expired: tuple[tuple[Waiver, Finding, str], ...]
    """Findings an expired waiver would have covered (they count as usual)."""
    unused: tuple[Waiver, ...]
    """Unexpired waivers that covered no finding of this run."""
    glob_only: tuple[tuple[int, str], ...] = ()
    """(waiver number, finding path) for each unused waiver whose glob matched code it may
    not waive (`Waiver.globs_only`): the report says so rather than "stale"."""

    def globbed(self, waiver: Waiver) -> list[str]:
        """The finding paths `waiver` matched only by glob, in finding order, each once."""
        return list(dict.fromkeys(path for n, path in self.glob_only if n == waiver.number))

    def verdict_clause(self) -> str:
        """`; 1 finding waived: W101 demo/_native.so — reason` (empty when nothing was waived);
        the verdict line says it so a waived pass never reads like a clean one. Every waived
        native change or RECORD mismatch (`EXACT_PATH`), and every native entry RECORD does not
        vouch for (`Finding.native`), is named with its path and reason, each one a reviewer
        accepted; of the others, the first, and how many more."""
        if not self.applied:
            return ""
        count = len(self.applied)
        noun = "finding" if count == 1 else "findings"
        named = [item for item in self.applied if _named_alone(item[1])] or [self.applied[0]]
        shown = "; ".join(
            f"{finding.code.name} {finding.where} — {waiver.reason}" for waiver, finding, _ in named
        )
        more = f" (and {count - len(named)} more)" if count > len(named) else ""
        return f"; {count} {noun} waived: {shown}{more}"


def _named_alone(finding: Finding) -> bool:
    """A waived finding the verdict line names by itself: a native library's, a RECORD
    mismatch's, or one about code RECORD does not vouch for, each accepted one file at a
    time."""
    if finding.code in RECORD_TRUST_CODES and runs_as_code(finding.path):
        return True
    return finding.code in EXACT_PATH or finding.native


def outcome(
    waivers: WaiverSet, found: Iterable[tuple[Finding, str, tuple[str, ...]]]
) -> WaiverOutcome:
    """Sort every (finding, artifact, artifact names) of a run into waived, expired and
    untouched, and name the waivers nothing used."""
    applied: list[tuple[Waiver, Finding, str]] = []
    expired: list[tuple[Waiver, Finding, str]] = []
    used: set[int] = set()
    globbed: list[tuple[int, str]] = []
    for finding, artifact, names in found:
        waiver = waivers.active_for(finding, names)
        if waiver is not None:
            applied.append((waiver, finding, artifact))
            used.add(waiver.number)
            continue
        stale = waivers.expired_for(finding, names)
        if stale is not None:
            expired.append((stale, finding, artifact))
        if finding.code in RECORD_TRUST_CODES:  # the only codes a glob may match but not waive
            globbed += [
                (w.number, finding.path) for w in waivers.waivers if w.globs_only(finding, names)
            ]
    unused = tuple(
        w for w in waivers.waivers if w.number not in used and not w.expired(waivers.today)
    )
    numbers = {w.number for w in unused}
    glob_only = tuple(item for item in globbed if item[0] in numbers)
    return WaiverOutcome(waivers.source, tuple(applied), tuple(expired), unused, glob_only)


def load_waivers(path: Path, today: dt.date | None = None) -> WaiverSet:
    """Read and check a waiver file; any problem is one `InputError` naming the file and the
    waiver (exit 2): a waiver that cannot be read must never silently waive or fail to."""
    display = str(path)
    raw = bounded.without_bom(bounded.read_document(path, display, "waiver file"), display)
    import tomllib  # here: only a run given a waiver file parses TOML

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{display}: not UTF-8 text (byte {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{display}: not a TOML waiver file: {exc}") from exc
    extra = sorted(set(data) - {"waiver"})
    if extra:
        raise InputError(f"{display}: unknown top-level key {extra[0]!r} (expected [[waiver]])")
    tables = data.get("waiver", [])
    if not isinstance(tables, list) or not tables:
        raise InputError(f"{display}: no [[waiver]] table")
    if len(tables) > MAX_WAIVERS:
        raise InputError(f"{display}: {len(tables)} waivers (at most {MAX_WAIVERS})")
    pasted: list[int] = []  # the waivers still holding the suggested placeholder reason
    waivers = tuple(_waiver(display, n, t, pasted) for n, t in enumerate(tables, start=1))
    if pasted:  # every one named at once: a user pasting five fixes them in one run
        many = f"waivers {_numbers(pasted)}: in all {len(pasted)}, " if pasted[1:] else ""
        raise InputError(f"{display}: {many or f'waiver {pasted[0]}: '}{_PLACEHOLDER}")
    return WaiverSet(display, waivers, today or dt.date.today())


_PLACEHOLDER = (
    "'reason' is still the suggested placeholder: say why this change is expected and who "
    "reviewed it"
)


def _numbers(numbers: list[int]) -> str:
    """`[1, 2, 3, 5]` as "1-3, 5"."""
    runs: list[list[int]] = []
    for n in numbers:
        runs[-1].append(n) if runs and runs[-1][-1] + 1 == n else runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def checked_waiver(display: str, number: int, table: Any) -> Waiver:
    """One waiver from its table (a `[[waiver]]` of a file, or an entry a wheels document
    records: `rerun.waivers.entries`, forge62), checked as a waiver file's are: an unknown key
    or code, an unwaivable code, an empty reason or a glob on an exact-path code is an
    InputError naming `display` and the waiver."""
    return _waiver(display, number, table)


def _waiver(display: str, number: int, table: Any, pasted: list[int] | None = None) -> Waiver:
    where = f"{display}: waiver {number}"
    if not isinstance(table, dict):
        raise InputError(f"{where}: must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    code_name = _string(where, table, "code")
    try:
        code = Code[code_name.strip().upper()]
    except KeyError:
        raise InputError(f"{where}: unknown finding code {code_name!r}") from None
    if code in UNWAIVABLE:
        raise InputError(
            f"{where}: {code.name} ({code.message}) cannot be waived: the archive is not what "
            "pip reads or installs, which no review of its content can accept"
        )
    reason = _string(where, table, "reason").strip()
    if not reason:
        raise InputError(f"{where}: 'reason' is empty: a waiver says why")
    if reason.casefold() == WAIVER_PLACEHOLDER_REASON.casefold():
        if pasted is None:
            raise InputError(f"{where}: {_PLACEHOLDER}")
        pasted.append(number)  # a waiver file names all of them in one refusal (load_waivers)
    artifact = table.get("artifact")
    if artifact is not None and not isinstance(artifact, str):
        raise InputError(f"{where}: 'artifact' must be a string (a file-name glob)")
    literal = table.get("literal", False)
    if not isinstance(literal, bool):
        raise InputError(f"{where}: 'literal' must be true or false")
    path = _string(where, table, "path")
    if code in EXACT_PATH and not literal and any(c in path for c in PLAIN_GLOB_CHARACTERS):
        raise InputError(
            f"{where}: {code.name} ({code.message}) is waived by one exact path, not the glob "
            f"{path!r}: a glob would accept any later tampered file unseen (a file whose name "
            "holds '*' or '?' is named with literal = true)"
        )
    return Waiver(
        number=number,
        code=code,
        path=path,
        reason=reason,
        expires=_expiry(where, table.get("expires")),
        artifact=artifact,
        literal=literal,
    )


def _string(where: str, table: dict[str, Any], key: str) -> str:
    value = table.get(key)
    if not isinstance(value, str):
        raise InputError(f"{where}: {key!r} is required and must be a string")
    return value


def _expiry(where: str, value: Any) -> dt.date | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime) or not isinstance(value, (dt.date, str)):
        raise InputError(f"{where}: 'expires' must be a date (2027-01-31)")
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise InputError(f"{where}: 'expires' {value!r} is not a date (2027-01-31)") from None


def merged(outcomes: Iterable[WaiverOutcome | None]) -> WaiverOutcome | None:
    """One outcome for several comparisons (a release set's pairs): a waiver is unused only
    when no comparison used it."""
    present = [o for o in outcomes if o is not None]
    if not present:
        return None
    used = {w.number for o in present for w, _, _ in o.applied}
    unused: dict[int, Waiver] = {}
    for o in present:
        for waiver in o.unused:
            if waiver.number not in used:
                unused.setdefault(waiver.number, waiver)
    return WaiverOutcome(
        present[0].source,
        tuple(item for o in present for item in o.applied),
        tuple(item for o in present for item in o.expired),
        tuple(unused[n] for n in sorted(unused)),
        tuple(item for o in present for item in o.glob_only if item[0] in unused),
    )
