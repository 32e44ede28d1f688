"""tilesim formats described as gfloat FormatInfo records (the oracle's view).

Written from each format's definition; gfloat's own catalogue is used where it
has the format. Formats gfloat cannot express (integers, fixed point, E8M0
outside its normal range) are left out.
"""

import gfloat
from gfloat.formats import (format_info_bfloat16, format_info_binary16, format_info_binary32,
                            format_info_ocp_e2m1, format_info_ocp_e2m3, format_info_ocp_e3m2,
                            format_info_ocp_e4m3, format_info_ocp_e5m2, format_info_ocp_e8m0)

from tilesim.formats import Domain, all_formats

BUILTIN = {
    "fp32": format_info_binary32, "fp16": format_info_binary16, "bf16": format_info_bfloat16,
    "fp8_e4m3": format_info_ocp_e4m3, "fp8_e5m2": format_info_ocp_e5m2, "e8m0": format_info_ocp_e8m0,
    "fp6_e3m2": format_info_ocp_e3m2, "fp6_e2m3": format_info_ocp_e2m3, "fp4_e2m1": format_info_ocp_e2m1,
}


def info(f):
    if f.name in BUILTIN:
        return BUILTIN[f.name]
    if not f.is_float:
        return None
    ieee = f.domain is Domain.IEEE
    return gfloat.FormatInfo(
        f.name, k=f.bits, precision=f.man_bits + 1, bias=f.bias, is_signed=f.signed,
        domain=gfloat.Domain.Extended if ieee else gfloat.Domain.Finite,
        has_nz=f.signed, num_high_nans=(1 << f.man_bits) - 1 if ieee else 0,
        has_subnormals=True, is_twos_complement=False)


MODES = {"rne": gfloat.RoundMode.TiesToEven, "rtz": gfloat.RoundMode.TowardZero,
         "rup": gfloat.RoundMode.TowardPositive, "rdn": gfloat.RoundMode.TowardNegative,
         "rmm": gfloat.RoundMode.TiesToAway}

FLOATS = [f for f in all_formats() if f.is_float]
