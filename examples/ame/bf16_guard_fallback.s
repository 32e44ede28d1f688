# Beyond the seed: BF16 -> FP32 asks for the guarded 4x4, which FP32 results do not pass
# (wider than 16 bits), so the instruction runs as 2x2 and sets the sticky mx.guard_fallback.
#
#   tilesim run examples/ame/bf16_guard_fallback.s -i x=examples/ame/x_real.npy -i w=examples/ame/w_real.npy --trace
#
csrw mxcfg, Ft=bf16 | RND=rne
csrw mxtile, K=8 | M=16 | TILING=2x2 | GUARD4x4=1
mld tr0, x[0:16, 0:8]        # A0 (BF16 rows hold 8 elements)
mld tr1, x[16:32, 0:8]       # A1
mld tr2, w[0:16, 0:8]        # B0
mld tr3, w[16:32, 0:8]       # B1
MMACC.T tr16, tr0, tr2, 0    # 2x2: FP32 results take 4 tiles each, tr16..tr31
mst tr16, y[0:16, 0:16]
mst tr20, y[0:16, 16:32]
mst tr24, y[16:32, 0:16]
mst tr28, y[16:32, 16:32]
csrr a0, mxstatus            # a0 = 1 (guard_fallback) | 4 (inexact)
