"""The vectorised ``doc`` model equals the scalar transcription of the seed pages, bit for bit.

Randomised over every data-type combination of the ELWMUL and GMPOOL tables (and the FP16A_FORCE
path), fidelity phases 0-3 (RWC + FIDELITY_BASE_Phase), both broadcasts, ArgMax on and off,
undefined Dst rows, non-zero Dst offsets (MATH_Offset, DEST_REGW_BASE, RWC.Dst), random RWCs,
address modes with the bias bit, threads, Config banks and flips with and without CLR_DVALID.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim.tensix import make

from . import oracle
from .helpers import COMBOS, assert_same, datums, random_machine

seeds = st.integers(0, 2**32 - 1)


def _flip(rng):
    return int(rng.integers(0, 4))


@pytest.mark.parametrize("combo", COMBOS)
@given(seed=seeds)
@settings(max_examples=100)
def test_elwmul(combo, seed):
    rng = np.random.default_rng(seed)
    m, t, _ = random_machine(rng, combo)
    flip, bcast, am, row = _flip(rng), int(rng.integers(0, 4)), int(rng.integers(0, 4)), int(rng.integers(0, 1024))
    o = oracle.snapshot(m)
    m.execute(make("ELWMUL", FlipSrcA=flip & 1, FlipSrcB=flip >> 1, DestAccumEn=1, BroadcastSrcBRow=bcast >> 1,
                   BroadcastSrcBCol0=bcast & 1, AddrMod=am, DstRow=row), thread=t)
    oracle.elw(o, t, "mul", flip, 1, bcast, am, row)
    assert_same(m, o)


@pytest.mark.parametrize("phase", range(4))
@pytest.mark.parametrize("combo", ["bf16_dst32", "tf32_dst16", "fp16_dst32", "int8"])
def test_elwmul_each_fidelity_phase(combo, phase):
    """Every phase on its own, with no base offset, for each family of types."""
    for seed in range(6):
        rng = np.random.default_rng(1000 * phase + seed)
        m, t, _ = random_machine(rng, combo, addr_mods=False, offsets=False)
        m.rwc[t].fidelity = phase
        o = oracle.snapshot(m)
        m.execute(make("ELWMUL", DstRow=8 * seed), thread=t)
        oracle.elw(o, t, "mul", 0, 0, 0, 0, 8 * seed)
        assert_same(m, o)


@pytest.mark.parametrize("op", ["ELWADD", "ELWSUB"])
@pytest.mark.parametrize("combo", ["bf16_dst16", "tf32_dst32", "fp16_dst16", "fp16_dst32", "int8"])
@given(seed=seeds)
@settings(max_examples=40)
def test_elwadd_elwsub(op, combo, seed):
    rng = np.random.default_rng(seed)
    m, t, _ = random_machine(rng, combo)
    flip, bcast, am, row, add = _flip(rng), int(rng.integers(0, 4)), int(rng.integers(0, 4)), \
        int(rng.integers(0, 1024)), int(rng.integers(0, 2))
    o = oracle.snapshot(m)
    m.execute(make(op, FlipSrcA=flip & 1, FlipSrcB=flip >> 1, AddDst=add, BroadcastSrcBRow=bcast >> 1,
                   BroadcastSrcBCol0=bcast & 1, AddrMod=am, DstRow=row), thread=t)
    oracle.elw(o, t, "add" if op == "ELWADD" else "sub", flip, add, bcast, am, row)
    assert_same(m, o)


@pytest.mark.parametrize("combo", ["bf16_dst16", "tf32_dst32", "fp16_dst16", "fp16_dst32", "int8"])
@pytest.mark.parametrize("op", ["MVMUL", "MVMUL_BCAST", "DOTPV", "GAPOOL"])
@given(seed=seeds)
@settings(max_examples=10)
def test_matmul(op, combo, seed):
    rng = np.random.default_rng(seed)
    m, t, _ = random_machine(rng, combo)
    m.rwc[t].srca &= 0x2F  # the 16 SrcA rows must lie inside the bank
    flip, am, row = _flip(rng), int(rng.integers(0, 4)), int(rng.integers(0, 1024))
    o = oracle.snapshot(m)
    if op == "MVMUL_BCAST":
        m.execute(make("MVMUL", FlipSrcA=flip & 1, FlipSrcB=flip >> 1, BroadcastSrcBRow=1, AddrMod=am, DstRow=row),
                  thread=t)
        oracle.mvmul(o, t, flip, 1, am, row)
    else:
        m.execute(make(op, FlipSrcA=flip & 1, FlipSrcB=flip >> 1, AddrMod=am, DstRow=row), thread=t)
        oracle.mvmul(o, t, flip, 0, am, row, 4 if op == "GAPOOL" else None)
    assert_same(m, o)


GMPOOL_COMBOS = ("bf16_dst16", "bf16_dst32", "tf32_dst16", "tf32_dst32", "fp16_dst16", "fp16_dst32", "int8",
                 "fp16_force")


def _gmpool_machine(rng, combo, rounding):
    m, t, style = random_machine(rng, combo, rounding)
    b = m.srcb_bank
    row = m.rwc[t].srcb & 0x38
    one = {"FP16": 15, "INT8": 16}.get(style, 127)
    kind = rng.integers(0, 3)
    if kind == 0:  # 1.0 everywhere: no scaling
        m.srcb[b, row] = one
    elif kind == 1:  # random scales, some exponent 0 (scale the row to -inf)
        m.srcb[b, row] = datums(rng, style, 16)
    # kind 2: whatever random data is there
    if style != "INT8" and rng.random() < 0.5:
        # many ties: small alphabet of values in SrcA
        a_row = m.rwc[t].srca & 0x30
        alphabet = datums(rng, style, 4, garbage=0)
        m.srca[m.srca_bank, a_row:a_row + 16] = rng.choice(alphabet, (16, 16))
    return m, t


@pytest.mark.parametrize("argmax", [0, 1])
@pytest.mark.parametrize("combo", GMPOOL_COMBOS)
@given(seed=seeds)
@settings(max_examples=60)
def test_gmpool(combo, argmax, seed):
    rng = np.random.default_rng(seed)
    m, t = _gmpool_machine(rng, combo, "doc")
    flip, am, row = _flip(rng), int(rng.integers(0, 4)), int(rng.integers(0, 1024))
    o = oracle.snapshot(m)
    m.execute(make("GMPOOL", FlipSrcA=flip & 1, FlipSrcB=flip >> 1, InstrMod19=1, AddrMod=am, ArgMax=argmax,
                   DstRow=row), thread=t)
    oracle.gmpool(o, t, flip, am, argmax, row)
    assert_same(m, o)


@pytest.mark.parametrize("argmax", [0, 1])
@pytest.mark.parametrize("combo", GMPOOL_COMBOS)
@given(seed=seeds)
@settings(max_examples=25)
def test_gmpool_hardware_is_strict(combo, argmax, seed):
    """The hardware model is the page's model with a strict comparison (spec §9.9)."""
    rng = np.random.default_rng(seed)
    m, t = _gmpool_machine(rng, combo, "hardware")
    o = oracle.snapshot(m)
    m.execute(make("GMPOOL", InstrMod19=1, ArgMax=argmax, DstRow=4), thread=t)
    oracle.gmpool(o, t, 0, 0, argmax, 4, strict=True)
    assert_same(m, o)


def test_oracle_comparison_can_fail():
    """Guard: a one-bit change in the machine is caught by the comparison."""
    rng = np.random.default_rng(7)
    m, t, _ = random_machine(rng, "bf16_dst16")
    o = oracle.snapshot(m)
    m.execute(make("ELWMUL", DstRow=0), thread=t)
    oracle.elw(o, t, "mul", 0, 0, 0, 0, 0)
    r = int(np.flatnonzero(m.dst_valid)[0])
    m.dst[r, 0] ^= 1
    with pytest.raises(AssertionError):
        assert_same(m, o)
