"""abi3 in `wheels`: the patch's extensions against its abi3 tag (W625, failing), and with
`--explain` each extension that needs a newer stable ABI than the base's (W626, informational:
within the tag's promise, but the patch no longer imports on the Pythons the base did)."""

from __future__ import annotations

from k3diff.wheel.abi3 import abi3_baseline, abi3_findings, newer_abi, scan_abi3, wheel_tags
from k3diff.wheel.codes import Code, Finding
from k3diff.zip.archive import ZipArchive


def abi3_pair_findings(
    base: ZipArchive,
    patch: ZipArchive,
    tags: tuple[tuple[str, ...], tuple[str, ...]],
    *,
    explain: bool,
) -> list[Finding]:
    """W625 for the patch's extensions that break its abi3 tag; W626 with `explain`."""
    baseline = abi3_baseline(wheel_tags(patch, tags[1]))
    if baseline is None:
        return []
    uses = scan_abi3(patch, baseline)
    findings = abi3_findings(uses, baseline, Code.W625, "patch")
    if explain:
        base_baseline = abi3_baseline(wheel_tags(base, tags[0])) or baseline
        for entry, old, new in newer_abi(scan_abi3(base, base_baseline), uses):
            before = f"{old[0]}.{old[1]}" if old else "none"
            findings.append(
                Finding(
                    Code.W626,
                    entry,
                    f"needs the {new[0]}.{new[1]} stable ABI (the base's extension: {before})",
                )
            )
    return findings
