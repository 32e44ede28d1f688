"""tools/ptoisa_st.py's tisa_coverage adapter on a small made-up main.cpp: an instruction test passes, a wrong
tilesim result fails, the repository scans and the other listed tests are counted not mapped, with why; and the
tflashattn adapter's kernel against a float64 attention."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilesim import pto

from .st_tool import st  # noqa: F401  (loads tools/ptoisa_st.py; tools/ is then on the path)

from ptoisa_st_folders import tisa_coverage  # noqa: E402  (tools/ is on the path once ptoisa_st is loaded)

_MAIN = """
TEST_F(IsaCoverageTest, CpuCoverageTouchesEveryIsaEntryPoint)
{
    EXPECT_TRUE(true);
}

TEST_F(IsaCoverageTest, TshlsAndTshrsApplyScalarShift)
{
    using TileData = Tile<TileType::Vec, int32_t, 2, 8>;
    TileData left;
    TileData right;
    TileData src;
    FillLinear(src, 3);
    TSHLS(left, src, 2);
    TSHRS(right, src, 1);
}

TEST_F(IsaCoverageTest, TpackCopiesValidValues)
{
    using SrcTile = Tile<TileType::Vec, int32_t, 2, 8>;
    using DstTile = Tile<TileType::Vec, int16_t, 2, 16, BLayout::RowMajor, 2, 8>;
    SrcTile src;
    DstTile dst;
    FillLinear(src, 40000);
    TPACK(dst, src);
}
"""


def _run(tmp_path: Path):
    d = tmp_path / "tisa_coverage"
    d.mkdir()
    (d / "main.cpp").write_text(_MAIN)
    return tisa_coverage.run_tisa_coverage(d, tmp_path, verbose=True)


def test_instruction_tests_pass_and_the_rest_are_not_mapped(tmp_path):
    row = _run(tmp_path)
    assert (row.cases, row.passed, row.failed, row.refused) == (3, 2, 0, 0)
    assert row.not_mapped == 1                                      # each listed test present, with why
    assert any(r.startswith("CpuCoverageTouchesEveryIsaEntryPoint: not an instruction test") for r in row.reasons)
    assert any("TPACK undeclared" in r for r in row.reasons)


def test_a_wrong_result_fails(tmp_path, monkeypatch):
    def off_by_one(dst, src, scalar, **kw):
        dst.valid_values[...] = (src.valid_values >> scalar) + 1
        return dst
    monkeypatch.setattr(pto, "tshrs", off_by_one)
    row = _run(tmp_path)
    assert (row.passed, row.failed) == (1, 1)
    assert "TshlsAndTshrsApplyScalarShift: fails" in row.reasons


def test_tpack_keeps_the_low_half_the_test_expects():
    src = pto.Tile("vec", "i32", 2, 8)
    src.values[...] = np.arange(40000, 40016).reshape(2, 8)
    dst = pto.Tile("vec", "i16", 2, 16, valid=(2, 8))
    assert tisa_coverage._tpack("", {"src": src, "dst": dst})
    assert dst.valid_values[0, 0] == np.int32(40000).astype(np.int16)          # wraps: -25536


def test_flashattn_kernel_matches_a_float64_softmax_attention():
    """The tflashattn kernel as tilesim ops, against softmax(q k^T / sqrt(d)) v in float64 (restated here)."""
    from ptoisa_st_folders import flashattn
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((64, 32), dtype=np.float32) * np.float32(0.5) for _ in range(3))
    s = q.astype(np.float64) @ k.T.astype(np.float64) / np.sqrt(32.0)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    want = (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
    got = flashattn.attention(q, k, v)
    assert got.dtype == np.float32 and np.abs(got - want).max() < 2e-5
    assert np.abs(flashattn.attention(q, k, v[::-1].copy()) - want).max() > 1e-2   # the check can fail


def test_tassign_checks_pass_and_fail_on_a_broken_alias(tmp_path, monkeypatch):
    """The tassign adapter's restated checks pass on the simulator's A2A3 memory (the windowed strips since
    PTO176); bounded by the whole span, as the NPU is, the two strip tests are refused; with TASSIGN not
    aliasing (each tile its own bytes) the alias checks fail."""
    from ptoisa_st_folders import tassign as adapter
    from tilesim.errors import TilesimError
    from tilesim.pto import memory
    from tilesim.pto.memory import Memory
    d = tmp_path / "tassign"
    d.mkdir()
    (d / "main.cpp").write_text("".join(f"TEST_F(T, {n})\n{{\n}}\n" for n in adapter.CHECKS))
    row = adapter.run_tassign(d, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.refused, row.not_mapped) == (5, 5, 0, 0, 0)
    strip = pto.Tile("acc", "i32", 128, 256, valid=(16, 256), **adapter._ACC)
    with pytest.raises(TilesimError) as e:                                       # the NPU: SA-0353
        adapter.tassign(strip, 1024, memory=Memory("a2a3"))
    assert e.value.rule == "pto.mem.bounds"
    with monkeypatch.context() as m:
        m.setattr(memory, "footprint", lambda tile, target=None: tile.span)
        row = adapter.run_tassign(d, tmp_path, verbose=True)
    assert (row.passed, row.refused) == (3, 2)
    monkeypatch.setattr(adapter, "tassign", lambda tile, addr, memory: tile)   # every tile its own storage
    assert not adapter._exact_alias(Memory("a2a3")) and not adapter._interior_alias(Memory("a2a3"))


def test_tfree_before_pop_check_passes_and_fails_when_tfree_keeps_the_tile(monkeypatch):
    """TfreeDiscardsQueuedTileInCpuSimPipe's restated check passes (PTO197); with a TFREE that drops nothing
    (the `.pto` interpreter's), the pop gives the first tile and the check fails."""
    from ptoisa_st_folders import tisa_coverage as adapter
    assert adapter._tfree_discards()
    monkeypatch.setattr(adapter.pto, "tfree", lambda pipe: pipe)
    assert not adapter._tfree_discards()
