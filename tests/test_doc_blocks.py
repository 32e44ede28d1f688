"""Every code block of README.md and docs/*.md runs, or says it is a template.

The python blocks are pytest-markdown-docs items (conftest.py). This module runs the rest, one test each,
in a fresh directory holding a copy of examples/: each pycon session as a doctest (standard ``doctest``),
each bash block with bash and the ``tilesim`` and ``python`` of this interpreter.
"""

import doctest
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .docblocks import RUN, SHOWN, ROOT, all_blocks, script

BASH = [pytest.param(b, id=b.where, marks=[pytest.mark.slow] if "slow" in b.options else [])
        for b in all_blocks() if b.lang == "bash" and b.runs]
PYCON = [pytest.param(b, id=b.where) for b in all_blocks() if b.lang == "pycon" and b.runs]
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env["COLUMNS"] = "200"
    return env


@pytest.mark.parametrize("block", PYCON)
def test_pycon_session_runs(block, doc_dir, monkeypatch):
    monkeypatch.chdir(doc_dir)
    test = doctest.DocTestParser().get_doctest(script(block), {"__name__": "__doc_block__"}, block.where,
                                               str(block.page), block.line)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)


@pytest.mark.parametrize("block", BASH)
def test_bash_block_runs(block, doc_dir):
    timeout = 1800 if "slow" in block.options else 300
    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script(block)], cwd=doc_dir, env=_env(),
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{block.where} exited {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"


def test_every_block_runs_or_is_marked_a_template():
    bad = []
    for b in all_blocks():
        if not b.lang:
            bad.append(f"{b.where}: a fence without a language (python, pycon, bash, or text for output)")
        elif b.lang not in RUN and b.lang not in SHOWN:
            bad.append(f"{b.where}: language {b.lang!r} is neither run ({sorted(RUN)}) nor shown ({sorted(SHOWN)})")
        elif not b.options <= RUN.get(b.lang, set()):
            bad.append(f"{b.where}: options {sorted(b.options)} (this language takes {sorted(RUN.get(b.lang, []))})")
        elif b.lang == "python" and b.code.lstrip().startswith(">>>"):
            bad.append(f"{b.where}: an interpreter session belongs in a pycon block")
        elif b.lang == "pycon" and not b.code.lstrip().startswith(">>>"):
            bad.append(f"{b.where}: a pycon block is an interpreter session and starts with >>>")
        elif b.lang not in RUN and any(line.startswith(("$ ", ">>> ")) for line in b.code.splitlines()):
            bad.append(f"{b.where}: commands in a {b.lang} block are never run: make it bash or pycon")
        elif "continuation" in b.options and script(b) == b.code:
            bad.append(f"{b.where}: a continuation with no block of its language before it")
    assert bad == []


def test_blocks_are_found_in_every_page():
    """The reader sees what a reader of the page sees: every fence opened is a block, none swallows prose."""
    for b in all_blocks():
        assert "\n```" not in b.code and not b.code.startswith("```"), b.where
    langs = {b.lang for b in all_blocks() if b.runs}
    assert langs == set(RUN)
