"""Machine state at reset, registers by name, RWCs, and their error rules."""

import pytest

from tilesim.errors import EncodingError, GeometryError, TilesimError
from tilesim.tensix import Client, Machine
from tilesim.tensix.regs import CONFIG_FIELDS, THREAD_CONFIG_FIELDS, RegisterFile


def test_reset_state():
    m = Machine()
    assert m.rounding == "hardware"
    assert m.srca.shape == m.srcb.shape == (2, 64, 16) and m.srca.dtype.name == "uint32"
    assert m.dst.shape == (1024, 16) and m.dst.dtype.name == "uint16"
    assert m.dst_valid.shape == (1024,) and m.dst_valid.all()
    assert len(m.config) == 2 and len(m.thread_config) == 3 and len(m.rwc) == 3
    assert all(c.nonzero() == {} for c in (*m.config, *m.thread_config))
    assert all(r.as_dict() == dict.fromkeys(r.as_dict(), 0) for r in m.rwc)
    assert m.srca_client == m.srcb_client == [Client.UNPACKERS] * 2
    assert m.srca_bank == m.srcb_bank == 0 and m.unpacker_bank == [0, 0]


# Positions from BackendConfiguration / cfg_defines.h (spec §4.1): (word, shift, width).
PINNED = {
    "ALU_FORMAT_SPEC_REG_SrcA_val": (0, 0, 4), "ALU_FORMAT_SPEC_REG_SrcA_override": (0, 4, 1),
    "ALU_FORMAT_SPEC_REG0_SrcA": (1, 17, 4), "ALU_FORMAT_SPEC_REG1_SrcB": (1, 21, 4),
    "ALU_FORMAT_SPEC_REG2_Dstacc": (1, 25, 4), "ALU_ACC_CTRL_Fp32_enabled": (1, 29, 1),
    "ALU_ACC_CTRL_INT8_math_enabled": (1, 31, 1), "ALU_ACC_CTRL_Zero_Flag_disabled_src": (2, 0, 1),
    "DEST_REGW_BASE_Base": (6, 0, 16),
}
THREAD_PINNED = {
    "CFG_STATE_ID_StateID": (0, 0, 1), "DEST_TARGET_REG_CFG_MATH_Offset": (1, 0, 12), "ADDR_MOD_SET_Base": (2, 0, 1),
    "CLR_DVALID_SrcB_Disable": (5, 1, 1), "FIDELITY_BASE_Phase": (6, 0, 2), "ADDR_MOD_AB_SEC3_SrcBIncr": (13, 8, 6),
    "ADDR_MOD_DST_SEC5_FidelityIncr": (28, 13, 2), "ADDR_MOD_BIAS_SEC7_BiasClear": (55, 4, 1),
    "FP16A_FORCE_Enable": (56, 0, 1),
}


@pytest.mark.parametrize("table, pinned", [(CONFIG_FIELDS, PINNED), (THREAD_CONFIG_FIELDS, THREAD_PINNED)])
def test_field_positions(table, pinned):
    by = {f.name: (f.addr, f.shift, f.width) for f in table}
    for name, pos in pinned.items():
        assert by[name] == pos, name


def test_fields_and_words_agree():
    c = RegisterFile.config()
    c["ALU_FORMAT_SPEC_REG1_SrcB"] = 0xA
    c["ALU_ACC_CTRL_INT8_math_enabled"] = 1
    assert c.word(1) == (0xA << 21) | (1 << 31)
    c.set_word(1, 1 << 29)
    assert c["ALU_ACC_CTRL_Fp32_enabled"] == 1 and c["ALU_FORMAT_SPEC_REG1_SrcB"] == 0


def test_register_errors():
    c = RegisterFile.thread_config()
    with pytest.raises(EncodingError) as e:
        c["NOPE"] = 1
    assert e.value.rule == "tt.cfg.field"
    with pytest.raises(EncodingError) as e:
        c["FIDELITY_BASE_Phase"] = 4
    assert e.value.rule == "tt.cfg.value"
    with pytest.raises(EncodingError) as e:
        c.set_word(0, 1 << 16)
    assert e.value.rule == "tt.cfg.value"


def test_configure_picks_thread_config_or_the_threads_config_bank():
    m = Machine()
    m.configure(thread=2, CFG_STATE_ID_StateID=1)
    m.configure(thread=2, ALU_ACC_CTRL_Fp32_enabled=1, FIDELITY_BASE_Phase=3)
    assert m.config[1]["ALU_ACC_CTRL_Fp32_enabled"] == 1 and m.config[0]["ALU_ACC_CTRL_Fp32_enabled"] == 0
    assert m.thread_config[2]["FIDELITY_BASE_Phase"] == 3 and m.cfg(2) is m.config[1]


def test_rwc_counters_wrap_to_their_widths():
    m = Machine()
    r = m.rwc[0]
    r.srca, r.dst, r.fidelity, r.extra_addr_mod_bit = 70, 1030, 5, 3
    assert (r.srca, r.dst, r.fidelity, r.extra_addr_mod_bit) == (6, 6, 1, 1)
    with pytest.raises(AttributeError):
        r.bogus = 1


def test_machine_errors():
    with pytest.raises(TilesimError) as e:
        Machine("ieee")
    assert e.value.rule == "tt.rounding"
    with pytest.raises(GeometryError) as e:
        Machine().execute("TTI_TRNSPSRCB", thread=3)
    assert e.value.rule == "tt.thread"


def test_copy_is_deep():
    m = Machine()
    m.configure(ALU_ACC_CTRL_Fp32_enabled=1)
    c = m.copy()
    c.dst[0, 0] = 1
    c.rwc[0].dst = 5
    c.config[0]["ALU_ACC_CTRL_Fp32_enabled"] = 0
    assert m.dst[0, 0] == 0 and m.rwc[0].dst == 0 and m.config[0]["ALU_ACC_CTRL_Fp32_enabled"] == 1
