"""Hooks of the project's own that a backend runs while it writes METADATA, and which may set
the version whatever the configuration states (`builtversion`).

Both were built for real (pip wheel --no-deps --no-build-isolation, hatchling 1.33.0,
pdm-backend 2.5.0) and wrote the hook's 2.4.0 over the configuration's 2.3.0 (review74g):

* hatchling runs each ``[tool.hatch.metadata.hooks.NAME]`` (hatch.toml's ``[metadata.hooks]``)
  once ``[project] dynamic`` lists any field (``hatchling.metadata.core``), and the hook may
  set ``version`` there even where ``[project]`` states it: the ``custom`` one is the project's
  ``hatch_build.py``, another a plugin's code. Plugins known to set no version are left read;
* pdm-backend imports ``pdm_build.py`` (``[tool.pdm.build] custom-hook``) wherever the project
  holds it, and its ``pdm_build_initialize`` may set ``context.config.metadata["version"]``,
  the ``[project] version`` stated included.
"""

from __future__ import annotations

from collections.abc import Mapping

from k3diff.escape import shortened
from k3diff.provenance.projectfiles import ProjectFiles
from k3diff.provenance.versionsources import Said

Document = Mapping[str, object]

_VERSIONLESS_HATCH_HOOKS = frozenset({"fancy-pypi-readme", "vcs", "requirements_txt"})
"""Metadata hook plugins that set other fields (the readme, the URLs, the dependencies)."""
_PDM_HOOK = "pdm_build.py"


def _table(value: object, *keys: str) -> Mapping[str, object]:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def hatch_hook(settings: Document, label: str, dynamic: object) -> Said | None:
    """Why hatchling's metadata hooks (`settings`: pyproject.toml with hatch.toml merged, as
    hatchling reads it) may set the version; None where none runs or each sets other fields."""
    hooks = _table(settings, "tool", "hatch", "metadata", "hooks")
    running = sorted(name for name in hooks if name not in _VERSIONLESS_HATCH_HOOKS)
    if not running or not isinstance(dynamic, list) or not dynamic:
        return None
    name = shortened(running[0], 80)
    return Said(f"{label} [tool.hatch.metadata.hooks.{name}] runs code that may set it")


def pdm_hook(files: ProjectFiles, document: Document) -> Said | None:
    """Why pdm-backend's custom hook (``pdm_build.py``) may set the version; None where the
    project holds none."""
    named = _table(document, "tool", "pdm", "build").get("custom-hook", _PDM_HOOK)
    path = files.path(named)
    if path is None:
        return Said(f"{files.directory}pyproject.toml [tool.pdm.build] custom-hook is not read")
    if path in files.tree or path in files.links:
        return Said(f"pdm-backend runs {path}, whose hooks may set it")
    return None
