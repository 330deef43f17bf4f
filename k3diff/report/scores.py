"""The paired eval-score tests of a responses comparison, as text and Markdown: one row per
metric and filter, the base rerun's noise band beside it when `--base-rerun` was given."""

from __future__ import annotations

from collections import Counter

from k3diff import escape
from k3diff.report.markdown import cell
from k3diff.responses.gatedecision import MetricDecision, decision_sentence
from k3diff.responses.gatepower import amount
from k3diff.responses.overview import ResponsesOverview
from k3diff.responses.scoregate import GATE, ScoreGate
from k3diff.responses.scores import (
    ScoreKind,
    ScoresReport,
    ScoreTest,
    mde_text,
    p_text,
    sentence,
    unit,
)

_HEADERS = ["metric", "test", "n", "base", "patch", "lost", "gained", "p", "p (Holm)", "verdict"]
_NOISE_HEADERS = ["rerun lost", "rerun gained", "rerun p (Holm)"]


def _mean(test: ScoreTest, value: float) -> str:
    return f"{100 * value:.1f}%" if test.kind is ScoreKind.BINARY else f"{value:.4g}"


def _verdict(test: ScoreTest) -> str:
    if test.significant:
        return test.direction.value
    return "no change" if test.mde is None else f"no change (detectable: {mde_text(test)})"


def _row(test: ScoreTest, noise: dict[tuple[str, str | None], ScoreTest]) -> list[str]:
    row = [
        test.label,
        "McNemar" if test.kind is ScoreKind.BINARY else "Wilcoxon",
        str(test.n) if test.records is None else f"{test.n} {unit(test, test.n)}",  # epochs
        _mean(test, test.base_mean),
        _mean(test, test.patch_mean),
        str(test.lost),
        str(test.gained),
        p_text(test.p),
        p_text(test.p_adjusted),
        _verdict(test),
    ]
    if noise:
        rerun = noise.get((test.metric, test.group))
        row += ["", "", ""] if rerun is None else _noise_cells(rerun)
    return row


def _noise_cells(rerun: ScoreTest) -> list[str]:
    return [str(rerun.lost), str(rerun.gained), p_text(rerun.p_adjusted)]


def _title(report: ScoresReport, overview: ResponsesOverview) -> str:
    tests = len(report.tests)
    title = (
        f"eval scores, paired item by item: McNemar's exact test (binary), Wilcoxon signed-rank "
        f"(continuous); Holm across {tests} metric{'s' if tests != 1 else ''}, α = "
        f"{report.alpha:g}, detectable differences at {100 * report.power:g} % power"
    )
    if report.one_sided:
        title += f"; {report.one_sided} item scores on one side only (not tested)"
    noise = overview.noise
    if noise is not None:
        title += (
            f"; base rerun {noise.path} ({noise.format}): {noise.differing} of {noise.paired} "
            "paired records differ from the base (the engine's own noise band)"
        )
    return title


def _noise_index(overview: ResponsesOverview) -> dict[tuple[str, str | None], ScoreTest]:
    noise = overview.noise
    if noise is None or noise.scores is None:
        return {}
    return {(test.metric, test.group): test for test in noise.scores.tests}


def _sentences(overview: ResponsesOverview) -> list[str]:
    report = overview.summary.scores
    assert report is not None
    lines = [sentence(test, report.alpha, report.power) for test in report.tests]
    noise = overview.noise
    if noise is not None and noise.scores is not None:
        lines += [
            "base vs base rerun: " + sentence(test, noise.scores.alpha, noise.scores.power)
            for test in noise.scores.tests
        ]
    return lines


def score_text(overview: ResponsesOverview) -> str:
    """The scores section of the text report ('' when no item carries a score)."""
    from tabulate import tabulate  # not needed (nor imported) for JSON reports

    report = overview.summary.scores
    if report is None:
        return ""
    noise = _noise_index(overview)
    headers = _HEADERS + (_NOISE_HEADERS if noise else [])
    rows = [[escape.text(c) for c in _row(test, noise)] for test in report.tests]
    table = tabulate(rows, headers=headers, disable_numparse=True)
    lines = [escape.text(line) for line in [_title(report, overview), *_sentences(overview)]]
    return "\n".join([lines[0], table, *lines[1:]])


