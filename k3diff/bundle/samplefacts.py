"""The sampling row, from a `k3diff.samples/1` log: what it holds, what it says on its own when
no triage read it, and which of its samples the comparison beside it has no record for.

The bundle says what it read: samples of keys that match no record of the comparison are named
and left out of the counts; samples no triage document classified are stated as "samples given,
not triaged" with the distinct outputs each side gave and the qualification those imply.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from k3diff import escape
from k3diff.bundle.model import Evidence, Stage, Status
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.triage import TriageDocument
from k3diff.output import plural
from k3diff.responses.document import ResponsesDocument
from k3diff.sample.lines import SampleLine
from k3diff.sample.names import SIDES, Mode
from k3diff.triage.nextstep import STOP_SHOWN
from k3diff.triage.stats import Deviations, nonmodal_upper_bound

ALPHA = 0.05
"""Significance of the bound stated for a stable side of an untriaged log (triage's default)."""
KEYS_NAMED = 5
"""Keys named in a sentence; the rest are counted."""


def _named(keys: Sequence[str]) -> str:
    shown = ", ".join(keys[:KEYS_NAMED])
    return shown + (f" and {len(keys) - KEYS_NAMED:,} more" if len(keys) > KEYS_NAMED else "")


def _triage_says(documents: Sequence[Document], note: str) -> bool:
    """A triage document given states whether the log's base and patch were checked as one
    server (`RunHeader.identity_note`: what it says after the log's path)."""
    said = note.split(" was not checked by ", 1)[1]
    return any(
        said in q
        for d in documents
        if d.kind is Kind.TRIAGE
        for q in d.typed(TriageDocument).qualifications
    )


def _comparison_keys(documents: Sequence[Document]) -> tuple[list[str], set[str]] | None:
    comparisons = [d for d in documents if d.kind is Kind.RESPONSES]
    if not comparisons:
        return None
    keys = {key for d in comparisons for key in d.typed(ResponsesDocument).keys}
    return [d.name for d in comparisons], keys


def samples_stage(doc: Document, documents: Sequence[Document]) -> Stage:
    """What a samples log holds, with the keys no comparison record matches named."""
    assert doc.log is not None
    samples = list(doc.log.samples)
    quals: list[str] = []
    stray_note = ""
    compared = _comparison_keys(documents)
    if compared is not None:
        names, known = compared
        stray = [s for s in samples if s.key not in known]
        if stray:
            keys = sorted({s.key for s in stray})
            samples = [s for s in samples if s.key in known]
            stray_note = (
                f"; {plural(len(stray), 'sample')} of {plural(len(keys), 'key')} that match no "
                f"record of {', '.join(names)} not counted: {_named(keys)}"
            )
            quals.append(
                f"{doc.name}: {plural(len(stray), 'sample')} have keys that match no record of "
                f"{', '.join(names)} ({_named(keys)}): they are not evidence about the compared "
                "records and were not counted"
            )
    sides = Counter(s.side for s in samples)
    failed = sum(1 for s in samples if s.error is not None)
    records = len({s.key for s in samples})
    modes = sorted({s.mode for s in samples}) or list(doc.log.header.modes or ())
    headline = (
        f"{plural(len(samples), 'sample')} of {plural(records, 'record')} "
        f"({', '.join(modes) or 'no mode'}): base {sides.get('base', 0):,}, "
        f"patch {sides.get('patch', 0):,}; {failed:,} failed{stray_note}"
    )
    if failed:
        quals.append(f"{failed:,} failed samples reduce the sample counts the bounds rest on")
    stop = doc.log.stop
    if stop is not None:  # newuser65: a run stopped by Ctrl-C or a 404 read as one taken whole
        headline += f"; the run stopped part-way ({escape.text(stop.reason)})"
        message = escape.text(stop.message)
        if len(message) > STOP_SHOWN:
            message = message[: STOP_SHOWN - 1] + "…"
        quals.append(
            f"{doc.name}: the run stopped part-way at {escape.text(stop.stopped)} "
            f"({escape.text(stop.reason)}: {message}): it holds the samples taken before, not "
            "every sample it planned"
        )
    # Said of the log as taken: samples left uncounted (stray keys) are named above.
    if not any(s.side == "patch" for s in doc.log.samples):
        quals.append("only the base was sampled: the patch's own stability is not measured")
    if samples and not any(s.mode == Mode.CONTROL for s in doc.log.samples):
        quals.append(
            f"{doc.name}: no control was run (k3diff sample --control seeds): outputs that "
            "agree cannot be told from a cache or proxy that ignores the sampling parameters"
        )
    triaged = any(d.kind is Kind.TRIAGE for d in documents)
    same_server = doc.log.header.same_server_note(doc.name)
    if same_server is not None and not triaged:  # a triage document states it already
        quals.append(same_server)
    unchecked = doc.log.header.identity_note(doc.name)
    if unchecked is not None and not _triage_says(documents, unchecked):
        quals.append(unchecked)  # a triage document written before samples73 lacks NO_CHECK
    if not triaged and samples:
        sentence, implied = _untriaged(doc.name, samples)
        headline += f"; {sentence}"
        quals.extend(implied)
    counts = {
        "samples": len(samples),
        "records": records,
        "failed": failed,
        **dict(sides),
        "run_id": doc.log.header.run_id,
    }
    return Stage(Evidence.SAMPLING, doc.name, Status.INFO, headline, tuple(quals), counts)


def _distinct(samples: Sequence[SampleLine]) -> dict[str, dict[str, tuple[int, int]]]:
    """side -> key -> (most distinct outputs in one mode, fewest successful samples in one mode)."""
    outputs: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    taken: Counter[tuple[str, str, str]] = Counter()
    for sample in samples:
        if sample.text_xxh3 is not None:
            outputs[(sample.side, sample.key, sample.mode)].add(sample.text_xxh3)
            taken[(sample.side, sample.key, sample.mode)] += 1
    found: dict[str, dict[str, tuple[int, int]]] = {side: {} for side in SIDES}
    for (side, key, mode), texts in outputs.items():
        n = taken[(side, key, mode)]
        most, fewest = found[side].get(key, (0, n))
        found[side][key] = (max(most, len(texts)), min(fewest, n))
    return found


def _untriaged(name: str, samples: Sequence[SampleLine]) -> tuple[str, list[str]]:
    """ "samples given, not triaged: ..." and the qualifications the distinct counts imply."""
    found = _distinct(samples)
    parts, quals = [], []
    for side in SIDES:
        keys = found[side]
        if not keys:
            continue
        varied = sorted(key for key, (most, _) in keys.items() if most >= 2)
        parts.append(f"{side} gave 2 or more distinct outputs on {len(varied):,} of {len(keys):,}")
        if varied:
            quals.append(
                f"samples given, not triaged: the {side} gave 2 or more distinct outputs for "
                f"identical requests on {plural(len(varied), 'record')} ({_named(varied)}); "
                f"differences there may be the {side}'s own nondeterminism, which only "
                f"`k3diff triage` decides (run it on the comparison and {name})"
            )
        else:
            fewest = min(n for _, n in keys.values())
            bound = nonmodal_upper_bound(Deviations.of(fewest, fewest), ALPHA)
            quals.append(
                f"samples given, not triaged: the {side} was stable on every sampled record, "
                f"but {fewest:,} samples bound its non-modal mass only by {bound:.2f} at "
                f"α = {ALPHA:g}"
            )
    return "samples given, not triaged: " + "; ".join(parts), quals
