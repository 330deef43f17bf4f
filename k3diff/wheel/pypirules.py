"""Core metadata PyPI refuses on upload though `packaging.metadata` and `twine check` accept it:
the rules PyPI's upload layers on top of packaging's (warehouse's `forklift/metadata.py`,
`_validate_metadata`), those that need no library the project does not have (hunt79: each
passed `audit`, exit 0, and `twine check`):

* a `Requires-Dist` naming a URL (`foo @ https://…`): "Can't have direct dependency";
* a `Provides-Dist` or `Obsoletes-Dist` that is not a PEP 508 requirement, or names a URL;
* a `Summary` over 512 characters;
* a `Project-URL` with no label, a label over 32 characters, or no URL;
* a `License` beside a `License-Expression` (PEP 639 deprecates the first for the second;
  warehouse's current `_validate_metadata`; review79a: it passed, exit 0);
* a `Metadata-Version` PyPI does not take yet (`SUPPORTED_METADATA_VERSIONS`, 1.0 to 2.5):
  packaging 26 reads 2.6 and twine check passes it, but the upload is refused (hunt80: a 2.6
  wheel passed, exit 0);
* a `Dynamic` naming a field PyPI does not let be dynamic (`DYNAMIC_FIELDS`: packaging takes
  `Dynamic: Dynamic`, warehouse refuses it).

Not checked here: classifiers (PyPI checks them against `trove-classifiers`), author and
maintainer addresses (`email-validator`), whether a URL is well formed (warehouse's own URI
check), and local versions (`1.0+cpu`: PyPI refuses them, other indexes serve them)."""

from __future__ import annotations

from packaging.metadata import RawMetadata
from packaging.requirements import InvalidRequirement, Requirement

SUMMARY_LIMIT = 512
"""PyPI's longest `Summary`, in characters."""
LABEL_LIMIT = 32
"""PyPI's longest `Project-URL` label, in characters."""
PYPI_ONLY = "(PyPI refuses it on upload; twine check does not check it)"
"""Ends each message: the finding's own word on who refuses it."""
PYPI_METADATA_VERSIONS = frozenset({"1.0", "1.1", "1.2", "2.1", "2.2", "2.3", "2.4", "2.5"})
"""The Metadata-Versions PyPI takes (warehouse's `SUPPORTED_METADATA_VERSIONS`); packaging
reads 2.6 too, which PyPI does not take yet (`core_metadata_problems` says a version both
refuse once)."""


def pypi_problems(raw: RawMetadata) -> list[tuple[str, str]]:
    """(field, message) for each rule of PyPI's upload the metadata breaks, in warehouse's
    order of fields."""
    problems: list[tuple[str, str]] = []
    version = raw.get("metadata_version")
    if isinstance(version, str) and version not in PYPI_METADATA_VERSIONS:
        problems.append(("metadata-version", f"{version!r} is not a valid metadata version"))
    summary = raw.get("summary")
    if isinstance(summary, str) and len(summary) > SUMMARY_LIMIT:
        problems.append(("summary", f"'summary' field must be {SUMMARY_LIMIT} characters or less"))
    for label, url in (raw.get("project_urls") or {}).items():
        if not label:
            problems.append(("project-url", "Must have a label"))
        elif len(label) > LABEL_LIMIT:
            problems.append(("project-url", f"{label!r} must be {LABEL_LIMIT} characters or less"))
        elif not url:
            problems.append(("project-url", f"{label!r}: must have a URL"))
    named = (
        ("provides-dist", raw.get("provides_dist")),
        ("obsoletes-dist", raw.get("obsoletes_dist")),
    )
    for field, values in named:
        for text in values or []:
            problems += _direct(field, text, parsed_only=False)
    for text in raw.get("requires_dist") or []:
        if "@" in text:  # a URL requirement names one after `@` (packaging parsed the rest)
            problems += _direct("requires-dist", text, parsed_only=True)
    for key in raw.get("dynamic") or []:
        # packaging refuses any other field outside warehouse's DYNAMIC_FIELDS itself
        if key.lower() == "dynamic":
            problems.append(("dynamic", f"Dynamic field {key!r} is not a valid dynamic field"))
    if raw.get("license") and raw.get("license_expression"):
        problems.append(("license", "License is deprecated when License-Expression is present"))
    return [(field, f"{message} {PYPI_ONLY}") for field, message in problems]


def _direct(field: str, text: str, *, parsed_only: bool) -> list[tuple[str, str]]:
    """A requirement naming a URL; one that does not parse too unless `parsed_only` (packaging
    already refused it)."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        return [] if parsed_only else [(field, f"{text!r} is invalid: {exc}")]
    if requirement.url is not None:
        return [(field, f"Can't have direct dependency: {text!r}")]
    return []
