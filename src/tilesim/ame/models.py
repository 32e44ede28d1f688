"""The three accumulation models, on batches of MMACC operands.

Every product and every sum is exact (:mod:`tilesim.ame.exact`); the only
roundings are the ones a model names, each done once by
:func:`tilesim.formats.encode` (floats) or by an exact integer shift (fixed
point). The models (docs/decisions.md AME section):

- ``fused``: ``round(C + sum_k a_k b_k)``, one rounding per result;
- ``sequential``: ``acc = C``, then ``acc = round(acc + a_k b_k)`` for k ascending;
- ``chain_then_add``: ``acc = +0``, ``acc = round(acc + a_k b_k)`` for k ascending,
  then ``round(acc + C)``.

Operands are batches: ``a`` (S, M, K), ``b`` (S, N, K) and ``c`` (S, M, N)
codes, and the result is ``c[s, i, j] (+)= sum_k a[s, i, k] * b[s, j, k]``:
every sub-product of an instruction at once.

Integers and fixed point are exact in int64 when a bound from the formats
proves the sums fit, else in Python integers. A fixed-point accumulator with
fewer fraction bits than the products (bOVF=1 on a q format, and q32_32)
rounds with RND (docs/decisions.md AME8); then the result wraps or saturates
(AME9).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import formats
from ..errors import UnsupportedError
from ..formats import Format, Parts
from .lanes import float_values, int_codes, int_values
from .rounding import round_values
from .exact import cat, exact_sum, fit, float64_fused_exact, float64_grid, index, products, round_shift, zeros

__all__ = ["MODELS", "Outcome", "mac", "check_model"]

MODELS: tuple[str, ...] = ("fused", "sequential", "chain_then_add")

U64 = np.uint64

# Tests switch the float64 shortcut off to hold the limb path against the oracle on every input.
FLOAT64_SHORTCUT = True


@dataclass(frozen=True)
class Outcome:
    """Result codes (S, M, N) in the accumulator format, and the status events they raised."""

    codes: np.ndarray
    inexact: bool
    sat_hit: bool


def check_model(model: str) -> str:
    """The model name, checked.

    Raises:
        UnsupportedError: not one of :data:`MODELS` (rule ``ame.model``).
    """
    if model not in MODELS:
        raise UnsupportedError(f"unknown accumulation model {model!r}; valid: " + ", ".join(MODELS),
                               instruction="Core", operand="accumulation", rule="ame.model", value=model)
    return model


def mac(a_codes, b_codes, c_codes, ft: Format, acc: Format, rounding: str, saturate: bool,
        model: str) -> Outcome:
    """``C (+)= A x B^T`` on batches of codes, exact, rounded as ``model`` says.

    Args:
        a_codes, b_codes: lane codes of ``ft``, shapes (S, M, K) and (S, N, K).
        c_codes: lane codes of ``acc`` (S, M, N), or ``None`` to start from +0 (beta=1).
        ft, acc: input and accumulator formats.
        rounding: ``rne``, ``rup``, ``rdn`` or ``rtz``.
        saturate: clamp integer results (else wrap); for floats, clamp formats without Inf.
        model: one of :data:`MODELS`.
    """
    if ft.is_float:
        return _float_mac(a_codes, b_codes, c_codes, ft, acc, rounding, saturate and not acc.has_inf, model)
    return _int_mac(a_codes, b_codes, c_codes, ft, acc, rounding, saturate, model)


# ------------------------------------------------------------------- floats
class _OffGrid(Exception):
    """A step-wise model left float64's exact range: recompute with limbs."""


def _on_grid(state: np.ndarray, q: int) -> np.ndarray:
    """Check the running value is a multiple of 2**q below 2**(q + 52) (fmod is exact)."""
    if not (np.all(np.abs(state) < math.ldexp(1.0, q + 52)) and np.all(np.fmod(state, math.ldexp(1.0, q)) == 0)):
        raise _OffGrid
    return state


def _float_mac(a_codes, b_codes, c_codes, ft, acc, rounding, saturate, model) -> Outcome:
    shape = a_codes.shape[:-1] + (b_codes.shape[-2],)
    rdn = rounding == "rdn"

    def attempt(run, *args):
        flags = {"inexact": False, "sat_hit": False}

        def rnd(values):
            if isinstance(values, np.ndarray):  # float64 values (else exact Parts)
                codes, _, inexact, sat = round_values(values, acc, rounding, saturate)
                flags["inexact"] |= inexact
                flags["sat_hit"] |= sat
                return codes
            codes, fl = formats.encode(values, acc, rounding=rounding, saturate=saturate, return_flags=True)
            flags["inexact"] |= bool(fl.inexact.any())
            flags["sat_hit"] |= bool(fl.saturated.any())
            return codes

        codes = run(*args, acc, rdn, model, rnd)
        return Outcome(codes, flags["inexact"], flags["sat_hit"])

    if FLOAT64_SHORTCUT and ft.man_bits + 1 <= 26:
        va, vb = float_values(a_codes, ft), float_values(b_codes, ft)
        vc = float_values(c_codes, acc) if c_codes is not None else np.zeros(shape)
        if model == "fused":
            return attempt(_fused_split, va, vb, vc, a_codes, b_codes, c_codes, ft)
        q = float64_grid(va, vb, vc, ft, acc)
        if q is not None:
            try:
                return attempt(_float64_models, va, vb, vc, q)
            except _OffGrid:
                pass
    a, b = formats.decode_exact(a_codes, ft), formats.decode_exact(b_codes, ft)
    c = formats.decode_exact(c_codes, acc) if c_codes is not None else zeros(shape)
    return attempt(_limb_models, a, b, c, ft)


