"""A `k3diff.logs/1` document listing more than `logs` ever writes is refused before the checks
that run k3diff's patterns over each quoted line (review76c). `logs` keeps at most 10,000
distinct messages a side (`matcher.DISTINCT_CAP`, the rest counted as overflow) and 3 places a
finding (`matcher.EXAMPLES`); the checks records76 added (`logsdowngrade`, beside hunt75's
`logsclaims`) cost about half a millisecond a quoted line, and nothing bounded the lines: an
11.5 MB forged document of 10,000 user-warning findings took 26 s in them, about 40 minutes at
the 1 GiB document cap. A side past the cap, and a finding past its places, are now refused
first (exit 2), which bounds those checks at 60,000 quoted lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

LOG = "INFO start\nslow request served\n"


def _document(folder: Path) -> dict[str, Any]:
    (folder / "base.log").write_text(LOG)
    (folder / "patch.log").write_text(LOG)
    scan = run_k3diff(
        "logs", "base.log", "patch.log", "--warn-rule", "slow=slow", "--format", "json",
        "-o", "logs.json", cwd=folder,
    )  # fmt: skip
    assert scan.exit_code == 0, scan.stderr
    document: dict[str, Any] = json.loads((folder / "logs.json").read_text())
    return document


def _words(index: int) -> str:
    """A message `normalize` keeps apart from every other index's (letters, no digits)."""
    return "".join(chr(ord("a") + int(d)) for d in str(index))


def _with_base_findings(document: dict[str, Any], count: int, places: int) -> dict[str, Any]:
    """`count` more base findings of the warning rule `slow`, each counted `places` times and
    quoting that many places, with every count the document states edited to agree."""
    for index in range(count):
        text = f"slow request {_words(index)}"
        document["findings"].append(
            {
                "side": "base",
                "rule": "slow",
                "severity": "warning",
                "message": text,
                "count": places,
                "examples": [{"file": "base.log", "line": 2, "text": text}] * places,
            }
        )
    base = document["base"]
    base.update(
        distinct=base["distinct"] + count, warning_lines=base["warning_lines"] + count * places
    )
    for rule in document["rules"]:
        if rule["name"] == "slow":
            rule["base"] += count * places
    document["summary"]["gone_on_patch"] += count
    return document


def _report(folder: Path, document: dict[str, Any]) -> tuple[int, str]:
    (folder / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle", cwd=folder)
    return result.exit_code, result.stderr


def test_a_side_listing_more_findings_than_logs_keeps_is_refused(tmp_path: Path) -> None:
    """10,001 base findings, every count agreeing: read, and each quoted line run through the
    built-in rules, until now (exit 0)."""
    document = _with_base_findings(_document(tmp_path), 10_000, 1)
    code, stderr = _report(tmp_path, document)
    assert code == 2, stderr
    assert (
        "the base lists 10,001 findings, more than the 10,000 distinct messages logs keeps a side"
    ) in stderr
    assert not (tmp_path / "bundle").exists()


def test_a_finding_quoting_more_places_than_logs_keeps_is_refused_first(tmp_path: Path) -> None:
    document = _with_base_findings(_document(tmp_path), 1, 4)
    code, stderr = _report(tmp_path, document)
    assert code == 2, stderr
    assert "the base's slow finding 'slow request a' quotes 4 places, more than the 3" in stderr
    assert stderr.count("\n") == 1


def test_a_document_at_the_caps_is_read(tmp_path: Path) -> None:
    """10,000 base findings (the one `logs` wrote and 9,999 more), 3 places each: not refused
    for its size."""
    document = _with_base_findings(_document(tmp_path), 9_999, 3)
    code, stderr = _report(tmp_path, document)
    assert code == 0, stderr


def test_a_line_past_the_keywords_is_still_held_to_downgraded(tmp_path: Path) -> None:
    """The check of `downgraded` runs the built-in patterns only on lines holding one of their
    keywords, where the line is ASCII; `ſigſegv` (a long s, which the crash rule's
    case-insensitive `SIGSEGV` matches and `lower` keeps) is still found: dropping the
    `downgraded` its warning finding needs is refused."""
    (tmp_path / "base.log").write_text("INFO start\n")
    (tmp_path / "patch.log").write_text("INFO start\nworker caught ſigſegv\n")
    scan = run_k3diff(
        "logs", "base.log", "patch.log", "--warn-rule", "noisy=worker", "--format", "json",
        "-o", "logs.json", cwd=tmp_path,
    )  # fmt: skip
    assert scan.exit_code == 0, scan.stderr
    document = json.loads((tmp_path / "logs.json").read_text())
    assert document["patch"]["downgraded"] == [{"rule": "noisy", "over": "crash", "lines": 1}]
    del document["patch"]["downgraded"]
    code, stderr = _report(tmp_path, document)
    assert code == 2, stderr
    assert "which a built-in error rule matches, but patch.downgraded does not list it" in stderr


def test_many_downgraded_entries_are_checked_in_one_pass(tmp_path: Path) -> None:
    """40,000 user warning rules, each named by a `downgraded` entry: each rule's lines were
    summed over every entry, and each finding looked for among them, so the check grew with
    the entries' square (2.2 s for 8,000; 90 s for 40,000 on a loaded machine; hours at the
    document cap). Refused (every rule counts fewer lines than said) in one pass over them."""
    document = _document(tmp_path)
    rules = [f"w{index}" for index in range(40_000)]
    document["rules"] += [
        {"name": name, "severity": "warning", "builtin": False, "pattern": "x", "base": 0,
         "patch": 0, "new_on_patch": 0}
        for name in rules
    ]  # fmt: skip
    document["patch"]["downgraded"] = [
        {"rule": name, "over": "cuda-error", "lines": 1} for name in rules
    ]
    code, stderr = _report(tmp_path, document)
    assert code == 2, stderr
    assert "patch.downgraded counts 1 w0 lines, more than the rule matched" in stderr
