"""The docs stay in step with the code: doctests, generated tables, rule ids, decision numbering."""

import doctest
import importlib
import re
from pathlib import Path

import pytest

from tilesim.ame import accum, asm, csr

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "ame.md").read_text()
MODULES = ["accum", "asm", "core", "cost", "csr", "exact", "models", "mmacc", "regfile", "runner", "cli", "demo",
           "gemm", "study"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    mod = importlib.import_module(f"tilesim.ame.{name}")
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_generated_tables_are_in_the_guide():
    for table in (csr.markdown(), accum.markdown(), asm.markdown()):
        assert table in GUIDE


def test_every_rule_id_is_documented():
    src = "".join(p.read_text() for p in (ROOT / "src" / "tilesim" / "ame").glob("*.py"))
    rules = set(re.findall(r'"(ame\.[a-z_.]+)"', src))
    assert len(rules) > 25
    assert sorted(r for r in rules if f"`{r}`" not in GUIDE) == []


def test_the_guide_example_runs():
    code = re.findall(r"```python\n(.*?)```", GUIDE, re.S)[0]
    exec(compile(code, "docs/ame.md", "exec"), {})


def test_decisions_section_is_last_and_numbered():
    text = (ROOT / "docs" / "decisions.md").read_text()
    sections = re.findall(r"^## (.+)$", text, re.M)
    assert sections[-1] == "AME"
    ame = text[text.index("\n## AME\n"):]
    numbers = [int(n) for n in re.findall(r"^### AME(\d+)\.", ame, re.M)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 10


def test_the_readme_example_runs():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## RISC-V AME MAC"):]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert scope["core"].read_tile(2, "int16", (2, 2)).tolist() == [[32767, -896], [-384, 11]]
