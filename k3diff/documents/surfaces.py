"""JSON forms of execution surfaces (`execution_surfaces` in `k3diff.wheels/1` and in each
artifact of `k3diff.audit/2`) and of SBOMs (`sboms` in `k3diff.wheels/1`), one named function
per form."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Types only: `audit --format json` writes surfaces without loading the comparison's models
# (`wheels.model` pulls in the proofs, `textdiff` and `difflib`).
if TYPE_CHECKING:
    from k3diff.wheel.sbomdoc import Sbom, SbomReport
    from k3diff.wheel.surfacekinds import Surface
    from k3diff.wheels.surfaces import SurfaceChange, SurfaceReport

__all__ = ["sboms_json", "surface_json", "surfaces_json"]


def surface_json(value: Surface) -> dict[str, Any]:
    """JSON-ready form; `content`, `lines`, `bytecode`, `native`, `group` and `value` only when
    known, and a timestamp pyc's header mtime and source size (`stamp`, `stamped_size`)."""
    data: dict[str, Any] = {
        "kind": value.kind.value,
        "key": value.key,
        "entry": value.entry,
        "summary": value.summary,
        "executable": value.executable,
    }
    if value.content is not None:
        data["content"] = value.content
        data["truncated"] = value.truncated
    if value.lines:
        data["lines"] = [
            {"text": line.text, "kind": "executable" if line.executable else "path"}
            | ({"runs_on": line.runs_on.value} if line.runs_on is not None else {})
            for line in value.lines
        ]
    if value.bytecode is not None:
        data["bytecode"] = {
            "magic": value.bytecode.magic,
            "flavor": value.bytecode.flavor.value,
            "source": value.bytecode.source,
            "shadows_source": value.bytecode.shadows_source,
        }
        if value.bytecode.stamp is not None:  # a timestamp pyc: its header's mtime and size
            data["bytecode"] |= {
                "stamp": value.bytecode.stamp,
                "stamped_size": value.bytecode.stamped_size,
            }
    if value.native is not None:
        data["native"] = value.native
    if value.group is not None:
        data["group"] = value.group
        data["value"] = value.value
    return data


def _surface_change_json(value: SurfaceChange) -> dict[str, Any]:
    """JSON-ready form: the key, kind, status and both sides' summaries."""
    return {
        "key": value.key,
        "kind": value.kind.value,
        "status": value.status.value,
        "base": value.base.summary if value.base is not None else None,
        "patch": value.patch.summary if value.patch is not None else None,
    }


def surfaces_json(value: SurfaceReport) -> dict[str, Any]:
    """`execution_surfaces` of a wheels document: each side's surfaces and the changes."""
    return {
        "base": [surface_json(surface) for surface in value.base],
        "patch": [surface_json(surface) for surface in value.patch],
        "changes": [_surface_change_json(change) for change in value.changes],
    }


def _sbom_json(value: Sbom) -> dict[str, Any]:
    """JSON-ready form of one SBOM document."""
    return {
        "entry": value.entry,
        "format": value.format,
        "components": [
            {"name": c.name, "version": c.version, "purl": c.purl} for c in value.components
        ],
        "error": value.error,
    }


def sboms_json(value: SbomReport) -> dict[str, Any]:
    """`sboms` of a wheels document: each side's documents and the component changes."""
    return {
        "base": [_sbom_json(sbom) for sbom in value.base],
        "patch": [_sbom_json(sbom) for sbom in value.patch],
        "changes": [
            {"name": c.name, "change": c.change, "base": c.base, "patch": c.patch}
            for c in value.changes
        ],
    }
