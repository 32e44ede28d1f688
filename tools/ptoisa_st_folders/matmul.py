"""TMATMUL's folder: TLOAD of A and B into Nz mat tiles, TMOV to Left and Right, TMATMUL (or TMATMUL_BIAS with a
bias row), TSTORE of the Acc tile; the types and sizes come from the kernel's ``RunTMATMUL`` of each key."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import CXX_DTYPES, Row, each_case, refusals, score

from .common import tile

_KEYED = re.compile(r"tilingKey == (\d+)\)\s*\{\s*(\w+)<([^>]*)>\(([^;]*)\);")
_LAUNCHERS = re.compile(r"void (LaunchTMATMUL\w*)\(.*?\n\}", re.S)


def kernel_keys(folder: Path) -> dict[tuple[str, int], tuple[str, list[str], str]]:
    """(launcher, tilingKey) -> (the run function it calls, its template arguments, its last call argument),
    from the kernel."""
    text = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    return {(m.group(1), int(k)): (fn, [a.strip() for a in args.split(",")], call.split(",")[-1].strip())
            for m in _LAUNCHERS.finditer(text) for k, fn, args, call in _KEYED.findall(m.group(0))}


def _up(n: int, to: int) -> int:
    return -(-n // to) * to


def matmul(case, out_t: str, a_t: str, b_t: str, bias_t: str | None, m: int, k: int, n: int):
    """The kernel's chain on tilesim: returns (stored C, golden C, C's dtype)."""
    align = 32 if pto.get_dtype(a_t).size == 1 else 16
    M, K, N = _up(m, align), _up(k, align), _up(n, align)
    a_mat = tile(a_t, (M, K), (m, k), loc="mat", blayout="col_major", slayout="row_major")
    b_mat = tile(b_t, (K, N), (k, n), loc="mat", blayout="col_major", slayout="row_major")
    pto.tload(a_mat, case.read("x1_gm.bin", a_t, m, k).view(a_mat.dtype.np), target="cpu")
    pto.tload(b_mat, case.read("x2_gm.bin", b_t, k, n).view(b_mat.dtype.np), target="cpu")
    left = tile(a_t, (M, K), (m, k), loc="left", blayout=pto.get_target("cpu").left_blayout or "row_major",
                slayout="row_major")
    right = tile(b_t, (K, N), (k, n), loc="right", blayout="row_major", slayout="col_major")
    acc = tile(out_t, (M, N), (m, n), loc="acc", blayout="col_major", slayout="row_major", fractal=1024)
    pto.tmov(left, a_mat, target="cpu")
    pto.tmov(right, b_mat, target="cpu")
    if bias_t is None:
        pto.tmatmul(acc, left, right, target="cpu")
    else:
        bias = tile(bias_t, (1, N), (1, n), loc="bias")
        pto.tload(bias, case.read("bias_gm.bin", bias_t, 1, n).view(bias.dtype.np), target="cpu")
        pto.tmatmul_bias(acc, left, right, bias, target="cpu")
    out = pto.tstore(np.zeros((m, n), acc.dtype.np), acc, target="cpu")
    return out.view(acc.dtype.lane), case.read("golden.bin", out_t, m, n), out_t


def split_k(case, out_t: str, a_t: str, b_t: str, m: int, k: int, n: int, repeats: int):
    """``RunTMATMUL_SPLIT_K``: ``repeats`` A and B blocks one after another in the files, TMATMUL of the first
    and TMATMUL_ACC of the others into one Acc tile; returns (stored C, golden C, C's dtype)."""
    a_all, b_all = case.read("x1_gm.bin", a_t, repeats * m, k), case.read("x2_gm.bin", b_t, repeats * k, n)
    acc = tile(out_t, (m, n), loc="acc", blayout="col_major", slayout="row_major", fractal=1024)
    for i in range(repeats):
        a_mat = tile(a_t, (m, k), loc="mat", blayout="col_major", slayout="row_major")
        b_mat = tile(b_t, (k, n), loc="mat", blayout="col_major", slayout="row_major")
        pto.tload(a_mat, a_all[i * m:(i + 1) * m].view(a_mat.dtype.np), target="cpu")
        pto.tload(b_mat, b_all[i * k:(i + 1) * k].view(b_mat.dtype.np), target="cpu")
        left = tile(a_t, (m, k), loc="left", blayout=pto.get_target("cpu").left_blayout or "row_major",
                    slayout="row_major")
        right = tile(b_t, (k, n), loc="right", blayout="row_major", slayout="col_major")
        pto.tmov(left, a_mat, target="cpu")
        pto.tmov(right, b_mat, target="cpu")
        if i == 0:
            pto.tmatmul(acc, left, right, target="cpu")
        else:
            pto.tmatmul_acc(acc, acc, left, right, target="cpu")
    out = pto.tstore(np.zeros((m, n), acc.dtype.np), acc, target="cpu")
    return out.view(acc.dtype.lane), case.read("golden.bin", out_t, m, n), out_t


def run_tmatmul(folder: Path, st: Path, verbose: bool) -> Row:
    """``tmatmul_test<T, U, S, key>(M, K, N)`` / ``tmatmul_bias_test<T, U, S, B, key>``: the kernel's
    ``RunTMATMUL<out, A, B, bias, M, K, N, isBias>`` for that key (its M == 1 form calls TGEMV/TGEMV_BIAS);
    a TEST_F that calls ``LaunchTMATMUL<key>`` itself runs the kernel's ``RunTMATMUL_SPLIT_K`` for the key."""
    row = Row(folder.name)
    keys = kernel_keys(folder)

    def run_of(case):
        fn, args = case.calls[0]
        launcher = {"tmatmul_bias_test": "LaunchTMATMULBIAS", "tmatmul_test": "LaunchTMATMUL"}.get(fn, fn)
        return keys.get((launcher, int(args[-1]))) if args[-1].isdigit() else None

    def form(case):
        run = run_of(case)
        if run is None or (run[0], len(run[1])) not in (("RunTMATMUL", 8), ("RunTMATMUL_SPLIT_K", 6)):
            return "no RunTMATMUL for the key in the kernel"
        if case.dir is None:
            return "gen_data.py made no data"
        return "its M == 1 kernel calls TGEMV/TGEMV_BIAS (no tilesim op)" if run[1][4:5] == ["1"] else None

    for case in each_case(folder, st, row, form, exempt=lambda c: c.calls[0][0] == "LaunchTMATMUL"):
        with refusals(row, case):
            fn, args, last = run_of(case)
            types = [CXX_DTYPES[t] for t in args[:4] if t in CXX_DTYPES]
            if fn == "RunTMATMUL_SPLIT_K":
                score(row, case, verbose, split_k(case, *types[:3], *(int(v) for v in args[3:]), int(last)))
            else:
                bias_t = types[3] if args[7] == "true" else None
                score(row, case, verbose, matmul(case, *types[:3], bias_t, *(int(v) for v in args[4:7])))
    return row


ADAPTERS = {"tmatmul": run_tmatmul}
