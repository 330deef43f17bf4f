"""Build a bundle and write its three files as a set: a reader sees the previous bundle or the
whole new one, never a mix."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff.bundle.aarun import one_server_runs
from k3diff.bundle.html import render_html
from k3diff.bundle.inputs import impose_gates, read_inputs
from k3diff.bundle.markdown import render_markdown
from k3diff.bundle.model import Evidence
from k3diff.bundle.summary import build_summary
from k3diff.documents import report as report_document
from k3diff.errors import InputError, OutputError

FILES = ("summary.json", "REPORT.md", "report.html")
"""What a bundle directory holds."""


@dataclass(frozen=True)
class Bundle:
    """A bundle as written."""

    out: Path
    """The bundle directory."""
    summary: Mapping[str, Any]
    """The `k3diff.report/2` document."""
    exit_code: int
    """1 when a stage fails its policy or required evidence is missing, else 0."""


def build_bundle(
    inputs: Sequence[Path],
    out: Path,
    title: str,
    required: Sequence[Evidence] = (),
    pool_runs: bool = False,
    fail_on: Sequence[str] = (),
    allow_same_server: bool = False,
) -> Bundle:
    """Read `inputs` (samples of one run unless `pool_runs`), judge telemetry by the gates
    `fail_on` imposes, a run of one server as an A/A run only where the reviewer
    `allow_same_server` (`k3diff.bundle.aarun`), derive the report, write it to `out`."""
    # Imported here: matplotlib is loaded only when a bundle is drawn, never for `--help`.
    from k3diff.bundle.plots import make_plots

    read = impose_gates(read_inputs(inputs, pool_runs), fail_on, allow_same_server)
    documents = one_server_runs(read, allow_same_server)
    _check_out(out)
    try:
        summary = build_summary(documents, title, required)
        texts = {
            "summary.json": report_document.write(summary),
            "REPORT.md": render_markdown(summary),
            "report.html": render_html(summary, make_plots(documents)),
        }
    except RecursionError as exc:
        # The readers refuse deep JSON; this names the inputs should a value still be too
        # deep for a renderer.
        names = ", ".join(str(p) for p in inputs)
        raise InputError(f"{names}: a value nested too deeply to report; refused") from exc
    write_set(out, texts)
    return Bundle(out, summary, int(summary["verdict"]["exit_code"]))


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    if out.is_dir():
        strangers = sorted(p.name for p in out.iterdir() if p.name not in FILES)
        if strangers:
            raise OutputError(
                f"{out}: holds {strangers[0]!r}, which is not part of a bundle; choose an empty "
                "or new directory"
            )


def write_set(out: Path, texts: Mapping[str, str]) -> None:
    """Write `texts` into a new directory beside `out`, then swap it in."""
    parent = out.parent if str(out.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    except OSError as exc:
        raise OutputError(f"{out}: cannot write the bundle: {exc.strerror or exc}") from exc
    old: Path | None = None
    try:
        os.chmod(staging, 0o777 & ~_umask())
        for name, text in texts.items():
            with open(staging / name, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=parent))
            os.replace(out, old / out.name)
        os.replace(staging, out)
    except OSError as exc:
        if old is not None and not out.exists():
            with contextlib.suppress(OSError):
                os.replace(old / out.name, out)
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(f"{out}: cannot write the bundle: {exc.strerror or exc}") from exc
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
