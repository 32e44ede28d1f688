"""Folders whose kernel writes a tile from scalars alone: TTRI."""

from __future__ import annotations

from pathlib import Path

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

from .common import ints, stored, tile


def run_ttri(folder: Path, st: Path, verbose: bool) -> Row:
    """``<T, isUpperOrLower, diagonal, TROWS, TCOLS, VROWS, VCOLS>``: TTRI into a TROWS x TCOLS tile of valid
    VROWS x VCOLS, stored into the VROWS x VCOLS global and compared with ``golden.bin``."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 7 else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            upper, diagonal, tr, tc, vr, vc = ints(case.args[1:])
            dst = tile(dt, (tr, tc), (vr, vc))
            pto.ttri(dst, diagonal, upper_or_lower=upper, target="cpu")
            score(row, case, verbose, (stored(dst, (vr, vc)), case.read("golden.bin", dt, vr, vc), dt))
    return row


ADAPTERS = {"ttri": run_ttri}
