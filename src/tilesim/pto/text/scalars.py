"""``arith`` on scalars: index, integer (signless ``iN``, read signed or unsigned by the op) and float.

Integers wrap modulo 2**N (``index`` is 64 bits); division and remainder by
zero, and ``INT_MIN / -1`` for the signed divisions, raise
:class:`~tilesim.errors.SpecGapError` (rule ``pto.arith.div_zero`` /
``pto.arith.overflow``), as MLIR leaves them undefined. Float arithmetic is
IEEE: f32 and f64 in numpy, f16 and bf16 computed in float32 and rounded
once (exact for + - * /, as for the tile ops; decision PTO14). Conversions
round to nearest even; a float that does not fit the integer it is
converted to raises ``pto.arith.range``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np

from ...errors import SpecGapError, TilesimError
from .. import numerics as nx
from ..dtypes import get_dtype
from .values import Scalar

__all__ = ["ARITH", "constant", "int_binary", "int_width", "is_float_type", "make_int", "make_float", "float_np",
           "run_arith"]

_FLOAT_NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": ml_dtypes.bfloat16}


def is_float_type(t: str) -> bool:
    return t in _FLOAT_NP


def float_np(t: str):
    return _FLOAT_NP[t]


def int_width(t: str) -> tuple[int, bool] | None:
    """(bits, unsigned) of ``index``, ``iN``, ``siN``, ``uiN``; None for other types."""
    if t == "index":
        return 64, False
    for prefix, unsigned in (("ui", True), ("si", False), ("i", False), ("u", True)):
        if t.startswith(prefix) and t[len(prefix):].isdigit():
            return int(t[len(prefix):]), unsigned
    return None


def make_int(t: str, v: int) -> Scalar:
    """``v`` wrapped into type ``t`` (i1 holds 0/1; iN signed, uiN unsigned)."""
    bits, unsigned = int_width(t)
    v = int(v) & ((1 << bits) - 1)
    if not unsigned and bits > 1 and v >= 1 << (bits - 1):
        v -= 1 << bits
    return Scalar(t, v)


def make_float(t: str, v) -> Scalar:
    return Scalar(t, _FLOAT_NP[t](v))


def _unsigned(s: Scalar) -> int:
    bits, _ = int_width(s.type)
    return s.value & ((1 << bits) - 1)


def _signed(s: Scalar) -> int:
    bits, _ = int_width(s.type)
    v = s.value & ((1 << bits) - 1)
    return v - (1 << bits) if bits > 1 and v >= 1 << (bits - 1) else v


def _round_to(t: str, q) -> Scalar:
    """An exact number (int, Fraction or float) rounded once to float type ``t``."""
    np_t = _FLOAT_NP[t]
    if t == "f64":
        return Scalar(t, np.float64(q if isinstance(q, float) else float(Fraction(q))))
    if isinstance(q, float) and (math.isnan(q) or math.isinf(q)):
        return Scalar(t, np_t(q))
    dt = get_dtype(t)
    lane = nx.round_fraction(Fraction(q), dt.format)
    return Scalar(t, np.asarray(lane, dt.lane).view(dt.np)[()])


def constant(t: str, lit, *, hex_bits: bool = False) -> Scalar:
    """``arith.constant lit : t`` (a hexadecimal literal of a float type is its bit pattern)."""
    if int_width(t) is not None:
        if isinstance(lit, bool):
            lit = int(lit)
        if not isinstance(lit, int):
            raise TilesimError(f"an integer constant of type {t} needs an integer literal", instruction="arith.constant",
                               operand="value", rule="pto.arith.constant", value=lit)
        bits, unsigned = int_width(t)
        lo, hi = (0, (1 << bits) - 1) if unsigned or t == "i1" else (-(1 << (bits - 1)), (1 << bits) - 1)
        if not lo <= lit <= hi:
            raise TilesimError(f"{lit} does not fit {t} ({lo}..{hi})", instruction="arith.constant", operand="value",
                               rule="pto.arith.constant", value=lit)
        return make_int(t, lit)
    if t in _FLOAT_NP:
        if isinstance(lit, bool) or isinstance(lit, str):
            raise TilesimError(f"a {t} constant needs a number", instruction="arith.constant", operand="value",
                               rule="pto.arith.constant", value=lit)
        if hex_bits:
            np_t = np.dtype(_FLOAT_NP[t])
            lane = np.dtype(f"u{np_t.itemsize}")
            if not 0 <= lit < 1 << (8 * np_t.itemsize):
                raise TilesimError(f"{lit:#x} is not a {np_t.itemsize * 8}-bit pattern", instruction="arith.constant",
                                   operand="value", rule="pto.arith.constant", value=lit)
            return Scalar(t, np.asarray(lit, lane).view(np_t)[()])
        return _round_to(t, lit)
    raise TilesimError(f"constants of type {t} are not supported (index, i1, iN, uiN, f16, bf16, f32, f64 are)",
                       instruction="arith.constant", operand="type", rule="pto.arith.type", value=t)


# ----------------------------------------------------------------- integer ops
def _div_check(op: str, b: int) -> None:
    if b == 0:
        raise SpecGapError("division by zero is undefined", instruction=op, operand="rhs", rule="pto.arith.div_zero",
                           value=0)


def _sdiv(op, a: Scalar, b: Scalar, fn) -> Scalar:
    x, y = _signed(a), _signed(b)
    _div_check(op, y)
    bits, _ = int_width(a.type)
    if x == -(1 << (bits - 1)) and y == -1 and bits > 1:
        raise SpecGapError(f"{x} / -1 overflows {a.type}", instruction=op, operand="lhs", rule="pto.arith.overflow",
                           value=x)
    return make_int(a.type, fn(x, y))


def _udiv(op, a: Scalar, b: Scalar, fn) -> Scalar:
    x, y = _unsigned(a), _unsigned(b)
    _div_check(op, y)
    return make_int(a.type, fn(x, y))


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def _shift(a: Scalar, b: Scalar, fn) -> Scalar:
    bits, _ = int_width(a.type)
    n = _unsigned(b)
    return make_int(a.type, fn(a, n, bits) if n < bits else 0 if fn is not _shrs else (-1 if _signed(a) < 0 else 0))


def _shrs(a, n, bits):
    return _signed(a) >> n


_CMPI = {
    "eq": lambda a, b: _unsigned(a) == _unsigned(b), "ne": lambda a, b: _unsigned(a) != _unsigned(b),
    "slt": lambda a, b: _signed(a) < _signed(b), "sle": lambda a, b: _signed(a) <= _signed(b),
    "sgt": lambda a, b: _signed(a) > _signed(b), "sge": lambda a, b: _signed(a) >= _signed(b),
    "ult": lambda a, b: _unsigned(a) < _unsigned(b), "ule": lambda a, b: _unsigned(a) <= _unsigned(b),
    "ugt": lambda a, b: _unsigned(a) > _unsigned(b), "uge": lambda a, b: _unsigned(a) >= _unsigned(b),
}

_INT_BIN = {
    "addi": lambda op, a, b: make_int(a.type, a.value + b.value),
    "subi": lambda op, a, b: make_int(a.type, a.value - b.value),
    "muli": lambda op, a, b: make_int(a.type, a.value * b.value),
    "divsi": lambda op, a, b: _sdiv(op, a, b, _trunc_div),
    "divui": lambda op, a, b: _udiv(op, a, b, lambda x, y: x // y),
    "remsi": lambda op, a, b: _sdiv(op, a, b, lambda x, y: x - y * _trunc_div(x, y)),
    "remui": lambda op, a, b: _udiv(op, a, b, lambda x, y: x % y),
    "floordivsi": lambda op, a, b: _sdiv(op, a, b, lambda x, y: x // y),
    "ceildivsi": lambda op, a, b: _sdiv(op, a, b, lambda x, y: -((-x) // y)),
    "ceildivui": lambda op, a, b: _udiv(op, a, b, lambda x, y: -((-x) // y)),
    "andi": lambda op, a, b: make_int(a.type, _unsigned(a) & _unsigned(b)),
    "ori": lambda op, a, b: make_int(a.type, _unsigned(a) | _unsigned(b)),
    "xori": lambda op, a, b: make_int(a.type, _unsigned(a) ^ _unsigned(b)),
    "shli": lambda op, a, b: _shift(a, b, lambda x, n, bits: _unsigned(x) << n),
    "shrui": lambda op, a, b: _shift(a, b, lambda x, n, bits: _unsigned(x) >> n),
    "shrsi": lambda op, a, b: _shift(a, b, _shrs),
    "maxsi": lambda op, a, b: a if _signed(a) >= _signed(b) else b,
    "minsi": lambda op, a, b: a if _signed(a) <= _signed(b) else b,
    "maxui": lambda op, a, b: a if _unsigned(a) >= _unsigned(b) else b,
    "minui": lambda op, a, b: a if _unsigned(a) <= _unsigned(b) else b,
}


# ------------------------------------------------------------------- float ops
def _fbin(fn):
    def run(op, a: Scalar, b: Scalar) -> Scalar:
        if a.type == "f64" or a.type == "f32":
            with np.errstate(all="ignore"):
                return Scalar(a.type, _FLOAT_NP[a.type](fn(a.value, b.value)))
        with np.errstate(all="ignore"):
            r = fn(np.float32(a.value), np.float32(b.value))
        return _round_to(a.type, float(r)) if np.isfinite(r) else Scalar(a.type, _FLOAT_NP[a.type](r))
    return run


def _fminmax(kind: str):
    def run(op, a: Scalar, b: Scalar) -> Scalar:
        x, y = float(a.value), float(b.value)
        if math.isnan(x) or math.isnan(y):
            if kind.endswith("num"):            # maxnumf/minnumf: the number wins
                return b if math.isnan(x) else a
            return a if math.isnan(x) else b    # maximumf/minimumf: NaN propagates
        if x == y == 0.0:
            neg_a = math.copysign(1, x) < 0
            want_neg = kind.startswith("min")
            return a if neg_a == want_neg else b
        return a if (x > y) == kind.startswith("max") else b
    return run


_FLOAT_BIN = {
    "addf": _fbin(lambda x, y: x + y), "subf": _fbin(lambda x, y: x - y), "mulf": _fbin(lambda x, y: x * y),
    "divf": _fbin(lambda x, y: x / y),
    "maximumf": _fminmax("max"), "minimumf": _fminmax("min"), "maxnumf": _fminmax("maxnum"),
    "minnumf": _fminmax("minnum"),
}

_CMPF = {
    "false": lambda x, y, un: False, "true": lambda x, y, un: True,
    "oeq": lambda x, y, un: not un and x == y, "ogt": lambda x, y, un: not un and x > y,
    "oge": lambda x, y, un: not un and x >= y, "olt": lambda x, y, un: not un and x < y,
    "ole": lambda x, y, un: not un and x <= y, "one": lambda x, y, un: not un and x != y,
    "ord": lambda x, y, un: not un, "uno": lambda x, y, un: un,
    "ueq": lambda x, y, un: un or x == y, "ugt": lambda x, y, un: un or x > y, "uge": lambda x, y, un: un or x >= y,
    "ult": lambda x, y, un: un or x < y, "ule": lambda x, y, un: un or x <= y, "une": lambda x, y, un: un or x != y,
}


# ------------------------------------------------------------------ casts
def _int_to_int(op: str, a: Scalar, to: str) -> Scalar:
    if op in ("extui", "index_castui"):
        return make_int(to, _unsigned(a))
    if a.type == "i1" and op == "extsi":
        return make_int(to, -a.value)
    return make_int(to, _signed(a))


def _to_float(op: str, a: Scalar, to: str) -> Scalar:
    v = _unsigned(a) if op == "uitofp" else _signed(a)
    return _round_to(to, v)


def _to_int(op: str, a: Scalar, to: str) -> Scalar:
    x = float(a.value)
    bits, _ = int_width(to)
    unsigned = op == "fptoui"
    lo, hi = (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    if math.isnan(x) or math.isinf(x) or not lo <= math.trunc(x) <= hi:
        raise SpecGapError(f"{x} does not fit {to} ({lo}..{hi}); the result is undefined", instruction=f"arith.{op}",
                           operand="in", rule="pto.arith.range", value=x)
    return make_int(to, math.trunc(x))


def _float_to_float(op: str, a: Scalar, to: str) -> Scalar:
    x = float(a.value)
    if math.isnan(x) or math.isinf(x):
        return Scalar(to, _FLOAT_NP[to](x))
    return _round_to(to, Fraction(x))


def _bitcast(op: str, a: Scalar, to: str) -> Scalar:
    src_w = int_width(a.type)[0] if a.is_int else np.dtype(_FLOAT_NP[a.type]).itemsize * 8
    dst_w = int_width(to)[0] if int_width(to) else np.dtype(_FLOAT_NP[to]).itemsize * 8
    if src_w != dst_w:
        raise TilesimError(f"bitcast needs equal widths, not {a.type} ({src_w}) -> {to} ({dst_w})",
                           instruction="arith.bitcast", operand="in", rule="pto.arith.type", value=(a.type, to))
    raw = _unsigned(a) if a.is_int else int(np.asarray(a.value).view(f"u{src_w // 8}"))
    if int_width(to):
        return make_int(to, raw)
    return Scalar(to, np.asarray(raw, f"u{dst_w // 8}").view(_FLOAT_NP[to])[()])


_CASTS = {
    "index_cast": (_int_to_int, "int", "int"), "index_castui": (_int_to_int, "int", "int"),
    "extsi": (_int_to_int, "int", "int"), "extui": (_int_to_int, "int", "int"), "trunci": (_int_to_int, "int", "int"),
    "sitofp": (_to_float, "int", "float"), "uitofp": (_to_float, "int", "float"),
    "fptosi": (_to_int, "float", "int"), "fptoui": (_to_int, "float", "int"),
    "extf": (_float_to_float, "float", "float"), "truncf": (_float_to_float, "float", "float"),
    "bitcast": (_bitcast, "any", "any"),
}

#: every arith op tilesim runs, by kind
ARITH = {**{k: "int_bin" for k in _INT_BIN}, **{k: "float_bin" for k in _FLOAT_BIN},
         **{k: "cast" for k in _CASTS}, "cmpi": "cmpi", "cmpf": "cmpf", "select": "select", "negf": "negf"}


def int_binary(op: str):
    """``f(name, a, b)``: integer ``arith.<op>`` on two integer Scalars of one type (what :func:`run_arith` calls
    once it has checked them), or None for other ops."""
    return _INT_BIN.get(op)


def _fail(op: str, detail: str, operand: str, value=None, rule: str = "pto.arith.operand") -> TilesimError:
    return TilesimError(detail, instruction=f"arith.{op}", operand=operand, rule=rule, value=value)


def _want(op: str, v, what: str, operand: str) -> Scalar:
    from .values import kind_of

    if not isinstance(v, Scalar):
        raise _fail(op, f"{operand} must be {what}, not {kind_of(v)}", operand, kind_of(v))
    ok = v.is_int if what.startswith("an integer") else (not v.is_int if what.startswith("a float") else True)
    if not ok:
        raise _fail(op, f"{operand} must be {what}, not a {v.type} scalar", operand, v.type)
    return v


def run_arith(op: str, args: list, *, pred: str | None = None, to: str | None = None) -> Scalar:
    """Run ``arith.<op>`` on scalar operands; ``pred`` for cmpi/cmpf, ``to`` the result type of casts.

    Raises:
        TilesimError: an unknown op (``pto.interp.op``), operands of the wrong kind or count
            (``pto.arith.operand``), mismatched types (``pto.arith.type``), division by zero
            (``pto.arith.div_zero``), a value out of range (``pto.arith.range``).

    >>> run_arith("floordivsi", [make_int("index", -7), make_int("index", 2)]).value
    -4
    >>> run_arith("cmpi", [make_int("i32", -1), make_int("i32", 1)], pred="ult").value
    0
    """
    kind = ARITH.get(op)
    if kind is None:
        raise TilesimError(f"unsupported operation 'arith.{op}'; supported: " + ", ".join(sorted(ARITH)),
                           instruction=f"arith.{op}", rule="pto.interp.op", value=op)
    need = {"int_bin": 2, "float_bin": 2, "cmpi": 2, "cmpf": 2, "select": 3, "cast": 1, "negf": 1}[kind]
    if len(args) != need:
        raise _fail(op, f"takes {need} operands, got {len(args)}", "operands", len(args))
    names = ("lhs", "rhs") if need == 2 else ("in",)
    if kind in ("int_bin", "cmpi"):
        a, b = (_want(op, v, "an integer or index scalar", n) for v, n in zip(args, names))
    elif kind in ("float_bin", "cmpf", "negf"):
        a, *rest = (_want(op, v, "a float scalar", n) for v, n in zip(args, names))
        b = rest[0] if rest else None
    if kind in ("int_bin", "float_bin", "cmpi", "cmpf") and a.type != b.type:
        raise _fail(op, f"operands have types {a.type} and {b.type}; they must match", "rhs", (a.type, b.type),
                    "pto.arith.type")
    if kind == "int_bin":
        return _INT_BIN[op](f"arith.{op}", a, b)
    if kind == "float_bin":
        return _FLOAT_BIN[op](f"arith.{op}", a, b)
    if kind == "negf":
        return Scalar(a.type, -a.value)
    if kind == "cmpi":
        if pred not in _CMPI:
            raise _fail(op, f"unknown predicate {pred!r}; predicates: {', '.join(_CMPI)}", "predicate", pred)
        return make_int("i1", int(_CMPI[pred](a, b)))
    if kind == "cmpf":
        if pred not in _CMPF:
            raise _fail(op, f"unknown predicate {pred!r}; predicates: {', '.join(_CMPF)}", "predicate", pred)
        x, y = float(a.value), float(b.value)
        return make_int("i1", int(_CMPF[pred](x, y, math.isnan(x) or math.isnan(y))))
    if kind == "select":
        c = _want(op, args[0], "an i1 condition", "condition")
        if c.type != "i1":
            raise _fail(op, f"the condition must be i1, not {c.type}", "condition", c.type, "pto.arith.type")
        t, f = args[1], args[2]
        if type(t) is not type(f) or (isinstance(t, Scalar) and t.type != f.type):
            raise _fail(op, "both choices must have the same type", "false_value", None, "pto.arith.type")
        return t if c.value else f
    fn, src_kind, dst_kind = _CASTS[op]
    a = _want(op, args[0], {"int": "an integer or index scalar", "float": "a float scalar", "any": "a scalar"}[src_kind],
              "in")
    if to is None:
        raise _fail(op, "needs a result type ('... : T to T')", "type", None, "pto.arith.type")
    ok = {"int": int_width(to) is not None, "float": is_float_type(to), "any": int_width(to) is not None
          or is_float_type(to)}[dst_kind]
    if not ok:
        raise _fail(op, f"cannot produce {to}", "type", to, "pto.arith.type")
    return fn(op, a, to)
