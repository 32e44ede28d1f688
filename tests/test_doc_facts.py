"""What README.md and docs/*.md state about the project agrees with it: decision ids and ranges exist and
are not stale, and the PTO op table and its "Limits" agree with ``tilesim.pto``'s ops."""

import re

from tilesim.pto.ops import OPS

from .docblocks import ROOT, pages

DECISIONS = (ROOT / "docs" / "decisions.md").read_text()
IDS = re.findall(r"^### ([A-Z]+)(\d+)\.", DECISIONS, re.M)
SERIES = {s: sorted(int(n) for s2, n in IDS if s2 == s) for s, _ in IDS}
# ids count from 1, so C0 (a conv layout's channel block) is not read as a decision
ID = r"\b({s})([1-9]\d*)\b".format(s="|".join(sorted(SERIES, key=len, reverse=True)))
RANGE = re.compile(ID + r"\s*[-–]\s*" + ID)


def _texts():
    return [(p.relative_to(ROOT), p.read_text()) for p in pages() if p.name != "decisions.md"]


def test_decision_series_are_found():
    assert set(SERIES) >= {"F", "E", "TT", "PTO", "S", "C", "V", "AME"}
    for s, numbers in SERIES.items():
        assert len(numbers) == len(set(numbers)), f"decision {s} numbered twice"


def test_every_decision_named_in_the_docs_exists():
    missing = [f"{page}: {s}{n}" for page, text in _texts() for s, n in re.findall(ID, text)
               if int(n) not in SERIES[s]]
    assert missing == []


def test_decision_ranges_are_not_stale():
    """A range names decisions of one series, in order; one from 1 claims the whole series, so it ends at
    the series' last entry (a range such as PTO1-PTO23 goes stale when PTO24 is written)."""
    bad = []
    for page, text in _texts():
        for a, i, b, j in RANGE.findall(text):
            i, j = int(i), int(j)
            if a != b or i >= j:
                bad.append(f"{page}: {a}{i}-{b}{j} is not a range of one series")
            elif i == 1 and j != SERIES[a][-1]:
                bad.append(f"{page}: {a}{i}-{b}{j}, but the {a} series ends at {a}{SERIES[a][-1]}")
    assert bad == []


def _pto_section(title: str, end: str = "\n## ") -> str:
    """docs/pto.md from ``title`` to ``end`` (by default the next section, or the end of the page)."""
    text = (ROOT / "docs" / "pto.md").read_text()
    start = text.index(title)
    stop = text.find(end, start + len(title))
    return text[start:stop if stop >= 0 else len(text)]


def test_the_pto_op_table_lists_every_op_and_no_other():
    table = [line for line in _pto_section("## Instructions", "Numerics:").splitlines() if line.startswith("| ")]
    spans = [s for line in table for s in re.findall(r"`([^`]+)`", line)]
    named = {w for s in spans for w in re.findall(r"(?<![.\w=\"'])(t[a-z0-9_]+|mgather|mscatter)(?=[ (`]|$)", s)}
    assert set(OPS) - named == set(), "ops missing from docs/pto.md's table"
    assert named - set(OPS) == set(), "names in docs/pto.md's table that are not ops"


def test_pto_limits_name_no_op_that_is_modelled():
    upper = {w.lower() for w in re.findall(r"\bT[A-Z0-9_]{2,}\b", _pto_section("## Limits"))}
    assert upper & set(OPS) == set()


def test_readme_pto_paragraph_names_only_ops():
    readme = (ROOT / "README.md").read_text()
    para = readme[readme.index("## Huawei PTO tile ISA"):readme.index("```python", readme.index("## Huawei PTO"))]
    named = {w.lower() for w in re.findall(r"\bT[A-Z0-9_]{2,}\b", para)}
    not_functions = {"tassign", "tpart"}  # TASSIGN places tiles in buffers; "the TPART family"
    assert named and named <= set(OPS) | not_functions, named - set(OPS)


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    commands = set(re.findall(r"^(pip install -e '\.\[test\]' && pytest[^#\n]*?)\s*(?:#|$)", readme, re.M))
    assert len(commands) == 1, commands
    assert commands <= set((ROOT / ".ci" / "run").read_text().splitlines())
