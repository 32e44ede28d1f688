"""How the .pto attributes of the ops in this package reach their Python keywords.

``pto.tmov ins(...) outs(...) {reluPreMode = #pto<relu_pre_mode normal_relu>}``
calls ``OPS["tmov"](dst, src, relu="#pto<relu_pre_mode normal_relu>")``: the
ops accept every spelling of an enum attribute (PTOAS's word, the C++ name,
the integer code, or the whole ``#pto<...>`` text). Operands keep the
``outs`` then ``ins`` order: ``fn(*outs, *ins, **ATTR_KW-mapped attributes)``.
"""

from __future__ import annotations

__all__ = ["ATTR_KW"]

#: PTOAS attribute name -> keyword argument of the op functions
ATTR_KW = {
    "reluPreMode": "relu",                 # tmov, textract, tinsert (+ _fp)
    "accToVecMode": "acc_to_vec_mode",     # tmov
    "maskPattern": "mask_pattern",         # tgather
    "isMSB": "is_msb",                     # thistogram
    "quant_type": "quant_type",            # tquant
    "rounds": "rounds",                    # trandom
}
