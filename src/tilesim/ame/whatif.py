"""Accumulator what-ifs: a GEMM accumulated in a format the proposal does not pick for its Ft and bOVF.

The proposal fixes the accumulator by ``Ft`` and ``bOVF``
(:func:`~tilesim.ame.accum.accumulator`). An architect also asks what
another one would have done on the same data: INT8 into INT32 rather than
INT16, BF16 into BF16 or FP16 rather than FP32, INT8 into FP32. A what-if
replaces the accumulator and keeps everything else: the same exact products,
the same K-slices of Ft's tile rows, the same accumulation model and RND
(docs/decisions.md AME26).

- Float inputs take float accumulators; integer and fixed-point inputs take
  integer, fixed-point or float ones. A float accumulator of integer inputs
  gets their values through :func:`carrier`, the narrowest of FP16, FP32 and
  FP64 that holds every value of the input format exactly, so the float
  rounding machinery sees the same exact products.
- No AME program expresses a what-if (``mxcfg`` has no accumulator field), so
  a plan with one computes values but emits no program.

>>> check("int8", "fp32").name, carrier(formats.get("int8")).name, carrier(formats.get("int16")).name
('fp32', 'fp16', 'fp32')
>>> in_proposal("int8", 0, "int16"), in_proposal("int8", 0, "int32")
(True, False)
"""

from __future__ import annotations

from .. import formats
from ..errors import UnsupportedError
from ..formats import Format
from .accum import accumulator

__all__ = ["PROPOSAL", "CHOICES", "check", "carrier", "in_proposal"]

PROPOSAL = "proposal"  # the accumulator the proposal picks from Ft and bOVF
CHOICES: tuple[str, ...] = (PROPOSAL, "int8", "int16", "int32", "int64", "fp16", "bf16", "fp32", "fp64")
_CARRIERS = ("fp16", "fp32", "fp64")


def check(ft, acc) -> Format:
    """The accumulator ``acc`` (a name of :data:`CHOICES` but ``proposal``, or any integer, fixed-point or float
    format with an AME code) for input format ``ft``.

    Raises:
        UnsupportedError: float inputs into an integer or fixed-point accumulator, or a format with no AME
            code (rule ``ame.gemm.acc``).
        FormatError: an unknown format.
    """
    ft, fmt = formats.get(ft), formats.get(acc)
    if not fmt.ame_codes:
        raise UnsupportedError(f"{fmt.name} has no AME FormatType code, so no tile holds it as an accumulator",
                               instruction="gemm", operand="acc", rule="ame.gemm.acc", value=fmt.name)
    if ft.is_float and not fmt.is_float:
        raise UnsupportedError(f"{ft.name} inputs accumulate in floats, not in {fmt.name}; give fp16, bf16, fp32 or "
                               "fp64", instruction="gemm", operand="acc", rule="ame.gemm.acc", value=fmt.name)
    if fmt.is_float and not fmt.signed:
        raise UnsupportedError(f"{fmt.name} holds no negative sums; give a signed accumulator", instruction="gemm",
                               operand="acc", rule="ame.gemm.acc", value=fmt.name)
    if not ft.is_float and fmt.is_float and carrier(ft) is None:
        raise UnsupportedError(f"{ft.name} values do not all fit FP64, so no float accumulator takes them exactly",
                               instruction="gemm", operand="acc", rule="ame.gemm.acc", value=fmt.name)
    return fmt


def carrier(ft: Format) -> Format | None:
    """The narrowest of FP16, FP32 and FP64 that holds every value of integer or fixed-point ``ft`` exactly
    (``None`` for 64-bit ones)."""
    for name in _CARRIERS:
        c = formats.get(name)
        if c.man_bits + 1 >= ft.bits - 1 and c.emin <= -ft.frac_bits and c.emax >= ft.bits:
            return c
    return None


def in_proposal(ft, bovf: int, acc) -> bool:
    """Whether ``acc`` is the accumulator the proposal picks for ``ft`` and ``bovf``."""
    return formats.get(acc) is accumulator(ft, bovf)
