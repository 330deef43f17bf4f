"""`--format junit`: a finding run as JUnit XML, as Jenkins' JUnit plugin and GitHub test
reporters read it.

One `<testsuite>` (the command) inside `<testsuites>`; a `<testcase>` per thing the run checked
(a wheel pair, an artifact, the manifest, a log side). A case with failing findings has one
`<failure>` whose `message` counts them by code and whose body lists each (code, path, detail);
informational and waived findings (with their reasons) go to the case's `<system-out>`.
Every string passes `escape.text` first: XML 1.0 cannot carry most control characters, and
ElementTree would write them raw.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

from k3diff import escape
from k3diff.report.cifindings import CiCase, CiResult, CiRun

_NOT_XML = re.compile("[\ufffe\uffff]")


def _xml(value: str) -> str:
    """`value` as XML 1.0 can carry it: controls escaped, the two noncharacters too."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", escape.text(value))


def _line(result: CiResult) -> str:
    where = f" {result.member}" if result.member else ""
    line = f":{result.line}" if result.line is not None else ""
    text = f"{result.rule}{where}{line}: {result.title}: {result.detail}"
    if result.waiver is not None:
        text += f" [waived by waiver {result.waiver.number}: {result.waiver.reason}]"
    return _xml(text)


def _case(suite: ET.Element, case: CiCase, command: str) -> None:
    element = ET.SubElement(suite, "testcase", classname=f"k3diff.{command}", name=_xml(case.name))
    if case.artifact:
        element.set("file", _xml(case.artifact))
    failing = case.failing
    if failing:
        counts = Counter(r.rule for r in failing)
        summary = ", ".join(f"{n} × {rule}" for rule, n in sorted(counts.items()))
        failure = ET.SubElement(
            element,
            "failure",
            message=_xml(f"{len(failing)} failing: {summary}"),
            type=failing[0].rule,
        )
        failure.text = "\n".join(_line(r) for r in failing)
    others = [r for r in case.results if not r.failing]
    if others:
        ET.SubElement(element, "system-out").text = "\n".join(_line(r) for r in others)


def render(run: CiRun) -> str:
    """The JUnit XML document."""
    failures = sum(1 for case in run.cases if case.failing)
    counts = {"tests": str(len(run.cases)), "failures": str(failures), "errors": "0"}
    root = ET.Element("testsuites", {"name": "k3diff", **counts})
    suite = ET.SubElement(
        root, "testsuite", {"name": f"k3diff {run.command}", "skipped": "0", **counts}
    )
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="exit_code", value=str(int(run.exit_code)))
    ET.SubElement(properties, "property", name="verdict", value=_xml(run.verdict))
    for case in run.cases:
        _case(suite, case, run.command)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
