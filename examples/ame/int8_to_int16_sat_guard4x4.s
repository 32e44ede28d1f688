# Seed example 2: INT8 -> INT16, full accumulate with saturation, guarded 4x4.
# INT16 results take 2 tiles each, so the 16 results of 4x4 take exactly 32 tiles: the guard
# passes, and C starts at tr0, over the inputs. Every operand is read before any result is
# written, and beta=1 (imm bit 0) makes C = A x B^T rather than adding the input bytes.
#
#   tilesim run examples/ame/int8_to_int16_sat_guard4x4.s -i x=examples/ame/x4_int8.npy -i w=examples/ame/w4_int8.npy
#
csrw mxcfg, Ft=int8 | bOVF=0 | SAT=1
csrw mxtile, K=16 | M=16 | TILING=2x2 | GUARD4x4=1
mld tr0, x[0:16, 0:16]       # A0
mld tr1, x[16:32, 0:16]      # A1
mld tr2, x[32:48, 0:16]      # A2
mld tr3, x[48:64, 0:16]      # A3
mld tr4, w[0:16, 0:16]       # B0
mld tr5, w[16:32, 0:16]      # B1
mld tr6, w[32:48, 0:16]      # B2
mld tr7, w[48:64, 0:16]      # B3
MMACC.T tr0, tr0, tr4, 1     # runs 4x4; Ai x Bj -> tiles 2(4i+j) and 2(4i+j)+1
mst tr0, y[0:16, 0:16]
mst tr2, y[0:16, 16:32]
mst tr4, y[0:16, 32:48]
mst tr6, y[0:16, 48:64]
mst tr8, y[16:32, 0:16]
mst tr10, y[16:32, 16:32]
mst tr12, y[16:32, 32:48]
mst tr14, y[16:32, 48:64]
mst tr16, y[32:48, 0:16]
mst tr18, y[32:48, 16:32]
mst tr20, y[32:48, 32:48]
mst tr22, y[32:48, 48:64]
mst tr24, y[48:64, 0:16]
mst tr26, y[48:64, 16:32]
mst tr28, y[48:64, 32:48]
mst tr30, y[48:64, 48:64]
