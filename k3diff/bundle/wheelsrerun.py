"""`k3diff wheels` run again on the two wheels a wheels document names, with the document's own
settings (`wheelsrederive` compares what it writes with the document, forge61, forge62).

The settings are the ones the document records in `rerun` (`wheels.rerunoptions`), its source
check run in the directory given that holds the recorded commit (`wheelsource`), or without
`--source` where none does (its source claims then the document's word alone). A document written
before `rerun` is run again with the settings its findings show (`--allow-native-changes`,
`--allow-bytecode`, `--select`, `--ignore`, `--explain`); one made with `--waivers` or `--source`
is refused with its wheels. The document `wheels` writes names the wheels as the document does
(a waiver's `artifact` glob matches those)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from k3diff.bundle import wheelsource
from k3diff.bundle.wheelnames import recorded_names
from k3diff.errors import InputError, K3diffError

NATIVE_INFO_CODES = frozenset({"W101", "W102", "W103", "W708", "W628"})
"""Codes `--allow-native-changes` reports at info (W708/W628 only about native code)."""


def _inferred_options(body: dict[str, Any], name: str) -> Any:
    """The settings a document written before `rerun` shows by its findings."""
    from k3diff.wheel.codes import Code
    from k3diff.wheel.policy import Policy
    from k3diff.wheels.compare import WheelOptions

    if "waivers" in body or any("waiver" in f for f in body.get("findings", [])):
        raise InputError(
            f"{name}: findings waived (--waivers), and the waiver file is not in the document "
            "(written before documents recorded their settings), so k3diff wheels cannot be run "
            "again on the wheels given with it: re-run k3diff wheels, or give report the "
            "document without its wheels (it is then judged from the document alone)"
        )
    if "provenance" in body:
        raise InputError(
            f"{name}: checked against a --source repository whose commit the document does not "
            "record (written before documents recorded their settings), so k3diff wheels cannot "
            "be run again on the wheels given with it: re-run k3diff wheels, or give report the "
            "document without its wheels (it is then judged from the document alone)"
        )
    quiet = {f.get("code") for f in body.get("findings", []) if f.get("severity") == "info"}
    verdict = body.get("verdict", {})
    ignore = {f.get("code") for f in verdict.get("filtered", []) if isinstance(f, dict)}
    policy = Policy(
        allow_native_changes=bool(quiet & NATIVE_INFO_CODES),
        allow_bytecode="W405" in quiet,
        ignore=frozenset(Code[c] for c in ignore if isinstance(c, str) and c in Code.__members__),
    )
    return WheelOptions(policy=policy, explain=body.get("explain") is True)


class Again(NamedTuple):
    """`wheels` run again for a document: what it wrote, and where the source was checked."""

    document: dict[str, Any] | str
    """The document it wrote, or why none."""
    repository: Path | None
    """The directory the recorded commit was checked in; None without a source check."""
    source_alone: bool
    """The document checked `--source` and no directory given holds its commit: run again
    without it, its source claims judged from the document alone."""


def wheels_again(
    body: dict[str, Any], base: Path, patch: Path, name: str, repos: Sequence[Path]
) -> Again:
    """The document `wheels` writes on the two wheels with the document's settings."""
    from k3diff.documents import wheels as wheels_document
    from k3diff.wheels.compare import compare_wheels
    from k3diff.wheels.model import asked_to_explain
    from k3diff.wheels.rerunoptions import rerun_options

    repo = None
    if "rerun" in body:
        options, source = rerun_options(body["rerun"], name)
        repo = None if source is None else wheelsource.repository_for(source, repos)
        if source is not None and repo is not None:
            options = wheelsource.with_source(options, repo, source)
        alone = source is not None and repo is None
    else:
        options, alone = _inferred_options(body, name), False
    try:
        report = asked_to_explain(compare_wheels(base, patch, options), options.explain)
    except K3diffError as exc:
        return Again(f"wheels refuses them: {exc}", repo, alone)
    # Under the names the document gives the wheels: a waiver's `artifact` glob matches them.
    names = recorded_names(body)
    if all(isinstance(n, str) for n in names):
        report = replace(
            report,
            base=replace(report.base, path=str(names[0])),
            patch=replace(report.patch, path=str(names[1])),
        )
    again: dict[str, Any] = json.loads(wheels_document.write(report))
    return Again(wheelsource.named_as_given(body, again), repo, alone)
