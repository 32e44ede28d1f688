"""TQUANT's and TQUANT_DN's self-checking gtests (tquant, tquant_dn): main.cpp builds each source tile from
formulas (no RNG, no gen_data.py) and checks the outputs against the simulator's own helper functions. Each test
is recognised by the call in its body; its source is rebuilt here from the same formulas, run through
``pto.tquant`` / ``pto.tquant_mx`` (TQUANT_DN: ``grp_axis=0``), and checked as its loops check, with those
helpers restated from their stated rules (include/pto/cpu/TQuant.hpp at 3186c381):

- group max: f32 abs max skipping NaNs (MXFP8, main.cpp's own loop); MXFP4 NV the same but a NaN element is
  returned; MXFP4 OCP the max of the truncated-bf16 magnitude bits;
- shared exponent: OCP the max's biased exponent - 8 (FP8) or - 2 (FP4), 0 at or below that, 0xFF for a NaN;
  NV ``max * (1/448 or 1/6)`` in f32 rounded up to a power of two (exponent + 1 if any mantissa bit, except at
  0xFE and for subnormals up to half the range), 0xFE for infinity, 0 for a zero max;
- scaling: ``2^(127 - e)`` in f32 (2^-127 where that is 0, and NV's 0xFE), the max itself for e = 0xFF;
- E4M3: the nearest of the 254 non-NaN codes to the value clipped to +-448 (f32 distances, ties to the even
  code, then the lower), NaN 0x7F; NV: |v| < 2^-10 gives a zero of v's sign;
- E2M1: round to nearest even on the E2M1 grid, saturating at 6, infinity sign|7, NaN 0x7; a bf16 source's
  product rounded to bf16 (RNE) first.

tquant_dn's byte check compares each byte with itself (``EXPECT_EQ(actual, actual)``), so its tests check the
exponents, maxes and scalings only; so does the restatement.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.pto.ops import quant_mx

from ptoisa_st import CXX_DTYPES, Row

from .selfcheck import float_eq, run_selfcheck

F32 = np.float32
_GROUP = 32


def _f32(bits) -> np.ndarray:
    return np.asarray(bits, np.uint64).astype(np.uint32).view(F32)


def _bits(x) -> np.ndarray:
    return np.asarray(x, F32).view(np.uint32).astype(np.int64)


def _src(dt: str, x: np.ndarray) -> pto.Tile:
    """A vec tile of ``x``'s shape holding ``x`` (float64 numbers) rounded once to dt, as static_cast does
    (numpy's casts to f32 and f16 round once; ml_dtypes' bf16 goes through f32, so bf16 takes Tile.fill's)."""
    t = pto.Tile("vec", dt, *x.shape)
    if dt == "bf16":
        t.fill(np.asarray(x, np.float64))
    else:
        t.values[...] = np.asarray(x, np.float64).astype(t.values.dtype)
    return t


def _f32_values(t: pto.Tile) -> np.ndarray:
    """``static_cast<float>`` of every element (f16 and bf16 widen exactly)."""
    return np.asarray(t.values, np.float64).astype(F32)


# ---- the tests' source formulas ---------------------------------------------------------------------------

_SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 65504.0, -65504.0, 6.0, -6.0, 4.0, -4.0, 1.5, -1.5, 0.5,
            -0.5, 0.25]
_ROUNDING = [v for a in (4.0, 3.75, 3.5, 3.0, 2.5, 2.25, 2.0, 1.75, 1.5, 1.25, 1.0, 0.75, 0.5, 0.375, 0.25, 0.125)
             for v in (a, -a)]


def _exp_random(i: np.ndarray, seed: int) -> np.ndarray:
    """MakeMxFp4ExpRandomValue: +-(1 + k/1024) * 2^e, e in -24..15 (exact in f32)."""
    e = -24 + (i * 13 + seed * 17) % 40
    mant = 1.0 + ((i * 29 + seed * 11) % 1024) / 1024.0
    return np.where((i + seed) % 5 < 2, -1.0, 1.0) * np.ldexp(mant, e)


def _subnormal(i: np.ndarray) -> np.ndarray:
    """MakeMxFp4SubnormalValue: +-k * 2^-24, k = i % 1023 + 1, negative for odd i."""
    v = np.ldexp((i % 1023 + 1).astype(np.float64), -24)
    return np.where(i & 1, -v, v)


