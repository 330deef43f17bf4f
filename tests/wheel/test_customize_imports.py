"""A `sitecustomize` module `site` imports at every start runs its top-level code, and what that
code imports of the wheel runs too, as for a module a `.pth` line imports: a patch that changes
such a module changes what runs at every start (W702), its chain said. Before (review71b), a kept
`sitecustomize.py` doing `import demo_inner` (at the top, on a path line's directory, or at a
`pip install --target` DIR's top) and a changed `demo_inner.py` passed `wheels` (exit 0, W201
alone), and a venv's `python -c pass` ran the patch's `demo_inner`.

The oracle is the install itself: pip 26 installs the patch into a fresh venv, whose
`python -c pass` prints the module's mark (`test_pth_leaving_site._runs_in_a_venv`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from wheel.test_pth_imports import QUIET, _pair
from wheel.test_pth_leaving_site import RUNS, _runs_in_a_venv, _w702
from wheel.test_target_customize import _runs_from_a_target

CASES = {
    "a module sitecustomize imports": (
        {"sitecustomize.py": b"import demo_inner\n"},
        "demo_inner.py",
        "demo_inner: imported by site → sitecustomize at every start",
    ),
    "a package's module a sitecustomize package imports": (
        {
            "sitecustomize/__init__.py": b"import demo\n",
            "demo/__init__.py": b"from . import core\n",
        },
        "demo/core.py",
        "demo.core: imported by site → sitecustomize → demo at every start",
    ),
    "a module on a path line's directory": (
        {"demo.pth": b"demo_extra\n", "demo_extra/sitecustomize.py": b"import demo_inner\n"},
        "demo_inner.py",
        "demo_inner: imported by site → sitecustomize at every start",
    ),
}


@pytest.mark.skipif(
    importlib.util.find_spec("sitecustomize") is not None,
    reason="this Python has its own sitecustomize, which site imports first",
)
@pytest.mark.parametrize(("kept", "changed", "chain"), CASES.values(), ids=list(CASES))
def test_a_module_a_kept_sitecustomize_imports_fails_when_changed(
    tmp_path: Path, kept: dict[str, bytes], changed: str, chain: str
) -> None:
    code, report, new = _pair(tmp_path, {**kept, changed: QUIET}, {**kept, changed: RUNS})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    assert chain in _w702(report)[changed]
    assert set(_w702(report)) == {changed}  # the customize module is the base's


def test_a_module_sitecustomize_does_not_import_passes(tmp_path: Path) -> None:
    kept = {"sitecustomize.py": b"def later():\n    import demo_inner\n"}
    code, report, new = _pair(
        tmp_path, {**kept, "demo_inner.py": QUIET}, {**kept, "demo_inner.py": RUNS}
    )
    assert not _runs_in_a_venv(tmp_path, new)
    assert code == 0, report["findings"]


def test_a_module_a_kept_target_sitecustomize_imports_fails_when_changed(tmp_path: Path) -> None:
    """`pip install --target DIR` puts `.data/data/sitecustomize.py` at DIR's top, beside the
    packages, so its `import demo_inner` runs the wheel's `demo_inner.py`."""

    def files(version: str, inner: bytes) -> dict[str, bytes]:
        return {
            f"demo-{version}.data/data/sitecustomize.py": b"import demo_inner\n",
            "demo_inner.py": inner,
        }

    code, report, new = _pair(tmp_path, files("1.0", QUIET), files("2.0", RUNS))
    assert _runs_from_a_target(tmp_path, new)
    assert code == 1, report["findings"]
    assert set(_w702(report)) == {"demo_inner.py"}
