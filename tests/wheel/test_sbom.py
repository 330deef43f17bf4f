"""PEP 770 SBOMs (`.dist-info/sboms/`): CycloneDX and SPDX JSON components diffed base -> patch."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from wheel.test_installed_view import BASE_FILES, codes, wheels_json
from wheel.tricks import build


def cyclonedx(*components: tuple[str, str]) -> bytes:
    return json.dumps(
        {
            "bomFormat": "CycloneDX",
            "specVersion": "1.6",
            "components": [
                {"type": "library", "name": n, "version": v, "purl": f"pkg:generic/{n}@{v}"}
                for n, v in components
            ],
        }
    ).encode()


def spdx(*packages: tuple[str, str]) -> bytes:
    return json.dumps(
        {
            "spdxVersion": "SPDX-2.3",
            "packages": [
                {"name": n, "versionInfo": v, "SPDXID": f"SPDXRef-{n}"} for n, v in packages
            ],
        }
    ).encode()


def test_component_changes_are_listed_and_informational(tmp_path: Path) -> None:
    base = build(
        tmp_path / "b",
        "1.0",
        {
            **BASE_FILES,
            "demo-1.0.dist-info/sboms/bom.cdx.json": cyclonedx(
                ("openssl", "3.4.0"), ("zlib", "1.3")
            ),
        },
    )
    patch = build(
        tmp_path / "p",
        "2.0",
        {
            **BASE_FILES,
            "demo-2.0.dist-info/sboms/bom.cdx.json": cyclonedx(
                ("openssl", "3.4.1"), ("curl", "8.9.0")
            ),
            "demo-2.0.dist-info/sboms/extra.spdx.json": spdx(("libffi", "3.4.6")),
        },
    )
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0, report["findings"]
    changes = {(c["name"], c["change"], c["base"], c["patch"]) for c in report["sboms"]["changes"]}
    assert changes == {
        ("curl", "added", None, "8.9.0"),
        ("libffi", "added", None, "3.4.6"),
        ("openssl", "changed", "3.4.0", "3.4.1"),
        ("zlib", "removed", "1.3", None),
    }
    assert "W714" in codes(report)
    text = run_k3diff("wheels", base, patch).stdout
    assert "component changed: openssl 3.4.0 -> 3.4.1" in text
    assert "component added: curl 8.9.0" in text


def test_an_unreadable_sbom_is_said_not_guessed(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    deep = b"[" * 100_000 + b"]" * 100_000
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo-2.0.dist-info/sboms/x.json": deep})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0
    assert report["sboms"]["patch"][0]["error"].startswith("unreadable")
    assert "W715" in codes(report)
