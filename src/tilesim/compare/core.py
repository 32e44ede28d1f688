"""``tilesim.compare.run``: one operation on every machine, measured against the exact result.

Inputs are rounded once (nearest-even) to the dtype before any machine sees
them, so every machine and the exact reference start from the same values
(decision C2). For each configuration of :data:`.machines.MACHINES` the
record holds what ran and how far its result is from the exact one, rounded
once to that configuration's output format (:data:`COLUMNS`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import formats
from ..errors import DtypeError, GeometryError, TilesimError, UnsupportedError
from ..study import metrics
from . import exact, tensix
from .machines import MACHINES, Run

__all__ = ["OPS", "DTYPES", "COLUMNS", "Comparison", "evaluate", "run", "make_inputs", "parse_shape"]

OPS: tuple[str, ...] = tuple(MACHINES)
DTYPES: tuple[str, ...] = ("bf16", "fp16", "fp32", "uint16")
#: dtypes of the column ops only: unsigned integers (A2A3's column argmax compares them as float bits)
COLUMN_ONLY: tuple[str, ...] = ("uint16",)
DEFAULT_SHAPES = {"colmax": (256, 256), "colargmax": (256, 256), "elwmul": (256, 256), "recip": (64, 64), "exp": (64, 64),
                  "gemm": (64, 64, 64)}

# (column, meaning): the records' keys, the CSV's columns (docs/compare.md shows this table)
COLUMNS: tuple[tuple[str, str], ...] = (
    ("op", "the operation: colmax, colargmax, elwmul, recip, exp, gemm"),
    ("dtype", "the input dtype"),
    ("shape", "RxC, or MxNxK for gemm"),
    ("machine", "tensix, pto, ame, or exact (the reference)"),
    ("config", "instruction, target, fidelity, rounding or accumulation model"),
    ("ran", "1 if the configuration ran; 0 if its ISA does not take the dtype (see note)"),
    ("instructions", "the instructions that ran, with their counts"),
    ("count", "how many instructions ran"),
    ("out_format", "the format of the result"),
    ("elements", "result elements compared"),
    ("differ", "elements whose value is not the exact result rounded once to out_format"),
    ("ulp_max", "largest distance from that, in ULPs of out_format"),
    ("rel_err", "||C - X|| / ||X|| (Frobenius), X the exact result in float64"),
    ("idx_differ", "colargmax: indices that are not numpy's (first-index ties)"),
    ("idx_ties", "... of which point at a value equal to the column's maximum"),
    ("idx_window", "... of which Tensix missed because the maximum is in rows 8..15 of its 16-row block"),
    ("idx_nan", "... of which are in a column holding a NaN"),
    ("idx_other", "... of which have no reason above"),
    ("note", "why a configuration did not run"),
)


@dataclass
class Comparison:
    """The records, and per record what ran (:class:`.machines.Run`) and the ULP errors of its elements
    (``None`` where it did not run); ``inputs`` are the arrays every machine saw."""

    op: str
    inputs: tuple[np.ndarray, ...]
    records: list[dict]
    runs: list[Run | None]
    ulps: list[np.ndarray | None]


def _error(detail: str, operand: str, value, rule: str = "compare.option", cls=TilesimError) -> TilesimError:
    return cls(detail, instruction="compare", operand=operand, rule=rule, value=value)


def parse_shape(op: str, text: str | None) -> tuple[int, ...]:
    """``RxC`` (colmax, colargmax, elwmul) or ``MxNxK`` (gemm); the default when ``text`` is None."""
    if text is None:
        return DEFAULT_SHAPES[op]
    want = 3 if op == "gemm" else 2
    parts = text.lower().split("x")
    if len(parts) != want or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise _error(f"shape {text!r} is not {'MxNxK' if want == 3 else 'RxC'} of positive integers (e.g. "
                     f"{'x'.join(map(str, DEFAULT_SHAPES[op]))})", "--shape", text, "compare.shape", GeometryError)
    return tuple(int(p) for p in parts)


def _check(op: str, dtype: str) -> None:
    if op not in OPS:
        raise _error(f"unknown operation {op!r}; valid: " + ", ".join(OPS), "OP", op)
    valid = DTYPES if op in ("colmax", "colargmax") else tuple(d for d in DTYPES if d not in COLUMN_ONLY)
    if dtype not in valid:
        raise _error(f"no machine compares {op} in {dtype!r}; dtypes: " + ", ".join(valid), "--dtype", dtype,
                     "compare.dtype", DtypeError)


def _shapes_of(op: str, shape: tuple[int, ...]) -> list[tuple[int, int]]:
    if op == "gemm":
        m, n, k = shape
        return [(m, k), (k, n)]
    return [shape] * (2 if op == "elwmul" else 1)   # colmax, colargmax, recip, exp: one


def make_inputs(op: str, dtype: str, shape: tuple[int, ...], seed: int = 0) -> tuple[np.ndarray, ...]:
    """Standard normal inputs of ``shape`` rounded to ``dtype``, or uniform codes of an integer dtype
    (float64 arrays)."""
    rng = np.random.default_rng([seed, *shape])
    fmt = formats.get(dtype)
    if fmt.kind is not formats.Kind.FLOAT:
        return tuple(rng.integers(int(fmt.min_exact), int(fmt.max_exact), s, endpoint=True).astype(np.float64)
                     for s in _shapes_of(op, shape))
    return tuple(formats.quantize(rng.standard_normal(s), dtype) for s in _shapes_of(op, shape))


def _user_inputs(op: str, dtype: str, inputs) -> tuple[tuple[np.ndarray, ...], tuple[int, ...]]:
    arrays = (inputs,) if isinstance(inputs, np.ndarray) else tuple(inputs)
    want = 1 if op in ("colmax", "colargmax", "recip", "exp") else 2
    if len(arrays) != want:
        raise _error(f"{op} takes {want} input array{'s' if want > 1 else ''}, not {len(arrays)}", "inputs",
                     len(arrays), "compare.inputs", GeometryError)
    out = []
    for i, x in enumerate(arrays):
        x = np.asarray(x)
        if x.ndim != 2 or x.dtype.kind not in "iuf" or x.size == 0:
            raise _error(f"input {i} must be a non-empty 2-D array of numbers, not {x.dtype} {x.shape}", "inputs",
                         x.shape, "compare.inputs", GeometryError)
        integer = formats.get(dtype).kind is not formats.Kind.FLOAT
        # integers go to the codec as they are: through float64 first, an int64 above 2**53 would round twice
        out.append(formats.quantize(x if x.dtype.kind in "iu" else x.astype(np.float64), dtype, saturate=integer))
    if op == "gemm":
        (m, k), (k2, n) = out[0].shape, out[1].shape
        if k != k2:
            raise _error(f"A is {m}x{k} and B {k2}x{n}: K differs", "inputs", (out[0].shape, out[1].shape),
                         "compare.inputs", GeometryError)
        return tuple(out), (m, n, k)
    if op == "elwmul" and out[0].shape != out[1].shape:
        raise _error(f"elwmul multiplies arrays of one shape, not {out[0].shape} and {out[1].shape}", "inputs",
                     (out[0].shape, out[1].shape), "compare.inputs", GeometryError)
    return tuple(out), out[0].shape


def _shape_tuple(op: str, shape) -> tuple[int, ...]:
    """A shape given as a tuple: two (three for gemm) positive integers, or an error naming what was given."""
    want = 3 if op == "gemm" else 2
    ok = (len(shape) == want and
          all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v > 0 for v in shape))
    if not ok:
        raise _error(f"shape {shape!r} is not {'(M, N, K)' if want == 3 else '(R, C)'} of positive integers (e.g. "
                     f"{DEFAULT_SHAPES[op]})", "shape", shape, "compare.shape", GeometryError)
    return tuple(int(v) for v in shape)


def _check_seed(seed) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise _error(f"seed {seed!r} is not a non-negative integer", "seed", seed)
    return int(seed)


def _check_shape(op: str, shape: tuple[int, ...]) -> None:
    """Raise for a shape that a machine cannot take, naming it (PTO's TMATMUL: 1..4095 per dimension)."""
    tensix.check_shape(op, shape)
    if op == "gemm" and max(shape) > 4095:
        raise _error(f"pto cannot take {'x'.join(map(str, shape))} for gemm: TMATMUL's M, N and K are at most 4095",
                     "--shape", shape, "compare.shape", GeometryError)


def _same(c: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Elementwise: the same value (NaN equal to NaN, -0 not equal to +0)."""
    return ((c == r) & (np.signbit(c) == np.signbit(r))) | (np.isnan(c) & np.isnan(r))


def _index_reasons(x: np.ndarray, got: np.ndarray, ref: np.ndarray, machine: str) -> dict[str, int]:
    cols = np.arange(x.shape[1])
    bad = got != ref
    nan = np.isnan(x).any(axis=0)
    top = np.nanmax(np.where(np.isnan(x), -np.inf, x), axis=0)
    safe = np.clip(got, 0, x.shape[0] - 1)
    tie = bad & ~nan & (got >= 0) & (x[safe, cols] == top)
    window = bad & ~nan & ~tie & (machine == "tensix") & (ref % 16 >= 8)
    return {"idx_differ": int(bad.sum()), "idx_ties": int(tie.sum()), "idx_window": int(window.sum()),
            "idx_nan": int((bad & nan).sum()), "idx_other": int((bad & ~nan & ~tie & ~window).sum())}


def _measure(r: Run, ex: np.ndarray) -> tuple[dict, np.ndarray | None]:
    """What ran, and how far its values are from ``ex`` rounded once to its output format (C5)."""
    out: dict = {"out_format": r.out_format, "instructions": ", ".join(f"{k} {v:,}" for k, v in r.instructions.items()),
                 "count": sum(r.instructions.values())}
    ulps = None
    if r.values is not None:
        fmt = formats.get(r.out_format)
        ref = formats.quantize(ex, fmt, saturate=fmt.kind is not formats.Kind.FLOAT)  # floats overflow to Inf
        ulps = metrics.ulps(r.values, ref, fmt)
        ulps = np.where(_same(r.values, ref), 0.0, ulps)
        out.update(elements=int(r.values.size), differ=int((~_same(r.values, ref)).sum()),
                   ulp_max=float(ulps.max()), rel_err=metrics.rel_error(r.values, ex))
    return out, ulps


def evaluate(op: str, inputs=None, *, dtype: str = "bf16", shape=None, seed: int = 0) -> Comparison:
    """Run ``op`` on every machine; see :func:`run`. Also returns each record's per-element ULP errors."""
    _check(op, dtype)
    if inputs is None:
        seed = _check_seed(seed)
        if shape is not None and not isinstance(shape, str):
            shape = _shape_tuple(op, tuple(shape) if isinstance(shape, (tuple, list)) else (shape,))
        else:
            shape = parse_shape(op, shape)
        _check_shape(op, shape)
        inputs = make_inputs(op, dtype, shape, seed)
    else:
        inputs, shape = _user_inputs(op, dtype, inputs)
        _check_shape(op, shape)
    ex = (exact.colmax(inputs[0]) if op in ("colmax", "colargmax") else
          exact.product(*inputs) if op == "elwmul" else
          exact.reciprocal(inputs[0]) if op == "recip" else
          exact.exp(inputs[0]) if op == "exp" else exact.gemm_exact(*inputs))
    ref_index = exact.colargmax(inputs[0]) if op == "colargmax" else None
    records, runs, errors = [], [], []
    for mach in MACHINES[op]:
        rec = {"op": op, "dtype": dtype, "shape": "x".join(map(str, shape)), "machine": mach.machine,
               "config": mach.config}
        try:
            with np.errstate(invalid="ignore", over="ignore"):  # Inf - Inf in a sum is NaN, as in the reference
                r = mach.run(inputs, dtype)
        except (DtypeError, UnsupportedError) as e:  # the ISA does not take this dtype: a row that says so
            records.append({**rec, "ran": 0, "note": str(e)})
            runs.append(None)
            errors.append(None)
            continue
        measured, ulps = _measure(r, ex)
        rec.update(ran=1, **measured)
        if ref_index is not None:
            rec.update(_index_reasons(inputs[0], r.index, ref_index, mach.machine))
        records.append(rec)
        runs.append(r)
        errors.append(ulps)
    names = [c for c, _ in COLUMNS]
    return Comparison(op, inputs, [{k: rec.get(k, "") for k in names} for rec in records], runs, errors)


def run(op: str, inputs=None, **options) -> list[dict]:
    """Run ``op`` on Tensix, PTO (and AME for gemm) and the exact reference; one record per configuration.

    Args:
        op: ``colmax``, ``colargmax``, ``elwmul``, ``recip``, ``exp`` or ``gemm``.
        inputs: your arrays (one for colmax/colargmax/recip/exp, two for elwmul and gemm: A (M x K), B (K x N)),
            rounded to ``dtype``; by default standard normal ones of ``shape`` from ``seed``.
        dtype: ``bf16``, ``fp16``, ``fp32``, or ``uint16`` (column ops).
        shape: ``"RxC"`` / ``"MxNxK"`` or a tuple of positive ints. seed: a non-negative int.

    Raises:
        TilesimError: an unknown op (``compare.option``), dtype (``compare.dtype``), a bad shape or a shape a
            machine cannot take (``compare.shape``, naming the machine), a bad seed (``compare.option``),
            inputs that do not fit
            (``compare.inputs``).
    """
    return evaluate(op, inputs, **options).records
