"""The steps for a file pip refuses whole, by its bytes or its name (A001, A126, and a W616
that refuses the file's name: audit74), which no waiver takes: `report.auditsteps` says them
first, and the `unzip -p` of a wheel's `.dist-info` file every step that shows one names.
"""

from __future__ import annotations

from collections.abc import Callable

from k3diff import shellwords
from k3diff.report.stepwords import REBUILD
from k3diff.wheel.artifactglob import artifact_name
from k3diff.wheel.refusals import filename_refusals

Style = Callable[[str], str]
"""How a step shows a command or a name: as code in Markdown, as it is in text."""


def unreadable(counts: str, artifact: str, code: Style) -> str:
    """A001: the file copied again and its hash checked."""
    return (
        f"{counts}: no waiver accepts it (pip cannot read the file: cut short by a download or "
        "copy, or no wheel at all): copy it again from where it was built, check that "
        f"{code('sha256sum ' + shellwords.path(artifact))} gives the hash the build or the "
        "index lists, and audit it again"
    )


def misnamed(counts: str, artifact: str, code: Style) -> str:
    """A126: the file renamed to the name its build wrote, or rebuilt."""
    return (
        f"{counts}: no waiver accepts it (pip, twine and PyPI refuse a wheel by this name): "
        f"rename it to the name its build wrote, {code('NAME-VERSION-PYTHON-ABI-PLATFORM.whl')} "
        f"(its tags: {code(dist_info(artifact, 'WHEEL'))}), or rebuild it ({code(REBUILD[0])}), "
        "then audit it again"
    )


def bad_name(counts: str | None, artifact: str, code: Style) -> str | None:
    """The step for a W616 that refuses the wheel's file name (`codes.refuses_name`): the file
    renamed, as the build named it (audit74: it was told to rebuild the wheel without the
    entries named, and named none). A `.whl` in another case, right but for it, is renamed by
    the commands given: `mv -n` overwrites no file of the name, and by way of another name,
    since on a filesystem that ignores case (macOS) the lower-case name is the file itself, which
    `mv -n` would leave as it is. `counts`: the W616s counted, None where none is (no step)."""
    if counts is None:
        return None
    head = (
        f"{counts}: no waiver accepts it (pip refuses the wheel by its file name, the detail "
        "says why)"
    )
    name = artifact_name(artifact)
    lowered = name[:-4] + ".whl"
    if name.lower().endswith(".whl") and name != lowered and not any(filename_refusals(lowered)):
        target = artifact[: len(artifact) - len(name)] + lowered
        between = shellwords.path(target + ".renamed")
        rename = code(
            f"mv -n {shellwords.path(artifact)} {between} && mv -n {between} "
            f"{shellwords.path(target)}"
        )
        return f"{head}: rename it with '.whl' in lower case ({rename}), then audit it again"
    fields = code(dist_info(artifact, "METADATA") + " | grep -E '^(Name|Version): '")
    return (
        f"{head}: rename it to the name its build wrote, "
        f"{code('NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl')}: the project and version its "
        f"METADATA gives ({fields}), the name "
        f"with '_' for each run of '-', '_' and '.', a build number, if any, starting with a "
        f"digit, and its tags ({code(dist_info(artifact, 'WHEEL'))}), then audit it again"
    )


def dist_info(artifact: str, name: str) -> str:
    """`unzip -p` of the wheel's top-level `.dist-info/NAME` (`-x '*/*/*'`: unzip's `*` crosses
    `/`, and a vendored `pkg/x.dist-info/NAME` was printed first; review73c)."""
    return f"unzip -p {shellwords.path(artifact)} '*.dist-info/{name}' -x '*/*/*'"
