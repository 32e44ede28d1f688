"""TMRGSORT's folder: the 2-4 list merge (``TMrgsortMulti``) and the one-list block merge (``TMrgsortSingle``);
a ``uint16_t`` test runs the kernel on f16 records, twice the columns, and every output is compared as the f32
lanes main.cpp reads it into."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

from .common import ints, stored, tile


def _lanes(case, file: str, n_bytes: int, dt: str, cols: int) -> np.ndarray:
    """The first ``cols`` lanes of dtype ``dt`` of a file of ``n_bytes`` (one row)."""
    return np.fromfile(case.dir / file, np.uint8, n_bytes).view(pto.get_dtype(dt).lane)[:cols].reshape(1, cols)


def run_tmrgsort(folder: Path, st: Path, verbose: bool) -> Row:
    """``TMrgsortMulti<T, GROWS, GCOLS, TROWS, TCOLS, TCOLS1, TCOLS2, TCOLS3, TOPK, LISTNUM, EXHAUSTED>``: lists
    of TCOLS, TCOLS1 ... valid columns from ``input0.bin`` ...; dst 1 x TOPK stored into a LISTNUM * GCOLS
    global (an exhausted merge's trailing zeros of the golden are not compared, as main.cpp's
    HandleOutputData does). ``TMrgsortSingle<T, GROWS, GCOLS, TROWS, TCOLS, blockLen>``: the block merge of
    ``input0.bin``. ``TMrgsortTopk`` (a program of merges joined by copies of tile storage) is not mapped."""
    row = Row(folder.name)

    def form(c):
        return {"TMrgsortMulti": None if len(c.args) == 11 else "not the form",
                "TMrgsortSingle": None if len(c.args) == 6 else "not the form"}.get(
            c.calls[0][0], "TMrgsortTopk: a program of TMRGSORTs joined by copies of tile storage (not mapped)")

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            half = case.args[0] == "uint16_t"
            dt, coef = ("f16", 2) if half else ("f32", 1)
            if case.calls[0][0] == "TMrgsortSingle":
                gr, gc, tr, tc, block = ints(case.args[1:])
                n = gr * gc * 4
                src = tile(dt, (tr, tc * coef), (1, tc * coef), _lanes(case, "input0.bin", n, dt, tc * coef))
                dst = tile(dt, (tr, tc * coef), (1, tc * coef))
                pto.tmrgsort(dst, src, block * coef, target="cpu")
                got = stored(dst, (1, n // dst.dtype.size)).view(np.uint32)
                score(row, case, verbose, (got, np.fromfile(case.dir / "golden.bin", np.uint32, n // 4), "f32"))
                continue
            gr, gc, tr, tc, c1, c2, c3, topk, lists = ints(case.args[1:10])
            n_in, n_out = gr * gc * 4, lists * gr * gc * 4
            srcs = [tile(dt, (1, tc * coef), (1, w * coef), _lanes(case, f"input{i}.bin", n_in, dt, w * coef))
                    for i, w in enumerate((tc, c1, c2, c3)[:lists])]
            dst = tile(dt, (1, topk * coef))
            pto.tmrgsort(dst, None, *srcs, tile(dt, (1, tc * coef * lists)), exhausted=case.args[10] == "true",
                         target="cpu")
            got = stored(dst, (1, n_out // dst.dtype.size)).view(np.uint32).ravel()
            want = np.fromfile(case.dir / "golden.bin", np.uint32, n_out // 4)
            if case.args[10] == "true":                          # HandleOutputData: the golden's zero tail
                tail = len(want) - len(np.trim_zeros(want.view(np.float32), "b"))
                got = got.copy()
                got[len(got) - tail:] = 0
            score(row, case, verbose, (got, want, "f32"))
    return row


ADAPTERS = {"tmrgsort": run_tmrgsort}
