"""`k3diff.responses.jsondeepdiff`: deepdiff loaded without numpy, pandas, polars or pydantic
reports exactly what deepdiff loaded with them reports, on the JSON values `responses` compares,
and leaves those libraries importable afterwards. Each side runs in a fresh interpreter (this
test process may hold deepdiff already, loaded either way)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

PAIRS = [
    ({"finish_reason": "stop", "usage": {"total_tokens": 76}}, {"finish_reason": "length"}),
    ({"a": [1, 2, 3, 4]}, {"a": [1, 3, 4, 5, 6]}),
    ({"a": [{"x": 1}, {"y": 2}]}, {"a": [{"y": 2}, {"x": 1.0}]}),
    ({"n": 1, "f": 1.5, "b": True, "z": None}, {"n": 1.0, "f": 2, "b": 1, "z": 0}),
    ({"deep": {"l": [[1, [2, [3]]]], "s": "é"}}, {"deep": {"l": [[1, [2, [4]]]], "s": "e"}}),
    ({"logprobs": [-0.1, -2.5, -1e-9]}, {"logprobs": [-0.1, -2.5000001, 0.0]}),
    ({}, {"k": []}),
]

DIFF = """
import json, sys
{load}
pairs = json.loads(sys.argv[1])
out = []
for old, new in pairs:
    tree = DeepDiff(old, new, view="tree")
    out.append(sorted(
        (kind, level.path(output_format="list"),
         None if level.t1 is notpresent else repr(level.t1),
         None if level.t2 is notpresent else repr(level.t2))
        for kind, levels in tree.items() for level in levels
    ))
held = sorted(n for n in ("numpy", "pandas", "polars", "pydantic") if n in sys.modules)
print(json.dumps({{"diffs": out, "held": held}}, default=repr))
"""


def _run(load: str) -> dict[str, list[Any]]:
    done = subprocess.run(
        [sys.executable, "-c", DIFF.format(load=load), json.dumps(PAIRS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, list[Any]] = json.loads(done.stdout)
    return answer


def test_the_same_changes_with_and_without_the_array_libraries() -> None:
    usual = _run(
        "import numpy\nfrom deepdiff import DeepDiff\nfrom deepdiff.helper import notpresent"
    )
    lean = _run("from k3diff.responses.jsondeepdiff import DeepDiff, notpresent")
    assert "numpy" in usual["held"]  # the reference side really had numpy in deepdiff
    assert lean["held"] == []
    assert lean["diffs"] == usual["diffs"]
    assert all(usual["diffs"])  # every pair differs: the comparison is not vacuous


def test_numpy_still_imports_after_deepdiff_was_loaded_without_it() -> None:
    script = (
        "import sys\n"
        "from k3diff.responses.jsondeepdiff import DeepDiff\n"
        "assert 'numpy' not in sys.modules\n"
        "import numpy\n"
        "print(numpy.asarray([1, 2]).sum())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"


def test_a_deepdiff_already_loaded_is_used_as_it_is() -> None:
    script = (
        "import sys, numpy, deepdiff.helper\n"
        "from k3diff.responses import jsondeepdiff\n"
        "assert jsondeepdiff.DeepDiff is sys.modules['deepdiff'].DeepDiff\n"
        "assert deepdiff.helper.np is numpy\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
