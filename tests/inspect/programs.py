"""Small programs for the trace and diff tests: each meets a difference between two configurations in one
known statement only."""

#: Tensix: the second ELWADD meets ties (1 + 2**-8 between two BF16 values); the first and the ELWMUL are exact
TENSIX_TIE = """\
.config ALU_FORMAT_SPEC_REG0_SrcA = BF16
.config ALU_FORMAT_SPEC_REG1_SrcB = BF16
.config ADDR_MOD_AB_SEC0_SrcAIncr = 8
.config ADDR_MOD_AB_SEC0_SrcBIncr = 8
.config ADDR_MOD_DST_SEC0_DestIncr = 8
.array a 24x16 fill=1.0
.array b 8x16 fill=0.5
.array c 8x16 fill=0.00390625
.array d 8x16 fill=0.75
.unpack srca a BF16
.unpack srcb b BF16 flip=0
.unpack srcb c BF16 row=8 flip=0
.unpack srcb d BF16 row=16
TT_ZEROACC(3, 0, 0)
TT_ELWADD(0, 0, 0, 0, 0)
TT_ELWADD(0, 0, 0, 0, 0)
TT_ELWMUL(0, 0, 0, 0, 0)
.pack out BF16 rows=24
"""
TENSIX_TIE_LINE = 16

#: AME: an exact int8 product first, then a bf16 product whose fused and sequential sums differ
AME_TWO = """\
csrw mxcfg, Ft=int8 | bOVF=0
csrw mxtile, K=16 | M=2 | TILING=1x1
mld tr0, i[0:2, 0:4]
mld tr1, i[0:2, 0:4]
MMACC.T tr2, tr0, tr1, 1
mst tr2, c[0:2, 0:2]
csrw mxcfg, Ft=bf16 | bOVF=0
csrw mxtile, K=8 | M=2 | TILING=1x1
mld tr4, f[0:2, 0:8]
mld tr5, g[0:2, 0:8]
MMACC.T tr6, tr4, tr5, 1
mst tr6, d[0:2, 0:2]
"""
AME_TWO_LINE = 11

#: PTO: exact loads, adds and stores around one TROWSUM whose f32 order differs between cpu and the NPUs
PTO_SUM = """\
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c1], strides = [%c1, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x16xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c1] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x1xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 8x16xf32>
    %b = pto.alloc_tile : !pto.tile_buf<vec, 8x16xf32>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>
    pto.tload ins(%xp : !pto.partition_tensor_view<8x16xf32>) outs(%a : !pto.tile_buf<vec, 8x16xf32>)
    pto.tadd ins(%a, %a : !pto.tile_buf<vec, 8x16xf32>, !pto.tile_buf<vec, 8x16xf32>) outs(%b : !pto.tile_buf<vec, 8x16xf32>)
    pto.trowsum ins(%b : !pto.tile_buf<vec, 8x16xf32>) outs(%s : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>)
    pto.tstore ins(%s : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>) outs(%yp : !pto.partition_tensor_view<8x1xf32>)
    return
  }
}
"""
PTO_SUM_LINE = 16
