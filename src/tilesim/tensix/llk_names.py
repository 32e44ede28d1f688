"""tt-llk's named constants for Matrix Unit instruction arguments, so ``.tt`` text can use tt-llk's spelling.

Names and values as tt-llk defines them for Wormhole B0 (public tenstorrent/tt-llk:
``tt_llk_wormhole_b0/common/inc/ckernel_instr_params.h`` for the ``p_*`` groups,
``ckernel_addrmod.h`` for ``ADDR_MOD_n``, ``common/tensor_shape.h`` for ``MAX_FPU_ROWS``).
Only the groups that Matrix Unit and SFPU instructions take are listed (``InstrModLoadStore`` is
``llk_lib/llk_defs.h``'s enum); a name is written
``p_setrwc::CLR_AB`` (optionally ``ckernel::p_setrwc::CLR_AB``) or ``ADDR_MOD_0``.

>>> NAMES["p_setrwc::CLR_AB"], NAMES["p_gpool::DIM_16X16"], NAMES["MAX_FPU_ROWS"]
(3, 1, 8)
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

__all__ = ["NAMES", "lookup"]

#: group -> "NAME value ..." (one struct of tt-llk's ckernel_instr_params.h each).
_GROUPS: dict[str, str] = {
    "p_setrwc": "CLR_A 1 CLR_B 2 CLR_AB 3 CLR_NONE 0 "
                "SET_A 1 SET_B 2 SET_AB 3 SET_D 4 SET_AD 5 SET_BD 6 SET_ABD 7 SET_F 8 SET_A_F 9 SET_B_F 10 "
                "SET_AB_F 11 SET_D_F 12 SET_AD_F 13 SET_BD_F 14 SET_ABD_F 15 "
                "CR_A 1 CR_B 2 CR_AB 3 CR_D 4 CR_AD 5 CR_BD 6 CR_ABD 7 C_TO_CR_MODE 8",
    "p_mov": "DEST_NORM 0 DEST_32B_LOW 1",
    "p_mova2d": "MATH_HALO_ROWS 0 MOV_1_ROW 0 MOV_8_ROWS 2",
    "p_movd2a": "MOV_1_ROW 0 MOV_4_ROWS 2",
    "p_movb2d": "SRC_ZERO_OFFSET 0 SRC_ROW16_OFFSET 16 MOV_1_ROW 0 MOV_1_ROW_D0_BRCST 1 MOV_8_ROW_BRCST 2 "
                "MOV_8_ROW_BRCST_D0_BRCST 3 MOV_4_ROWS 4 MOV_4_ROWS_D0_BRCST 5",
    "p_movd2b": "SRC_ZERO_OFFSET 0 SRC_ROW16_OFFSET 16 MOV_1_ROW 0 MOV_4_ROWS 2",
    "p_movb2a": "SRCA_ZERO_OFFSET 0 SRCB_ZERO_OFFSET 0 SRCB_ROW16_OFFSET 16 MOV_1_ROW 0 MOV_4_ROWS 2",
    "p_zeroacc": "CLR_SPECIFIC 0 CLR_16 1 CLR_HALF 2 CLR_ALL 3 CLR_HALF_32B 6 CLR_ALL_32B 7",
    "p_zerosrc": "CLR_A 1 CLR_B 2 CLR_AB 3",
    "p_shiftx": "SHIFT_1 0 SHIFT_2 1 SHIFT_4 2 SHIFT_8 3 RESERVED0 0 RESERVED1 1 RIGHT_AWAY0 2 LEFT_TOWARD0 3",
    "p_gpool": "DIM_1X16 0 DIM_16X16 1 INDEX_DIS 0 INDEX_EN 1",
    "p_elwise": "SRCB_NO_BCAST 0 DEST_ACCUM_EN 1 DEST_ACCUM_DIS 0 SRCB_BCAST_COL 1 SRCB_BCAST_ROW 2 SRCB_BCAST_ALL 3 "
                "CLR_A 1 CLR_B 2 CLR_AB 3",
    "p_sfpu": "LREG0 0 LREG1 1 LREG2 2 LREG3 3 LREG4 4 LREG5 5 LREG6 6 LREG7 7 LCONST_0_8373 8 LCONST_0 9 LCONST_1 10 "
              "LREG11 11 LREG12 12 LREG13 13 LREG14 14 LCONST_neg1 11 LTILEID 15 kCONST_1_FP16B 16256 "
              "kCONST_1_FP16A 15360 kCONST_0 0 kCONST_Exp_8Bit 0 kCONST_Exp_5Bit 1",
    "p_sfpswap": "UNCONDITIONALLY 0 ALL_ROWS_MAX 1 ROWS_01_MAX 2 ROWS_02_MAX 3 ROWS_03_MAX 4 ROW_0_MAX 5 ROW_1_MAX 6 "
                 "ROW_2_MAX 5 ROW_3_MAX 6",
    # llk_lib/llk_defs.h: SFPLOAD/SFPSTORE's instr_mod0
    "InstrModLoadStore": "DEFAULT 0 FP16A 1 FP16B 2 FP32 3 INT32 4 INT8 5 LO16 6 HI16 7 INT32_2S_COMP 12 "
                         "INT8_2S_COMP 13 LO16_ONLY 14 HI16_ONLY 15",
}

#: Names outside a group.
_PLAIN = {**{f"ADDR_MOD_{i}": i for i in range(8)}, "MAX_FPU_ROWS": 8, "MAX_FPU_ROWS_LOG2": 3}


def _table() -> Mapping[str, int]:
    out = dict(_PLAIN)
    for group, items in _GROUPS.items():
        words = items.split()
        for name, value in zip(words[::2], words[1::2]):
            out[f"{group}::{name}"] = int(value)
    return MappingProxyType(out)


NAMES: Mapping[str, int] = _table()


def lookup(name: str) -> int | None:
    """The value of a tt-llk name (``ckernel::`` prefix allowed), or None."""
    return NAMES.get(name.removeprefix("ckernel::"))


def near(name: str) -> list[str]:
    """Known names in the same group (or all plain names), for error messages."""
    group, sep, _ = name.removeprefix("ckernel::").rpartition("::")
    if sep and group in _GROUPS:
        return [k for k in NAMES if k.startswith(group + "::")]
    return sorted(_PLAIN) + [f"{g}::..." for g in _GROUPS]
