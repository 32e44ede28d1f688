"""The code blocks of README.md and docs/*.md run as tests (README.md, "Tests"; tests/docblocks.py).

- ```python: pytest-markdown-docs runs each block on its own (``continuation`` runs the page's previous
  python block first); ``notest`` marks a template.
- ```pycon (interpreter sessions, checked with ``doctest``) and ```bash: ``tests/test_doc_blocks.py`` runs
  each block, with the same options (and ``slow`` for bash).

Every block runs in a fresh directory holding a copy of ``examples/`` (the ``doc_dir``
fixture), so what they write goes nowhere.
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest
# pytest-markdown-docs collects .py docstrings too when given --markdown-docs, importing every module a
# second time; its Markdown collector alone is what the docs need.
from pytest_markdown_docs.plugin import MarkdownInlinePythonItem, MarkdownTextFile

ROOT = Path(__file__).resolve().parent


def sandbox(into: Path) -> Path:
    """A working directory for a doc block: a copy of examples/, and tools/ and benchmarks/ linked."""
    shutil.copytree(ROOT / "examples", into / "examples", ignore=shutil.ignore_patterns("build", "__pycache__"))
    for name in ("tools", "benchmarks", "docs"):
        (into / name).symlink_to(ROOT / name)
    return into


def pytest_collect_file(file_path: Path, parent):
    if file_path == ROOT / "README.md" or (file_path.suffix == ".md" and file_path.parent == ROOT / "docs"):
        return MarkdownTextFile.from_parent(parent, path=file_path)
    return None


@pytest.fixture
def doc_dir(tmp_path) -> Path:
    """A fresh working directory for a doc block."""
    return sandbox(tmp_path)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    if not isinstance(item, MarkdownInlinePythonItem):
        return (yield)
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="tilesim-doc-") as tmp:
        os.chdir(sandbox(Path(tmp)))
        try:
            return (yield)
        finally:
            os.chdir(here)
