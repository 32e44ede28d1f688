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
    ``input0.bin``. ``TMrgsortTopk<T, GROWS, GCOLS, TROWS, TCOLS, TOPK>``: the kernel's program of merges
    (:func:`topk_program`)."""
    row = Row(folder.name)

    def form(c):
        return {"TMrgsortMulti": None if len(c.args) == 11 else "not the form",
                "TMrgsortSingle": None if len(c.args) == 6 else "not the form",
                "TMrgsortTopk": None if len(c.args) == 6 else "not the form"}.get(c.calls[0][0], "not the form")

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            half = case.args[0] == "uint16_t"
            dt, coef = ("f16", 2) if half else ("f32", 1)
            if case.calls[0][0] == "TMrgsortTopk":
                gr, gc, tr, tc, topk = ints(case.args[1:])
                n = gr * gc * 4
                got = topk_program(_lanes(case, "input0.bin", n, dt, tc * coef), dt, topk * coef)
                want = np.fromfile(case.dir / "golden.bin", np.uint32, n // 4)
                score(row, case, verbose, (stored(got, (1, n // got.dtype.size)).view(np.uint32), want, "f32"))
                continue
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


def topk_program(data, dt: str, topk: int) -> pto.Tile:
    """``RunTMrgsortTopk``: block merges of 64, 256 ... elements while four blocks fit (each result copied back
    over src's storage), then the tail blocks (``FillMrgArray``: the largest block sizes down to 64 that fit)
    merged two lists at a time into a 1 x topk dst, each result copied back over src; returns dst."""
    cols = data.shape[1]
    src, tmp, dst = tile(dt, (1, cols), None, data), tile(dt, (1, cols)), tile(dt, (1, topk))
    block = 64
    while block * 4 <= cols:
        pto.tmrgsort(tmp, src, block, target="cpu")
        done = cols // (block * 4) * (block * 4)
        src.bits[0, :done] = tmp.bits[0, :done]
        block *= 4
    if block >= cols:
        dst.bits[0, :topk] = tmp.bits[0, :topk]
        return dst
    sizes, left, i = [], cols, block
    while i >= 64:
        sizes += [i] * (left // i)
        left -= left // i * i
        i //= 4
    merged = 0
    for k in range(len(sizes) - 1):
        merged += sizes[k]
        n0, n1 = min(merged, topk), min(sizes[k + 1], topk)
        s0, s1 = (tile(dt, (1, topk), (1, n), src.bits[:, at:at + n]) for n, at in ((n0, 0), (n1, merged)))
        pto.tmrgsort(dst, None, s0, s1, tile(dt, (1, cols)), target="cpu")
        src.bits[0, :topk] = dst.bits[0, :topk]
    return dst


ADAPTERS = {"tmrgsort": run_tmrgsort}