_FP4_CASES = {
    "Special": lambda i: np.array(_SPECIAL)[i % len(_SPECIAL)],
    "Subnormal": _subnormal,
    "Rounding": lambda i: np.array(_ROUNDING)[i % len(_ROUNDING)],
    "ExpRandomA": lambda i: _exp_random(i, 3),
    "ExpRandomB": lambda i: _exp_random(i, 41),
    "Mixed": lambda i: np.choose((i // 32) % 4, [np.array(_SPECIAL)[i % 16], _subnormal(i),
                                                 np.array(_ROUNDING)[i % 32], _exp_random(i, 71)]),
}


def _fp8_boundary(rows: int, cols: int) -> np.ndarray:
    """FillMxFp8BoundarySource: the 16-value boundary pattern along each group; row 0's first group zeros, group
    1 alternating 448 and 448.25 (448.25f through aclFloat16), group 2 896 and 896.5."""
    nxt = np.nextafter
    pattern = np.array([0.0, -0.0, 2.0 ** -149, -2.0 ** -149, 2.0 ** -130, -2.0 ** -130,
                        nxt(F32(448), F32(0)), -nxt(F32(448), F32(0)), 448.0, -448.0, nxt(F32(448), F32(np.inf)),
                        -nxt(F32(448), F32(-np.inf)), 896.0, nxt(F32(896), F32(np.inf)), np.inf, np.nan])
    inner = np.arange(cols) % _GROUP
    group = np.arange(cols) // _GROUP
    x = np.broadcast_to(pattern[inner % 16], (rows, cols)).copy()
    x[:, group == 1] = np.where(inner[group == 1] % 2, 448.25, 448.0)
    x[:, group == 2] = np.where(inner[group == 2] % 2, 896.5, 896.0)
    x[0, group == 0] = 0.0
    return x


def _fp8_exact(dt: str, rows: int = 16, cols: int = 32) -> np.ndarray:
    """TestFP8ExactMatch's source: pow(flat / numel, 10) (double) times the type's max or lowest by parity of
    r + c; then (1, 0) = 0x04600001's float, (2, 0) = nextafter(448, inf), (3, 0) = -896 (all cast to dt)."""
    top = {"f32": float(np.finfo(F32).max), "f16": 65504.0, "bf16": float(_f32(0x7F7F0000))}[dt]
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    frac = np.array([math.pow(v, 10) for v in ((r * cols + c) / (rows * cols)).ravel()]).reshape(rows, cols)
    x = frac * np.where((r + c) % 2, top, -top)
    x[1, 0], x[2, 0], x[3, 0] = float(_f32(0x04600001)), float(np.nextafter(F32(448), F32(np.inf))), -896.0
    return x


# ---- the helpers the checks call, restated -------------------------------------------------------------------

def _group_max(v: np.ndarray, kind: str, alg: str) -> np.ndarray:
    """Per group (last axis): see the module docstring."""
    if kind == "fp4" and alg == "ocp":
        return _f32((((_bits(v) >> 16) & 0x7FFF).max(axis=-1)) << 16)
    m = np.zeros(v.shape[:-1], F32)
    for j in range(v.shape[-1]):                     # std::max(m, |x|) keeps m when |x| is NaN
        a = np.abs(v[..., j])
        m = np.where(a > m, a, m)
    if kind == "fp4":
        nan = np.isnan(v)
        first = np.take_along_axis(v, nan.argmax(axis=-1)[..., None], -1)[..., 0]
        m = np.where(nan.any(axis=-1), first, m)
    return m


def _shared_exp(m: np.ndarray, kind: str, alg: str) -> np.ndarray:
    if alg == "nv":
        with np.errstate(over="ignore"):
            d = _bits(np.asarray(m, F32) * (F32(1) / F32(448 if kind == "fp8" else 6)))
        ex, man = (d >> 23) & 0xFF, d & 0x7FFFFF
        up = (man > 0) & (ex != 0xFE) & ~((ex == 0) & (man <= 0x400000))
        e = np.where(ex == 0xFF, np.where(man == 0, 0xFE, 0xFF), ex + up)
        return np.where(np.asarray(m) == 0, 0, e)
    b = _bits(m)
    ex, man = (b >> 23) & 0xFF, b & 0x7FFFFF
    k = 8 if kind == "fp8" else 2
    return np.where((ex == 0xFF) & (man != 0), 0xFF, np.where(ex <= k, 0, ex - k))


