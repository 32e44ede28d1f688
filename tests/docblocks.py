"""The fenced code blocks of README.md and docs/*.md, read with the parser pytest-markdown-docs uses.

A fence's info string is its language and options: ``python``, ``pycon`` and ``bash`` blocks run in the
suite; ``notest`` marks a template (not run), ``continuation`` runs the page's previous block of the same
language first, ``slow`` (bash) runs it only under ``-m slow``. Other languages (``text`` ...) show
output or file contents and are never run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
RUN = {"python": {"notest", "continuation"}, "pycon": {"notest", "continuation"},
       "bash": {"notest", "continuation", "slow"}}
SHOWN = {"text", "csv", "json", "mlir", "asm", "verilog"}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int                  # the fence's line, 1-based
    lang: str
    options: frozenset[str]
    code: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.lang in RUN and "notest" not in self.options


def pages() -> list[Path]:
    """README.md and every page in docs/ (new pages are picked up without a change here)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(page: Path) -> list[Block]:
    out = []
    for tok in MarkdownIt("commonmark").parse(page.read_text()):
        if tok.type == "fence":
            lang, *opts = tok.info.split() or [""]
            out.append(Block(page, tok.map[0] + 1, lang, frozenset(opts), tok.content))
    return out


def all_blocks() -> list[Block]:
    return [b for p in pages() for b in blocks(p)]


def script(block: Block) -> str:
    """The block's code, after the chain of ``continuation`` blocks it continues."""
    same = [b for b in blocks(block.page) if b.lang == block.lang and b.runs]
    i = same.index(block)
    start = i
    while start > 0 and "continuation" in same[start].options:
        start -= 1
    return "\n".join(b.code for b in same[start:i + 1])
