"""docs/pto.md's "What each target accepts" is generated from the target tables and the op checks (issue 22):
the page must equal what the code says now, and the layout cells are what the ops do."""

from pathlib import Path

import pytest

import tilesim.pto as pto
from tilesim.errors import TilesimError
from tilesim.pto import Tile
from tilesim.pto.rules import BEGIN, END, accepted_layouts, markdown

PAGE = Path(__file__).resolve().parents[2] / "docs" / "pto.md"


def test_the_page_is_generated_from_the_code():
    text = PAGE.read_text()
    section = BEGIN + text.split(BEGIN, 1)[1].split(END, 1)[0] + END
    assert section == markdown(), "run: python -m tilesim.pto.rules --write docs/pto.md"


def _runs(fn) -> bool:
    try:
        fn()
    except TilesimError as e:
        assert e.rule.startswith("pto.op.")
        return False
    return True


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_layout_cells_agree_with_calls_written_here(target):
    """Independent spot checks, written from the issue's four findings, against the generated cells."""
    col = lambda: Tile("vec", "f32", 16, 1, blayout="col_major")       # noqa: E731  what TROWSUM writes
    full = lambda: Tile("vec", "f32", 16, 16)                           # noqa: E731
    dn = lambda: Tile("vec", "f32", 16, 16, blayout="col_major")        # noqa: E731
    # TMULS never takes a col_major source; TROWEXPAND takes one on cpu only
    assert not _runs(lambda: pto.tmuls(full(), dn(), 2.0, target=target))
    assert ("DN" in accepted_layouts("tile and scalar", "tmuls", "src", target)) is False
    assert _runs(lambda: pto.trowexpand(full(), dn(), target=target)) == (target == "cpu")
    assert ("DN" in accepted_layouts("expand", "trowexpand", "src", target)) == (target == "cpu")
    # a one-column col_major tile is a row-expand broadcast operand everywhere (Mode 1)
    assert _runs(lambda: pto.trowexpandadd(full(), full(), col(), target=target))
    assert "DN" in accepted_layouts("row expand-binary", "trowexpandadd", "src1", target)
    # a row reduce writes a one-column col_major tile everywhere
    assert _runs(lambda: pto.trowsum(col(), full(), target=target))
    assert "DN" in accepted_layouts("row reduce", "trowsum", "dst", target)


def test_every_dtype_table_row_is_on_the_page():
    from tilesim.pto.targets import OP_TYPES
    section = PAGE.read_text().split(BEGIN, 1)[1].split(END, 1)[0]
    assert [op for op in OP_TYPES if op.upper() not in section] == []
