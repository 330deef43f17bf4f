"""The `k3diff` console script and `python -m k3diff`: the command-line interface, imported
only once a Ctrl-C during that import can be answered.

Importing `k3diff.cli` (click and the command group) takes a good part of a short run, and
`run_main`'s Ctrl-C handling starts only after it: a Ctrl-C there printed a `KeyboardInterrupt`
traceback. Here it is the same exit 2 and one line as a Ctrl-C during the command.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Import the command-line interface and run it on the process arguments."""
    try:
        from k3diff.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("k3diff: error: aborted (Ctrl-C)\n")
        return 2
    return run()
