"""The triage schema says what the MMD test's kernel is: cleanup75, it still said three
Hamming kernels, the kernel before kernel73 (3-gram counts) and mmd74 (the whole text, hashed
by SplitMix64)."""

from __future__ import annotations

from typing import Any

from k3diff.documents.catalog import load_schema
from k3diff.triage import kernel


def _distribution(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of a record mode's `distribution` object."""
    found: list[dict[str, Any]] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "distribution" in node.get("properties", {}):
                found.append(node["properties"]["distribution"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    (distribution,) = [d for d in found if "kernel" in d.get("properties", {})]
    return distribution


def test_the_schema_describes_the_kernel_the_code_uses() -> None:
    distribution = _distribution(load_schema("triage"))
    said = distribution["description"]

    assert f"first {kernel.EDGE}, the last {kernel.EDGE} and the first {kernel.CAP:,}" in said
    assert f"{kernel.GRAM}-gram counts of the whole text" in said
    assert f"{kernel.BUCKETS:,} buckets by the SplitMix64 finalizer" in said
    assert kernel.DESCRIPTION in distribution["properties"]["kernel"]["description"]
