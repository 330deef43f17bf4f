"""`k3diff audit`: RECORD, archive soundness and a pinned SHA-256 manifest for release artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from k3diff.cli.common import (
    finding_output_options,
    load_waiver_file,
    waivers_option,
)
from k3diff.cli.gcthreshold import freeze_at_exit
from k3diff.cli.summaries import SUMMARIES
from k3diff.errors import UsageError
from k3diff.output import say

# Imported where used (tests/cli/test_lazy_imports.py): `--help` loads none of the audit, the
# finding model, the waiver reader or the CI renderers, and the text path no CI renderer.
if TYPE_CHECKING:
    from k3diff.report.cifindings import CiRun


@click.command("audit", short_help=SUMMARIES["audit"])
@click.argument("artifacts", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--manifest",
    # Not dir_okay=False: read_manifest says "is a directory" in the same words as every other
    # unreadable manifest, where click would word it its own way.
    type=click.Path(path_type=Path),
    default=None,
    help="Verify the artifacts' SHA-256 against FILE (sha256sum or sha256sum --tag format).",
)
@click.option(
    "--ignore-missing",
    is_flag=True,
    help="With --manifest: names not audited in this run are listed, not findings (as "
    "sha256sum --ignore-missing); verifying none still fails.",
)
@click.option(
    "--write-manifest",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the artifacts' SHA-256 to FILE, sha256sum-compatible (check with sha256sum -c); "
    "only when the audit passes (a failing run says so on stderr and writes nothing).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker threads (default: one per core).",
)
@waivers_option
@finding_output_options
def audit_command(
    artifacts: tuple[Path, ...],
    manifest: Path | None,
    ignore_missing: bool,
    write_manifest: Path | None,
    jobs: int | None,
    waivers: Path | None,
    output_format: str,
    output: Path | None,
) -> int:
    """Audit release ARTIFACTS: every wheel's RECORD (hash and size of every entry, unlisted and
    absent files, weak algorithms, signatures), archive soundness (W6xx, shared with `wheels`)
    and the filename against the metadata; every sdist (`*.tar.gz`) as pip unpacks it (the
    gzip stream whole, every tar member, PKG-INFO); a source archive PyPI does not take (`.zip`,
    `.tar.bz2`, ...) is A136; any other file is hashed only. A directory stands
    for the files directly in it, as `dist/*` would (not its subdirectories or hidden files,
    nor this run's manifest and report).

    Exit 1 on any finding of error severity, 0 otherwise, 2 when an artifact or the manifest
    cannot be read at all (missing, unreadable). A file that is read but is no sound zip archive
    (cut short, not a zip) is finding A001, an error: exit 1.

    \b
    Examples:
      k3diff audit dist/*.whl
      k3diff audit dist --manifest dist/SHA256SUMS
      k3diff audit dist/*.whl --write-manifest SHA256SUMS && sha256sum -c SHA256SUMS
      k3diff audit dist/*.whl --manifest SHA256SUMS --format markdown -o audit.md
      k3diff audit dist --format sarif -o audit.sarif --waivers waivers.toml
    """
    if write_manifest == Path("-"):
        raise UsageError(
            "--write-manifest -: give a FILE (standard output carries the report; "
            "--format json lists the hashes)"
        )
    if write_manifest is not None:
        from k3diff.audit.manifest import is_manifest
        from k3diff.cli.outputtargets import refuse_archive_target

        # The previous manifest, given again by a glob (`dist/* --write-manifest
        # dist/SHA256SUMS`), is replaced and not audited; any other artifact is never written.
        previous = is_manifest(write_manifest)
        targets = [a for a in artifacts if not (previous and _same_file(a, write_manifest))]
        _refuse_overwrite("--write-manifest", write_manifest, "the artifact", targets)
        refuse_archive_target("--write-manifest", write_manifest)
        if output is not None:
            _refuse_overwrite("--output", output, "the --write-manifest file", [write_manifest])
    if ignore_missing and manifest is None:
        raise UsageError("--ignore-missing applies to --manifest FILE; give the manifest")
    if manifest is not None and output is not None:
        _refuse_overwrite("--output", output, "the manifest", [manifest])
    freeze_at_exit()
    # Imported here: `--help` does not load the audit's readers and native parsers.
    from k3diff.audit.run import AuditOptions, audit
    from k3diff.cli.ci import emit_findings
    from k3diff.cli.progress import TerminalProgress
    from k3diff.report.audit import render, verdict_text

    waiver_set = load_waiver_file(waivers)
    progress = TerminalProgress("audit")
    try:
        report = audit(
            artifacts,
            AuditOptions(
                manifest=manifest,
                write_manifest=write_manifest,
                jobs=jobs,
                ignore_missing=ignore_missing,
                own_files=() if output is None else (output,),
                waivers=waiver_set,
            ),
            progress.listener,
        )
    finally:
        progress.close()
    line = verdict_text(report)

    def ci_run() -> CiRun:
        from k3diff.report.cifindings import from_audit

        return from_audit(report, line)

    emit_findings(
        output_format,
        output,
        render=lambda fmt: render(report, fmt),
        ci_run=ci_run,
        verdict=lambda fmt: line,
        exit_code=report.exit_code,
    )
    # After the report, where the verdict is read (newuser80b: said before it, a long report
    # scrolled the note away)
    if write_manifest is not None and report.written_manifest is None:
        say(
            f"k3diff: note: {write_manifest} not written: the audit failed, and a manifest never "
            "pins a failing artifact (an existing file is left as it was)"
        )
    return int(report.exit_code)


def _same_file(path: Path, other: Path) -> bool:
    from k3diff.cli.outputtargets import refuse_output_over_input

    try:
        refuse_output_over_input(other, [path])
    except UsageError:
        return True
    return False


def _refuse_overwrite(option: str, target: Path, what: str, inputs: list[Path]) -> None:
    """Raise UsageError naming `option` when writing `target` would replace one of `inputs`."""
    from k3diff.cli.outputtargets import refuse_output_over_input

    for source in inputs:
        try:
            refuse_output_over_input(target, [source])
        except UsageError:
            raise UsageError(
                f"{option} {target} is {what} {source}: writing it would replace it; "
                "choose another file"
            ) from None
