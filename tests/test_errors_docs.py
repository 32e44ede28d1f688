"""docs/errors.md is the generated catalogue of every rule id, and no doc or code points outside the repo."""

import re
import subprocess
from pathlib import Path

from . import errors_catalogue

ROOT = Path(__file__).resolve().parents[1]


def test_errors_page_is_generated_from_the_source():
    page = (ROOT / "docs" / "errors.md").read_text()
    assert page == errors_catalogue.markdown(), "run: python -m tests.errors_catalogue > docs/errors.md"


def test_every_rule_literal_is_in_the_catalogue():
    # an independent, cruder scan: every rule="..." literal in src must be a catalogued id
    src = "".join(p.read_text() for p in (ROOT / "src" / "tilesim").rglob("*.py"))
    literals = set(re.findall(r'rule=f?"([a-z0-9_.{}]+)"', src))
    literals = {re.sub(r"\{[^}]*\}", "*", r) for r in literals}
    catalogued = set(errors_catalogue.rules())
    assert len(literals) > 80 and sorted(literals - catalogued) == []
    page = (ROOT / "docs" / "errors.md").read_text()
    assert all(f"`{r}`" in page for r in catalogued)
    assert {"ame.asm.literal", "formats.fit.range", "cli.input", "tt.stall.*"} <= catalogued


def test_rules_passed_to_helpers_by_position_are_in_the_catalogue():
    # helpers of one name put the rule in different places (``op.fail(detail, operand, rule)``, the hex reader's
    # ``fail(detail, rule, pos, value)``): every quoted dotted id that opens a line or follows a comma in a
    # ``fail(`` call of src must be catalogued
    src = "".join(p.read_text() for p in (ROOT / "src" / "tilesim").rglob("*.py"))
    calls = re.findall(r"\bfail\((.*?)\)\n", src, re.S)
    ids = {m for c in calls for m in re.findall(r'(?:^|,)\s*"((?:pto|ame|tt|verify|compare)\.[a-z0-9_.]+)"', c, re.M)}
    assert len(ids) > 20 and sorted(ids - set(errors_catalogue.rules())) == []
    assert "pto.textract.conv_align" in ids


def test_no_paths_outside_the_repository():
    outside = re.compile("|".join(("shared" + "/spec", "shared" + "/seeds", "/wo" + "rk/", r"seeds/\d")))
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    hits = []
    for name in files:
        p = ROOT / name
        if p.suffix in (".py", ".md", ".toml", ".lark", ".s", ".tt", ".pto", ".txt", ".cfg", ".yml", ".yaml") or \
                p.name in ("run",):
            hits += [f"{name}:{i}" for i, line in enumerate(p.read_text(errors="replace").splitlines(), 1)
                     if outside.search(line)]
    assert hits == []
