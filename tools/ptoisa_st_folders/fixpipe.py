"""Folders of the fixpipe's quantising forms: TSTORE from acc and vec tiles with ReLU and pre-quant words
(tstore_quant, tstore_acc2gm), TEXTRACT and TINSERT with quantisation (textract_quant, tinsert_quant)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto

import tempfile

from ptoisa_st import CXX_DTYPES, Case, Row, _int, count_tests, each_case, eps_of, generate, refusals, score


def _global_block(whole: np.ndarray, g: list[int], w: list[int], col_major: bool) -> tuple:
    """The ``g`` block at the origin of a 5-D global tensor of shape ``w`` (flat ``whole``), as the 2-D tile a
    TLOAD gives (ND: rows g0*g1*g2*g3 x cols g4; DN, dim 3 contiguous: rows g3 x cols g0*g1*g2*g4), and the index
    that puts such a tile back (a TSTORE)."""
    if not col_major:
        idx = np.ix_(range(g[0]), range(g[1]), range(g[2]), range(g[3]), range(g[4]))
        return whole.reshape(w)[idx].reshape(-1, g[4]), lambda out, t: out.reshape(w).__setitem__(
            idx, t.reshape(g))
    shape = (w[0], w[1], w[2], w[4], w[3])
    idx = np.ix_(range(g[0]), range(g[1]), range(g[2]), range(g[4]), range(g[3]))
    return whole.reshape(shape)[idx].reshape(-1, g[3]).T, lambda out, t: out.reshape(shape).__setitem__(
        idx, t.T.reshape(g[0], g[1], g[2], g[4], g[3]))


def _store_quant_form(case) -> str | None:
    a = case.args
    ok = len(a) == 16 and a[0] in ("0", "1") and a[1] in CXX_DTYPES and a[2] in CXX_DTYPES
    return None if ok else "not the folder's form"


def run_tstore_quant(folder: Path, st: Path, verbose: bool) -> Row:
    """``<format, SrcT, DstT, gShape0..4, gWholeShape0..4, is_v_quant, saturate_inf, apply_relu>``: a vec tile of
    SrcT TLOADed from the gShape block of ``input.bin`` (format 0 ND, row-major; 1 DN, col-major), stored with
    TSTORE_FP (the quant tile: the first valid-cols (ND) or valid-rows (DN) words of ``quant.bin``) or TSTORE
    with ``quant.bin``'s first word, ReLU'd when ``apply_relu``, into a zeroed DstT global; the whole global is
    compared with ``golden.bin``. ``saturate_inf`` is a template argument the kernel does not use."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, _store_quant_form):
        with refusals(row, case):
            a = case.args
            s_dt, d_dt = pto.get_dtype(CXX_DTYPES[a[1]]), pto.get_dtype(CXX_DTYPES[a[2]])
            g, w = [_int(v) for v in a[3:8]], [_int(v) for v in a[8:13]]
            vector, relu, col_major = a[13] == "true", a[15] == "true", a[0] == "1"
            n = int(np.prod(w))
            block, put = _global_block(np.fromfile(case.dir / "input.bin", s_dt.lane, n), g, w, col_major)
            quant = np.fromfile(case.dir / "quant.bin", np.uint64)
            R, C = block.shape
            blk = 32 // s_dt.size                      # the kernel pads the tile's contiguous side to 32 bytes
            shape = (-(-R // blk) * blk, C) if col_major else (R, -(-C // blk) * blk)
            src = pto.Tile("vec", s_dt.name, *shape, valid=(R, C), blayout="col_major" if col_major else "row_major")
            src.bits[:R, :C] = block
            out = np.zeros((R, C), d_dt.np)
            if vector:
                k = R if col_major else C
                fp = pto.Tile("scaling", "u64", 1, -(-k // 4) * 4, valid=(1, k))
                fp.bits[0, :k] = quant[:k]
                pto.tstore_fp(out, src, fp, relu_pre_mode=relu, target="cpu")
            else:
                pto.tstore(out, src, int(quant[0]), relu_pre_mode=relu, target="cpu")
            got = np.zeros(n, d_dt.lane)
            put(got, out.view(d_dt.lane))
            score(row, case, verbose, (got, np.fromfile(case.dir / "golden.bin", d_dt.lane, n), d_dt.name))
    return row


_ACC2GM = re.compile(r"tilingKey\s*==\s*(\d+)\)\s*\{\s*(TStoreAcc2gm\w*)<([^>]*)>")
#: main.cpp's test function -> the kernel function its launcher calls
_ACC2GM_KERNEL = {"test_tstore_acc2gm_nz2nd": "TStoreAcc2gmNz2nd",
                  "test_tstore_acc2gm_scalar_nz2nd": "TStoreAcc2gmScalarNz2nd"}


def run_tstore_acc2gm(folder: Path, st: Path, verbose: bool) -> Row:
    """main.cpp's ``<tilingKey, ...>`` picks the kernel's ``TStoreAcc2gm[Scalar]Nz2nd<atomic, AccT, DstT, SrcT,
    gShape0..4, gWholeShape0..4, M, N, K[, reluMode]>``: TMATMUL of ``x1_gm.bin`` (M x K) by ``x2_gm.bin``
    (K x N) into an acc tile, then TSTORE to an M x N DstT global (atomic add onto zeros where ``atomic``), with
    ReLU where ``reluMode`` and, for the scalar form, main's float argument as the quant word (its bits; bit 46
    set for int8_t and cleared for another one-byte DstT, as the kernel does); compared as main.cpp's
    ``ResultCmp<dstDataType>`` (uint16_t for a half output)."""
    row = Row(folder.name)
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    forms = {(fn, int(key)): [a.strip() for a in targs.split(",")] for key, fn, targs in _ACC2GM.findall(kernel)}
    main = (folder / "main.cpp").read_text()

    def form(case):
        f = forms.get((_ACC2GM_KERNEL.get(case.calls[0][0]), _int(case.args[0])))
        return None if f and len(f) >= 17 and all(t in CXX_DTYPES for t in f[1:4]) else "no kernel branch"

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            f = forms[(_ACC2GM_KERNEL[case.calls[0][0]], _int(case.args[0]))]
            acc_dt, dst_dt, src_dt = (pto.get_dtype(CXX_DTYPES[t]) for t in f[1:4])
            M, N, K = (_int(v) for v in f[14:17])
            relu = len(f) > 17 and _int(f[17]) == 1
            up = lambda v: -(-v // 16) * 16  # noqa: E731
            lb = pto.get_target("cpu").left_blayout or "row_major"
            a = pto.Tile("left", src_dt.name, up(M), up(K), valid=(M, K), blayout=lb, slayout="row_major")
            b = pto.Tile("right", src_dt.name, up(K), up(N), valid=(K, N), blayout="row_major", slayout="col_major")
            c = pto.Tile("acc", acc_dt.name, up(M), up(N), valid=(M, N), blayout="col_major", slayout="row_major",
                         fractal=1024)
            a.bits[:M, :K] = case.read("x1_gm.bin", src_dt.name, M, K)
            b.bits[:K, :N] = case.read("x2_gm.bin", src_dt.name, K, N)
            out = np.zeros((M, N), dst_dt.np)
            arg = re.search(rf"\b{case.name}\)\s*\{{[^}}]*>\(([^)]*)\)", main)
            word = None
            if arg and arg.group(1).strip():
                word = int(np.float32(float(arg.group(1))).view(np.int32))
                if dst_dt.size == 1:
                    word = word & ~(1 << 46) | (int(dst_dt.name == "i8") << 46)
            pto.tmatmul(c, a, b, target="cpu")
            pto.tstore(out, c, word, relu_pre_mode=relu, atomic="add" if _int(f[0]) == 1 else "none", target="cpu")
            cmp_dt = CXX_DTYPES[case.args[1]]
            lanes = out.view(dst_dt.lane).view(pto.get_dtype(cmp_dt).lane)
            score(row, case, verbose, (lanes, case.read("golden.bin", cmp_dt, M, N), cmp_dt))
    return row


_PARAMS = re.compile(r"template\s*<([^>]*)>\s*struct\s+Params\b")
_PARAMS_USE = re.compile(r"TEST_F\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{\s*\w+<Params<([^<>]*)>>\(\)\s*;\s*\}")
_WINDOW_PARAMS = ("src_rows", "src_cols", "src_validRows", "src_validCols", "dst_rows", "dst_cols",
                  "dst_validRows", "dst_validCols", "idx_row", "idx_col")


def run_window_quant(folder: Path, st: Path, verbose: bool) -> Row:
    """``Params<ST, DT, ...10 sizes..., is_v_quant, apply_relu[, apply_saturation]>`` (the struct's own order of
    the src and dst sizes, read from main.cpp): row-major mat tiles, src TLOADed from ``input.bin``;
    TEXTRACT/TINSERT with ``quant.bin``'s first word as the scalar, or their _FP forms with the file's words as
    the fp tile; the saturation flag is the control register's saturate bit (the task cookie's bit 48,
    ``Profile.quant_saturate_inf``, PTO151). TEXTRACT: dst's valid region against ``golden.bin``; TINSERT:
    dst's valid region stored row-major, read back as main.cpp does (row stride dstCols)."""
    row = Row(folder.name)
    insert = folder.name.startswith("tinsert")
    main = (folder / "main.cpp").read_text()
    decl = _PARAMS.search(main)
    names = [p.split()[-1].split("=")[0] for p in decl.group(1).split(",")] if decl else []
    params = {name: [a.strip() for a in args.split(",")] for name, args in _PARAMS_USE.findall(main)}
    row.cases = count_tests(main)
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:   # Params<...> is no _CALL
        dirs = generate(folder, st, Path(tmp), row)
        for suite, name in re.findall(r"TEST_F\(\s*(\w+)\s*,\s*(\w+)\s*\)", main):
            a = params.get(name)
            if not (names and a and len(a) in (14, 15) and a[0] in CXX_DTYPES and a[1] in CXX_DTYPES
                    and f"{suite}.{name}" in dirs):
                row.not_mapped += 1
                row.reasons.append(f"{name}: not the folder's Params form, or no data")
                continue
            case = Case(name, [("Params", a)], dirs[f"{suite}.{name}"], eps_of(main, a[1]), CXX_DTYPES[a[0]])
            _window_case(row, case, a, names, insert, verbose)
    return row


def _window_case(row: Row, case, a: list[str], names: list[str], insert: bool, verbose: bool) -> None:
    """One TEXTRACT/TINSERT quant case of ``Params`` arguments ``a`` (names: the struct's parameters)."""
    with refusals(row, case):
        s_dt, d_dt = (pto.get_dtype(CXX_DTYPES[t]) for t in a[:2])
        v = dict(zip(names[2:12], (_int(x) for x in a[2:12])))
        sR, sC, svR, svC, dR, dC, dvR, dvC, r0, c0 = (v[k] for k in _WINDOW_PARAMS)
        vector, relu = a[12] == "true", a[13] == "true"
        prof = pto.get_target("cpu").with_(quant_saturate_inf=len(a) == 15 and a[14] == "true")
        sl = "row_major" if vector else "none_box"
        src = pto.Tile("mat", s_dt.name, sR, sC, valid=(svR, svC), blayout="row_major", slayout=sl,
                       fractal=512)
        dst = pto.Tile("mat", d_dt.name, dR, dC, valid=(dvR, dvC), blayout="row_major", slayout=sl,
                       fractal=512)
        src.bits[:svR, :svC] = case.read("input.bin", s_dt.name, svR, svC)
        quant = np.fromfile(case.dir / "quant.bin", np.uint64)
        fn = getattr(pto, ("tinsert" if insert else "textract") + ("_fp" if vector else ""))
        if vector:
            q = pto.Tile("scaling", "u64", 1, -(-quant.size // 4) * 4, valid=(1, quant.size))
            q.bits[0, :quant.size] = quant
            fn(dst, src, q, r0, c0, relu_pre_mode=relu, target=prof)
        else:
            fn(dst, src, r0, c0, int(quant[0]), relu_pre_mode=relu, target=prof)
        got = dst.valid_bits.ravel()
        if insert:   # tile[i, j] = dstHost[(i + idxRow) * dstCols + j + idxCol] of the dvR x dvC store
            at = (np.arange(svR)[:, None] + r0) * dC + np.arange(svC)[None, :] + c0
            got = got[np.minimum(at, got.size - 1)].ravel()
        want = np.fromfile(case.dir / "golden.bin", d_dt.lane, got.size)
        score(row, case, verbose, (got, want, d_dt.name))


ADAPTERS = {"tstore_quant": run_tstore_quant, "tstore_acc2gm": run_tstore_acc2gm,
            "textract_quant": run_window_quant, "tinsert_quant": run_window_quant}
