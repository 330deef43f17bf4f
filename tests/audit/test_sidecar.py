"""PEP 658: `audit` compares `NAME.whl.metadata` with the wheel's METADATA byte for byte and
names the fields that differ. pip is the oracle where a resolver acts on the served file: from
a local simple index it refuses a wheel whose served metadata names another version."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from wheel.rawwheel import metadata, write_wheel

FILES = {"demo/__init__.py": b"VALUE = 1\n"}


def audit_json(*paths: Path) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("audit", *paths, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def findings(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for a in report["artifacts"] for f in a["findings"] if f["code"] == code]


def release(tmp_path: Path, served: bytes | None) -> Path:
    dist = tmp_path / "dist"
    meta = metadata("demo", "1.0", "Requires-Dist: requests>=2")
    wheel = write_wheel(dist, "demo", "1.0", FILES, meta=meta)
    if served is not None:
        Path(f"{wheel}.metadata").write_bytes(served)
    return wheel


def test_a_sidecar_equal_to_metadata_passes(tmp_path: Path) -> None:
    wheel = release(tmp_path, metadata("demo", "1.0", "Requires-Dist: requests>=2"))
    assert audit_json(wheel.parent)[0] == 0
    assert audit_json(wheel)[0] == 0


def test_a_sidecar_that_contradicts_its_wheel_fails_naming_the_fields(tmp_path: Path) -> None:
    served = metadata("pip", "1.0", "Requires-Dist: evil")
    wheel = release(tmp_path, served)
    for target in (wheel.parent, wheel):
        exit_code, report = audit_json(target)
        assert exit_code == 1
        (finding,) = findings(report, "A124")
        assert "name, requires-dist" in finding["detail"], finding


def test_a_sidecar_differing_in_bytes_only_still_fails(tmp_path: Path) -> None:
    own = metadata("demo", "1.0", "Requires-Dist: requests>=2")
    wheel = release(tmp_path, own.replace(b"\n", b"\r\n"))
    exit_code, report = audit_json(wheel)
    assert exit_code == 1 and "the bytes only" in findings(report, "A124")[0]["detail"]


def _pip_resolves(tmp_path: Path, wheel: Path, served: bytes) -> subprocess.CompletedProcess[str]:
    """pip, resolving `demo` from a local simple index that serves `served` as the wheel's
    PEP 658 metadata."""
    Path(f"{wheel}.metadata").write_bytes(served)
    index = tmp_path / "index" / "demo"
    index.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(served).hexdigest()
    wheel_digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (index / "index.html").write_text(
        f'<a href="{wheel.as_uri()}#sha256={wheel_digest}" '
        f'data-dist-info-metadata="sha256={digest}" '
        f'data-core-metadata="sha256={digest}">{wheel.name}</a>\n'
    )
    command = [
        sys.executable, "-m", "pip", "install", "--no-deps", "--quiet",
        "--disable-pip-version-check", "--no-cache-dir", "--target", str(tmp_path / "t"),
        "--index-url", (tmp_path / "index").as_uri(), "demo",
    ]  # fmt: skip
    env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_CONFIG_FILE": os.devnull}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_pip_refuses_what_a_contradicting_sidecar_serves(tmp_path: Path) -> None:
    wheel = release(tmp_path, None)
    own = metadata("demo", "1.0", "Requires-Dist: requests>=2")
    done = _pip_resolves(tmp_path / "good", wheel, own)
    assert done.returncode == 0, done.stdout + done.stderr
    assert audit_json(wheel.parent)[0] == 0
    done = _pip_resolves(tmp_path / "bad", wheel, metadata("demo", "9.9"))
    assert done.returncode != 0, done.stdout + done.stderr
    assert audit_json(wheel.parent)[0] == 1
