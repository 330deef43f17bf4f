"""A/A runs of the whole triage decision at temperature 1 (stats76): per answer shape
(tests/triage/aa.py) and samples a side, RUNS seeded runs of one record whose base and patch
draw from one distribution, each through `run.triage` on real files. Prints, per point, the
regression rate (any family: distribution, novelty, Fisher) with its two-sided 90 % Clopper–
Pearson interval (its lower end the one-sided 95 % bound), each family's rejections, the
`no-power` hold rate, and triage's median time a run.

    PYTHONPATH=$PWD .venv/bin/python scripts/aa_triage.py [--runs 100] [--sizes 12,20,40]
        [--shapes three,thirty,long-tailed,every-new] [--alpha 0.05]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402
from triage.aa import SHAPES, Outcome, aa_outcome, shifted  # noqa: E402

NEW_ANSWER = "The answer is four."
"""The power runs' new answer: a rewording of the three answers' most common one."""


def _interval(hits: int, runs: int) -> str:
    ci = stats.binomtest(hits, runs).proportion_ci(0.90)
    return f"{hits}/{runs} = {hits / runs:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def point(shape: str, size: int, runs: int, alpha: float, share: float = 0.0) -> list[Outcome]:
    """`runs` triages of `shape` at `size` a side (seeded by the shape and size): A/A, or with
    `share` > 0 the patch's answers moved to `NEW_ANSWER` with that chance (a power run)."""
    rng = np.random.default_rng([sorted(SHAPES).index(shape), size])
    draw = SHAPES[shape]
    patch = shifted(draw, share, NEW_ANSWER) if share else draw
    return [aa_outcome(draw(rng, size), patch(rng, size), alpha) for _ in range(runs)]


def rejections(outcomes: list[Outcome], alpha: float) -> dict[str, int]:
    """Runs a rule makes a regression candidate: `union` each family at α (before aa77),
    `holm` Holm at α over the families that could make the mode one, `distribution` the
    distribution test alone at α (aa77)."""

    def holm(ps: list[float]) -> bool:
        return bool(ps) and sorted(ps)[0] <= alpha / len(ps)

    return {
        "union": sum(any(p <= alpha for _, p in o.eligible) for o in outcomes),
        "holm": sum(holm([p for _, p in o.eligible]) for o in outcomes),
        "halves": sum(
            any(name != "fisher" and p <= alpha / 2 for name, p in o.eligible) for o in outcomes
        ),
        "distribution": sum(
            any(name == "distribution" and p <= alpha for name, p in o.eligible) for o in outcomes
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--sizes", default="12,20,40")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--share", type=float, default=0.0, help="power runs: the moved share")
    args = parser.parse_args()
    for shape in args.shapes.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            outcomes = point(shape, size, args.runs, args.alpha, args.share)
            print(f"{shape} n={size} share={args.share}: rules {rejections(outcomes, args.alpha)}")
            families = {
                name: sum(name in o.families for o in outcomes)
                for name in ("distribution", "novelty", "fisher")
            }
            print(
                f"{shape} n={size}: regression {_interval(sum(o.regression for o in outcomes), args.runs)}"
                f"; by family {families}; no-power {_interval(sum(o.no_power for o in outcomes), args.runs)}"
                f"; median {statistics.median(o.seconds for o in outcomes):.2f} s a run",
                flush=True,
            )


if __name__ == "__main__":
    main()
