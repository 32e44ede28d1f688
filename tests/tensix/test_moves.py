"""MOVA2D, MOVDBGA2D, MOVB2D, MOVD2A, MOVD2B, TRNSPSRCB, SHIFTXA, SHIFTXB (pages of the same names)."""

import numpy as np
import pytest

from tilesim.errors import SpecGapError, StateError
from tilesim.tensix import Machine, make
from tilesim.tensix.layouts import adj32, src_from_bf16, src_from_fp16
from tilesim.tensix.fpu.moves import remove_low_mantissa
from tilesim.tensix.state import Client


def machine(fmt=5, **cfg):
    m = Machine()
    m.configure(ALU_FORMAT_SPEC_REG0_SrcA=fmt, **cfg)
    m.srca_client[0] = m.srcb_client[0] = Client.MATRIX_UNIT
    return m


def d32(m, row):
    a = adj32(row)
    return (m.dst[a].astype(np.uint32) << 16) | m.dst[a + 8]


def test_mova2d_bf16_fp16_tf32():
    m = machine(5)
    m.srca[0, 3] = src_from_bf16(0x3FC0)                  # 1.5
    m.execute(make("MOVA2D", SrcRow=3, DstRow=40))
    assert (m.dst[40] == 0x407F).all()                    # Dst16 BF16: sign | man7 << 8 | exp
    m = machine(1)
    m.srca[0, 0] = src_from_fp16(0xC100)                  # -2.5
    m.execute(make("MOVA2D", DstRow=2))
    assert (m.dst[2] == 0xA010).all()                     # Dst16 FP16: sign | man10 << 5 | exp5
    m = machine(4)
    m.srca[0, 8:16] = (0x201 << 8) | 127                  # TF32 1 + 2**-1 + 2**-10
    m.execute(make("MOVA2D", SrcRow=8, Move8Rows=1, DstRow=16))
    # Dst32 FP32: high half 0x407F (top 7 mantissa bits), low half = low 3 mantissa bits << 13.
    assert (d32(m, 16 + np.arange(8)[:, None].repeat(16, 1)) == 0x407F2000).all()
    assert m.dst_valid[adj32(16 + np.arange(8))].all()


def test_mova2d_flushes_exponent_zero_unless_disabled():
    m = machine(9)                                         # INT16: opaque
    m.srca[0, 0] = 0x7FF00                                 # low 8 bits zero: reads as zero when flushing
    m.execute(make("MOVA2D"))
    assert (m.dst[0] == 0).all()
    m = machine(9, ALU_ACC_CTRL_Zero_Flag_disabled_src=1)
    m.srca[0, 0] = 0x7FF00
    m.execute(make("MOVA2D"))
    assert (m.dst[0] == 0xFF00).all()


def test_movx2d_use_dst32b_lo_packs_two_16_bit_values():
    m = machine(4)
    m.srca[0, 0] = src_from_bf16(0x3F80)
    m.execute(make("MOVA2D", DstRow=0))                    # TF32: high half 0x007F
    m.configure(ALU_FORMAT_SPEC_REG0_SrcA=5)
    m.srca[0, 1] = src_from_bf16(0x4000)
    m.execute(make("MOVA2D", SrcRow=1, DstRow=0, UseDst32bLo=1))
    assert (d32(m, 0) == 0x007F0080).all()


def test_movb2d_broadcasts():
    m = machine(5)
    m.srcb[0, 5] = np.arange(16) + 0x100
    m.execute(make("MOVB2D", SrcRow=5, Broadcast1RowTo8=1, DstRow=9))    # DstRow & 0x3f8 = 8
    assert (m.dst[8:16] == remove_low_mantissa(np.arange(16) + 0x100)).all()
    m.execute(make("MOVB2D", SrcRow=5, BroadcastCol0=1, DstRow=100))
    assert (m.dst[100] == remove_low_mantissa(0x100)).all()
    m.srcb[0, 4:8] = np.arange(64).reshape(4, 16) + 0x1101
    m.execute(make("MOVB2D", SrcRow=6, Move4Rows=1, DstRow=203))          # rows 4..7 -> 200..203
    assert (m.dst[200:204] == remove_low_mantissa(np.arange(64).reshape(4, 16) + 0x1101)).all()


