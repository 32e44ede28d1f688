"""TCVT f16/bf16 -> f32 on the NPUs: every code, every round mode, against the format's definition (a bf16 code is
the high half of its f32 code; numpy's f16 -> f32 cast) and, for NaN lanes, the general encoder's bits. A tile
without NaN takes the widening cast; one with a NaN takes the general path for every lane."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import formats, pto
from tilesim.errors import TilesimError
from tilesim.pto import numerics as nx
from tilesim.pto.ops.convert import ROUND_MODES


def _expected(codes: np.ndarray, src: str, flush: bool) -> tuple[np.ndarray, np.ndarray]:
    """(f32 codes, NaN lanes) of f16/bf16 ``codes``, subnormals flushed to a zero of their sign under ``flush``."""
    exp, man = (0x7F80, 0x7F) if src == "bf16" else (0x7C00, 0x3FF)
    sub = ((codes & exp) == 0) & ((codes & man) != 0)
    kept = np.where(sub & flush, codes & 0x8000, codes)
    nan = ((kept & exp) == exp) & ((kept & man) != 0)
    want = kept.astype(np.uint32) << 16 if src == "bf16" else kept.view(np.float16).astype(np.float32).view(np.uint32)
    with np.errstate(invalid="ignore"):
        x = nx.as_f32(kept[nan], pto.get_dtype(src)).astype(np.float64)
    want[nan] = formats.encode(x, formats.get("fp32"), rounding="rne", flush_subnormals=flush)
    return want, nan


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("src", ["bf16", "f16"])
def test_widening_to_f32_is_exact_in_every_mode(target, src):
    codes = np.arange(1 << 16, dtype=np.uint16)
    flush = pto.get_target(target).flush_denormals
    _, nan = _expected(codes, src, flush)
    numbers = np.zeros(-(-np.count_nonzero(~nan) // 256) * 256, np.uint16)
    numbers[: np.count_nonzero(~nan)] = codes[~nan]
    ran = 0
    for lanes in (numbers.reshape(-1, 256), codes.reshape(256, 256)):     # without NaN, then every code
        s = pto.Tile("vec", src, *lanes.shape)
        s.bits[...] = lanes
        want, _ = _expected(lanes, src, flush)
        for mode in ROUND_MODES:
            d = pto.Tile("vec", "f32", *lanes.shape)
            try:
                pto.tcvt(d, s, mode, target=target)
            except TilesimError as e:
                assert e.rule in ("pto.op.dtype", "pto.tcvt.rmode")
                continue
            ran += 1
            assert np.array_equal(d.bits, want), mode
    assert ran == 2 * len(ROUND_MODES)
