"""CSR tables, builders, WARL writes, the accumulator table."""

import dataclasses

import pytest
from hypothesis import given, strategies as st

from tilesim import formats
from tilesim.ame import ACCUMULATORS, CSRS, MXCFG, MXSTATUS, MXTILE, Core, accumulator, mxcfg, mxtile
from tilesim.ame import accum, csr
from tilesim.errors import EncodingError, FormatError


@pytest.mark.parametrize("c", CSRS, ids=lambda c: c.name)
@given(data=st.data())
def test_fields_round_trip(c, data):
    values = {f.name: data.draw(st.integers(0, (1 << f.width) - 1), f.name) for f in c.fields}
    assert c.unpack(c.pack(**values)) == values


def test_layouts_are_the_seeds():
    # proposal v0.14_1 section 6; status bits 0..3 per the AME decisions
    assert [(f.label, f.hi, f.lo) for f in MXCFG.fields] == [("Ft", 7, 0), ("bOVF", 8, 8), ("RND", 11, 9),
                                                             ("SAT", 12, 12)]
    assert [(f.label, f.hi, f.lo) for f in MXTILE.fields] == [("K", 7, 0), ("M", 15, 8), ("TILING", 17, 16),
                                                              ("GUARD4x4", 18, 18)]
    assert [(f.name, f.lo) for f in MXSTATUS.fields] == [("guard_fallback", 0), ("badgeom", 1), ("inexact", 2),
                                                         ("sat_hit", 3)]
    assert (MXCFG.address, MXTILE.address, MXSTATUS.address) == (0x7C0, 0x7C1, 0x7C2)


def test_validation_rejects_bad_tables():
    bad = dataclasses.replace(MXCFG, fields=MXCFG.fields + (csr.Field("x", 9, 8, "X", "overlaps bOVF"),))
    with pytest.raises(ValueError, match="overlaps"):
        csr.validate((bad, MXTILE, MXSTATUS), csr.TILINGS)
    with pytest.raises(ValueError, match="address"):
        csr.validate((MXCFG, dataclasses.replace(MXTILE, address=0x7C0), MXSTATUS), csr.TILINGS)
    with pytest.raises(ValueError, match="outside 32 bits"):
        csr.validate((dataclasses.replace(MXCFG, fields=(csr.Field("x", 40, 33, "X", ""),)),), csr.TILINGS)
    with pytest.raises(ValueError, match="TILING"):
        csr.validate(CSRS, csr.TILINGS[:3])


def test_builders():
    # Ft=0x11, SAT at bit 12
    assert mxcfg(ft="fp8_e4m3", bovf=0, rnd="rne", sat=1) == 0x11 | 1 << 12
    assert mxcfg(ft=0x29, bovf=1, rnd="rdn") == 0x29 | 1 << 8 | 2 << 9
    assert mxtile(k=16, m=16, tiling="2x2", guard4x4=True) == 16 | 16 << 8 | 1 << 16 | 1 << 18
    assert mxtile(k=8, m=4, tiling="4×1") == 8 | 4 << 8 | 3 << 16


@pytest.mark.parametrize("call,err,rule", [
    (lambda: mxcfg(ft="nope"), FormatError, None),
    (lambda: mxcfg(ft="uint8"), FormatError, "ame.ft"),
    (lambda: mxcfg(ft=0x16), FormatError, "ame.ft"),
    (lambda: mxcfg(rnd="rmm"), EncodingError, "ame.csr.value"),
    (lambda: mxcfg(rnd=4), EncodingError, "ame.csr.value"),
    (lambda: mxtile(tiling="3x3"), EncodingError, "ame.csr.value"),
    (lambda: mxtile(k=256), EncodingError, "ame.csr.value"),
    (lambda: MXCFG.field("K"), EncodingError, "ame.csr.field"),
    (lambda: Core().csrr("mxfoo"), EncodingError, "ame.csr.unknown"),
    (lambda: Core().csrw(0x7C3, 1), EncodingError, "ame.csr.unknown"),
])
def test_csr_errors(call, err, rule):
    with pytest.raises(err) as info:
        call()
    if rule:
        assert info.value.rule == rule


def test_reset_warl_and_names():
    core = Core()
    assert core.csrr("mxcfg") == 0  # INT8, bOVF=0, RNE, SAT=0
    assert MXTILE.unpack(core.csrr(0x7C1)) == {"k": 16, "m": 16, "tiling": 1, "guard4x4": 0}
    core.csrw("mxcfg", 0xFFFF_FFFF)
    core.csrw(0x7C1, -1)
    core.csrw("mx.status", 0xFF)
    assert (core.csrr(0x7C0), core.csrr("mxtile"), core.csrr("status")) == (0x1FFF, 0x7FFFF, 0xF)
    assert core.status == {"guard_fallback": True, "badgeom": True, "inexact": True, "sat_hit": True}


# ------------------------------------------------------------ accumulator table
@pytest.mark.parametrize("ft,full", [
    # the proposal's accumulator rule (v0.14_1 §4) and docs/decisions.md AME2
    ("int4", "int8"), ("int8", "int16"), ("int16", "int32"), ("int32", "int64"), ("fp4_e2m1", "fp16"),
    ("fp4_e1m2", "fp16"), ("fp6_e3m2", "fp16"), ("fp6_e2m3", "fp16"), ("fp6_e4m1", "fp16"),
    ("fp8_e4m3", "fp16"), ("fp8_e5m2", "fp16"), ("fp16", "fp32"), ("bf16", "fp32"), ("tf32", "fp32"),
    ("fp32", "fp32"), ("uf16_e8m8", "fp32"), ("fp64", "fp64"), ("q4_3", "fix16_6"), ("q2_5", "fix16_10"),
    ("q4_8", "fix24_16"), ("q5_7", "fix24_14"), ("q8_8", "q16_16"), ("q16_16", "q32_32"), ("e8m0", "fp32"),
    ("uf4_e2m2", "fp32"), ("uf4_e1m3", "fp32"), ("uf6_e4m2", "fp32"),
    # docs/decisions.md AME2
    ("int12", "fix24_0"), ("int64", "int64"), ("fp12_e5m6", "fp32"), ("fp12_e4m7", "fp32"), ("q32_32", "q32_32"),
])
def test_accumulator_table(ft, full):
    assert accumulator(ft, 0).name == full
    assert accumulator(ft, 1) is formats.get(ft)


def test_both_int8_codes_and_every_code_has_a_row():
    assert accumulator(0x00, 0).name == accumulator(0x10, 0).name == "int16"
    assert {formats.get(r.ft).name for r in ACCUMULATORS} == {f.name for f in formats.AME_CODES.values()}


def test_accumulator_table_validation():
    with pytest.raises(ValueError, match="differ"):
        accum.validate(ACCUMULATORS[1:])
    with pytest.raises(ValueError, match="two accumulator rows"):
        accum.validate(ACCUMULATORS + ACCUMULATORS[:1])
    with pytest.raises(ValueError, match="integer inputs"):
        accum.validate((accum.AccRule("int8", "fp16", "int8"),) + ACCUMULATORS[2:])
    with pytest.raises(ValueError, match="fraction bits"):
        accum.validate((accum.AccRule("q4_3", "fix16_10", "q4_3"),) + ACCUMULATORS)
