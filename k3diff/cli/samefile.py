"""Two inputs of one comparison that name one file: nothing would be compared."""

from __future__ import annotations

from pathlib import Path

from k3diff.errors import UsageError


def refuse_same_file(first: Path, second: Path, names: tuple[str, str], give: str) -> None:
    """Raise UsageError when `first` and `second` are one file (or directory): the same path, a
    symbolic or a hard link. A comparison of a file with itself proves nothing, and its exit 0
    would read as a pass. A copy is a real comparison and is not refused; a missing input is
    reported where it is opened. `names` label the two (`BASE`, `PATCH`); `give` ends the line."""
    try:
        same = first.samefile(second)
    except OSError:
        return
    if same:
        raise UsageError(
            f"{names[0]} {first} and {names[1]} {second} are the same file: nothing would be "
            f"compared; {give}"
        )
