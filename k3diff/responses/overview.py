"""`ResponsesOverview`: everything `k3diff responses` found except the per-record diffs, and
the verdict it implies."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.exitcodes import ExitCode
from k3diff.responses.beams import BeamNote
from k3diff.responses.model import Normalization
from k3diff.responses.pairing import KeyMode, describe
from k3diff.responses.results import Status
from k3diff.responses.sampled import SampledNote
from k3diff.responses.scoregate import GATE, ScoreGate
from k3diff.responses.scores import NoiseBand
from k3diff.responses.summary import SideInfo, Summary


@dataclass(frozen=True)
class ResponsesOverview:
    """Everything `k3diff responses` found except the per-record diffs."""

    base: SideInfo
    """The base file."""
    patch: SideInfo
    """The patch file."""
    key_mode: KeyMode
    """How records were paired."""
    key_field: str | None
    """The field paired by: the `--key` field, or the client key field the default rule chose."""
    key_explicit: bool
    """The key was asked for (`--key`, `--by-order`), not chosen by the default rule."""
    normalize: tuple[Normalization, ...]
    """Normalisations applied to texts before comparing."""
    include_volatile: bool
    """Whether ids, timestamps and fingerprints were compared."""
    summary: Summary
    """Counts."""
    logprob_tol: float
    """`--logprob-tol` in force."""
    near_tie: float
    """`--near-tie` in force."""
    ignore_fields: tuple[str, ...] = ()
    """`--ignore-field` paths left out of the compared fields."""
    noise: NoiseBand | None = None
    """`--base-rerun`: the same statistics between two runs of the base."""
    unshared_field: str | None = None
    """A client key field every record of both sides carries, passed over by the default rule
    because no value of it appears on both sides (`pairing.unshared_field` in the JSON
    document; added within `k3diff.responses/1`)."""

    score_gate: ScoreGate | None = None
    """`--fail-on score-drop`: each metric's decision; text differences then do not fail the
    run by themselves (`fail_on` and `score_gate` in the JSON document)."""
    beams: BeamNote | None = None
    """Records that held beams `--beam` did not read (TensorRT-LLM), None when none did
    (`beams` in the JSON document, written only then; added within `k3diff.responses/1`)."""
    sampled: SampledNote | None = None
    """Paired records whose requests sampled (`k3diff.responses.sampled`), None when none did
    (`sampled` in the JSON document, written only then; added within `k3diff.responses/1`)."""
    rerun: Mapping[str, Any] | None = None
    """The settings it ran with (`k3diff.responses.rerunsettings`): the JSON document's `rerun`,
    what `report` runs `responses` again with on the inputs (forge61b)."""

    @property
    def fail_on(self) -> tuple[str, ...]:
        """The `--fail-on` gates in force."""
        return () if self.score_gate is None else (GATE,)

    @property
    def unshared_note(self) -> str:
        """ "both sides carry 'key', but no value of it appears on both sides", or ''."""
        if self.unshared_field is None:
            return ""
        return f"both sides carry {self.unshared_field!r}, but no value of it appears on both sides"

    @property
    def pairing_label(self) -> str:
        """The pairing key as a report names it: `custom_id`, `--key meta.qid`, `prompt-hash`."""
        return describe(self.key_mode, self.key_field, self.key_explicit)

    @property
    def differs(self) -> bool:
        """Any paired record differs."""
        return self.summary.differing > 0

    @property
    def failures(self) -> tuple[str, ...]:
        """Why the comparison fails (exit 1), one short reason each; empty when it passes.

        Nothing paired always fails: no record was compared, whatever `--allow-unpaired` says.
        """
        s = self.summary
        reasons = []
        if s.nothing_paired:
            reasons.append(
                f"nothing paired: no record of the {s.only_base} in base and {s.only_patch} in "
                f"patch has a counterpart (by {self.pairing_label})"
                + (f"; {self.unshared_note}" if self.unshared_field else "")
            )
        elif s.unpaired and not s.unpaired_allowed:
            reasons.append(f"{s.unpaired} unpaired (only on one side)")
        if s.not_comparable:
            reasons.append(
                f"{s.not_comparable} not comparable (their prompts or eval inputs differ)"
            )
        if self.score_gate is not None:
            # The gate decides on the scores; failed requests still fail (no score stands in).
            if s.errors:
                reasons.append(f"{s.errors} of {s.paired} paired hold a failed request")
            reasons.extend(finding.detail for finding in self.score_gate.findings)
            return tuple(reasons)
        if s.scores is not None:
            from k3diff.responses.scores import sentence

            reasons.extend(
                sentence(test, s.scores.alpha, s.scores.power) for test in s.scores.failing
            )
        if s.differing:
            reasons.append(f"{s.differing} of {s.paired} paired differ")
            if s.by_status.get(Status.LOGPROBS_DIFFER.value):
                reasons.append(
                    f"{s.by_status[Status.LOGPROBS_DIFFER.value]} with logprobs beyond "
                    f"--logprob-tol {self.logprob_tol:g}"
                )
        return tuple(reasons)

    @property
    def exit_code(self) -> ExitCode:
        """FINDINGS when any failure reason holds, else OK."""
        return ExitCode.FINDINGS if self.failures else ExitCode.OK