def _scaling(m: np.ndarray, e: np.ndarray) -> np.ndarray:
    s = np.ldexp(1.0, 127 - np.asarray(e)).astype(F32)   # 2^(127 - e): e = 254 (NV's 0xFE too) gives 2^-127
    return np.where(np.asarray(e) == 0xFF, m, s).astype(F32)


_E4M3_CODES = np.array([c for c in range(256) if c & 0x7F != 0x7F])


def _e4m3_value(code: np.ndarray) -> np.ndarray:
    sign = np.where(code & 0x80, -1.0, 1.0)
    e, m = (code >> 3) & 0xF, code & 7
    return (sign * np.where(e == 0, m * 2.0 ** -9, (1 + m / 8) * 2.0 ** (e - 7))).astype(F32)


def _nearest(dist: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per row of ``dist`` (distances to ``codes``), the code at the least distance, ties to the even code, then
    the lower."""
    tie = np.where(dist == dist.min(axis=-1, keepdims=True), codes % 2 * 256 + codes, 1 << 20)
    return codes[tie.argmin(axis=-1)]


def _e4m3(x: np.ndarray, alg: str) -> np.ndarray:
    """The test's search over the codes, f32 distances, ties to the even code then the lower."""
    x = np.asarray(x, F32)
    clipped = np.clip(np.nan_to_num(x), F32(-448), F32(448))
    codes = _nearest(np.abs(_e4m3_value(_E4M3_CODES)[None, :] - clipped.reshape(-1, 1)), _E4M3_CODES)
    codes = codes.reshape(x.shape)
    if alg == "nv":
        codes = np.where(np.abs(x) < F32(2.0 ** -10), np.where(np.signbit(x), 0x80, 0), codes)
    return np.where(np.isnan(x), 0x7F, codes)


_E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def _e2m1(x: np.ndarray) -> np.ndarray:
    """Nearest of the 8 magnitudes (ties to the even code), the sign bit from x's f32 sign."""
    x = np.asarray(x, F32)
    a = np.minimum(np.abs(np.nan_to_num(x, posinf=6.0, neginf=6.0)).astype(np.float64), 6.0)
    mag = _nearest(np.abs(_E2M1[None, :] - a.reshape(-1, 1)), np.arange(8)).reshape(x.shape)
    return np.where(np.isnan(x), 7, np.where(np.signbit(x), 8, 0) | mag)


def _bf16_rne(x: np.ndarray) -> np.ndarray:
    b = _bits(x)
    return _f32((((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFFFFFF) >> 16) << 16)


# ---- the tests ---------------------------------------------------------------------------------------------

def _mx(kind: str, alg: str, src: pto.Tile, axis: int = 1, exp_shape=None, scratch: int | None = None,
        exp_zz: pto.Tile | None = None):
    """Run TQUANT's MX form; returns (dst, exp, max, scaling) tiles."""
    rows, cols = src.rows, src.cols
    groups = rows * cols // _GROUP
    dst = pto.Tile("vec", "i8" if kind == "fp8" else "f4e2m1", rows, cols)
    er, ec = exp_shape or ((rows, max(cols // _GROUP, 32)) if axis else (rows // _GROUP, cols))
    exp = pto.Tile("vec", "u8", er, ec)
    mx, sc = (pto.Tile("vec", "f32", 1, scratch or max(8, -(-groups // 8) * 8)) for _ in range(2))
    pto.tquant_mx(dst, src, exp, mx, sc, alg=f"{alg}_{kind}", grp_axis=axis, exp_zz=exp_zz, target="cpu")
    return dst, exp, mx, sc


def _check_groups(src: pto.Tile, out, kind: str, alg: str, axis: int = 1, encode=None, lines: int | None = None
                  ) -> bool:
    """Each group's exponent, max and scaling (and with ``encode`` each element's code) as the test checks them,
    for the first ``lines`` rows (ND) or columns (DN), all by default."""
    dst, exp, mx, sc = out
    x = _f32_values(src)
    v = x.reshape(x.shape[0], -1, _GROUP) if axis else x.T.reshape(x.shape[1], -1, _GROUP)
    v = v[:lines]
    m = _group_max(v, kind, alg)
    e = _shared_exp(m, kind, alg)
    s = _scaling(m, e)
    n_line, n_grp = m.shape
    got_e = exp.bits[:n_line, :n_grp] if axis else exp.bits[:n_grp, :n_line].T
    got_m, got_s = (t.storage()[: m.size].view(F32) for t in (mx, sc))
    got_m, got_s = (g.reshape(m.shape) if axis else g.reshape(n_grp, n_line).T for g in (got_m, got_s))
    nan = np.isnan(m), np.isnan(s)
    ok = (got_e == e).all() and (np.isnan(got_m) == nan[0]).all() and (np.isnan(got_s) == nan[1]).all()
    ok = ok and float_eq(got_m[~nan[0]], m[~nan[0]]) and float_eq(got_s[~nan[1]], s[~nan[1]])
    if encode is not None:
        with np.errstate(all="ignore"):
            want = encode(v * s[..., None]).reshape(n_line, -1)
        codes = dst.bits.astype(np.int64) & 0xFF
        ok = ok and (codes[:n_line] == want).all()
    return bool(ok)


def _int8(asym: bool) -> bool:
    """Int8Sym/Int8AsymMatchesExactReference: 4 x 32 f32 sources, per-row scale (and offset) in column 0 of
    an 8 x 1 column-major tile with 4 valid rows; dst = clamp(nearbyint(x * s [+ z])) in f32."""
    r, c = np.meshgrid(np.arange(4), np.arange(32), indexing="ij")
    if asym:
        x = (c - 11).astype(F32) * F32(0.3)
        s, z = F32(3.0) - np.arange(4).astype(F32) * F32(0.25), F32(120.0) + np.arange(4).astype(F32)
    else:
        x = ((r - 1) * 17 + c).astype(F32) * F32(0.2)
        s, z = F32(4.0) - np.arange(4).astype(F32) * F32(0.5), None
    src = pto.Tile("vec", "f32", 4, 32)
    src.values[...] = x
    para = []
    for col in (s, z)[: 1 + asym]:
        t = pto.Tile("vec", "f32", 8, 1, valid=(4, 1), blayout="col_major")
        t.values[:4, 0] = col
        para.append(t)
    dst = pto.Tile("vec", "u8" if asym else "i8", 4, 32)
    pto.tquant(dst, src, *para, quant_type="INT8_ASYM" if asym else "INT8_SYM", target="cpu")
    y = x * s[:, None]
    if asym:
        y = y + z[:, None]
    want = np.clip(np.rint(y), 0 if asym else -128, 255 if asym else 127)
    return bool((dst.values == want).all())


def _fp8_nv_rceil() -> bool:
    """MxFp8NvNdMatchesDescaleRceil: a 4 x 32 f32 source of zeros but for (1, 0), (2, 0), (3, 0) as in
    TestFP8ExactMatch; NV MXFP8; bytes by the test's own (OCP) search."""
    x = np.zeros((4, 32))
    x[1:4, 0] = _fp8_exact("f32")[1:4, 0]
    src = _src("f32", x)
    return _check_groups(src, _mx("fp8", "nv", src, exp_shape=(4, 32), scratch=32), "fp8", "nv",
                         encode=lambda y: _e4m3(y, "ocp"))


def _fp8_exact_match(dt: str) -> bool:
    """TestFP8ExactMatch<T>: a 16 x 32 source, OCP MXFP8; rows 0..3 checked, bytes by the test's search."""
    src = _src(dt, _fp8_exact(dt))
    return _check_groups(src, _mx("fp8", "ocp", src, exp_shape=(16, 32), scratch=16 * 32), "fp8", "ocp",
                         encode=lambda y: _e4m3(y, "ocp"), lines=4)


def _fp8_boundary_run(dt: str, alg: str) -> bool:
    """RunMxFp8Boundary2x256<T, alg>: 2 x 256, eight groups a row; bytes by EncodeE4M3Fn<alg>."""
    src = _src(dt, _fp8_boundary(2, 256))
    return _check_groups(src, _mx("fp8", alg, src, exp_shape=(2, 32), scratch=32), "fp8", alg,
                         encode=lambda y: _e4m3(y, alg))


def _fp8_nz(dt: str) -> bool:
    """TestFp8NzReordersExponentsExactly<T>: 16 x 64, OCP MXFP8 with the ZZ exponents. main.cpp's exp tile is
    1 x 32, but the simulator writes exponent (r, g) at element r * 32 + g, past that tile into the ones
    after it; tilesim refuses an exp tile that does not cover the groups, so it gets the 16 x 32 span those
    writes land in. Checked: ZZ = the 16 x 2 boxes of exp's first 32 bytes, and each byte = the test's search
    of x * scaling[row * 2 + group] (tilesim's scalings, as the test reads the tile's)."""
    r, c = np.meshgrid(np.arange(16), np.arange(64), indexing="ij")
    base = np.where(c % 32 == 0, 64.0, (r * 3 + c) % 13 + 1)
    src = _src(dt, np.where((r + c) % 3 == 0, -base, base))
    zz = pto.Tile("vec", "u8", 1, 32)
    dst, exp, _mxt, sc = _mx("fp8", "ocp", src, exp_shape=(16, 32), scratch=32, exp_zz=zz)
    flat = exp.storage()[:32].reshape(16, 2)                      # rows of 2 groups, read flat
    want_zz = flat.reshape(1, 16, 1, 2).transpose(0, 2, 1, 3).ravel()
    scale = sc.storage()[:32].view(F32).reshape(16, 2)
    x = _f32_values(src).reshape(16, 2, _GROUP)
    want = _e4m3(x * scale[..., None], "ocp").reshape(16, 64)
    return bool((zz.bits[0] == want_zz).all() and ((dst.bits.astype(np.int64) & 0xFF) == want).all())


def _fp4(dt: str, rows: int, cols: int, alg: str, case: str, axis: int) -> bool:
    """RunMxFp4E2M1{Nd,Dn}Case<T, rows, cols, alg>(case): the source element (r, c) is the case's value of
    index r * cols + c; ND checks every group's exponent, max, scaling and codes (E2M1 of x * scaling, a bf16
    source's product rounded to bf16 first), DN the first three."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    src = _src(dt, _FP4_CASES[case](r * cols + c).astype(np.float64))
    groups = rows * cols // _GROUP
    out = _mx("fp4", alg, src, axis, scratch=max(8, -(-groups // 8) * 8))

    def encode(y):
        with np.errstate(all="ignore"):
            return _e2m1(_bf16_rne(y) if dt == "bf16" else y)

    return _check_groups(src, out, "fp4", alg, axis, encode=encode if axis else None)


# ---- reading a test's body -----------------------------------------------------------------------------------

_TYPES = {**CXX_DTYPES, "half": "f16"}
_FP4_RUN = re.compile(r"(RunMxFp4E2M1\w*Case)(?:<([^>]*)>)?\(MxFp4Case::(\w+)\)")
_WRAPPER = re.compile(r"void (\w+)\(MxFp4Case caseId\)\s*\{\s*(\w+)<([^>]*)>\(caseId\);\s*\}")
_TEMPLATE = re.compile(r"template <typename SrcT, int validRows = (\d+), int validCols = (\d+), "
                       r"QuantScaleAlg scaleAlg = QuantScaleAlg::(\w+)>\s*void (RunMxFp4E2M1(?:Nd|Dn)Case)")


def _fp4_form(main: str, call: str, targs: str | None, case: str) -> tuple | None:
    """(dt, rows, cols, alg, case, axis) of a RunMxFp4E2M1... call, through its wrapper and the template's
    defaults read from main.cpp."""
    wrappers = {w: (f, a) for w, f, a in _WRAPPER.findall(main)}
    if targs is None:
        if call not in wrappers:
            return None
        call, targs = wrappers[call]
    defaults = {f: (int(r), int(c), a.lower()) for r, c, a, f in _TEMPLATE.findall(main)}
    if call not in defaults:
        return None
    args = [a.strip() for a in targs.split(",")]
    rows, cols, alg = defaults[call]
    rows, cols = (int(args[1]), int(args[2])) if len(args) >= 3 else (rows, cols)
    alg = args[3].split("::")[-1].lower() if len(args) >= 4 else alg
    return _TYPES.get(args[0]), rows, cols, alg, case, 0 if call.endswith("DnCase") else 1


def _edges(body: str) -> bool | None:
    """MxFpNvExponentScalingEdges / MxFpOcpExponentScalingInfEdges check the simulator's helpers on single
    values (inf, 0, NaN): tilesim's counterparts in ``tilesim.pto.ops.quant_mx`` (the group exponent, scale and
    E2M1 encoder TQUANT uses) are checked on the same values against the literals main.cpp expects."""
    env = {"inf": F32(np.inf), "nan": F32(np.nan), "0.0f": F32(0.0)}
    kind_of = {"MXFP8": "fp8", "MXFP4_E2M1": "fp4"}
    helper = r"cpu_quant::ComputeMx(SharedExponent|GroupScaling)<QuantType::(\w+), QuantScaleAlg::(\w+)>\(([^()]*)\)"

    def value(expr: str):
        expr = expr.strip()
        while expr.startswith("(") and expr.endswith(")"):
            expr = expr[1:-1].strip()
        if m := re.fullmatch(helper, expr):
            fn, q, a, args = m.groups()
            vals = [value(x) for x in args.split(",")]
            m_ = np.array([vals[0]], F32)
            if fn == "SharedExponent":
                return int(quant_mx._exponent(m_, kind_of[q], a.lower())[0])
            return F32(quant_mx._scaling(m_, np.array([vals[1]], np.uint8), a.lower())[0])
        if m := re.fullmatch(r"std::ldexp\(1\.0f, (-?\d+)\)", expr):
            return F32(2.0 ** int(m.group(1)))
        if m := re.fullmatch(r"cpu_quant::EncodeE2M1Magic\((-?)(\w+) \* (\w+)\)", expr):
            x = F32(-1 if m.group(1) else 1) * value(m.group(2)) * value(m.group(3))
            return int(quant_mx._e2m1(np.array([x], F32))[0])
        if m := re.fullmatch(r"std::isnan\((.*)\)", expr, re.S):
            return bool(np.isnan(value(m.group(1))))
        if m := re.fullmatch(r"(0x[0-9A-Fa-f]+|\d+)u", expr):
            return int(m.group(1), 0)
        return env[expr]

    checks = 0
    for stmt in (s.strip() for s in body.split(";")):
        with np.errstate(all="ignore"):
            if m := re.fullmatch(r"const (?:float|uint8_t) (\w+) =\s*(.*)", stmt, re.S):
                if m.group(1) not in env:
                    env[m.group(1)] = value(m.group(2))
            elif m := re.fullmatch(r"EXPECT_(EQ|FLOAT_EQ|TRUE)\((.*)\)", stmt, re.S):
                kind, args = m.groups()
                parts = _split(args)
                got = [value(p) for p in parts]
                ok = got[0] is True if kind == "TRUE" else \
                    float_eq(np.float32(got[0]), np.float32(got[1])) if kind == "FLOAT_EQ" else got[0] == got[1]
                if not ok:
                    return False
                checks += 1
            elif stmt:
                return None
    return checks > 0 or None


def _split(args: str) -> list[str]:
    """Top-level comma-separated arguments (commas inside () and <> belong to the argument)."""
    parts, depth, cur = [], 0, ""
    for ch in args:
        depth += ch in "(<"
        depth -= ch in ")>"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


def _check(main: str):
    """The tquant/tquant_dn check: the test's form from its body, run and checked; None if not a known form."""
    def check(body: str, made) -> bool | None:
        if m := _FP4_RUN.search(body):
            form = _fp4_form(main, *m.groups())
            return _fp4(*form) if form and form[0] else None
        if m := re.search(r"TestFP8ExactMatch<(\w+)>\(\)", body):
            return _fp8_exact_match(_TYPES[m.group(1)])
        if m := re.search(r"RunMxFp8Boundary2x256<(\w+), QuantScaleAlg::(\w+)>\(\)", body):
            return _fp8_boundary_run(_TYPES[m.group(1)], m.group(2).lower())
        if m := re.search(r"TestFp8NzReordersExponentsExactly<(\w+)>\(\)", body):
            return _fp8_nz(_TYPES[m.group(1)])
        if "TQUANT<QuantType::INT8_SYM>(dst, src, scale);" in body:
            return _int8(asym=False)
        if "TQUANT<QuantType::INT8_ASYM>(dst, src, scale, &offset);" in body:
            return _int8(asym=True)
        if re.search(r"TQUANT<QuantType::MXFP8, DstTile, SrcTile, ExpTile, MaxTile, ScalingTile, "
                     r"QuantScaleAlg::NV>\(\s*dst, src, &exp, &max, &scaling\);", body):
            return _fp8_nv_rceil()
        if "TQUANT" not in body and "cpu_quant::" in body:
            return _edges(body)
        return None
    return check


def run_tquant(folder: Path, st: Path, verbose: bool) -> Row:
    """tquant and tquant_dn: each test through :func:`run_selfcheck` with the check above."""
    return run_selfcheck(folder, st, verbose, check=_check((folder / "main.cpp").read_text()))


ADAPTERS = {"tquant": run_tquant, "tquant_dn": run_tquant}
