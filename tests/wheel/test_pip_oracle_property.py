"""A property over pairs built from a pool of install tricks: k3diff never claims more than pip
delivers. Whenever `wheels` calls an installed path identical, pip installed identical bytes
(and executable bit) there from both wheels; whenever `wheels` or `audit` exits 0, pip installs
the wheel. Kept to a dozen examples (two pip installs each)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wheel.pipinstall import pip_install
from wheel.test_installed_view import (
    BASE_FILES,
    EVIL,
    assert_claims_hold,
    audit_code,
    wheels_json,
)
from wheel.tricks import build

LIBRARY = b"\x7fELF" + bytes(64)

TRICKS: dict[str, dict[str, object]] = {
    "edit": {"files": {"demo/util.py": b"def f():\n    return 2\n"}},
    "data purelib copy": {"files": {"demo-V.data/purelib/demo/__init__.py": EVIL}},
    "data platlib copy": {"files": {"demo-V.data/platlib/demo/__init__.py": EVIL}},
    "dot segment copy": {"files": {"demo/./util.py": EVIL}},
    "move library": {"move": ("demo/_lib.so", "demo-V.data/platlib/demo/_lib.so")},
    "move and change": {"move": ("demo/util.py", "demo-V.data/purelib/demo/util.py"), "edit": True},
    "case twin": {"files": {"demo/Util.py": EVIL}},
    "unknown scheme": {"files": {"demo-V.data/lib/x.py": b"x = 1\n"}},
    "wheel version 2": {"wheel_version": "2.0"},
    "directory with data": {"extra_files": {"demo/hidden/": EVIL}},
    "script": {"files": {"demo-V.data/scripts/tool": b"#!python\nprint(1)\n"}},
}


def _wheel(directory: Path, version: str, tricks: list[str]) -> Path:
    files = {**BASE_FILES, "demo/_lib.so": LIBRARY}
    options: dict[str, object] = {}
    for trick in tricks:
        spec = TRICKS[trick]
        for name, data in dict(spec.get("files", {})).items():  # type: ignore[call-overload]
            files[name.replace("demo-V", f"demo-{version}")] = data
        if "move" in spec:
            old, new = cast(tuple[str, str], spec["move"])
            data = files.pop(old, b"")
            files[new.replace("demo-V", f"demo-{version}")] = EVIL if spec.get("edit") else data
        for key in ("wheel_version", "extra_files"):
            if key in spec:
                options[key] = spec[key]
    return build(directory, version, files, **options)  # type: ignore[arg-type]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    base_tricks=st.lists(st.sampled_from(sorted(TRICKS)), max_size=1, unique=True),
    patch_tricks=st.lists(st.sampled_from(sorted(TRICKS)), min_size=1, max_size=3, unique=True),
)
def test_k3diff_never_claims_more_than_pip_installs(
    tmp_path_factory: object, base_tricks: list[str], patch_tricks: list[str]
) -> None:
    root = Path(tmp_path_factory.mktemp("oracle"))  # type: ignore[attr-defined]
    base = _wheel(root / "b", "1.0", base_tricks)
    patch = _wheel(root / "p", "2.0", patch_tricks)
    exit_code, report = wheels_json(base, patch)
    installed_base = pip_install(base, root / "ib")
    installed_patch = pip_install(patch, root / "ip")
    assert_claims_hold(report, exit_code, installed_base, installed_patch)
    if audit_code(patch)[0] == 0:
        assert installed_patch.ok, installed_patch.output
