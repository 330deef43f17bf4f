"""`k3diff report`: the evidence bundle (summary.json, REPORT.md, report.html)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from k3diff.bundle.model import Evidence
from k3diff.cli.common import input_cap_options
from k3diff.cli.summaries import SUMMARIES
from k3diff.errors import UsageError
from k3diff.output import plural, say

ACCEPTANCE_DROP = "acceptance-drop"
"""`--fail-on`'s gate (`k3diff.telemetry.model.Gate`, not imported: `--help` stays light)."""


@click.command("report", short_help=SUMMARIES["report"])
@click.argument("results", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Bundle directory to write (new, or a previous bundle to replace).",
)
@click.option("--title", default="k3diff evidence bundle", show_default=True, help="Report title.")
@click.option(
    "--require",
    "required",
    multiple=True,
    type=click.Choice([e.value for e in Evidence]),
    help="Evidence that must be present: exit 1 when it is missing (repeatable).",
)
@click.option(
    "--pool-runs",
    is_flag=True,
    help="Accept sample logs (and triage documents) of different runs; each run is listed.",
)
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice([ACCEPTANCE_DROP]),
    help="Judge every telemetry document by this gate whether or not telemetry was asked for "
    "it (run again from the units the document records).",
)
@click.option(
    "--allow-same-server",
    "allow_same_server",
    is_flag=True,
    help="Accept a triage or telemetry run whose base and patch were one server as an A/A "
    "calibration run; without it such a document is held (exit 1), whatever allowance it "
    "records (its author's word, not yours).",
)
@input_cap_options
def report_command(
    results: tuple[Path, ...],
    out: Path,
    title: str,
    required: tuple[str, ...],
    pool_runs: bool,
    fail_on: tuple[str, ...],
    allow_same_server: bool,
) -> int:
    """Write the evidence bundle from RESULT documents of the other commands.

    Reads k3diff.wheels/1, wheelset/1, responses/1, triage/1, audit/2, logs/1 and telemetry/1
    JSON and samples.jsonl logs, recognised by their schema, each checked against itself (a
    summary or verdict that disagrees with the document's own records is refused). A wheels
    document given with the two .whl files it compared is run again through k3diff wheels on
    them with the settings it records (its waivers included, and its --source check when a
    directory given is a git repository holding the recorded commit), a responses document
    given with its two inputs is run again through k3diff responses, a logs document given
    with its two log files (or log directories) through k3diff logs, and an audit given with the
    .whl files it audited through k3diff audit; each must read the same. Writes
    OUT/summary.json (k3diff.report/2), OUT/REPORT.md and OUT/report.html (self-contained) as a
    set. Exit 1 when any document's verdict fails (or --require'd evidence is missing), 0
    otherwise, 2 on an unreadable, unknown or self-contradictory document, one that does not
    follow from the inputs given with it, or on sample logs of different runs without
    --pool-runs. --fail-on acceptance-drop judges each telemetry document by the acceptance
    gate, run from the units it records, even one made without the gate. A run whose base and
    patch were one server passes as an A/A calibration run only with --allow-same-server: the
    allow_same_server a document records is its author's word, and the bundle holds it.

    \b
    Examples:
      k3diff wheels a.whl b.whl --format json -o wheels.json
      k3diff report wheels.json cmp.json run/samples.jsonl triage.json --out bundle
      k3diff report wheels.json base.whl patch.whl --out bundle
      k3diff report wheels.json base.whl patch.whl ~/src/engine --out bundle
      k3diff report wheels.json --out bundle --require "nondeterminism follow-up"
      k3diff report telemetry.json --out bundle --fail-on acceptance-drop
      k3diff report cmp.json run/samples.jsonl triage.json --out bundle --allow-same-server
    """
    if out == Path("-"):
        raise UsageError("--out -: give a DIRECTORY (the bundle is three files, not a stream)")
    # Imported here: `--help` does not load every document reader and the triage it re-runs.
    from k3diff.bundle.write import build_bundle
    from k3diff.cli.outputtargets import refuse_output_over_input

    for result in results:
        refuse_output_over_input(out / "summary.json", [result])
    bundle = build_bundle(
        results,
        out,
        title,
        [Evidence(r) for r in required],
        pool_runs,
        tuple(dict.fromkeys(fail_on)),
        allow_same_server,
    )
    verdict = "FAIL" if bundle.exit_code else "OK"
    say(
        f"k3diff: bundle written to {out}/ (open {out / 'report.html'}); "
        f"{verdict} (exit {bundle.exit_code}){_caveats(bundle.summary, out)}"
    )
    return bundle.exit_code


def _caveats(summary: Mapping[str, Any], out: Path) -> str:
    """What the verdict stands on that its one line would otherwise hide, counted: the
    qualifications and the documents judged from themselves alone (REPORT.md names them)."""
    alone = sum(1 for row in summary.get("inputs", ()) if row.get("judged_alone"))
    counts = [
        plural(count, noun) + tail
        for count, noun, tail in (
            (len(summary.get("qualifications", ())), "qualification", ""),
            (alone, "document", " judged alone"),
        )
        if count
    ]
    return f"; {' and '.join(counts)}: read {out / 'REPORT.md'}" if counts else ""
