"""Errors a user's `--warn-rule` counted as warnings, said wherever a logs verdict is
(records76).

User rules are tried before the built-in ones and the first match wins, so a `--warn-rule`
whose pattern also matches a CUDA error line (`--warn-rule gpu-noise='CUDA|cuBLAS'`) makes that
line a warning: it fails nothing, and the verdict read `no error finding on the patch` with
nothing said (as `--ignore-rule` did until hunt75). `logs` now counts, per side, each such line
by the warning rule and the built-in error rule that matches it too, writes them in the side's
`downgraded` (JSON; only where there are any), and the verdict line, the bundle's runtime-logs
row and its qualifications say so: `--warn-rule gpu-noise counted as a warning 1 patch line that
the built-in error rule cuda-error matches (user rules are tried first)`.

Judged alone, a document is held to its own quoted lines, with k3diff's patterns only (a user's
pattern is never run): a user warning finding quoting a whole line that an active built-in
error rule matches however `logs` read it (with and without its logger prefix) must be listed in
its side's `downgraded`, and every entry there must name a user warning rule and a built-in
error rule of its `rules`, with no more lines than the warning rule counts on that side and
no fewer than its findings quote lines a built-in error rule matches (docs77).

The bundle holds the runtime-logs row wherever such lines are ones its verdict counts (the
patch's; the base's too under `--strict`: `k3diff.bundle.logsfacts.held_downgrades`): a
document's rules are its author's word, so a `--warn-rule` written into `rerun.rules` passed
with a qualification, judged alone or run again on its logs (docs77).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from k3diff.documents.logs import LogsDocument
from k3diff.logs.matcher import TEXT_CAP
from k3diff.logs.normalize import strip_log_prefix, strip_worker_prefix
from k3diff.logs.rules import BUILTIN_RULES, KEYWORDS, LEVEL_RULES, MULTILINE_RULES

_LINE_ERRORS = tuple(
    r for r in BUILTIN_RULES if r.name not in MULTILINE_RULES and r.severity.value == "error"
)


def error_rule(text: str, active: Collection[str]) -> str | None:
    """The first active built-in error rule `logs` found in the quoted line however it read it
    (the line, or inside a traceback the line without its logger prefix, level rules aside),
    None where a reading finds none."""
    line = strip_worker_prefix(text)
    # review76c: an ASCII line holds a keyword of each built-in rule that matches it (`KEYWORDS`,
    # what the scanner's prefilter relies on); the patterns, half a millisecond a line, run only
    # where one is (every one on a line that is not ASCII, whose case folding `lower` may miss).
    low = line.lower() if line.isascii() else None
    rules = [
        r
        for r in _LINE_ERRORS
        if r.name in active and (low is None or any(k in low for k in KEYWORDS[r.name]))
    ]
    inner = [r for r in rules if r.name not in LEVEL_RULES]
    if not any(r.pattern.search(strip_log_prefix(line)) for r in inner):
        return None
    return next((r.name for r in rules if r.pattern.search(line)), None)


def downgrade_problems(view: LogsDocument) -> list[str]:
    """Where the document's `downgraded` disagrees with its rules and quoted lines; the first
    three."""
    warn = {n for n, severity, builtin in view.rules if not builtin and severity == "warning"}
    errors = {n for n, severity, builtin in view.rules if builtin and severity == "error"}
    counts = {name: {"base": b, "patch": p} for name, b, p, _new in view.rule_counts}
    problems: list[str] = []
    for side, entries in view.downgraded.items():
        # review76c: each entry once, in one pass (a rule's lines summed over every entry for
        # each rule took 2.2 s for 8,000 forged entries, growing with their square)
        said: Counter[str] = Counter()
        for rule, over, lines in entries:
            said[rule] += lines
            if (rule not in warn or over not in errors or lines < 1) and len(problems) < 3:
                problems.append(
                    f"{side}.downgraded names {rule} over {over}, but its rules list no such user "
                    "warning rule and built-in error rule"
                )
        for rule in sorted(said.keys() & warn):
            if said[rule] > counts.get(rule, {}).get(side, 0):
                problems.append(
                    f"{side}.downgraded counts {said[rule]:,} {rule} lines, more than the rule "
                    "matched"
                )
    problems += _unsaid(view, warn, errors)
    return problems[:3]


def _unsaid(view: LogsDocument, warn: set[str], errors: set[str]) -> list[str]:
    """A user warning finding quoting an error line its side's `downgraded` does not name, and
    a rule whose `downgraded` lines are fewer than the error lines its findings quote (docs77:
    `lines` edited down from 3 to 1 was read; each quoted place is a line of its own)."""
    problems = []
    named: dict[str, Counter[str]] = {side: Counter() for side in view.downgraded}
    for side, entries in view.downgraded.items():
        for rule, _over, lines in entries:
            named[side][rule] += lines
    quoted: Counter[tuple[str, str]] = Counter()
    for f in view.findings:
        if f.rule not in warn:
            continue
        quotes = [t for t in f.texts if len(t) < TEXT_CAP and error_rule(t, errors)]
        quoted[f.side, f.rule] += len(quotes)
        if quotes and f.rule not in named[f.side]:
            problems.append(
                f"the {f.side}'s {f.rule} warning finding quotes the line {quotes[0][:120]!r}, "
                f"which a built-in error rule matches, but {f.side}.downgraded does not list it"
            )
    problems += [
        f"{side}.downgraded counts {named[side][rule]:,} {rule} lines, but its {rule} findings "
        f"quote {count:,} lines a built-in error rule matches"
        for (side, rule), count in sorted(quoted.items())
        if rule in named[side] and named[side][rule] < count
    ]
    return problems
