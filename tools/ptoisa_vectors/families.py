from __future__ import annotations

import zlib

import numpy as np

from .addrelu import adddeqrelu_cases
from .arith import (
    PART_ARG_PAIRS, arith_more_cases, carry_cases, fmod_cases, mul_add_cases, pair_sum_cases, part_arg_cases,
    relu_cases,
)
from .bf16 import (
    BF16_REDUCE_FREE, BF16_REDUCE_MIXED, bf16_family, bf16_mixed_reduce_cases, every_code_bf16_cases,
    every_code_root_bf16_cases, fillpad_custom_bf16_cases,
)
from .bitwise import bitwise_cases
from .common import BF16, DTS, ONLY, Case
from .comm import collective_cases, comm_cases
from .compare import cmp_layout_cases, compare_select_cases, compare_select_layout_cases, tcmps_u8_cases
from .convert import tcvt_cases, tcvt_sub_byte_cases
from .elementwise import (
    UNARY, binary_cases, div_overflow_cases, int_unary_cases, scalar_cases, tdiv_cases, unary_cases,
)
from .expand import boxed_expand_cases, expand_binary_cases, expand_cases
from .fillpad import fillpad_cases
from .gather import concat_cases, gather_cases
from .gemv import gemv_cases
from .generate import generator_cases
from .img2col import IMG2COLS_BF16, img2col_cases
from .convtile import CONV_BF16, convtile_cases
from .gm_index import mgather_cases, mscatter_cases
from .hif8 import hif8_bf16_cases, hif8_cases
from .layout import layout_cases, misc_edge_cases
from .views import GATHERBS_BF16, RESHAPES_BF16, SUBVIEWS_BF16, gatherb_cases, reshape_cases, subview_cases
from .matmul import matmul_cases, matmul_mx_cases, matmul_mx_e1m2_cases
from .memory import memory_cases, packed_memory_cases, scale_move_cases, store_fixpipe_cases
from .pipes import pipe_bf16_cases, pipe_cases
from .move import fp_move_cases, move_cases, scalar_quant_cases, tmov_fp_cases
from .permute import permute_cases
from .quant_mx import MX_QUANTS_BF16, quant_mx_cases
from .power import pow_cases
from .scatter import scatter_cases
from .quant import dequant_cases, quant_cases, random_histogram_cases
from .reduce import (
    COL_SHAPES, REDUCE_PAIRS, ROW_SHAPES, arg_cases, mixed_col_reduce_cases, mixed_row_reduce_cases, reduce_cases,
)
from .sort import mrgsort_cases, sort_cases


#: the other families narrowed to bf16, and the bf16-only ones (built with ``--bf16-cxx``, PTO88)
BF16_FAMILIES = (
    bf16_family(tcvt_cases, DTS=DTS + ONLY, TCVT_LAYOUT_PAIRS=(("f32", BF16), (BF16, "f32"), (BF16, "i32"))),
    bf16_family(reduce_cases, REDUCE_PAIRS={op: [(BF16, BF16), (BF16, "f32")] for op in REDUCE_PAIRS}),
    bf16_family(arg_cases, DTS=ONLY),
    bf16_family(expand_cases, DTS=DTS + ONLY),
    bf16_family(binary_cases, DTS=ONLY),
    bf16_family(tdiv_cases, DTS=ONLY),
    bf16_family(unary_cases, UNARY={op: ONLY for op in UNARY}),
    every_code_bf16_cases,
    bf16_family(scalar_cases, DTS=ONLY),
    bf16_family(expand_binary_cases, EXPAND_DTS=ONLY),
    bf16_family(compare_select_cases, CMP_PAIRS=[(BF16, "u32"), (BF16, "u8")], SEL_DTS=ONLY),
    bf16_family(arith_more_cases, DTS=ONLY, PART_DTS=ONLY,
                AXPY_PAIRS=((BF16, BF16), (BF16, "f32"), ("f32", BF16))),
    bf16_family(gather_cases, DTS=ONLY, GATHER_MASK_PAIRS=((BF16, BF16),)),
    bf16_family(fillpad_cases, FILLPAD_DTS=ONLY,
                FILLPAD_MORE=(("tfillpad", BF16, "zero"), ("tfillpad_inplace", BF16, "min"),
                              ("tfillpad_expand", BF16, "max"))),
    bf16_family(sort_cases, SORT_DTS=ONLY),
    bf16_family(matmul_cases, MATMUL_TYPES=((BF16, "f32"),)),
    bf16_family(memory_cases, MEMORY_DTS=ONLY, PREFETCH_DTS=((BF16, 48),)),
    bf16_family(move_cases, MOVE_HALF=BF16),
    bf16_family(concat_cases, CONCAT_DTS=ONLY),
    # bf16b: the rest of what the g++ build compiles
    bf16_family(reduce_cases, "_mixed", REDUCE_PAIRS={op: BF16_REDUCE_MIXED for op in BF16_REDUCE_FREE},
                ROW_SHAPES=ROW_SHAPES[:3], COL_SHAPES=COL_SHAPES[:3]),
    bf16_family(compare_select_layout_cases, CMP_LAYOUT_DTS=ONLY),
    every_code_root_bf16_cases,
    fillpad_custom_bf16_cases,
)


