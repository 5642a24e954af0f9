"""JUnit XML, so CI systems show a run as tests: one test suite per run, one test
case for the overall F1 (when ``fail_under`` is set) and one per field. A field's test
case fails when the field's F1 is below its threshold; fields without a threshold
pass and carry their figures in ``system-out`` (an undefined one as "—"); a field
that was only skipped is a skipped test case.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from evalschema.report.figures import f1_figure, figure
from evalschema.report.model import RunReport
from evalschema.safetext import one_line

#: Text XML 1.0 can hold and a terminal can show: control characters and non-characters
#: become visible escapes (``\\x1b``), so two keys never merge and the file stays
#: well-formed (lone surrogates are escaped by the writer, which reports them).
_x = one_line


def _part(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_") or "run"


def _classname(rep: RunReport) -> str:
    """``evalschema.SUITE.RUN``: dots only between parts (CI tools split on them)."""
    run = Path(rep.extracted).name.removesuffix(".jsonl").removesuffix(".json") \
        if rep.extracted else rep.label
    return ".".join(["evalschema", *([_part(rep.suite)] if rep.suite else []), _part(run)])


def runs_junit(reports: Sequence[RunReport]) -> str:
    root = ET.Element("testsuites", name="evalschema")
    total = failures = errors = 0
    seconds = 0.0
    for rep in reports:
        run = rep.run
        checks = {c.field: c for c in rep.checks}
        cases: list[ET.Element] = []
        classname = _classname(rep)
        overall = checks.get(None)
        if overall is not None:
            case = ET.Element("testcase", classname=_x(classname), name=_x(overall.name),
                              time="0")
            if not overall.passed:
                failure = ET.SubElement(case, "failure", type="threshold",
                                        message=_x(overall.describe()))
                failure.text = _x(f"{overall.name} is {figure(overall.value, 4)}, below the "
                                  f"fail-under threshold {overall.threshold:.4f}"
                                  if overall.value is not None else overall.describe())
            cases.append(case)
        for path, agg in run.per_field.items():
            case = ET.Element("testcase", classname=_x(classname), name=_x(path or "(record)"),
                              time="0")
            c = agg.counts
            out = ET.SubElement(case, "system-out")
            out.text = _x(f"F1 {f1_figure(c, agg.f1, 4)} precision {figure(agg.precision, 4)} "
                          f"recall {figure(agg.recall, 4)}: {c.matches} match, "
                          f"{c.mismatches} mismatch, {c.omissions} omission, "
                          f"{c.hallucinations} hallucination")
            check = checks.get(path)
            if check is not None and not check.passed:
                failure = ET.Element("failure", type="threshold", message=_x(check.describe()))
                failure.text = _x(f"{path}: F1 {check.value:.4f} is below its threshold "
                                  f"{check.threshold:.4f}" if check.value is not None
                                  else check.describe())
                case.insert(0, failure)
            elif agg.f1 is None and not c.scored and (c.errors or c.batch_errors):
                # Never a pass: nothing could be judged (a schema error in the field, say).
                case.insert(0, ET.Element("error", type="not-judged", message=_x(
                    f"{path or '(record)'}: not judged ({c.errors + c.batch_errors} errors)")))
            elif agg.f1 is None and c.skipped and not c.errors:
                case.insert(0, ET.Element("skipped", message=_x(
                    f"{path or '(record)'}: skipped ({c.skipped} results), nothing judged")))
            cases.append(case)
        for key, check in checks.items():  # thresholds on fields the run never judged
            if key is not None and key not in run.per_field:
                case = ET.Element("testcase", classname=_x(classname), name=_x(key), time="0")
                if not check.passed:
                    ET.SubElement(case, "failure", type="threshold",
                                  message=_x(check.describe())).text = _x(check.describe())
                cases.append(case)
        n_fail = sum(1 for case in cases if case.find("failure") is not None)
        n_skip = sum(1 for case in cases if case.find("skipped") is not None)
        n_err = sum(1 for case in cases if case.find("error") is not None)
        suite = ET.SubElement(root, "testsuite", name=_x(rep.label), tests=str(len(cases)),
                              failures=str(n_fail), errors=str(n_err), skipped=str(n_skip),
                              time=f"{rep.seconds or 0.0:.3f}")
        props = ET.SubElement(suite, "properties")
        for key, value in (("records", run.total_records), ("fields", run.total_fields),
                           ("mean_f1", figure(run.mean_f1, 6)),
                           ("micro_f1", figure(run.micro_f1, 6)),
                           ("mean_precision", figure(run.mean_precision, 6)),
                           ("mean_recall", figure(run.mean_recall, 6)),
                           ("gold_coverage", figure(run.coverage.share, 6)),
                           ("gold_off_schema_keys", " ".join(k for k, _ in run.coverage.keys))):
            ET.SubElement(props, "property", name=key, value=_x(value))
        suite.extend(cases)
        total += len(cases)
        failures += n_fail
        errors += n_err
        seconds += rep.seconds or 0.0
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", str(errors))
    root.set("time", f"{seconds:.3f}")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
