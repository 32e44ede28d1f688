# Seed example 3: FP8 (E4M3) -> FP16, round to nearest even.
# mld rounds the real-valued inputs to E4M3 (the current Ft, with RND); each FP16 result is
# the exact sum of the products and C, rounded once (the default "fused" accumulation).
#
#   tilesim run examples/ame/fp8_e4m3_to_fp16.s -i x=examples/ame/x_real.npy -i w=examples/ame/w_real.npy
#
csrw mxcfg, Ft=fp8_e4m3 | RND=rne
csrw mxtile, K=16 | M=16 | TILING=2x2
mld tr0, x[0:16, 0:16]       # A0
mld tr1, x[16:32, 0:16]      # A1
mld tr2, w[0:16, 0:16]       # B0
mld tr3, w[16:32, 0:16]      # B1
MMACC.T tr4, tr0, tr2, 0     # FP16 results take 2 tiles each: tr4-5, tr6-7, tr8-9, tr10-11
mst tr4, y[0:16, 0:16]
mst tr6, y[0:16, 16:32]
mst tr8, y[16:32, 0:16]
mst tr10, y[16:32, 16:32]
