"""One numba call for the f32 element work of a small tile (decision PTO165).

At 16x16 each numpy call costs about a microsecond, and PTO105's f32 fast path makes several (the ufunc inside
an ``errstate``, a NaN scan, views); here one kernel call computes every lane, checks it, and writes dst only
when every lane is vouched for. It takes the same bits as PTO105's path and stands back in the same cases:

* ``+ - * /``, sqrt and 1/x: float32 arithmetic (IEEE, round to nearest even), unless a lane is NaN;
* max and min under the ``first`` rule (``a < b ? b : a``, ``b < a ? b : a``), unless a lane is NaN or zero;
* exp, log and 1/sqrt: the float64 result rounded to f32 where PTO105's certificate holds (a normal f32, its
  29 dropped bits more than 32 float64 ulps from their midpoint), unless a lane fails it.

When the kernel stands back (returns False) dst is untouched and the caller takes its general path, which
decides every lane (NaN payloads, exact rounding). The lanes are computed into a scratch tile first, so a source
that overlaps dst is read whole before dst is written. Operands are the tiles' whole ``bits`` (C-contiguous, so
one compiled signature serves) with a row and column step of 1, or 0 to broadcast row 0 or column 0.
"""

from __future__ import annotations

import numpy as np

__all__ = ["KINDS", "SMALL", "code", "line_code", "lines", "plan", "run"]

#: the largest tile (lanes) this path takes; larger ones take numerics' numpy fast path, whose passes vectorise
SMALL = 4096
#: kernel codes of the covered ops (numerics' names)
KINDS = {"add": 0, "sub": 1, "mul": 2, "div": 3, "max": 4, "min": 5, "sqrt": 6, "recip": 7, "exp": 8, "log": 9,
         "rsqrt": 10}

_KERNELS = None


def _build():
    import math

    import numba

    low29, shift29, near = np.uint64((1 << 29) - 1), np.uint64((1 << 29) - (1 << 28) + 32), np.uint64(64)
    f32_min, f32_over = 2.0 ** -126, 2.0 ** 128

    @numba.njit(cache=True, nogil=True, error_model="numpy")
    def kernel(code, a, b, o, R, C):  # pragma: no cover - checked against the numpy paths
        kind, ars, acs, brs, bcs = code & 15, (code >> 4) & 1, (code >> 5) & 1, (code >> 6) & 1, (code >> 7) & 1
        x, y, out = a.view(np.float32), b.view(np.float32), o.view(np.float32)
        t = np.empty((R, C), np.float32)
        w = np.empty(1, np.float64)
        wb = w.view(np.uint64)
        for i in range(R):
            for j in range(C):
                u = x[i * ars, j * acs]
                v = y[i * brs, j * bcs]
                if kind == 0:
                    r = u + v
                elif kind == 1:
                    r = u - v
                elif kind == 2:
                    r = u * v
                elif kind == 3:
                    r = u / v
                elif kind == 4:
                    r = v if u < v else u
                    if r == 0:
                        return False
                elif kind == 5:
                    r = v if v < u else u
                    if r == 0:
                        return False
                elif kind == 6:
                    r = np.sqrt(u)
                elif kind == 7:
                    r = np.float32(1) / u
                else:
                    d = np.float64(u)
                    if kind == 8:
                        e = math.exp(d)
                    elif kind == 9:
                        e = math.log(d) if d > 0 else 0.0
                    else:
                        e = 1.0 / math.sqrt(d) if d > 0 else 0.0
                    ae = abs(e)
                    if not (ae >= f32_min and ae < f32_over):  # zero, subnormal, overflow, NaN
                        return False
                    w[0] = e
                    if ((wb[0] + shift29) & low29) <= near:  # near a rounding boundary
                        return False
                    r = np.float32(e)
                if r != r:
                    return False
                t[i, j] = r
        for i in range(R):
            for j in range(C):
                out[i, j] = t[i, j]
        return True

    @numba.njit(cache=True, nogil=True)
    def line_kernel(code, a, R, C, idx, val):  # pragma: no cover - checked against reduce.extreme
        kind_min, along_rows, want_idx, want_val = code & 1, (code >> 1) & 1, (code >> 2) & 1, (code >> 3) & 1
        x = a.view(np.float32)
        lines, n = (R, C) if along_rows else (C, R)
        at = np.empty(lines, np.int64)
        for line in range(lines):
            best, k_best = x[line, 0] if along_rows else x[0, line], 0
            if best != best:
                return False
            for k in range(1, n):
                v = x[line, k] if along_rows else x[k, line]
                if v != v:
                    return False
                if (v < best) if kind_min else (v > best):
                    best, k_best = v, k
            if want_val and best == 0:
                return False
            at[line] = k_best
        for line in range(lines):
            r, c = (line, 0) if along_rows else (0, line)
            if want_idx:
                idx[r, c] = at[line]
            if want_val:
                val[r, c] = a[line, at[line]] if along_rows else a[at[line], line]
        return True

    return kernel, line_kernel


