"""Tables that fit the terminal: every cell in full, never cut to ``0.…``.

A table as wide as the terminal or narrower prints as it is. A wider one is
turned on its side: one row per column (its header first) and one column per
record, as many records side by side as the width holds, then the next
records below (decision E14).

>>> from rich.console import Console
>>> console = Console(width=36, force_terminal=False, color_system=None)
>>> cols = [("Ft", "left"), ("err vs fp64", "right"), ("cycles", "right")]
>>> for t in tables(console, cols, [["fp8_e4m3", "0.0412", "1,048,576"], ["bf16", "0.00391", "2,097,152"]]):
...     console.print(t)
┏━━━━━━━━━━━━━┳━━━━━━━━━━━┓
┃             ┃         1 ┃
┡━━━━━━━━━━━━━╇━━━━━━━━━━━┩
│ Ft          │  fp8_e4m3 │
│ err vs fp64 │    0.0412 │
│ cycles      │ 1,048,576 │
└─────────────┴───────────┘
┏━━━━━━━━━━━━━┳━━━━━━━━━━━┓
┃             ┃         2 ┃
┡━━━━━━━━━━━━━╇━━━━━━━━━━━┩
│ Ft          │      bf16 │
│ err vs fp64 │   0.00391 │
│ cycles      │ 2,097,152 │
└─────────────┴───────────┘
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.table import Table

__all__ = ["tables"]

Columns = list[tuple[str, str]]  # header, justification


def _wide(columns: Columns, rows: list[list[str]], title: str) -> Table:
    t = Table(title=title or None)
    for header, justify in columns:
        t.add_column(header, justify=justify, no_wrap=True)
    for row in rows:
        t.add_row(*row)
    return t


def _tall(columns: Columns, rows: list[list[str]], first: int, title: str, fold: bool) -> Table:
    """Records ``first + 1``... as columns; ``fold`` wraps a value too long for the terminal on its own."""
    t = Table(title=title or None)
    t.add_column("", no_wrap=True)
    for i in range(len(rows)):
        t.add_column(str(first + i + 1), justify="right", no_wrap=not fold, overflow="fold")
    for k, (header, _) in enumerate(columns):
        t.add_row(header, *(row[k] for row in rows))
    return t


def tables(console, columns: Columns, rows: list[list[str]], title: str = "") -> list[Table]:
    """The rich tables that show ``rows`` in full on ``console``: one wide table, or the records on their side."""
    widths = [max(cell_len(h), *(cell_len(r[k]) for r in rows)) for k, (h, _) in enumerate(columns)]
    if 1 + sum(3 + w for w in widths) <= console.width:   # "│ " + cell + " " per column, and the last "│"
        return [_wide(columns, rows, title)]
    names = 4 + max(cell_len(h) for h, _ in columns)  # "│ " + header + " ", and the closing "│"
    out, i = [], 0
    while i < len(rows):
        used, n = names, 0
        while i + n < len(rows):
            w = 3 + max(cell_len(str(i + n + 1)), *(cell_len(c) for c in rows[i + n]))
            if n and used + w > console.width:
                break
            used, n = used + w, n + 1
        out.append(_tall(columns, rows[i:i + n], i, "" if out else title, fold=used > console.width))
        i += n
    return out
