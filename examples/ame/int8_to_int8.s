# Seed example 1: INT8 -> INT8, overflow ignored (bOVF=1).
# Products and sums wrap modulo 2^8, as the proposal's "overflow ignore" path.
#
#   tilesim run examples/ame/int8_to_int8.s -i x=examples/ame/x_int8.npy -i w=examples/ame/w_int8.npy -o y.npz
#
csrw mxcfg, Ft=int8 | bOVF=1
csrw mxtile, K=16 | M=16 | TILING=2x2
mld tr0, x[0:16, 0:16]       # A0
mld tr1, x[16:32, 0:16]      # A1
mld tr2, w[0:16, 0:16]       # B0
mld tr3, w[16:32, 0:16]      # B1
MMACC.T tr4, tr0, tr2, 0     # A0xB0 -> tr4, A0xB1 -> tr5, A1xB0 -> tr6, A1xB1 -> tr7 (one INT8 tile each)
mst tr4, y[0:16, 0:16]
mst tr5, y[0:16, 16:32]
mst tr6, y[16:32, 0:16]
mst tr7, y[16:32, 16:32]
