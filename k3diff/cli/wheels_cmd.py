"""`k3diff wheels BASE PATCH`: prove native entries identical, list what changed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from k3diff.cli import quickexit
from k3diff.cli.common import (
    InputPath,
    finding_output_options,
    load_waiver_file,
    waivers_option,
)
from k3diff.cli.notwheel import refuse_source_archive
from k3diff.cli.samefile import refuse_same_file
from k3diff.cli.sourceoptions import source_spec
from k3diff.cli.summaries import SUMMARIES
from k3diff.errors import InputError, NestedRepositoryError, SourceError, UsageError
from k3diff.output import CiFormat, OutputFormat, emit_chunks

# Imported where used (tests/cli/test_lazy_imports.py): `--help` loads none of the comparison,
# the finding model, the waiver reader or the CI renderers, and the text path no CI renderer.
if TYPE_CHECKING:
    from k3diff.report.cifindings import CiRun
    from k3diff.wheel.codes import Code
    from k3diff.wheels.compare import WheelOptions
    from k3diff.wheels.releaseset import ReleaseSide

_SIDES = ("BASE", "PATCH")
_GIVE_WHEELS = "give the base and the patch wheel (or two release directories)"


def _codes(values: tuple[str, ...], option: str) -> frozenset[Code]:
    from k3diff.wheel.codes import parse_codes

    try:
        return parse_codes(values)
    except ValueError as exc:
        raise UsageError(f"{option}: {exc}") from exc


@click.command("wheels", short_help=SUMMARIES["wheels"])
@click.argument("base", type=click.Path(path_type=Path), required=False)
@click.argument("patch", type=click.Path(path_type=Path), required=False)
@click.option(
    "--base",
    "base_files",
    multiple=True,
    type=InputPath(path_type=Path),
    metavar="WHEEL",
    help="A base release's wheel (repeat for each); pairs with the --patch wheels.",
)
@click.option(
    "--patch",
    "patch_files",
    multiple=True,
    type=InputPath(path_type=Path),
    metavar="WHEEL",
    help="A patch release's wheel (repeat for each); pairs with the --base wheels.",
)
@click.option(
    "--allow-unpaired",
    is_flag=True,
    help="Release sets: wheels on one side only do not fail the run (still listed); "
    "one pip may install instead of a compared wheel is refused (exit 2).",
)
@click.option(
    "--allow-native-changes",
    is_flag=True,
    help="Do not fail on changed, missing or added native entries, nor on a native "
    "executable in .data/scripts (W708) or an extension shadowing its module (W628) "
    "(still reported).",
)
@click.option(
    "--allow-bytecode",
    is_flag=True,
    help="With --source, do not fail on bytecode (.pyc) that cannot be verified (W405; "
    "still reported).",
)
@click.option(
    "--protected-commands",
    metavar="NAMES",
    default=None,
    help="Comma-separated command names a script in bin/ must not take over (W703); "
    "replaces the default list (pip, pip3, python, python3, sh, bash, env, ...). A virtual "
    "environment's own names (python3.N, pythonw*, pip3.N, activate*) are always protected.",
)
@click.option(
    "--select",
    multiple=True,
    metavar="CODES",
    help="Report only these finding codes (comma-separated; a prefix such as W1 selects a family).",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="CODES",
    help="Never report these finding codes (comma-separated or repeated).",
)
@click.option(
    "--source",
    type=click.Path(path_type=Path),
    default=None,
    help="Git repository the patch's Python files are claimed to come from.",
)
@click.option(
    "--commit",
    default=None,
    metavar="REV",
    help="With --source: the commit built; a commit the patch wheel states must be it (W408).",
)
@click.option(
    "--commits",
    default=None,
    metavar="OLD..NEW",
    help="With --source: the range built; names each file's newest matching commit; a commit "
    "the patch wheel states must be in OLD..NEW (W408).",
)
@click.option(
    "--source-prefix",
    default=None,
    metavar="DIR",
    help="Repository directory holding the package (default: detected, e.g. '', src/, python/).",
)
@click.option(
    "--source-all",
    is_flag=True,
    help="With --source: check unchanged Python files too (catches stale or dirty builds).",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Say why each changed native entry differs: ELF sections, symbols, build-id, CUDA images.",
)
@click.option(
    "--file-hash/--no-file-hash",
    default=True,
    show_default=True,
    help="Compute the SHA-256 of both wheel files for the report, and check the CRC-32 of every "
    "entry proven identical by its compressed bytes (one side inflated: a corrupt stream both "
    "wheels carry fails W604). It reads every byte, which on large wheels takes longer than "
    "the comparison; --no-file-hash skips both and the reports say how many streams went "
    "unchecked.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker threads for reading and inflating (default: one per core).",
)
@waivers_option
@finding_output_options
def wheels(
    base: Path | None,
    patch: Path | None,
    base_files: tuple[Path, ...],
    patch_files: tuple[Path, ...],
    allow_unpaired: bool,
    allow_native_changes: bool,
    allow_bytecode: bool,
    protected_commands: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    source: Path | None,
    commit: str | None,
    commits: str | None,
    source_prefix: str | None,
    source_all: bool,
    explain: bool,
    file_hash: bool,
    jobs: int | None,
    waivers: Path | None,
    output_format: str,
    output: Path | None,
) -> int:
    """Compare two wheels (or two release sets) entry by entry, in place, without extracting.

    Every native entry of PATCH is proven byte-identical to BASE (or reported changed, missing
    or added), with how it was proven: raw-bytes (equal compressed bytes), content (inflated and
    compared), size or crc32 (a difference that needs no reading). Changed Python files get line
    counts and a diff. BASE and PATCH naming one file (or directory), through any path or link,
    is refused (exit 2): it would compare nothing; a copy is compared.

    Release sets: BASE_DIR PATCH_DIR (or --base WHEEL ... --patch WHEEL ...) pair wheels by
    distribution name and tags, ignoring version and build number, and compare every pair with
    the options above. Wheels with no counterpart are listed and fail the run (see
    --allow-unpaired), as does a .whl in a directory whose name pip refuses (copy.whl); two
    candidates for one wheel is an error naming both.

    Exit status: 0 nothing fails the policy, 1 a finding fails it (by default any native change,
    a RECORD mismatch; for a release set also any unpaired wheel), 2 the comparison could not be
    done.

    \b
    Examples:
      k3diff wheels dist/engine-1.0-cp311-cp311-linux_x86_64.whl patched/engine-1.0-cp311-cp311-linux_x86_64.whl
      k3diff wheels base.whl patch.whl --format json -o report.json
      k3diff wheels base.whl patch.whl --source ~/src/engine --commit v1.2.3-patch
      k3diff wheels base.whl patch.whl --source ~/src/engine --commits v1.2.3..HEAD
      k3diff wheels base.whl patch.whl --explain --ignore W501
      k3diff wheels dist-1.0/ dist-1.1/ --format markdown -o release.md
      k3diff wheels --base a-1.0-cp311-cp311-linux_x86_64.whl --patch a-1.1-cp311-cp311-linux_x86_64.whl
      k3diff wheels base.whl patch.whl --format sarif -o wheels.sarif --waivers waivers.toml
    """
    head = None
    if base is not None and patch is not None and not (base_files or patch_files):
        # Before the imports below, which the children then overlap (`wheels.headstart`).
        from k3diff.wheels.headstart import head_start

        head = head_start(base, patch)
        if head is not None:
            click.get_current_context().call_on_close(head.close)
    # Imported here: `--help` does not load the comparison and its renderers.
    from k3diff.cli.ci import emit_findings
    from k3diff.cli.gcthreshold import collector_paused
    from k3diff.cli.progress import TerminalProgress
    from k3diff.report.wheels import render, render_chunks, verdict_text
    from k3diff.wheel.policy import Policy
    from k3diff.wheels.compare import WheelOptions, compare_wheels
    from k3diff.wheels.model import asked_to_explain

    policy = Policy(
        allow_native_changes=allow_native_changes,
        allow_bytecode=allow_bytecode,
        select=_codes(select, "--select") if select else None,
        ignore=_codes(ignore, "--ignore"),
        waivers=load_waiver_file(waivers),
    )
    options = WheelOptions(
        policy=policy,
        jobs=jobs,
        file_hash=file_hash,
        source=source_spec(source, commit, commits, source_prefix, source_all, patch),
        explain=explain,
        protected_commands=None
        if protected_commands is None
        else frozenset(filter(None, (n.strip() for n in protected_commands.split(",")))),
    )
    fmt = output_format
    if base_files or patch_files:
        from k3diff.wheels.releaseset import Side, given_files

        if base is not None or patch is not None:
            raise UsageError("give BASE PATCH or --base/--patch wheels, not both")
        base_side, patch_side = (
            given_files(base_files, Side.BASE),
            given_files(patch_files, Side.PATCH),
        )
        for base_file in base_files:
            for patch_file in patch_files:
                refuse_same_file(base_file, patch_file, _SIDES, _GIVE_WHEELS)
        return _release_set(
            base_side,
            patch_side,
            options,
            allow_unpaired,
            fmt,
            output,
        )
    if base is None or patch is None:
        raise UsageError("give BASE and PATCH (two wheels or two directories), or --base/--patch")
    refuse_same_file(base, patch, _SIDES, _GIVE_WHEELS)
    if base.is_dir() or patch.is_dir():
        from k3diff.wheels.releaseset import Side, scan_directory

        if not (base.is_dir() and patch.is_dir()):
            directory, other = (base, patch) if base.is_dir() else (patch, base)
            if not other.exists():
                raise InputError(f"{other}: no such file or directory")
            raise UsageError(
                f"{directory} is a directory but {other} is not: compare two wheels, or two "
                "directories of wheels (a release set; or give --base/--patch wheels)"
            )
        return _release_set(
            scan_directory(base, Side.BASE),
            scan_directory(patch, Side.PATCH),
            options,
            allow_unpaired,
            fmt,
            output,
        )
    if allow_unpaired:
        raise UsageError("--allow-unpaired applies to release sets (directories or --base/--patch)")
    for given in (base, patch):
        refuse_source_archive(given)
    progress = TerminalProgress("wheels")
    quickexit.keep_working_objects()  # one comparison: its working set goes with the process
    try:
        with _source_hint(), collector_paused():
            report = compare_wheels(base, patch, options, progress=progress.listener, head=head)
        report = asked_to_explain(report, explain)
    finally:
        progress.close()
    line = verdict_text(report)

    def ci_run() -> CiRun:
        from k3diff.report.cifindings import from_wheels

        return from_wheels(report, line, fingerprinted=fmt == CiFormat.SARIF)

    emit_findings(
        fmt,
        output,
        render=lambda chosen: render(report, chosen),
        ci_run=ci_run,
        verdict=lambda _: line,
        exit_code=report.exit_code,
        chunks=lambda chosen: render_chunks(report, chosen),
    )
    quickexit.hold(report)  # written and closed: the process may end without freeing it
    return int(report.exit_code)


@contextmanager
def _source_hint() -> Iterator[None]:
    """A source directory inside a work tree: say which directory to give instead."""
    try:
        yield
    except NestedRepositoryError as exc:
        raise SourceError(
            f"{exc}: pass --source {exc.top_level} (the package directory is found as the "
            "prefix, or give --source-prefix)"
        ) from exc


def _release_set(
    base: ReleaseSide,
    patch: ReleaseSide,
    options: WheelOptions,
    allow_unpaired: bool,
    fmt: str,
    output: Path | None,
) -> int:
    """Compare every pair of two release sets and render the set's report."""
    from k3diff.cli.ci import emit_findings
    from k3diff.cli.outputtargets import refuse_output_over_input
    from k3diff.cli.progress import TerminalProgress
    from k3diff.report.wheelset import render_chunks
    from k3diff.report.wheelset import verdict_text as set_verdict_text
    from k3diff.wheels.releaseset import compare_release_sets

    if output is not None:
        refuse_output_over_input(output, [w.path for w in (*base.wheels, *patch.wheels)])
    progress = TerminalProgress("wheels", unit="pairs")
    try:
        with _source_hint():
            report = compare_release_sets(
                base, patch, options, allow_unpaired=allow_unpaired, progress=progress.listener
            )
    finally:
        progress.close()
    line = set_verdict_text(report)
    if fmt in CiFormat.__members__.values() or os.environ.get("GITHUB_ACTIONS") == "true":
        from k3diff.report.cifindings import from_wheelset

        emit_findings(
            fmt,
            output,
            render=lambda chosen: "".join(render_chunks(report, chosen)),
            ci_run=lambda: from_wheelset(report, line, fmt == CiFormat.SARIF),
            verdict=lambda _: line,
            exit_code=report.exit_code,
        )
    else:  # piece by piece: a release set's JSON holds every entry of every pair
        emit_chunks(render_chunks(report, OutputFormat(fmt)), output, line)
    quickexit.hold(report)
    return int(report.exit_code)
