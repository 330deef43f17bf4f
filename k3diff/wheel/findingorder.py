"""How the readable reports order and count a run's failing findings (stop 63, new-user
trials at stop 62): by severity (`error` first), then code, then path; and a rebuilt native
executable that pip copies into `bin/` said once.

Such a file (z3_solver's `.data/data/bin/z3`) is two true findings of one change: W101, its
native bytes changed (`--explain` says how), and W708 marked native, the command pip copies
onto PATH is that rebuilt program. Beside the W101 of its path the W708 adds no second change
(a native W708 is a changed native image, and `--allow-native-changes` relaxes both alike), so
the readable reports show one row naming both codes and both reasons, and count it once; a
native W708 without its W101 (a corrupt stream is W604 instead) stays a row of its own. The
JSON keeps both findings: each code is still selected, ignored and waived on its own, so the
exit code is exactly the run's (the pair fails until `--allow-native-changes`, or a waiver of
each, lets both pass).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

SEVERITY_RANK = {"error": 0, "info": 1}
"""Severity order of the findings tables: what fails first."""

Named = tuple[str, str, bool]
"""What ordering and folding read of a finding: its code's name, its path, and whether it is
marked native (a run's `Finding` and a document's `FindingView` alike)."""


def order_key(severity: str, code: str, path: str) -> tuple[int, str, str]:
    """The findings tables' order: severity (error first), code, path (stable for ties)."""
    return (SEVERITY_RANK.get(severity, len(SEVERITY_RANK)), code, path)


def implied(findings: Iterable[Named]) -> frozenset[str]:
    """The paths whose native W708 a W101 on the same path implies (a rebuilt native script):
    among `findings`, both present."""
    listed = list(findings)
    changed = {path for code, path, _ in listed if code == "W101"}
    return frozenset(
        path for code, path, native in listed if code == "W708" and native and path in changed
    )


def folded_counts(findings: Sequence[Named]) -> list[tuple[str, int, int]]:
    """`(code, count, with_w708)` per code, sorted by code: a W708 that a W101 implies is
    counted in its W101's `with_w708`, not as a W708 of its own."""
    paths = implied(findings)
    counts: dict[str, list[int]] = {}
    for code, path, native in findings:
        if code == "W708" and native and path in paths:
            continue
        count = counts.setdefault(code, [0, 0])
        count[0] += 1
        count[1] += code == "W101" and path in paths
    return [(code, n, both) for code, (n, both) in sorted(counts.items())]


def counted(findings: Sequence[Named], thousands: bool = True) -> str:
    """`2 × W101 (1 also W708), 1 × W102`: `folded_counts` as the verdict lines say them."""
    parts = []
    for code, n, both in folded_counts(findings):
        number = f"{n:,}" if thousands else str(n)
        also = f" ({both:,} also W708)" if both else ""
        parts.append(f"{number} × {code}{also}")
    return ", ".join(parts)
