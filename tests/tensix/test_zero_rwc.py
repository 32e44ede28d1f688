"""ZEROACC (all four modes), ZEROSRC, SETRWC, INCRWC, ApplyAddrMod with the bias bit, bank flips,
CLEARDVALID, SETDVALID."""

import numpy as np
import pytest

from tilesim.errors import SpecGapError
from tilesim.tensix import Client, Machine, make
from tilesim.tensix.layouts import adj32


def test_zeroacc_one_row_uses_offsets_and_adj32_in_32_bit_modes():
    m = Machine()
    m.configure(DEST_TARGET_REG_CFG_MATH_Offset=512, ADDR_MOD_DST_SEC1_DestIncr=3)
    m.rwc[0].dst = 5
    m.dst[:] = 0x1234
    m.execute(make("ZEROACC", Mode=0, Imm10=10, AddrMod=1))
    assert np.flatnonzero(~m.dst_valid).tolist() == [527]
    assert (m.dst == 0x1234).all()                          # data stays
    assert m.rwc[0].dst == 8                                # AddrMod applied
    m = Machine()
    m.configure(ALU_ACC_CTRL_Fp32_enabled=1)
    m.execute(make("ZEROACC", Mode=0, Imm10=9))
    assert np.flatnonzero(~m.dst_valid).tolist() == [adj32(9)] == [17]
    m = Machine()
    m.configure(ALU_ACC_CTRL_INT8_math_enabled=1)
    m.execute(make("ZEROACC", Mode=0, Imm10=9))
    assert np.flatnonzero(~m.dst_valid).tolist() == [17]


def test_zeroacc_16_rows():
    m = Machine()
    m.rwc[0].dst = 100                                      # ignored by mode 1
    m.execute(make("ZEROACC", Mode=1, Imm10=3))
    assert np.flatnonzero(~m.dst_valid).tolist() == list(range(48, 64))
    m = Machine()
    m.execute(make("ZEROACC", Mode=1, Imm10=3, UseDst32b=1))   # Dst32b rows 48..63
    assert np.flatnonzero(~m.dst_valid).tolist() == sorted(adj32(np.arange(48, 64)).tolist())
    for imm, wide in ((64, 0), (32, 1), (0xFF, 0)):          # out of range: outside the contract (TT24), no change
        m = Machine()
        m.configure(ADDR_MOD_AB_SEC0_SrcAIncr=1)
        with pytest.raises(SpecGapError) as e:
            m.execute(make("ZEROACC", Mode=1, Imm10=imm, UseDst32b=wide))
        assert e.value.rule == "tt.zeroacc.imm"
        assert m.dst_valid.all() and m.rwc[0].srca == 0


def test_zeroacc_half_and_all_do_not_apply_addr_mod():
    for imm, lo, hi in ((0, 0, 512), (1, 512, 1024)):
        m = Machine()
        m.configure(ADDR_MOD_AB_SEC0_SrcAIncr=1)
        m.execute(make("ZEROACC", Mode=2, Imm10=imm))
        assert np.flatnonzero(~m.dst_valid).tolist() == list(range(lo, hi)) and m.rwc[0].srca == 0
    m = Machine()
    m.execute(make("ZEROACC", Mode=3))
    assert not m.dst_valid.any()


def test_zeroacc_revert_is_undefined():
    m = Machine()
    with pytest.raises(SpecGapError) as e:
        m.execute(make("ZEROACC", Mode=3, Revert=1))
    assert e.value.rule == "tt.zeroacc.revert" and m.dst_valid.all()


def test_undefined_rows_read_as_identity_and_packers_read_zero():
    # After ZEROACC, ELWMUL 3 * 5 = 15 whatever the stale data; GMPOOL sees -inf; the packer sees 0.
    m = Machine()
    m.configure(ALU_FORMAT_SPEC_REG0_SrcA=5, ALU_FORMAT_SPEC_REG1_SrcB=5)
    m.dst[:] = 0x407F                                       # 1.5 everywhere
    m.execute("TT_ZEROACC(3, 0, 0)")
    assert (m.pack("BF16", rows=16).values == 0).all()
    m.unpack("srca", np.full((16, 16), -3.0), "BF16")
    m.unpack("srcb", np.full((8, 16), 5.0), "BF16")
    m.execute("TT_ELWMUL(0, 1, 0, 0, 0)")
    assert (m.pack("BF16", rows=8).values == -15.0).all()
    m.srcb[m.srcb_bank, 0] = (0 << 8) | 127                 # SrcB row of 1.0
    m.execute("TT_GMPOOL(0, 1, 0, 0, 16)")
    assert (m.pack("BF16", row=16, rows=1).values == -3.0).all()   # max(-inf, -3, ...) = -3
    assert (m.dst[9] == 0x407F).all() and not m.dst_valid[9] # untouched rows keep raw data


def test_zerosrc_modes():
    m = Machine()
    m.srca[:] = m.srcb[:] = 5
    m.srca_bank, m.unpacker_bank[0] = 1, 0
    m.execute(make("ZEROSRC", ClearSrcA=1, SingleBankMatrixUnit=1, NegativeInfSrcA=1))
    assert (m.srca[1] == 0x7FFFF).all() and (m.srca[0] == 5).all()
    m.execute(make("ZEROSRC", ClearSrcA=1))                 # the unpacker's bank
    assert (m.srca[0] == 0).all()
    m.execute(make("ZEROSRC", ClearSrcB=1, BothBanks=1, NegativeInfSrcA=1))   # -inf only applies to SrcA
    assert (m.srcb == 0).all() and (m.srca[1] == 0x7FFFF).all()


