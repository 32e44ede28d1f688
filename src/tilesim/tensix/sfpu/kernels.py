"""tt-llk SFPU kernels as instruction text, for code that runs them (``tilesim compare``); the
``examples/tensix/llk_sfpu_*.tt`` programs are the same streams, unrolled with comments.

:data:`EXP_STEP` is tt-llk's Wormhole B0 ``_sfpu_exp_21f_bf16_<true>`` (``ckernel_sfpu_exp.h``:
Moroz et al.'s exp_21f, ``2**(x / ln 2)`` from the bits of ``x / ln 2 + 127`` clamped to [0, 255]
and a degree-2 polynomial for the fraction), constants loaded by SFPLOADI in every step.

:data:`RECIPROCAL_INIT` and :data:`RECIPROCAL_STEP` are tt-llk's Wormhole B0 reciprocal with FP32 Dst
(``common/inc/sfpu/ckernel_sfpu_recip.h``: ``_init_sfpu_reciprocal_`` loads the quadratic's
coefficients into the programmable constants LReg12-14; ``_sfpu_reciprocal_<2>`` is a quadratic
estimate on [1, 2) and two Newton-Raphson steps), its SFPI code written out as SFPU instructions
with our register allocation. One step handles 32 lanes (4 Dst rows x 8 columns); ``TTI_INCRWC(0,
2, 0, 0)`` is ``sfpi::dst_reg++``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RECIPROCAL_INIT", "RECIPROCAL_STEP", "EXP_STEP", "fp32_halves"]

#: The quadratic ``k2 - k1 x + k0 x**2`` for 1/x on [1, 2) (the source's Sollya fit).
_RECIP_K = (0.3232325017452239990234375, 1.4545459747314453125, 2.121212482452392578125)


def fp32_halves(x: float) -> tuple[int, int]:
    """The high and low 16 bits of ``x`` as FP32 (SFPLOADI modes 8 and 10)."""
    b = int(np.float32(x).view(np.uint32))
    return b >> 16, b & 0xFFFF


RECIPROCAL_INIT: tuple[str, ...] = tuple(
    line for reg, k in zip((12, 13, 14), _RECIP_K)
    for line in (f"TTI_SFPLOADI(p_sfpu::LREG0, 8, {fp32_halves(k)[0]:#06x})",
                 f"TTI_SFPLOADI(p_sfpu::LREG0, 10, {fp32_halves(k)[1]:#06x})",
                 f"TTI_SFPCONFIG(0, {reg}, 0)"))

RECIPROCAL_STEP: tuple[str, ...] = (
    "TTI_SFPLOAD(p_sfpu::LREG0, InstrModLoadStore::DEFAULT, ADDR_MOD_3, 0)",
    "TTI_SFPMOV(0, p_sfpu::LREG0, p_sfpu::LREG1, 0)",
    "TTI_SFPSETMAN(0, p_sfpu::LCONST_neg1, p_sfpu::LREG1, 0)",
    "TTI_SFPMAD(p_sfpu::LREG12, p_sfpu::LREG1, p_sfpu::LREG13, p_sfpu::LREG2, 0)",
    "TTI_SFPNOT(0, p_sfpu::LREG0, p_sfpu::LREG3, 0)",
    "TTI_SFPMAD(p_sfpu::LREG2, p_sfpu::LREG1, p_sfpu::LREG14, p_sfpu::LREG2, 0)",
    "TTI_SFPSETMAN(0, p_sfpu::LREG3, p_sfpu::LREG3, 1)",
    "TTI_SFPMAD(p_sfpu::LREG1, p_sfpu::LREG2, p_sfpu::LCONST_1, p_sfpu::LREG4, 0)",
    "TTI_SFPMULI(0x3f00, p_sfpu::LREG3, 0)",
    "TTI_SFPMAD(p_sfpu::LREG2, p_sfpu::LREG4, p_sfpu::LREG2, p_sfpu::LREG2, 0)",
    "TTI_SFPMAD(p_sfpu::LREG1, p_sfpu::LREG2, p_sfpu::LCONST_1, p_sfpu::LREG4, 0)",
    "TTI_SFPMAD(p_sfpu::LREG2, p_sfpu::LREG4, p_sfpu::LREG2, p_sfpu::LREG2, 0)",
    "TTI_SFPMUL(p_sfpu::LREG2, p_sfpu::LREG3, p_sfpu::LCONST_0, p_sfpu::LREG2, 0)",
    "TTI_SFPSETSGN(0, p_sfpu::LREG2, p_sfpu::LREG0, 0)",
    "TTI_SFPSTORE(p_sfpu::LREG0, InstrModLoadStore::DEFAULT, ADDR_MOD_3, 0)",
    "TTI_INCRWC(0, 2, 0, 0)",
)


def _loadi32(reg: str, x: float) -> tuple[str, str]:
    hi, lo = fp32_halves(x)
    return f"TTI_SFPLOADI({reg}, 8, {hi:#06x})", f"TTI_SFPLOADI({reg}, 10, {lo:#06x})"


#: exp_21f's constants: 1 / ln 2 as tt-llk writes it, and the polynomial c0 + c1 f + c2 f**2.
_EXP_ONE_LN2, _EXP_C = 1.4426950216293334961, (1.0017248, 7.839635491371155e-08, 4.791750143340323e-15)

EXP_STEP: tuple[str, ...] = (
    "TTI_SFPLOAD(p_sfpu::LREG0, InstrModLoadStore::DEFAULT, ADDR_MOD_3, 0)",
    *_loadi32("p_sfpu::LREG1", _EXP_ONE_LN2),
    "TTI_SFPLOADI(p_sfpu::LREG2, 0, 0x42fe)",
    "TTI_SFPMAD(p_sfpu::LREG0, p_sfpu::LREG1, p_sfpu::LREG2, p_sfpu::LREG3, 0)",
    "TTI_SFPLOADI(p_sfpu::LREG4, 0, 0x0000)",
    "TTI_SFPLOADI(p_sfpu::LREG5, 0, 0x437f)",
    "TTI_SFPSWAP(0, p_sfpu::LREG3, p_sfpu::LREG4, p_sfpswap::ALL_ROWS_MAX)",
    "TTI_SFPSWAP(0, p_sfpu::LREG5, p_sfpu::LREG3, p_sfpswap::ALL_ROWS_MAX)",
    "TTI_SFPEXEXP(0, p_sfpu::LREG3, p_sfpu::LREG6, 0)",
    "TTI_SFPEXMAN(0, p_sfpu::LREG3, p_sfpu::LREG7, 0)",
    "TTI_SFPSHFT(0, p_sfpu::LREG6, p_sfpu::LREG7, 0)",
    "TTI_SFPEXEXP(0, p_sfpu::LREG7, p_sfpu::LREG6, 1)",
    "TTI_SFPEXMAN(0, p_sfpu::LREG7, p_sfpu::LREG7, 1)",
    "TTI_SFPCAST(p_sfpu::LREG7, p_sfpu::LREG7, 0)",
    *_loadi32("p_sfpu::LREG1", _EXP_C[2]),
    *_loadi32("p_sfpu::LREG2", _EXP_C[1]),
    "TTI_SFPMAD(p_sfpu::LREG7, p_sfpu::LREG1, p_sfpu::LREG2, p_sfpu::LREG1, 0)",
    *_loadi32("p_sfpu::LREG2", _EXP_C[0]),
    "TTI_SFPMAD(p_sfpu::LREG7, p_sfpu::LREG1, p_sfpu::LREG2, p_sfpu::LREG7, 0)",
    "TTI_SFPSETEXP(0, p_sfpu::LREG7, p_sfpu::LREG6, 0)",
    "TTI_SFPSTORE(p_sfpu::LREG6, InstrModLoadStore::DEFAULT, ADDR_MOD_3, 0)",
    "TTI_INCRWC(0, 2, 0, 0)",
)
