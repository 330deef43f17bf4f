"""The findings an audit document's own paths give, held against those it lists: a finding
deleted outright shows where the document holds its cause (as a manifest's names hold
A201-A203's). A `.whl` whose name is no wheel filename is A126 by its name alone; two wheels
of one directory that pip reads as one, sharing a tag, are A128 by their names and directory
(review73a: either deleted, with the verdict's counts, passed `report`, exit 0, judged alone;
A128 also beside its wheels given from two directories, where `audit` run again finds none).
The paths are read as spelled, never resolved (they need not exist where `report` runs), so no
more wheels are held together than `audit` held: an A128 listed beyond them is none. A
directory holding more wheels of one project, version and build than `audit` reads
(`wheel.tagsharing.MAX_SAME`) is refused, as `audit` refuses it (audit74). A wheel `audit` read
(no A001) whose name or platform tag PyPI refuses is A141 by its name alone (review80b: deleted
with the verdict's counts, a `linux_x86_64` wheel's audit passed `report`, exit 0).
"""

from __future__ import annotations

from pathlib import PurePath

from k3diff.audit.samewheels import same_wheel_findings
from k3diff.documents.audit import AuditDocument
from k3diff.errors import InputError
from k3diff.wheel.pypinames import pypi_name_problems
from k3diff.wheel.refusals import doubled_suffix, no_wheel_filename


def name_problems(view: AuditDocument) -> list[str]:
    """`PATH lists no A126 finding, which its name gives` for each finding the artifacts'
    recorded paths give that the artifact does not list."""
    paths = [artifact.path for artifact in view.artifacts]
    try:
        same = same_wheel_findings(paths, resolve=False)
    except InputError as exc:  # a directory over the cap: `audit` writes no such document
        return [str(exc)]
    due: dict[int, dict[str, str]] = {
        position: {"A128": "its name and directory give"} for position in same
    }
    for position, path in enumerate(paths):
        wheel = PurePath(path).suffix.lower() == ".whl"  # as `audit` reads one as a wheel
        if wheel and (doubled_suffix(path) or no_wheel_filename(path)):
            due.setdefault(position, {})["A126"] = "its name gives"
        elif wheel and _read(view, position) and pypi_name_problems(PurePath(path).name, None):
            due.setdefault(position, {})["A141"] = "its name gives"
    problems: list[str] = []
    for position in sorted(due):
        listed = {finding.code for finding in view.artifacts[position].findings}
        problems += [
            f"{paths[position]} lists no {code} finding, which {why}"
            for code, why in sorted(due[position].items())
            if code not in listed
        ]
    return problems


def _read(view: AuditDocument, position: int) -> bool:
    """Whether `audit` read the artifact as a zip (lists no A001): only then are the checks of
    its name as PyPI reads it run (A141)."""
    return all(finding.code != "A001" for finding in view.artifacts[position].findings)
