"""A triage document's corrected p-values recounted from its raw ones (`triagecheck`): triage
corrects three families across every record and mode (`triage.run._correct_families`), Fisher's
`p`, the novelty `novelty_p` and the distribution tests (each record's `distribution.p`, each
pooled test once, each first-token test), by the document's `correction` (Holm's step-down,
pure Python, or Benjamini-Hochberg, scipy's `false_discovery_control`). Each written
`p_adjusted` must be its family's correction of the raw p-values beside it, by the rule of
`correction.recount_disagreement` (a tolerance for another scipy's last digits, never across
α or α / 2); a record's `p_adjusted` and `novelty_p_adjusted` are its deciding mode's. The raw
p-values are taken as written: the samples behind them are in the logs, which only `report`
with the comparison and logs reads (running triage again)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.correction import recount_disagreement
from k3diff.documents.distribution import TokenMember
from k3diff.documents.triage import TriageDocument, TriageRecord
from k3diff.triage.sampledlevel import judged_at


@dataclass(frozen=True)
class _Member:
    """One test of a family as written."""

    where: str
    """The field's path (`records[2].modes[0].p_adjusted`)."""
    p: float
    """Its raw p."""
    p_adjusted: float | None
    """Its corrected p as written (None: the document wrote none)."""


def family_problems(view: TriageDocument) -> list[str]:
    """Every written corrected p that is not its family's correction of the raw ones."""
    holm = view.correction in (None, "holm")  # triage's default, and its only one before bh
    levels = (view.alpha, judged_at(view.alpha, True))
    fisher, novelty, problems = _mode_families(view.records)
    distribution, found = _distribution_family(view.records)
    problems += found + _deciding_problems(view.records)
    families = (
        ("Fisher", fisher, view.tests),
        ("novelty", novelty, view.novelty_tests),
        ("distribution", distribution, view.distribution_tests),
    )
    for name, members, stated in families:
        if stated is not None and stated != len(members):
            if name != "distribution":  # `triagesampled._family_problems` says why
                problems.append(
                    f"{'tests' if name == 'Fisher' else 'novelty_tests'} is {stated:,} but its "
                    f"records carry {len(members):,} {name} p-values"
                )
            continue
        problems += _corrected_problems(name, members, holm, levels)
    return problems


def _corrected_problems(
    name: str, members: Sequence[_Member], holm: bool, levels: tuple[float, ...]
) -> list[str]:
    from k3diff.triage.stats import corrected

    problems = []
    recounted = corrected([m.p for m in members], holm) if members else []
    how = "Holm's" if holm else "Benjamini-Hochberg's"
    for member, again in zip(members, recounted, strict=True):
        if member.p_adjusted is None:
            problems.append(f"{member.where} is null but its raw p {member.p!r} was tested")
            continue
        why = recount_disagreement(member.p_adjusted, again, levels)
        if why is not None:
            problems.append(
                f"{member.where} is {why}: {how} correction of the document's "
                f"{len(members):,} {name} p-values"
            )
    return problems


def _mode_families(
    records: Sequence[TriageRecord],
) -> tuple[list[_Member], list[_Member], list[str]]:
    """The Fisher and novelty families (a mode's raw p with its corrected one), and the modes
    with a corrected p but no raw one."""
    fisher: list[_Member] = []
    novelty: list[_Member] = []
    problems = []
    for index, record in enumerate(records):
        for number, mode in enumerate(record.modes):
            where = f"records[{index}].modes[{number}]"
            pairs = (
                (fisher, "p", mode.p, mode.p_adjusted),
                (novelty, "novelty_p", mode.novelty_p, mode.novelty_p_adjusted),
            )
            for family, field, raw, adjusted in pairs:
                if raw is not None:
                    family.append(_Member(f"{where}.{field}_adjusted", raw, adjusted))
                elif adjusted is not None:
                    problems.append(f"{where}.{field}_adjusted is {adjusted!r} but {field} null")
    return fisher, novelty, problems


def _distribution_family(records: Sequence[TriageRecord]) -> tuple[list[_Member], list[str]]:
    """Each record's test, each pooled test once (every record of the pool writes it alike),
    and each first-token test, in `triagesampled._family_problems`' count."""
    members: list[_Member] = []
    pooled: dict[tuple[str, str], _Member] = {}
    problems = []
    for index, record in enumerate(records):
        for number, mode in enumerate(record.modes):
            test = mode.distribution
            if test is None or test.p is None:
                continue
            where = f"records[{index}].modes[{number}].distribution"
            members.append(_Member(f"{where}.p_adjusted", test.p, test.p_adjusted))
            shared = []
            if test.pooled_p is not None:
                member = _Member(
                    f"{where}.pooled_p_adjusted", test.pooled_p, test.pooled_p_adjusted
                )
                shared.append(((test.test, mode.mode), member))
            for place, token in enumerate(test.token_members):
                member = _Member(
                    f"{where}.first_token.{_token_field(token.name, place, test.token_members)}",
                    token.p,
                    token.p_adjusted,
                )
                if token.name.startswith("pooled:"):
                    shared.append(((token.name, mode.mode), member))
                else:
                    members.append(member)
            for key, member in shared:
                first = pooled.setdefault(key, member)
                if (first.p, first.p_adjusted) != (member.p, member.p_adjusted):
                    problems.append(
                        f"{member.where} is {member.p_adjusted!r} of p {member.p!r}, but "
                        f"{first.where} of the same pooled test {first.p_adjusted!r} of "
                        f"{first.p!r}"
                    )
    return members + list(pooled.values()), problems


def _token_field(name: str, place: int, tokens: Sequence[TokenMember]) -> str:
    """`cross.p_adjusted`, `patch_own.p_adjusted` or `pooled[i].p_adjusted`."""
    if not name.startswith("pooled:"):
        return f"{name}.p_adjusted"
    own = sum(1 for t in tokens[:place] if not t.name.startswith("pooled:"))
    return f"pooled[{place - own}].p_adjusted"


FIELDS = ("p_adjusted", "novelty_p_adjusted")


def _deciding_problems(records: Sequence[TriageRecord]) -> list[str]:
    """A record's corrected p-values are its deciding mode's, as triage copies them (none
    without a deciding mode)."""
    problems = []
    for index, record in enumerate(records):
        mode = next((m for m in record.modes if m.mode == record.deciding_mode), None)
        stated = (record.p_adjusted, record.novelty_p_adjusted)
        copied = (None, None) if mode is None else (mode.p_adjusted, mode.novelty_p_adjusted)
        for field, mine, theirs in zip(FIELDS, stated, copied, strict=True):
            if mine != theirs:
                problems.append(
                    f"records[{index}].{field} is {mine!r} but its deciding mode's is {theirs!r}"
                )
    return problems
