"""`--format sarif`: a finding run as SARIF 2.1.0, the format GitHub code scanning uploads.

One run; the W/A codes (or log rules) as `tool.driver.rules`; each finding a `result` whose
`level` is the policy's (`error` fails the run, `note` is reported only). Locations: the
artifact file is the physical location (`artifactLocation.uri`, the path as given, which is
what exists in the CI workspace) and the archive member is a logical location whose
`fullyQualifiedName` is `ARTIFACT!/MEMBER` (the jar-URL convention): an archive member is not a
file a code-scanning UI could open, so it is not given as a nested artifact. A log finding has
its file and line. `partialFingerprints["k3diff/v3"]` hashes the rule, the artifact without its
version, the member path with its `.dist-info`/`.data` version dropped and the digests of the
content the finding is about (`CiResult.content`): code scanning keeps an alert a reviewer
dismissed dismissed for every later result of the same fingerprint, so a later, different
change to the same entry must be a new alert (v1 left the content out). A partial fingerprint,
not `fingerprints`: GitHub's SARIF reference names `partialFingerprints` as what code scanning
matches results by and lists no `fingerprints`; its `primaryLocationLineHash` hashes a source
file's line, which an archive member has none of. A waived finding carries an accepted external suppression
with its reason.

GitHub's limits (https://docs.github.com/en/code-security/code-scanning/integrating-with-code-
scanning/sarif-support-for-code-scanning): at most 25,000 results per run, of which the first
5,000 are shown; messages here are capped and at most `MAX_RESULTS` results are written,
failing ones first, with a tool notification naming how many were left out.

Every message is plain text with its control characters shown as escapes (`escape.text`) and its
square brackets escaped (`plain_text`, §3.11.6): an entry named `[click](https://host)` must not
become a live embedded link. Locations keep raw names.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any
from urllib.parse import quote

from k3diff import __version__, escape
from k3diff.report.cifindings import CiResult, CiRun

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
MAX_RESULTS = 5_000
"""Results written (GitHub shows the first 5,000 of a run)."""
FINGERPRINT_KEY = "k3diff/v3"
"""The partial fingerprint's name; its version changes whenever what it hashes changes."""
MAX_MESSAGE = 2_000
"""Characters of a result's message."""


_BRACKETED = re.compile(r"(\\*)([\[\]])")
"""A square bracket with the backslashes right before it."""


def plain_text(text: str) -> str:
    """`text` as a SARIF plain-text message shows it (§3.11.6, embedded links): a literal `[`
    or `]` is backslash-escaped, and so is each backslash right before one, so a name such as
    `[click](https://host)` cannot become a live link in code scanning. Backslashes elsewhere
    stay as they are, as the specification has them."""
    if "[" not in text and "]" not in text:
        return text
    return _BRACKETED.sub(lambda m: m.group(1) * 2 + "\\" + m.group(2), text)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _capped(text: str) -> str:
    """A message's text: its control characters shown as escapes (`escape.text`: code
    scanning shows a message as it is, so a bidirectional override or an escape sequence in a
    log line or a member's name would reach the reviewer's screen), capped at `MAX_MESSAGE`
    characters, then escaped (`plain_text`)."""
    return plain_text(_cut(escape.text(text)))


def fingerprint(result: CiResult) -> str:
    """The rule, the result's identity (the artifact without its version, the member without
    its `.dist-info`/`.data` version) and the digests of the content it is about: the same
    finding on the same bytes keeps it across runs, formats, machines and releases; a later,
    different change to the same file is a new one, never covered by an earlier dismissal."""
    key = "\0".join((result.rule, result.identity, result.content))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def artifact_uri(path: str) -> str:
    """The path as given, as the URI reference SARIF requires (§3.10): percent-encoded, so a
    space, `#`, `?`, `%`, a control character or a `:` in the first segment (which would read as
    a scheme) keeps the path it names. `/` stays: a relative path stays relative to the
    workspace, where code scanning resolves it."""
    return quote(path.encode("utf-8", "surrogateescape"), safe="/") if path else "."


def _result(result: CiResult, rule_index: int) -> dict[str, Any]:
    where = f" ({result.member})" if result.member else ""
    location: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": {"uri": artifact_uri(result.artifact)}},
    }
    if result.line is not None:
        location["physicalLocation"]["region"] = {"startLine": max(1, result.line)}
    if result.member:
        location["logicalLocations"] = [
            {"name": result.member, "fullyQualifiedName": f"{result.artifact}!/{result.member}"}
        ]
    data: dict[str, Any] = {
        "ruleId": result.rule,
        "ruleIndex": rule_index,
        "level": "error" if result.failing else "note",
        "message": {"text": _capped(f"{result.title}{where}: {result.detail}")},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(result)},
    }
    if result.waiver is not None:
        waiver = result.waiver
        until = f" (until {waiver.expires})" if waiver.expires else ""
        data["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": _cut(f"waiver {waiver.number}: {waiver.reason}{until}"),
            }
        ]
    return data


def document(run: CiRun) -> dict[str, Any]:
    """The SARIF log as a JSON-ready dict."""
    index = {rule.id: n for n, rule in enumerate(run.rules)}
    results = [r for case in run.cases for r in case.results]
    results.sort(key=lambda r: not r.failing)  # stable: failing first, report order kept
    kept, dropped = results[:MAX_RESULTS], len(results) - MAX_RESULTS
    invocation: dict[str, Any] = {
        "executionSuccessful": True,
        "exitCode": int(run.exit_code),
        "exitCodeDescription": run.verdict,
    }
    if dropped > 0:
        invocation["toolExecutionNotifications"] = [
            {
                "level": "warning",
                "message": {
                    "text": f"{dropped} more results left out (GitHub shows {MAX_RESULTS} per "
                    "run); --format json lists every finding"
                },  # no bracket: nothing to escape
            }
        ]
    # The log rules are listed in docs/logs.md; the W and A codes in docs/findings.md.
    where = (
        "the rules in k3diff's docs/logs.md"
        if run.command == "logs"
        else "the findings table in k3diff's docs/findings.md"
    )
    rules = [
        {
            "id": rule.id,
            "shortDescription": {"text": _capped(rule.description)},
            "help": {
                "text": plain_text(
                    f"{rule.id}: {rule.description}. See {where} for what it means and how "
                    "to fix it."
                )
            },
            "defaultConfiguration": {"level": "error" if rule.fails_by_default else "note"},
        }
        for rule in run.rules
    ]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "k3diff",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "automationDetails": {"id": f"k3diff/{run.command}/"},
                "invocations": [invocation],
                "results": [_result(r, index[r.rule]) for r in kept],
            }
        ],
    }


def render(run: CiRun) -> str:
    """The SARIF log as JSON text (ASCII, so no control character reaches a terminal)."""
    return json.dumps(document(run), indent=2, ensure_ascii=True) + "\n"
