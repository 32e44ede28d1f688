"""TMATMUL's folder: TLOAD of A and B into Nz mat tiles, TMOV to Left and Right, TMATMUL (or TMATMUL_BIAS with a
bias row), TSTORE of the Acc tile; the types and sizes come from the kernel's ``RunTMATMUL`` of each key."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.pto.dtypes import PACKED

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


def loaded_operands(case, acc_t: str, a_t: str, b_t: str, m: int, k: int, n: int, m_align: int | None = None):
    """The kernels' prelude: A and B TLOADed from ``x1_gm.bin``/``x2_gm.bin`` into Nz mat tiles and TMOVed to Left
    and Right, and the Acc tile they feed; sizes rounded up to 32 elements (1-byte inputs) or 16, M to ``m_align``
    where the kernel says so. Returns (left, right, acc)."""
    align = 32 if pto.get_dtype(a_t).size == 1 else 16
    M, K, N = _up(m, m_align or align), _up(k, align), _up(n, align)
    a_mat = tile(a_t, (M, K), (m, k), loc="mat", blayout="col_major", slayout="row_major")
    b_mat = tile(b_t, (K, N), (k, n), loc="mat", blayout="col_major", slayout="row_major")
    pto.tload(a_mat, case.read("x1_gm.bin", a_t, m, k).view(a_mat.dtype.np), target="cpu")
    pto.tload(b_mat, case.read("x2_gm.bin", b_t, k, n).view(b_mat.dtype.np), target="cpu")
    left = tile(a_t, (M, K), (m, k), loc="left", blayout=pto.get_target("cpu").left_blayout or "row_major",
                slayout="row_major")
    right = tile(b_t, (K, N), (k, n), loc="right", blayout="row_major", slayout="col_major")
    acc = tile(acc_t, (M, N), (m, n), loc="acc", blayout="col_major", slayout="row_major", fractal=1024)
    pto.tmov(left, a_mat, target="cpu")
    pto.tmov(right, b_mat, target="cpu")
    return left, right, acc


def matmul(case, out_t: str, a_t: str, b_t: str, bias_t: str | None, m: int, k: int, n: int):
    """The kernel's chain on tilesim (TGEMV/TGEMV_BIAS where m == 1): returns (stored C, golden C, C's dtype)."""
    left, right, acc = loaded_operands(case, out_t, a_t, b_t, m, k, n)
    N = acc.cols
    gemv = "tgemv" if m == 1 else "tmatmul"
    if bias_t is None:
        getattr(pto, gemv)(acc, left, right, target="cpu")
    else:
        bias = tile(bias_t, (1, N), (1, n), loc="bias")
        pto.tload(bias, case.read("bias_gm.bin", bias_t, 1, n).view(bias.dtype.np), target="cpu")
        getattr(pto, f"{gemv}_bias")(acc, left, right, bias, target="cpu")
    out = pto.tstore(np.zeros((m, n), acc.dtype.np), acc, target="cpu")
    return out.view(acc.dtype.lane), case.read("golden.bin", out_t, m, n), out_t


def split_k(case, out_t: str, a_t: str, b_t: str, m: int, k: int, n: int, repeats: int):
    """``RunTMATMUL_SPLIT_K``: ``repeats`` A and B blocks one after another in the files, TMATMUL of the first
    and TMATMUL_ACC of the others into one Acc tile (TGEMV and TGEMV_ACC where m == 1); returns (stored C,
    golden C, C's dtype)."""
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
        gemv = "tgemv" if m == 1 else "tmatmul"
        if i == 0:
            getattr(pto, gemv)(acc, left, right, target="cpu")
        else:
            getattr(pto, f"{gemv}_acc")(acc, acc, left, right, target="cpu")
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
        return "gen_data.py made no data" if case.dir is None else None

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


#: the MX element and scale types by their C++ names
MX_TYPES = {pto.get_dtype(n).cxx: n for n in ("f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "f4e1m2")}


def mx_scales(case, m: int, groups: int, n: int, a_fmt: str = "zz", b_fmt: str = "nn"):
    """The logical scale matrices (m x groups for A, groups x n for B) from gen_data.py's files: A's in 16 x 2
    blocks row by row (its ``zz`` format, m a multiple of 16) or as they are (``nd``); B's in 2 x 16 blocks
    transposed (``nn``, n rounded to 16), in pairs along K (``nd``) or transposed (``dn``)."""
    n16 = -(-n // 16) * 16 if b_fmt == "nn" else n
    a = np.fromfile(case.dir / "x1_mx_gm.bin", np.uint8, m * groups)
    b = np.fromfile(case.dir / "x2_mx_gm.bin", np.uint8, groups * n16)
    a = a.reshape(m, groups) if a_fmt == "nd" else \
        a.reshape(m // 16, groups // 2, 16, 2).transpose(0, 2, 1, 3).reshape(m, groups)
    b = {"nn": lambda: b.reshape(n16 // 16, groups // 2, 16, 2).transpose(1, 3, 0, 2),
         "nd": lambda: b.reshape(groups // 2, n, 2).transpose(0, 2, 1),
         "dn": lambda: b.reshape(n, groups).T}[b_fmt]()
    return a, b.reshape(groups, n16)


def matmul_mx(case, a_t: str, b_t: str, vm: int, vk: int, vn: int, bias: bool, base_k: int | None = None,
              gemv: bool = False, scales: tuple[str, str] = ("zz", "nn")):
    """``RunTMATMULMX``'s chain on tilesim: A and B through Nz mat tiles to Left and Right, the E8M0 scales
    to ScaleLeft (Zz) and ScaleRight (Nn) tiles, TMATMUL_MX (with a bias row), TSTORE; (stored, golden, f32).
    ``RunTMATMULMX_SPLIT_K`` (``base_k``): the same over each base_k slice of K, TMATMUL_MX for the first
    (with the bias) and its accumulating form for the others. fp4 A and B (``isFp4``) come packed two codes a
    byte, as gen_data.py writes them and TLOAD reads them; N is then rounded to 64. ``gemv``: ``RunTGEMVMX``
    (and its split-K form, BASEK = 1024), the same chain with TGEMV_MX's forms and the files' scale formats
    (TGEMV_MX's arithmetic is TMATMUL_MX's; its compact tiles and row-major A hold the same values)."""
    w = 2 if a_t in PACKED else 1                   # codes a byte
    M, K, N = _up(vm, 16), _up(vk, 64), _up(vn, 32 * w)
    G = K // 32
    a_all, b_all = case.read("x1_gm.bin", "u8", vm, vk // w), case.read("x2_gm.bin", "u8", vk, vn // w)
    sa, sb = (None, None) if scales == "load" else mx_scales(case, vm if scales[0] == "nd" else M, G, vn, *scales)
    name = "tgemv_mx" if gemv else "tmatmul_mx"
    acc = tile("f32", (M, N), (vm, vn), loc="acc", blayout="col_major", slayout="row_major", fractal=1024)
    step = base_k or K
    for i, k0 in enumerate(range(0, K, step)):
        kv, g0, gs = min(step, vk - k0), k0 // 32, step // 32
        a_mat = tile(a_t, (M, step), (vm, kv), loc="mat", blayout="col_major", slayout="row_major")
        b_mat = tile(b_t, (step, N), (kv, vn), loc="mat", blayout="col_major", slayout="row_major")
        a_gm, b_gm = a_all[:, k0 // w:(k0 + kv) // w], b_all[k0:k0 + kv]
        pto.tload(a_mat, a_gm if w == 2 else a_gm.view(a_mat.dtype.np), target="cpu")
        pto.tload(b_mat, b_gm if w == 2 else b_gm.view(b_mat.dtype.np), target="cpu")
        left = tile(a_t, (M, step), (vm, kv), loc="left", blayout="col_major", slayout="row_major")   # TileLeft
        right = tile(b_t, (step, N), (kv, vn), loc="right", blayout="row_major", slayout="col_major")
        pto.tmov(left, a_mat, target="cpu")
        pto.tmov(right, b_mat, target="cpu")
        if scales == "load":
            a_scale, b_scale = loaded_scales(case, vm, vk, vn, M, N, step, g0)
        else:
            a_scale = tile("f8e8m0", (M, gs), (vm, gs), sa[:, g0:g0 + gs], loc="scaling", blayout="row_major",
                           slayout="row_major", fractal=32)
            b_scale = tile("f8e8m0", (gs, N), (gs, vn), sb[g0:g0 + gs], loc="scaling", blayout="col_major",
                           slayout="col_major", fractal=32)
        if i:
            getattr(pto, f"{name}_acc")(acc, acc, left, a_scale, right, b_scale, target="cpu")
        elif bias:
            row = tile("f32", (1, N), (1, vn), case.read("bias_gm.bin", "f32", 1, vn), loc="bias")
            getattr(pto, f"{name}_bias")(acc, left, a_scale, right, b_scale, row, target="cpu")
        else:
            getattr(pto, name)(acc, left, a_scale, right, b_scale, target="cpu")
    out = pto.tstore(np.zeros((vm, vn), np.float32), acc, target="cpu")
    return out.view(np.uint32), case.read("golden.bin", "f32", vm, vn), "f32"


def loaded_scales(case, vm: int, vk: int, vn: int, M: int, N: int, step: int, g0: int):
    """tmatmul_mx_nddn's scale tiles for the K slice from group ``g0`` (``step`` columns of A): TLOAD of the
    slice of the plain ND files (A's ``vm x ceil(vk / 32)``, B's ``ceil(vk / 32) x vn``) into Zz (A) and Nn (B)
    mat tiles whose valid shape is the slice's, then TMOV to the ScaleLeft / ScaleRight tiles, valid over the
    whole slice (``step / 32`` groups) as the kernel declares them; the groups past the data are never read."""
    groups, gs = -(-vk // 32), step // 32
    gv = min(gs, groups - g0)
    a_gm = case.read("x1_mx_gm.bin", "f8e8m0", vm, groups)[:, g0:g0 + gv]
    b_gm = case.read("x2_mx_gm.bin", "f8e8m0", groups, vn)[g0:g0 + gv]
    kw_a, kw_b = dict(blayout="row_major", slayout="row_major", fractal=32), \
        dict(blayout="col_major", slayout="col_major", fractal=32)
    a_mat = pto.tload(tile("f8e8m0", (M, gs), (vm, gv), loc="mat", **kw_a), a_gm, target="cpu")
    b_mat = pto.tload(tile("f8e8m0", (step, N), (gv, vn), loc="mat", **kw_b), b_gm, target="cpu")
    a_scale = pto.tmov(tile("f8e8m0", (M, gs), (vm, gs), loc="scaling", **kw_a), a_mat, target="cpu")
    b_scale = pto.tmov(tile("f8e8m0", (gs, N), (gs, vn), loc="scaling", **kw_b), b_mat, target="cpu")
    return a_scale, b_scale


def _mx_run(fn: str, a: list[str]):
    """A kernel run function's template arguments as :func:`matmul_mx`'s: (A, B, (M, K, N), bias, base_k,
    gemv, scale formats)."""
    if fn == "RunTGEMVMX":                          # <format, f32, A, B, E8M0, M, K, N, isFp4>, no bias
        return a[2], a[3], a[5:8], False, None, True, ("nd", ("nn", "nd", "dn")[int(a[0])])
    if fn == "RunTGEMVMX_SPLIT_K":                  # <f32, A, B, E8M0, bias, M, K, N, isFp4>, with its bias
        return a[1], a[2], a[5:8], True, 1024, True, ("nd", "nn")
    return a[1], a[2], a[5:8], a[8] == "true", 64 if fn.endswith("SPLIT_K") else None, False, ("zz", "nn")


def run_tmatmul_mx(folder: Path, st: Path, verbose: bool, load_scales: bool = False) -> Row:
    """``TmatmulMXTest<T, U, S, isBias, isFp4, key>(...)``: the kernel's ``RunTMATMULMX<f32, A, B, E8M0, bias,
    M, K, N, isBias, isFp4>`` (or its split-K form, BASEK = 64) for the key of ``LaunchTMATMUL_MX[_BIAS]``,
    or its ``RunTGEMVMX`` / ``RunTGEMVMX_SPLIT_K`` (see :func:`_mx_run`). ``load_scales``: the kernels TLOAD
    the scales from plain ND files (:func:`loaded_scales`) instead of the MX_* layouts."""
    row = Row(folder.name)
    keys = kernel_keys(folder)

    def run_of(case):
        a = case.args
        launcher = "LaunchTMATMUL_MX_BIAS" if a[3:4] == ["true"] else "LaunchTMATMUL_MX"
        return keys.get((launcher, int(a[-1]))) if len(a) == 6 and a[-1].isdigit() else None

    def form(case):
        run = run_of(case)
        if run is None or run[0] not in ("RunTMATMULMX", "RunTMATMULMX_SPLIT_K", "RunTGEMVMX", "RunTGEMVMX_SPLIT_K"):
            return f"{run[0] if run else 'no run function'}: not a kernel the adapter reads"
        a_t, b_t = _mx_run(*run[:2])[:2]
        return None if a_t in MX_TYPES and b_t in MX_TYPES else "an element type with no tilesim dtype"

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            a_t, b_t, mkn, bias, base_k, gemv, scales = _mx_run(*run_of(case)[:2])
            scales = "load" if load_scales else scales
            score(row, case, verbose, matmul_mx(case, MX_TYPES[a_t], MX_TYPES[b_t], *(int(v) for v in mkn), bias,
                                                base_k, gemv, scales))
    return row


def run_tmatmul_mx_nddn(folder: Path, st: Path, verbose: bool) -> Row:
    """tmatmul_mx_nddn: tmatmul_mx's kernels (the same launchers, keys and run functions) with every scale
    tensor in plain ND, TLOADed into the scale mat tiles and moved to ScaleLeft / ScaleRight by TMOV."""
    return run_tmatmul_mx(folder, st, verbose, load_scales=True)


ADAPTERS = {"tmatmul": run_tmatmul, "tmatmul_mx": run_tmatmul_mx, "tmatmul_mx_nddn": run_tmatmul_mx_nddn}
