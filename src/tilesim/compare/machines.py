"""Every machine and configuration ``tilesim compare`` runs, as one declarative list per operation.

A :class:`Machine` row names the machine, the configuration, and a function
of ``(inputs, dtype)`` that returns a :class:`Run`: the result values
(float64), the output format, the instructions by mnemonic, and for argmax
the indices. A configuration whose ISA does not take the dtype gives a row
that did not run, with the ISA's own reason.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import pto
from ..ame import models
from ..ame.gemm import gemm as ame_gemm
from . import exact, tensix

__all__ = ["Run", "Machine", "MACHINES", "PTO_DTYPES", "PTO_TARGETS"]

PTO_DTYPES = {"bf16": "bf16", "fp16": "f16", "fp32": "f32", "uint16": "u16"}
PTO_TARGETS = ("cpu", "a2a3", "a5")
ROUNDINGS = ("hardware", "doc")


@dataclass
class Run:
    """What one configuration computed."""

    values: np.ndarray | None
    out_format: str
    instructions: Counter = field(default_factory=Counter)
    index: np.ndarray | None = None


@dataclass(frozen=True)
class Machine:
    machine: str  # tensix, pto, ame, exact
    config: str
    run: Callable[[tuple, str], Run]


# ---------------------------------------------------------------- Tensix
def _gmpool(rounding: str, want_index: bool):
    def run(inputs, dtype):
        values, _, index, count = tensix.gmpool(inputs[0], dtype, rounding)
        return Run(values, "bf16", count, index if want_index else None)
    return run


def _elwmul(fidelity: str, rounding: str):
    def run(inputs, dtype):
        values, _, count = tensix.elwmul(inputs[0], inputs[1], dtype, fidelity, rounding)
        return Run(values, "fp32", count)
    return run


def _mvmul(fidelity: str, rounding: str):
    def run(inputs, dtype):
        values, _, count = tensix.mvmul(inputs[0], inputs[1], dtype, fidelity, rounding)
        return Run(values, "fp32", count)
    return run


def _sfpu(kernel, rounding: str):
    def run(inputs, dtype):
        values, _, count = kernel(inputs[0], dtype, rounding)
        return Run(values, "fp32", count)
    return run


# ---------------------------------------------------------------- PTO
def _tile(x: np.ndarray, dtype: str) -> pto.Tile:
    return pto.Tile.from_array(x, PTO_DTYPES[dtype])


def _tcol(name: str, target: str):
    def run(inputs, dtype):
        src = _tile(inputs[0], dtype)
        c = inputs[0].shape[1]
        if name == "tcolmax":
            dst = pto.Tile("vec", src.dtype, 1, src.cols, valid=(1, c))
            pto.tcolmax(dst, src, target=target)
            return Run(dst.valid_values[0].astype(np.float64), dtype, Counter(TCOLMAX=1))
        idx = pto.Tile("vec", "i32", 1, -(-c // 8) * 8, valid=(1, c))
        pto.tcolargmax(idx, src, target=target)
        index = idx.valid_values[0].astype(np.int64)
        return Run(None, "i32", Counter(TCOLARGMAX=1), index)
    return run


def _tmul(target: str):
    def run(inputs, dtype):
        a, b = _tile(inputs[0], dtype), _tile(inputs[1], dtype)
        dst = pto.Tile("vec", a.dtype, a.rows, a.cols, valid=a.valid)
        pto.tmul(dst, a, b, target=target)
        return Run(dst.valid_values.astype(np.float64), dtype, Counter(TMUL=1))
    return run


def _tunary(name: str, target: str):
    def run(inputs, dtype):
        src = _tile(inputs[0], dtype)
        dst = pto.Tile("vec", src.dtype, src.rows, src.cols, valid=src.valid)
        getattr(pto, name)(dst, src, target=target)
        return Run(dst.valid_values.astype(np.float64), dtype, Counter({name.upper(): 1}))
    return run


def _tmatmul(target: str):
    def run(inputs, dtype):
        x, y = inputs
        (m, k), n = x.shape, y.shape[1]
        dt = PTO_DTYPES[dtype]
        lb = pto.get_target(target).left_blayout or "row_major"
        a = pto.Tile("left", dt, -(-m // 16) * 16, -(-k // 32) * 32, valid=(m, k), blayout=lb, slayout="row_major")
        b = pto.Tile("right", dt, a.cols, -(-n // 16) * 16, valid=(k, n), blayout="row_major", slayout="col_major")
        c = pto.Tile("acc", "f32", a.rows, b.cols, valid=(m, n), blayout="col_major", slayout="row_major",
                     fractal=1024)
        a.fill(x)
        b.fill(y)
        pto.tmatmul(c, a, b, target=target)
        return Run(c.valid_values.astype(np.float64), "fp32", Counter(TMATMUL=1))
    return run


# ---------------------------------------------------------------- AME
def _ame(accumulation: str):
    def run(inputs, dtype):
        r = ame_gemm(inputs[0], inputs[1], ft=dtype, accumulation=accumulation)
        lines = (line.split()[0] for line in r.plan.program().splitlines() if line and not line.startswith("#"))
        return Run(r.values.astype(np.float64), r.plan.acc.name, Counter(lines))
    return run


# ---------------------------------------------------------------- exact
def _exact_col(want_index: bool):
    def run(inputs, dtype):
        x = inputs[0]
        return Run(exact.colmax(x), dtype, Counter(), exact.colargmax(x) if want_index else None)
    return run


def _exact_product(inputs, dtype):
    return Run(exact.round_once(exact.product(*inputs), dtype), dtype)


def _exact_unary(fn):
    def run(inputs, dtype):
        return Run(exact.round_once(fn(inputs[0]), dtype), dtype)
    return run


def _exact_gemm(inputs, dtype):
    return Run(exact.round_once(exact.gemm_exact(*inputs), "fp32"), "fp32")


def _col_rows(want_index: bool) -> list[Machine]:
    name = "TCOLARGMAX" if want_index else "TCOLMAX"
    return ([Machine("tensix", f"GMPOOL ArgMax, {r}", _gmpool(r, want_index)) for r in ROUNDINGS] +
            [Machine("pto", f"{name} {t}", _tcol(name.lower(), t)) for t in PTO_TARGETS] +
            [Machine("exact", "numpy, first-index ties", _exact_col(want_index))])


#: op -> its rows, in table order
MACHINES: dict[str, list[Machine]] = {
    "colmax": _col_rows(False),
    "colargmax": _col_rows(True),
    "elwmul": ([Machine("tensix", f"ELWMUL {f}, {r}", _elwmul(f, r)) for r in ROUNDINGS for f in tensix.FIDELITIES] +
               [Machine("pto", f"TMUL {t}", _tmul(t)) for t in PTO_TARGETS] +
               [Machine("exact", "exact product, rounded once", _exact_product)]),
    "recip": ([Machine("tensix", f"SFPU reciprocal (tt-llk), {r}", _sfpu(tensix.recip, r)) for r in ROUNDINGS] +
              [Machine("pto", f"TRECIP {t}", _tunary("trecip", t)) for t in PTO_TARGETS] +
              [Machine("exact", "exact 1/x, rounded once", _exact_unary(exact.reciprocal))]),
    "exp": ([Machine("tensix", f"SFPU exp_21f (tt-llk), {r}", _sfpu(tensix.exp, r)) for r in ROUNDINGS] +
            [Machine("pto", f"TEXP {t}", _tunary("texp", t)) for t in PTO_TARGETS] +
            [Machine("exact", "exp(x) to 60 digits, rounded once", _exact_unary(exact.exp))]),
    "gemm": ([Machine("tensix", f"MVMUL HiFi4, {r}", _mvmul("HiFi4", r)) for r in ROUNDINGS] +
             [Machine("pto", f"TMATMUL {t}", _tmatmul(t)) for t in ("a2a3", "a5")] +
             [Machine("ame", f"GEMM runtime, {acc}", _ame(acc)) for acc in models.MODELS] +
             [Machine("exact", "exact sum, rounded once", _exact_gemm)]),
}
