"""The fixpipe, pipe and 4-bit adapters of tools/ptoisa_st_folders (fixpipe.py, pipes.py), run without a
pto-isa checkout: the 5-D global block the TSTORE quant folder reads, and the push/pop folder's parsing."""

from __future__ import annotations

import numpy as np
import pytest

from .st_tool import st  # noqa: F401  (loads tools/ptoisa_st.py; tools/ is then on the path)

from ptoisa_st_folders import fixpipe, pipes  # noqa: E402  (tools/ is on the path once ptoisa_st is loaded)


@pytest.mark.parametrize("col_major", [False, True])
def test_global_block_reads_and_writes_a_5d_window(col_major):
    """The g block of a W-shaped 5-D tensor, flat in memory: ND rows run over dims 0..3, DN's dim 3 is
    contiguous; the tile's element (r, c) is the global element at the strides' offset, and putting it back
    writes exactly those elements."""
    g, w = [2, 1, 2, 3, 4], [3, 2, 2, 5, 6]
    whole = np.arange(np.prod(w), dtype=np.int32)
    tile, put = fixpipe._global_block(whole, g, w, col_major)
    if col_major:   # stride of dim 3 is 1, of dim 4 is W3
        s = [w[1] * w[2] * w[3] * w[4], w[2] * w[3] * w[4], w[3] * w[4], 1, w[3]]
        assert tile.shape == (g[3], g[0] * g[1] * g[2] * g[4])
        i0, i1, i2, i4 = np.unravel_index(np.arange(tile.shape[1]), (g[0], g[1], g[2], g[4]))
        exp = (i0 * s[0] + i1 * s[1] + i2 * s[2] + i4 * s[4])[None, :] + np.arange(g[3])[:, None] * s[3]
    else:
        s = [w[1] * w[2] * w[3] * w[4], w[2] * w[3] * w[4], w[3] * w[4], w[4], 1]
        assert tile.shape == (g[0] * g[1] * g[2] * g[3], g[4])
        i0, i1, i2, i3 = np.unravel_index(np.arange(tile.shape[0]), tuple(g[:4]))
        exp = (i0 * s[0] + i1 * s[1] + i2 * s[2] + i3 * s[3])[:, None] + np.arange(g[4])[None, :]
    assert (tile == exp).all()
    out = np.zeros_like(whole)
    put(out, tile + 1)
    assert sorted(np.flatnonzero(out)) == sorted(exp.ravel()) and (out[exp] == exp + 1).all()


def test_push_pop_tests_are_read(tmp_path):
    """The push/pop adapter reads direct TEST_F calls and TPUSHPOP_TEST macro lines, counts the macro's own
    TEST_F once per use, and maps only its known scenarios (the rest are not mapped)."""
    main = """template <typename T, int rows, int cols>
void runCubeToVectorSingleTile()
{
    using CubeTile = Tile<TileType::Mat, T, rows, cols>;
    using VecTile = Tile<TileType::Vec, T, rows, cols>;
}
template <typename T, int rows, int cols, TileType srcLoc>
void testPushPopMultiCore()
{
    constexpr int kIterations = 3;
}
#define TPUSHPOP_TEST(T, rows, cols, srcLoc) \\
    TEST_F(TPushPopTest, T##_##rows##_##cols##_##srcLoc) { testPushPopSingleThread<T, rows, cols, TileType::srcLoc>(); }
TPUSHPOP_TEST(float, 16, 32, Vec)
TEST_F(S, single) { runCubeToVectorSingleTile<float, 16, 32>(); }
TEST_F(S, multi) { testPushPopMultiCore<uint32_t, 16, 32, TileType::Vec>(); }
TEST_F(S, hooks) { runSomethingElse<float, 16, 32>(); }
"""
    folder = tmp_path / "tpushpop"
    folder.mkdir()
    (folder / "main.cpp").write_text(main)
    row = pipes.run_push_pop(folder, tmp_path, False)
    assert (row.cases, row.passed, row.failed, row.not_mapped) == (4, 2, 0, 2)   # the macro's body is not in main
