"""JUnit XML for ``tilesim check --junit``: one test case per vector, so CI systems list them.

A failing vector's ``<failure>`` lists its mismatching elements (up to ``max_report``); each test case
carries the vector's class tags as a property, so a CI filter can group failures by class. An output
that ``--only`` left out is a skipped test case (``output_<name>``) saying whether the dump had it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from .check import CheckResult

__all__ = ["write_junit"]


def write_junit(result: CheckResult, path, max_report: int = 20) -> None:
    m = result.golden.manifest
    suite_name = f"tilesim.{m['isa']}.{m['op']}"
    bad = result.by_vector()
    tests = result.count + len(result.skipped)
    suite = ET.Element("testsuite", name=suite_name, tests=str(tests), failures=str(len(bad)),
                       errors="0", skipped=str(len(result.skipped)))
    props = ET.SubElement(suite, "properties")
    for key in ("seed", "tilesim_version"):
        ET.SubElement(props, "property", name=key, value=str(m.get(key)))
    ET.SubElement(props, "property", name="config", value=repr(m.get("config")))
    for i in range(result.count):
        case = ET.SubElement(suite, "testcase", classname=suite_name, name=f"vector_{i:05d}")
        cp = ET.SubElement(case, "properties")
        ET.SubElement(cp, "property", name="classes", value=" ".join(result.golden.tags(i)))
        if i in bad:
            ms = bad[i]
            lines = [f"{x.operand}[{','.join(map(str, x.index))}]: expected {x.shown(0)} got {x.shown(1)}"
                     for x in ms[:max_report]]
            if len(ms) > max_report:
                lines.append(f"... {len(ms) - max_report} more")
            fail = ET.SubElement(case, "failure", message=f"{len(ms)} mismatching elements", type="mismatch")
            fail.text = "\n".join(lines)
    for name in result.skipped:
        case = ET.SubElement(suite, "testcase", classname=suite_name, name=f"output_{name}")
        why = "missing from the dump" if name in result.missing else "present in the dump"
        ET.SubElement(case, "skipped", message=f"output {name} not selected by --only ({why})")
    root = ET.Element("testsuites", name="tilesim check", tests=str(tests), failures=str(len(bad)))
    root.append(suite)
    ET.indent(root)
    Path(path).write_bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")