def test_setrwc():
    m = Machine()
    r = m.rwc[0]
    r.srca_cr, r.dst, r.dst_cr, r.fidelity = 8, 100, 40, 3
    m.execute(make("SETRWC", SrcA=1, SrcAVal=4, SrcACr=1, SrcB=1, SrcBVal=7, Dst=1, DstVal=2, DstCr=1, Fidelity=1))
    assert (r.srca, r.srca_cr, r.srcb, r.srcb_cr, r.dst, r.dst_cr, r.fidelity) == (12, 12, 7, 7, 42, 42, 0)
    m.execute(make("SETRWC", DstCtoCr=1, DstVal=3))         # relative to Dst, without the Dst bit
    assert (r.dst, r.dst_cr) == (45, 45)


def test_incrwc():
    m = Machine()
    r = m.rwc[0]
    r.srca, r.srcb_cr, r.dst, r.dst_cr = 60, 8, 1020, 1
    m.execute(make("INCRWC", SrcAInc=5, SrcBInc=2, SrcBCr=1, DstInc=9))
    assert (r.srca, r.srcb, r.srcb_cr, r.dst, r.dst_cr) == (1, 10, 10, 5, 1)   # 6-bit and 10-bit wrap


def test_apply_addr_mod_modes_and_bias():
    m = Machine()
    tc = m.thread_config[0]
    tc["ADDR_MOD_AB_SEC1_SrcAIncr"] = 16
    tc["ADDR_MOD_AB_SEC1_SrcBIncr"] = 8
    tc["ADDR_MOD_AB_SEC1_SrcBCR"] = 1
    tc["ADDR_MOD_DST_SEC1_DestIncr"] = 8
    tc["ADDR_MOD_DST_SEC1_DestCToCR"] = 1
    tc["ADDR_MOD_DST_SEC1_FidelityIncr"] = 3
    tc["ADDR_MOD_BIAS_SEC1_BiasIncr"] = 1
    tc["ADDR_MOD_AB_SEC5_SrcAClear"] = 1
    tc["ADDR_MOD_DST_SEC5_FidelityClear"] = 1
    tc["ADDR_MOD_DST_SEC5_DestCR"] = 1
    tc["ADDR_MOD_DST_SEC5_DestIncr"] = 100
    tc["ADDR_MOD_BIAS_SEC5_BiasClear"] = 1
    r = m.rwc[0]
    r.srcb_cr, r.dst_cr = 4, 7
    m.execute(make("ZEROACC", Mode=1, Imm10=63, AddrMod=1))   # index 1
    assert (r.srca, r.srcb, r.srcb_cr, r.dst, r.dst_cr, r.fidelity, r.extra_addr_mod_bit) == (16, 12, 12, 8, 8, 3, 1)
    m.execute(make("ZEROACC", Mode=1, Imm10=63, AddrMod=1))   # the bias bit makes it index 5
    assert (r.srca, r.srca_cr, r.dst, r.dst_cr, r.fidelity, r.extra_addr_mod_bit) == (0, 0, 108, 108, 0, 0)
    tc["ADDR_MOD_SET_Base"] = 1
    m.execute(make("ZEROACC", Mode=1, Imm10=63, AddrMod=1))   # forced to index 5 again
    assert r.dst == 208


@pytest.mark.parametrize("disable", [0, 1])
def test_flips_hand_banks_back_unless_disabled(disable):
    m = Machine()
    m.configure(CLR_DVALID_SrcA_Disable=disable)
    m.srca_client[0] = m.srcb_client[0] = Client.MATRIX_UNIT
    m.execute(make("SETRWC", FlipSrcA=1, FlipSrcB=1))
    assert m.srca_bank == m.srcb_bank == 1
    assert m.srca_client[0] is (Client.MATRIX_UNIT if disable else Client.UNPACKERS)
    assert m.srcb_client[0] is Client.UNPACKERS


def test_cleardvalid_and_setdvalid():
    m = Machine()
    m.configure(SRCA_SET_Base=2)
    m.execute(make("SETDVALID", FlipSrcA=1, FlipSrcB=1))
    assert m.srca_client == [Client.MATRIX_UNIT, Client.UNPACKERS] and m.unpacker_bank == [1, 1]
    assert m.unpacker_src_row[0][0] == 32
    m.execute(make("CLEARDVALID", FlipSrcA=1, KeepReadingSameSrc=1))
    assert m.srca_client[0] is Client.UNPACKERS and m.srca_bank == 0
    m.srcb_client[0] = Client.MATRIX_UNIT
    m.execute(make("CLEARDVALID", FlipSrcB=1))
    assert m.srcb_client[0] is Client.UNPACKERS and m.srcb_bank == 1
    m.execute(make("CLEARDVALID", Reset=1))
    assert m.srcb_bank == 0 and m.unpacker_bank == [0, 0] and m.srcb_client == [Client.UNPACKERS] * 2
