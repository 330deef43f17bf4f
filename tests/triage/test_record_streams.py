"""A record's distribution and first-token p-values are its own samples' alone (stats64b):
each record's permutations and null draws come from a stream seeded by (the run's seed, the
record's key, the mode, the test), so neither the other records nor their order move them.
Until stats64b one stream per mode was shared by the records in order: three identical records
read p = 0.6405, 0.628 and 0.6225.

The number of draws B is the family's (`distribution.permutations_for`: the least p a twentieth
of α over the family's tests, at least 1,999); these runs are at `--alpha 0.5`, where three and
four records' families (15 and 19 tests with the first-token tests) both draw 1,999, so an extra
record changes nothing of another's test. A family that needs more draws gives each record more
of its own stream, its first 1,999 the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from cli_support import run_k3diff

from triage.firsttokens import BASE, SHARPER, Texts, draw, write_texts

PARAMS = {"temperature": 1, "logprobs": 5}
KEYS = ("p1", "p2", "p3")
ALPHA = ("--alpha", "0.5")


def _texts(keys: tuple[str, ...]) -> Texts:
    """12 sampled answers a side per key (and the captured one), each key's drawn from its own
    seed, so a key's texts are the same whichever keys come with it; the patch samples the
    sharper first-token distribution."""
    texts: Texts = {}
    letters = list("abcdefghijklmnop")
    for key in keys:
        rng = np.random.default_rng(100 + int(key[1:]))
        for side, dist in (("base", BASE), ("patch", SHARPER)):
            firsts = draw(rng, dist, 13)
            texts[(key, side)] = [f"{t} end {''.join(rng.choice(letters, 8))}" for t in firsts]
    return texts


def _ps(
    tmp_path: Path, keys: tuple[str, ...], texts: Texts | None = None
) -> dict[str, dict[str, Any]]:
    """Per record, its distribution test's p and its first-token tests' p-values."""
    cmp, log = write_texts(tmp_path, _texts(keys) if texts is None else texts, keys, PARAMS)
    result = run_k3diff("triage", str(cmp), str(log), *ALPHA, "--format", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    found = {}
    for record in json.loads(result.stdout)["records"]:
        (mode,) = record["modes"]
        test = mode["distribution"]
        first = test["first_token"]
        found[record["key"]] = {
            "test": test["test"],
            "p": test["p"],
            **{name: first[name]["p"] for name in ("base_own", "cross", "patch_own")},
        }
    return found


def test_a_records_p_values_do_not_depend_on_the_other_records(tmp_path: Path) -> None:
    in_order = _ps(tmp_path / "in-order", KEYS)
    reversed_ = _ps(tmp_path / "reversed", KEYS[::-1])
    extra = _ps(tmp_path / "extra", ("p4", *KEYS))
    assert {record["test"] for record in in_order.values()} == {"mmd"}
    for key in KEYS:
        assert reversed_[key] == in_order[key], key
        assert extra[key] == in_order[key], key


def test_identical_records_each_read_the_p_they_read_alone(tmp_path: Path) -> None:
    """Three records of the same samples (the review's case): each reads the p its key reads in
    a run of its own. (Under another key the same samples draw other permutations: the stream
    is the record's, so identical records need not read one p.)"""
    texts = _texts(("p1",))
    same = {(key, side): texts[("p1", side)] for key in KEYS for side in ("base", "patch")}
    together = _ps(tmp_path / "together", KEYS, same)
    for key in KEYS:
        alone = {(key, side): texts[("p1", side)] for side in ("base", "patch")}
        assert _ps(tmp_path / key, (key,), alone)[key] == together[key], key
