"""Build a release set of many pairs for timing `k3diff report` on a `k3diff.wheelset/1`
document (rerun63: how often `report` reads the set).

Writes ROOT/base and ROOT/patch (PAIRS pairs of wheels built by the suite's
`tests/wheels/wheelset_support.write`, FILES modules each, one native library; the patch
changes every module of a few pairs, and one base wheel has no partner), then ROOT/set.json
(`k3diff wheels ROOT/base ROOT/patch --allow-unpaired --format json`) for the caller to time:

    .venv/bin/python scripts/bench_wheelset_report.py /tmp/set24 [PAIRS] [FILES]
    cd /tmp/set24 && /usr/bin/time k3diff report set.json base patch --out b
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from wheels.wheelset_support import LIB, write  # noqa: E402

WHEELS = (sys.executable, "-m", "k3diff", "wheels")


def build(root: Path, pairs: int, files: int) -> None:
    """The two release directories and the set's document."""
    for index in range(pairs):
        name = f"pkg{index:02d}"
        for side, version in (("base", "1.0"), ("patch", "1.1")):
            edited = side == "patch" and index % 6 == 0
            modules = {
                f"{name}/m{m:03d}.py": f"X = {m + (1000 if edited else 0)}\n".encode() * 20
                for m in range(files)
            }
            modules[f"{name}/_C.so"] = LIB
            write(root / side, name, version, "cp311-cp311-manylinux_2_17_x86_64", modules)
    write(root / "base", "solo", "1.0", "py3-none-any", {"solo.py": b"pass\n"})
    subprocess.run(
        [*WHEELS, "base", "patch", "--allow-unpaired", "--format", "json", "-o", "set.json"],
        cwd=root,
        check=False,
    )


if __name__ == "__main__":
    arguments = sys.argv[1:]
    build(
        Path(arguments[0]),
        int(arguments[1]) if len(arguments) > 1 else 24,
        int(arguments[2]) if len(arguments) > 2 else 200,
    )
