"""hashfind: a linear-probing hash-table lookup written as a kernel of tile instructions
(``LaunchHashFind<ROWS, COLS, CAP, MAX_PROBE>``), run here as the same sequence of tilesim ops on gen_data.py's
table keys, values and queries, and compared with ``golden.bin`` by ResultCmp at main.cpp's eps.

The kernel: TLOAD the queries (i32), TCVT them to u32, hash them with TSHR/TXOR/TMULS (x ^= x >> 16;
x *= 0x7FEB352D; x ^= x >> 15; x *= 0x846CA68B; x ^= x >> 16) and TANDS ``CAP - 1``; then per probe p:
idx = (h + p) & (CAP - 1) (TMOV, TADDS, TANDS), MGATHER of the keys and values at idx, TCMP EQ of the keys with
the queries and with the empty key (INT32_MIN) into packed u8 masks, TSEL of the value where the key matched,
TOR of the two masks, and an exit once every mask byte is 0xFF; TSTORE of the result (-1 where not found).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

from .common import ints

_MUL = (0x7FEB352D, 0x846CA68B)
_EMPTY, _NOT_FOUND = -(2 ** 31), -1


def _form(case) -> str | None:
    """``test_hashfind<ROWS, COLS, CAP, MAX_PROBE>`` with data and an eps (the call names no element type)."""
    return ("not the folder's form" if case.calls[0][0] != "test_hashfind" or len(case.args) != 4 else
            "gen_data.py made no data" if case.dir is None else "no eps" if case.eps is None else None)


def lookup(keys: np.ndarray, vals: np.ndarray, queries: np.ndarray, cap: int, max_probe: int) -> np.ndarray:
    """The kernel on tilesim: the i32 result tile's values for a ``rows x cols`` array of queries."""
    rows, cols = queries.shape
    packed = -(-cols // 8)
    mask_cols = -(-packed // 32) * 32

    def tile(dt, value=None):
        t = pto.Tile("vec", dt, rows, cols)
        if value is not None:
            pto.texpands(t, value, target="cpu")
        return t

    q, q_u32, out, h, idx, key, val = (tile(dt) for dt in ("i32", "u32", "i32", "u32", "u32", "i32", "i32"))
    shift16, shift15, tmp, xor_tmp = tile("u32", 16), tile("u32", 15), tile("u32"), tile("u32")
    empty, tmp_i32 = tile("i32", _EMPTY), tile("i32")
    empty_mask, hit = (pto.Tile("vec", "u8", rows, mask_cols, valid=(rows, packed)) for _ in range(2))
    pto.tload(q, queries, target="cpu")
    pto.tcvt(q_u32, q, "CAST_NONE", target="cpu")
    pto.texpands(out, _NOT_FOUND, target="cpu")
    pto.tmov(h, q_u32, target="cpu")
    for shift, mul in ((shift16, _MUL[0]), (shift15, _MUL[1]), (shift16, None)):
        pto.tshr(tmp, h, shift, target="cpu")
        pto.txor(h, h, tmp, xor_tmp, target="cpu")
        if mul is not None:
            pto.tmuls(h, h, np.uint32(mul), target="cpu")
    pto.tands(h, h, np.uint32(cap - 1), target="cpu")
    for probe in range(max_probe):
        pto.tmov(idx, h, target="cpu")
        pto.tadds(idx, idx, np.uint32(probe), target="cpu")
        pto.tands(idx, idx, np.uint32(cap - 1), target="cpu")
        pto.mgather(key, keys, idx, coalesce="elem", target="cpu")
        pto.mgather(val, vals, idx, coalesce="elem", target="cpu")
        pto.tcmp(hit, key, q, "eq", target="cpu")
        pto.tcmp(empty_mask, key, empty, "eq", target="cpu")
        pto.tsel(out, hit, val, out, tmp_i32, target="cpu")
        pto.tor(hit, hit, empty_mask, target="cpu")
        if (hit.bits[:, :packed] == 0xFF).all():
            break
    return pto.tstore(np.zeros((rows, cols), np.int32), out, target="cpu")


def run_hashfind(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_hashfind<ROWS, COLS, CAP, MAX_PROBE>``: input1.bin the table's keys, input2.bin its values,
    input3.bin the queries."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, _form, exempt=lambda c: True):
        with refusals(row, case):
            rows, cols, cap, max_probe = ints(case.args)
            keys = np.fromfile(case.dir / "input1.bin", np.int32, cap)
            vals = np.fromfile(case.dir / "input2.bin", np.int32, cap)
            queries = np.fromfile(case.dir / "input3.bin", np.int32, rows * cols).reshape(rows, cols)
            got = lookup(keys, vals, queries, cap, max_probe)
            score(row, case, verbose, (got.view(np.uint32), case.read("golden.bin", "i32", rows, cols), "i32"))
    return row


ADAPTERS = {"hashfind": run_hashfind}