#: the first bank's families, drawn in this order from one generator seeded with ``--seed``
FAMILIES = (tcvt_cases, reduce_cases, arg_cases, expand_cases, binary_cases)
#: later families, each from its own generator (seed, crc32 of its name), so adding one changes no other
MORE_FAMILIES = (tdiv_cases, unary_cases, scalar_cases, expand_binary_cases, compare_select_cases,
                 arith_more_cases, gather_cases, concat_cases, fillpad_cases,
                 sort_cases, matmul_cases, memory_cases, move_cases,
                 random_histogram_cases, quant_cases)
MORE_FAMILIES += (fp_move_cases, matmul_mx_cases)
MORE_FAMILIES += BF16_FAMILIES
MORE_FAMILIES += (generator_cases, dequant_cases, mrgsort_cases, div_overflow_cases, layout_cases,  # newcov
                  cmp_layout_cases, boxed_expand_cases, misc_edge_cases)
MORE_FAMILIES += (mixed_row_reduce_cases, mixed_col_reduce_cases, bf16_family(bf16_mixed_reduce_cases))
MORE_FAMILIES += (scalar_quant_cases, matmul_mx_e1m2_cases)
MORE_FAMILIES += (int_unary_cases, tcmps_u8_cases)  # issue 21: what cpu refused, PTO121
MORE_FAMILIES += (bitwise_cases, fmod_cases, bf16_family(fmod_cases, DTS=ONLY))  # issue 21: new ops
MORE_FAMILIES += (carry_cases, bf16_family(carry_cases, DTS=ONLY), relu_cases, bf16_family(relu_cases, DTS=ONLY))
MORE_FAMILIES += (permute_cases, bf16_family(permute_cases, DTS=ONLY))
MORE_FAMILIES += (mul_add_cases, bf16_family(mul_add_cases, DTS=ONLY))
MORE_FAMILIES += (pair_sum_cases, bf16_family(pair_sum_cases, DTS=ONLY))
MORE_FAMILIES += (reshape_cases, bf16_family(reshape_cases, RESHAPES=RESHAPES_BF16))
MORE_FAMILIES += (subview_cases, bf16_family(subview_cases, SUBVIEWS=SUBVIEWS_BF16))
MORE_FAMILIES += (gatherb_cases, bf16_family(gatherb_cases, GATHERBS=GATHERBS_BF16))
MORE_FAMILIES += (adddeqrelu_cases, quant_mx_cases, bf16_family(quant_mx_cases, MX_QUANTS=MX_QUANTS_BF16))
MORE_FAMILIES += (img2col_cases, bf16_family(img2col_cases, IMG2COLS=IMG2COLS_BF16))
MORE_FAMILIES += (part_arg_cases, bf16_family(part_arg_cases, PART_ARG_PAIRS=(("bf16", "i32"), ("bf16", "u16"))))
MORE_FAMILIES += (comm_cases, bf16_family(comm_cases, COMM_DTS=ONLY, REDUCE_DTS=ONLY))  # PTO155, PTO156
MORE_FAMILIES += (store_fixpipe_cases, tmov_fp_cases)  # issue 21: TSTORE's fixpipe forms (PTO150), TMOV_FP
MORE_FAMILIES += (tcvt_sub_byte_cases, packed_memory_cases)  # issue 21: 4-bit TCVT, packed TLOAD/TSTORE (PTO153)
MORE_FAMILIES += (pow_cases, bf16_family(pow_cases, DTS=ONLY))  # PTO132
MORE_FAMILIES += (scatter_cases, bf16_family(scatter_cases, SCATTER_PAIRS=(("bf16", "u16"), ("bf16", "i32")),
                                               SCATTER_MASK_DTS=ONLY))  # PTO133
MORE_FAMILIES += (mgather_cases, mscatter_cases, bf16_family(mgather_cases, GM_INDEX_DTS=ONLY),
                  bf16_family(mscatter_cases, GM_INDEX_DTS=ONLY))  # PTO134
MORE_FAMILIES += (gemv_cases, bf16_family(gemv_cases, MATMUL_TYPES=((BF16, "f32"),)))  # PTO135
MORE_FAMILIES += (convtile_cases, bf16_family(convtile_cases, **CONV_BF16))  # PTO172-PTO174: ConvTiles
MORE_FAMILIES += (scale_move_cases,)  # PTO181: tmatmul_mx_nddn's ND scale TLOAD and TMOV
MORE_FAMILIES += (hif8_cases,)  # PTO182, PTO183: HiFloat8's TCVT, TTRANS, TLOAD, TSTORE, TMOV
MORE_FAMILIES += (hif8_bf16_cases,)  # PTO183: TCVT between HiFloat8 and bf16 (g++ 14)

MORE_FAMILIES += (pipe_cases, pipe_bf16_cases)  # TPUSH/TPOP: quantising pushes, two vector subblocks (PTO178, PTO179)

def all_cases(seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases = [c for fam in FAMILIES for c in fam(rng)]
    for fam in MORE_FAMILIES:
        cases += fam(np.random.default_rng([seed, zlib.crc32(fam.__name__.encode())]))
    return cases
MORE_FAMILIES += (collective_cases, bf16_family(collective_cases, COMM_DTS=ONLY, REDUCE_DTS=ONLY))  # PTO184-PTO186