def _fused_split(va, vb, vc, a_codes, b_codes, c_codes, ft, acc, rdn, model, rnd):
    """``fused`` in float64 for the results it computes exactly, with limbs for the others."""
    ok = float64_fused_exact(va, vb, vc, ft, acc)
    if ok.all():
        return rnd(_fused_f64(va, vb, vc, rdn))
    codes = np.empty(ok.shape, acc.dtype)
    if ok.any():
        codes[ok] = rnd(_fused_f64(va, vb, vc, rdn)[ok])
    s, i, j = np.nonzero(~ok)
    a = formats.decode_exact(a_codes[s, i][:, None], ft)  # one (1, K) x (1, K) product per result
    b = formats.decode_exact(b_codes[s, j][:, None], ft)
    c = formats.decode_exact(c_codes[s, i, j][:, None, None], acc) if c_codes is not None else zeros((s.size, 1, 1))
    codes[s, i, j] = _limb_models(a, b, c, ft, acc, rdn, model, rnd)[:, 0, 0]
    return codes


def _limb_models(a, b, c, ft, acc, rdn, model, rnd):
    """The three models on exact Parts (any values)."""
    split = ft.man_bits + 1 > 32
    p = products(index(a, (Ellipsis, slice(None), None, slice(None))),
                 index(b, (Ellipsis, None, slice(None), slice(None))), split)  # (S, M, N, K, P)
    if model == "fused":
        flat = Parts(*(np.asarray(f).reshape(f.shape[:-2] + (-1,)) for f in p))
        return rnd(exact_sum(cat(flat, index(c, (Ellipsis, None))), rdn))
    state = c if model == "sequential" else zeros(c.sig.shape)
    for i in range(p.sig.shape[-2]):
        codes = rnd(exact_sum(cat(index(state, (Ellipsis, None)), index(p, (Ellipsis, i, slice(None)))), rdn))
        state = formats.decode_exact(codes, acc)
    if model == "sequential":
        return codes
    return rnd(exact_sum(cat(index(state, (Ellipsis, None)), index(c, (Ellipsis, None))), rdn))


def add_f64(x, y, rdn):
    """``x + y`` for float64 values whose sum is exact; an exact zero gets IEEE's sign for the mode."""
    s = x + y  # numpy rounds to nearest, which gives IEEE's zero sign for every mode but toward -inf
    if rdn:
        both_pos0 = (x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y)
        s = np.where((s == 0) & ~both_pos0, -0.0, s)
    return s


def _fused_f64(va, vb, vc, rdn):
    """``C + sum_k a_k b_k`` in float64 (exact where :func:`float64_fused_exact` says), IEEE zero signs."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = np.matmul(va, np.swapaxes(vb, -1, -2)) + vc
    s_, i, j = np.nonzero(s == 0)
    if s_.size:  # BLAS gives no reliable zero sign: apply exact_sum's rule to the exact terms
        p = va[s_, i] * vb[s_, j]  # (zeros, K): exact products, zero signs included
        c = vc[s_, i, j][:, None]
        neg = np.concatenate([np.signbit(p), np.signbit(c)], -1)
        z = np.concatenate([p == 0, c == 0], -1)
        s[s_, i, j] = np.where(np.all(z & neg, -1) | (rdn & ~np.all(z & ~neg, -1)), -0.0, 0.0)
    return s


def _float64_models(va, vb, vc, q, acc, rdn, model, rnd):
    """The step-wise models in float64, valid on the grid :func:`float64_grid` found."""
    state = vc if model == "sequential" else np.zeros(vc.shape)
    for i in range(va.shape[-1]):
        codes = rnd(add_f64(_on_grid(state, q), va[..., :, None, i] * vb[..., None, :, i], rdn))
        state = formats.decode(codes, acc)
    if model == "sequential":
        return codes
    return rnd(add_f64(_on_grid(state, q), vc, rdn))


# ---------------------------------------------------------- integers, fixed
def _needs_python_ints(ft: Format, acc: Format, k: int, shift: int) -> bool:
    """Whether a sum of k products plus C (in product units) can reach 2**62 (then int64 is not enough)."""
    bound = k * (1 << 2 * (ft.bits - 1)) + (1 << (acc.bits - 1 + shift))
    return bound >= 1 << 62


def _int_mac(a_codes, b_codes, c_codes, ft, acc, rounding, saturate, model) -> Outcome:
    a, b = int_values(a_codes, ft), int_values(b_codes, ft)
    shape = a.shape[:-1] + (b.shape[-2],)
    c = int_values(c_codes, acc) if c_codes is not None else np.zeros(shape, np.int64)
    k = a.shape[-1]
    shift = 2 * ft.frac_bits - acc.frac_bits  # product units -> accumulator units
    if _needs_python_ints(ft, acc, k, shift):
        a, b, c = (x.astype(object) for x in (a, b, c))
    inexact = sat_hit = False

    def step(x, s):
        nonlocal inexact, sat_hit
        v, dropped = round_shift(x, s, rounding)
        v, clamped = fit(v, acc, saturate)
        inexact |= dropped
        sat_hit |= clamped
        return v

    if model == "fused":
        v = step(np.matmul(a, np.swapaxes(b, -1, -2)) + (c << shift), shift)
    else:
        v = c if model == "sequential" else np.zeros_like(c)
        for i in range(k):
            v = step((v << shift) + a[..., :, None, i] * b[..., None, :, i], shift)
        if model == "chain_then_add":
            v = step(v + c, 0)
    return Outcome(int_codes(v, acc), inexact, sat_hit)
