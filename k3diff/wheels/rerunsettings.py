"""The settings `k3diff wheels` ran with, as the document's `rerun` object, and back: what
`report` runs `wheels` again with on the two wheels a document names by SHA-256
(`k3diff.bundle.wheelsrederive`, forge62). Every setting that changes the document's content is
written: the policy (`--allow-native-changes`, `--allow-bytecode`, `--select`, `--ignore`), the
waivers applied (each parsed entry, and the day their expiry was judged on), the protected
commands (the exact set used, the default one spelt out), `--explain`, `--file-hash`, and for
`--source` the prefix as given, `--source-all` and the commit(s) compared, as full ids (a
revision such as HEAD moves; the commit it named does not)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: writing the object loads neither waivers nor git
    from k3diff.provenance.check import ProvenanceReport
    from k3diff.wheel.policy import Policy
    from k3diff.wheel.waivers import WaiverSet
    from k3diff.wheels.sources import SourceSpec


def rerun_settings(
    policy: Policy,
    *,
    protected: frozenset[str] | None,
    explain: bool,
    file_hash: bool,
    spec: SourceSpec | None,
    provenance: ProvenanceReport | None,
) -> dict[str, Any]:
    """The document's `rerun` object for a run with these options (`WheelOptions`; its source
    check: `provenance`). Read back by `rerunoptions.rerun_options`."""
    from k3diff.wheels.surfaces import COMMON_COMMANDS

    return {
        "allow_native_changes": policy.allow_native_changes,
        "allow_bytecode": policy.allow_bytecode,
        "select": None if policy.select is None else sorted(c.name for c in policy.select),
        "ignore": sorted(c.name for c in policy.ignore),
        "protected_commands": sorted(COMMON_COMMANDS if protected is None else protected),
        "explain": explain,
        "file_hash": file_hash,
        "waivers": None if policy.waivers is None else _waivers_json(policy.waivers),
        "source": None
        if spec is None or provenance is None
        else {
            "prefix": spec.prefix,
            "source_all": spec.check_all,
            "commit": provenance.commit,
            "old_commit": provenance.old_commit,
        },
    }


def _waivers_json(waivers: WaiverSet) -> dict[str, Any]:
    return {
        "file": waivers.source,
        "judged_on": waivers.today.isoformat(),
        "entries": [
            {
                "number": w.number,
                "code": w.code.name,
                "path": w.path,
                "reason": w.reason,
                "expires": None if w.expires is None else w.expires.isoformat(),
                "artifact": w.artifact,
                "literal": w.literal,
            }
            for w in waivers.waivers
        ],
    }