@pytest.mark.parametrize("fmt, fp32, data", [(5, 0, 0x407F), (1, 0, 0xA010), (5, 1, 0x407F1234), (4, 1, 0x407F2000)])
def test_movd2a_movd2b_invert_the_moves(fmt, fp32, data):
    m = machine(fmt, ALU_ACC_CTRL_Fp32_enabled=fp32)
    if fp32:
        a = adj32(np.arange(4) + 12)
        m.dst[a], m.dst[a + 8] = data >> 16, data & 0xFFFF
    else:
        m.dst[12:16] = data
    m.execute(make("MOVD2A", DstRow=12, Move4Rows=1, SrcRow=20))
    m.execute(make("MOVD2B", DstRow=13, SrcRow=33))
    back = {(5, 0): src_from_bf16(0x3FC0), (1, 0): src_from_fp16(0xC100), (5, 1): src_from_bf16(0x3FC0),
            (4, 1): (0x201 << 8) | 127}[(fmt, fp32)]
    assert (m.srca[0, 20:24] == back).all() and (m.srcb[0, 33] == back).all()


def test_movd2a_undefined_row_reads_zero_and_dst16_cannot_give_tf32():
    m = machine(5)
    m.dst[0] = 0x407F
    m.dst_valid[0] = False
    m.srca[0, 0] = 7
    m.execute(make("MOVD2A"))
    assert (m.srca[0, 0] == 0).all()
    m = machine(4)
    before = m.srca.copy()
    with pytest.raises(SpecGapError) as e:
        m.execute(make("MOVD2A"))
    assert e.value.rule == "tt.mov.dst16" and (m.srca == before).all()
    with pytest.raises(SpecGapError):
        machine(5).execute(make("MOVD2B", UseDst32bLo=1))


def test_movd2a_use_dst32b_lo():
    m = machine(4, ALU_ACC_CTRL_Fp32_enabled=1)
    m.dst[0], m.dst[8] = 0x407F, 0x3456
    m.execute(make("MOVD2A", UseDst32bLo=1))
    assert (m.srca[0, 0] == 0x3456 & 0x1FFF).all()        # the 13 bits TF32 drops


def test_trnspsrcb():
    m = machine()
    m.srcb[0, 16:32] = np.arange(256).reshape(16, 16)
    m.execute("TTI_TRNSPSRCB")
    assert (m.srcb[0, 16:32] == np.arange(256).reshape(16, 16).T).all()


def test_shiftxb_and_shiftxa():
    m = machine()
    m.srcb[0, 9] = np.arange(16) + 1
    m.rwc[0].srcb = 4
    m.execute(make("SHIFTXB", SrcRow=5))
    # columns 1..14 move left, column 14 keeps its value, column 15 gets the old column 0.
    assert m.srcb[0, 9].tolist() == list(range(2, 16)) + [15, 1]
    m.execute(make("SHIFTXB", SrcRow=5, ShiftInZero=1))
    assert m.srcb[0, 9].tolist() == list(range(3, 16)) + [15, 15, 0]
    m.srca[0, 16:32] = np.arange(256).reshape(16, 16) + 1
    m.last_srca_row = 16                                   # as left by the previous instruction
    m.execute(make("SHIFTXA", Direction=2))
    assert m.srca[0, 0].tolist() == [0] + list(range(1, 16))
    m.execute(make("SHIFTXA", Direction=3))
    assert m.srca[0, 1].tolist() == list(range(18, 33)) + [0]


def test_wait_gate():
    m = Machine()
    with pytest.raises(StateError) as e:
        m.execute(make("MOVA2D"))
    assert e.value.rule == "tt.stall.srca"
    with pytest.raises(StateError) as e:
        m.execute(make("MOVB2D"))
    assert e.value.rule == "tt.stall.srcb"
    m.execute(make("MOVDBGA2D"))                           # no Wait Gate
    m.execute(make("MOVD2A"))                              # nor here
