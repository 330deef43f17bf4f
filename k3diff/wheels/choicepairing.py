"""The last pairing pass of a release set: among the wheels left unpaired, a base wheel and a
patch wheel that pip installs in each other's place, and only there, are a pair.

Tags and platform families pair a wheel whose tag set a release kept or whose system baseline
it raised; a release that changed a wheel's tag in place (orjson 3.10.12's
`cp312-none-win_amd64` became 3.10.13's `cp312-cp312-win_amd64`) left both unpaired, and
`--allow-unpaired` refused them, since pip installs the one where the other release installs
the other (newuser76: compare that pair alone). Pip's choice, read from the filenames on each
interpreter they tell apart (`competing.each_choice`), settles it: where, on every interpreter
where pip installs the base wheel and the patch release installs anything, it installs that
one patch wheel, and the patch wheel likewise faces only that base wheel, the two are what
one machine moves between, so they are compared as a pair (its tag change shown in the pair's
metadata, W630 where it installs on fewer systems), and the set's claim "every wheel pip
installs was compared with what it replaces" holds for them. A wheel facing two wheels, or a
paired one, stays unpaired (and the choice check refuses it, as before). Requires-Python is not
read here (no wheel is read before pairing): the choice check, run once the pairs are compared,
weighs it. Projects past the run's cap are left as they are (the choice check refuses them).
"""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.wheels.choicememo import ChoiceMemo
from k3diff.wheels.competing import MAX_CHECKS, Plan, each_choice, plan_project
from k3diff.wheels.pipchoice import Candidate, wheel_candidate
from k3diff.wheels.setpairing import Pairing, SetWheel


def pair_by_choice(pairing: Pairing, memo: ChoiceMemo | None = None) -> Pairing:
    """`pairing` with each base and patch wheel left unpaired that pip installs in each
    other's place, and only there, paired (`memo`: the run's, `choicememo`)."""
    memo = memo or ChoiceMemo()
    both = {w.key_name for w in pairing.only_base} & {w.key_name for w in pairing.only_patch}
    if not both:
        return pairing
    sides = (
        (*(base for base, _ in pairing.pairs), *pairing.only_base),
        (*(patch for _, patch in pairing.pairs), *pairing.only_patch),
    )
    projects: dict[str, list[Candidate]] = {}
    for side, wheels in enumerate(sides):
        for wheel in wheels:
            if wheel.key_name in both and (found := wheel_candidate(wheel, side)) is not None:
                projects.setdefault(wheel.key_name, []).append(found)
    unpaired = {id(w): w for w in (*pairing.only_base, *pairing.only_patch)}
    added: list[tuple[SetWheel, SetWheel]] = []
    total = 0
    for name, candidates in sorted(projects.items()):
        plan = plan_project(name, candidates, MAX_CHECKS - total, memo)
        total += plan.work
        if total > MAX_CHECKS:
            break
        added += _in_each_others_place(plan, unpaired, memo)
    if not added:
        return pairing
    paired = {id(wheel) for pair in added for wheel in pair}
    return Pairing(
        pairs=tuple(sorted((*pairing.pairs, *added), key=lambda pair: pair[0].path.name)),
        only_base=tuple(w for w in pairing.only_base if id(w) not in paired),
        only_patch=tuple(w for w in pairing.only_patch if id(w) not in paired),
    )


def _in_each_others_place(
    plan: Plan, unpaired: dict[int, SetWheel], memo: ChoiceMemo
) -> list[tuple[SetWheel, SetWheel]]:
    """The unpaired base and patch wheels of the project that face each other alone wherever
    pip installs either and the other release installs anything."""
    facing: dict[int, set[int]] = {}
    for _where, (base, patch) in each_choice(plan, memo):
        if base and patch:
            _face(facing, base, patch)
            _face(facing, patch, base)
    pairs: list[tuple[SetWheel, SetWheel]] = []
    for candidate in plan.candidates:
        wheel = candidate.wheel
        if candidate.side != 0 or wheel is None or id(wheel) not in unpaired:
            continue
        faced = facing.get(id(wheel), set())
        other = next(iter(faced)) if len(faced) == 1 else None
        if other in unpaired and facing.get(other) == {id(wheel)}:
            pairs.append((wheel, unpaired[other]))
    return pairs


def _face(
    facing: dict[int, set[int]], mine: Sequence[Candidate], others: Sequence[Candidate]
) -> None:
    for candidate in mine:
        facing.setdefault(id(candidate.wheel), set()).update(id(o.wheel) for o in others)