def score_markdown(overview: ResponsesOverview) -> str:
    """The scores section of the Markdown report ('' when no item carries a score)."""
    from tabulate import tabulate  # not needed (nor imported) for JSON reports

    report = overview.summary.scores
    if report is None:
        return ""
    noise = _noise_index(overview)
    headers = _HEADERS + (_NOISE_HEADERS if noise else [])
    rows = [[cell(escape.text(c)) for c in _row(test, noise)] for test in report.tests]
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    sentences = "\n".join(f"- {cell(escape.text(line))}" for line in _sentences(overview))
    title = cell(escape.text(_title(report, overview)))
    return f"### Eval scores\n\n{title}\n\n{table}\n\n{sentences}"


def _decision_line(decided: MetricDecision, level: float, power: float) -> str:
    """The decision's sentence with the observed drop or rise after its head, as the bundle's
    gate line gives it (newuser61c), unless the sentence already says how far it moved."""
    said = decision_sentence(decided, level, power)
    if decided.drop_beyond is not None or decided.direction_unknown or decided.exact:
        return said
    drop = decided.observed_drop
    observed = f"observed {'drop' if drop >= 0 else 'rise'} {amount(decided.kind, abs(drop))}"
    head = f"{decided.label}: {decided.decision.value}"
    return f"{head} ({observed}){said.removeprefix(head)}"


def _gate_lines(overview: ResponsesOverview) -> list[str]:
    gate = overview.score_gate
    if gate is None:
        return []
    options = gate.options
    named = "".join(f", {metric} {value:g}" for metric, value in options.tolerances)
    if any(d.binary_epochs for d in gate.decisions):
        named = f" and for per-sample means of epochs each scored 0 or 1{named}"
    lines = [
        f"score gate (--fail-on {GATE}): text differences are reported and do not fail the run; "
        f"a metric passes when not significantly worse and the run could detect a drop of the "
        f"tolerance ({options.tolerance_points:g} points of accuracy for binary metrics{named}) "
        f"at level {p_text(gate.level)} (α/m, Holm's guarantee for each of "
        f"{len(gate.decisions)} metric{'s' if len(gate.decisions) != 1 else ''}) with "
        f"{100 * gate.power:g} % power",
        *(_decision_line(d, gate.level, gate.power) for d in gate.decisions),
    ]
    lines += [f.detail for f in gate.findings if f.label is None]
    # A drop or a one-sided metric fails; only what the run could not decide
    # is held (newuser60b read "holds the run (2 score-drop)" for a significant drop).
    held = all(finding.name == "score-undecided" for finding in gate.findings)
    verdict = "holds" if held else "fails"
    verdict = "passes" if not gate.findings else f"{verdict} the run ({_count_findings(gate)})"
    lines.append(f"score gate {verdict}")
    return lines


def _count_findings(gate: ScoreGate) -> str:
    names = Counter(finding.name for finding in gate.findings)
    return ", ".join(f"{count} {name}" for name, count in names.items())


def gate_text(overview: ResponsesOverview) -> str:
    """The `--fail-on score-drop` section of the text report ('' without the gate)."""
    return "\n".join(escape.text(line) for line in _gate_lines(overview))


def gate_markdown(overview: ResponsesOverview) -> str:
    """The `--fail-on score-drop` section of the Markdown report ('' without the gate)."""
    lines = _gate_lines(overview)
    if not lines:
        return ""
    items = "\n".join(f"- {cell(escape.text(line))}" for line in lines[1:])
    return f"### Score gate\n\n{cell(escape.text(lines[0]))}\n\n{items}"


def gate_verdict(gate: ScoreGate) -> str:
    """'score gate: 1 pass, 1 score-undecided' (and the run-wide findings), for the verdict."""
    counts = Counter(d.decision.value for d in gate.decisions)
    counts.update(f.name for f in gate.findings if f.label is None)
    said = ", ".join(f"{count} {name}" for name, count in counts.items()) or "nothing decided"
    return f"score gate: {said}"
