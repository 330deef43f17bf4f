"""deepdiff for JSON values, imported without the array and model libraries it probes for.

At import, deepdiff tries `import numpy`, `pandas`, `polars` and `pydantic` (each in a
`try: ... except ImportError`), to compare their arrays, frames and models when it meets one.
`responses` hands it JSON values only (objects, arrays, strings, numbers, booleans, null), for
which none of them is ever consulted, yet loading numpy alone costs about 40-50 ms, pandas
several hundred: more than deepdiff itself, and more than the field comparison of a whole run
(issue 41). So deepdiff is imported with those names marked absent in `sys.modules` (a `None`
entry, the import system's documented way to make `import NAME` raise ImportError), which
deepdiff treats as "not installed"; the marks are taken away at once, so a later `import numpy`
anywhere else in the process loads it as usual. Where deepdiff is already loaded (by a caller, a
test process), it is used as it is.
"""

from __future__ import annotations

import sys

PROBED = ("numpy", "pandas", "polars", "pydantic")
"""The optional libraries deepdiff imports when installed, none of which JSON values need."""


def _import_deepdiff() -> None:
    if "deepdiff" in sys.modules:
        return
    hidden = [name for name in PROBED if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import deepdiff  # noqa: F401
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


_import_deepdiff()

from deepdiff import DeepDiff  # noqa: E402
from deepdiff.helper import notpresent  # noqa: E402

__all__ = ["PROBED", "DeepDiff", "notpresent"]
