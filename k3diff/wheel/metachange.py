"""One field of a wheel's identity (name, version, tags, Requires-Dist, Requires-Python) that
differs between the base and the patch. Apart from `k3diff.wheel.metadata`, which every run
imports, as only a pair whose identities differ builds one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetadataChange:
    """One identity field that differs between base and patch."""

    field: str
    """name, version, tags, requires_dist or requires_python."""
    base: str
    """Base value, rendered as text."""
    patch: str
    """Patch value, rendered as text."""
    added: tuple[str, ...] | None = None
    """For list fields (tags, requires_dist): the items only in the patch; None otherwise."""
    removed: tuple[str, ...] | None = None
    """For list fields (tags, requires_dist): the items only in the base; None otherwise."""

    def summary(self) -> str:
        """One line: a +/- set diff for list fields, `base -> patch` otherwise."""
        if self.added is None or self.removed is None:
            return f"{self.field}: {self.base} -> {self.patch}"
        items = [f"-{item}" for item in self.removed] + [f"+{item}" for item in self.added]
        return f"{self.field}: {', '.join(items) if items else 'reordered'}"
