"""What an audited wheel's central directory and metadata say of its structure, read on the main
thread while the pool verifies its entries (`structure_findings`): soundness and layout, the
filename against the metadata, what pip would install, the execution surfaces and what they run
at start, the core metadata and the abi3 tags.
"""

from __future__ import annotations

import dataclasses

from k3diff.audit.startup import startup_findings
from k3diff.errors import ArchiveError, CapError
from k3diff.wheel.abi3 import abi3_baseline, abi3_findings, scan_abi3, wheel_tags
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.coremeta import metadata_file_findings as _core_metadata
from k3diff.wheel.filename import contradictions
from k3diff.wheel.installable import install_check
from k3diff.wheel.layout import layout_findings
from k3diff.wheel.metadata import WheelIdentity, read_identity
from k3diff.wheel.pypinames import pypi_name_problems
from k3diff.wheel.soundness import soundness_findings
from k3diff.wheel.surfacekinds import Surface
from k3diff.wheel.surfaces import environment_shadowing, scan_surfaces
from k3diff.zip.archive import ZipArchive


def structure_findings(archive: ZipArchive) -> tuple[list[Finding], tuple[Surface, ...]]:
    """Soundness and layout (W601-W614), the filename against the metadata (W605), what pip
    would install (W615-W617; A112 already says a RECORD row is repeated), the execution
    surfaces, bytecode that runs instead of its source (W711) and
    scripts that replace a virtual environment's interpreter, pip or activation (W703), a
    `sitecustomize`/`usercustomize` the wheel installs (W702) and `.pth` lines run at every
    start (A127, `audit.startup`)."""
    try:  # read first: W629 narrows the tags' Pythons by its Requires-Python (left66)
        identity: WheelIdentity | None = read_identity(archive)
    except CapError:
        raise  # METADATA over 16 MiB or too many header lines: refused as `wheels` does
    except ArchiveError:
        identity = None  # a corrupt METADATA or WHEEL stream is its entry's W604
    python = None if identity is None else identity.requires_python
    install = install_check(archive, "audited", record_rows=False, requires_python=python)
    installable = list(install.checks)
    surfaces = scan_surfaces(archive, install)
    installable += [
        Finding(Code.W711, s.entry, s.summary)  # "…, runs instead of the source"
        for s in surfaces
        if s.bytecode is not None and s.bytecode.shadows_source
    ]
    installable += environment_shadowing(surfaces)
    installable += startup_findings(surfaces)
    found = [
        dataclasses.replace(f, detail=f.detail.replace("in the audited wheel: ", "", 1))
        for f in (
            *soundness_findings(archive, "audited"),
            *layout_findings(archive, "audited"),
            *installable,
        )
    ]
    held = {entry.name for entry in archive.entries}
    found += [Finding(Code.A141, "", s) for s in pypi_name_problems(archive.path.name, held)]
    if identity is None:
        return found, surfaces
    found += [
        Finding(Code.W605, "", sentence)
        for _field, sentence in contradictions(str(archive.path), identity)
    ]
    if not install.unusable_dist_info and install.dist_info is not None:
        found += _core_metadata(archive, f"{install.dist_info}/METADATA", Code.A122)
    baseline = abi3_baseline(wheel_tags(archive, identity.tags))
    if baseline is not None:
        found += abi3_findings(scan_abi3(archive, baseline), baseline, Code.A123)
    return found, surfaces