def code(kind: str, a_steps: tuple[int, int] = (1, 1), b_steps: tuple[int, int] = (1, 1)) -> int:
    """The kernel's code for ``kind`` with each operand's (row, column) steps: 1, or 0 to broadcast row or
    column 0 (``a[i * row_step, j * col_step]`` is the first operand's lane (i, j))."""
    (ars, acs), (brs, bcs) = a_steps, b_steps
    return KINDS[kind] | ars << 4 | acs << 5 | brs << 6 | bcs << 7


def plan(prof, kind: str, dst, srcs: tuple, a_steps: tuple[int, int] = (1, 1),
         b_steps: tuple[int, int] = (1, 1)) -> int | None:
    """:func:`code` when dst and the source tiles take the kernel on target profile ``prof``: f32 without
    flushing, a small tile, every ``bits`` C-contiguous (row-major, boxed, or one column), max and min only
    under the ``first`` rule; else None. It reads only the tiles' types, so an op caches it with its checks."""
    ok = (kind in KINDS and dst.dtype.name == "f32" and not prof.flush_denormals
          and (kind not in ("max", "min") or prof.nan_mode == "first") and dst.rows * dst.cols <= SMALL
          and all(t.blayout == "row_major" or t.is_boxed or t.cols == 1 for t in (dst, *srcs)))
    return code(kind, a_steps, b_steps) if ok else None


def run(code: int, a: np.ndarray, b: np.ndarray, o: np.ndarray, rows: int, cols: int) -> bool:
    """``o[:rows, :cols] = a (kind) b`` (unary kinds read only ``a``) on uint32 lanes of f32, with :func:`code`'s
    kind and steps; False, with ``o`` untouched, where the general path must decide."""
    global _KERNELS
    if _KERNELS is None:
        _KERNELS = _build()
    return _KERNELS[0](code, a, b, o, rows, cols)


def line_code(kind: str, along_rows: bool, want_idx: bool, want_val: bool) -> int:
    """:func:`lines`' code: the first max or min of each row (``along_rows``) or column, its index, its value."""
    return (kind == "min") | along_rows << 1 | want_idx << 2 | want_val << 3


def lines(code: int, a: np.ndarray, rows: int, cols: int, idx: np.ndarray, val: np.ndarray) -> bool:
    """The first max or min of each row or column (:func:`line_code`) of ``a[:rows, :cols]`` (f32 lanes) by a
    strict-compare scan: its index into ``idx`` (u32 lanes) and its lanes into ``val``, at ``[i, 0]`` for row i
    or ``[0, j]`` for column j; False, with both untouched, when a lane is NaN or, for a value, an extreme is a
    zero (the NaN rules and the simulator's vectorised order decide those: :func:`.reduce.extreme`)."""
    global _KERNELS
    if _KERNELS is None:
        _KERNELS = _build()
    return _KERNELS[1](code, a, rows, cols, idx, val)
