"""The collective TGATHER/TSCATTER (PTO184), the ping-pong forms of TPUT, TGET and TREDUCE (PTO185) and the
async forms' DMA engine (PTO186): numpy oracles (concatenation and slicing, the one-tile TREDUCE), the operand
checks, the ``.pto`` forms between blocks, and the st adapter of pto-isa's comm tree on made-up folders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto import comm
from tilesim.pto.tile import Tile

_DTS = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i8": np.int8, "u8": np.uint8, "u16": np.uint16,
        "i64": np.int64}


def _ranks(rng, dt: str, n: int, shape) -> list[np.ndarray]:
    lane = np.dtype(f"u{np.dtype(_DTS[dt]).itemsize}")
    return [rng.integers(0, np.iinfo(lane).max, shape, dtype=lane, endpoint=True).view(_DTS[dt]) for _ in range(n)]


@settings(max_examples=40, deadline=None)
@given(dt=st.sampled_from(sorted(_DTS)), n=st.integers(1, 4), h=st.integers(0, 5), w=st.integers(1, 9),
       extra=st.integers(0, 3), outer=st.booleans(), pong=st.booleans(), seed=st.integers(0, 2 ** 32 - 1))
def test_tgather_and_tscatter_are_concatenation_and_slicing_of_the_bits(dt, n, h, w, extra, outer, pong, seed):
    rng = np.random.default_rng(seed)
    lead = (1, 1, 1) if outer else ()
    ranks = _ranks(rng, dt, n, (*lead, h, w))
    tiles = [Tile("vec", dt, 2, 32) for _ in range(1 + pong)]
    before = [t.bits.copy() for t in tiles]
    dst = _ranks(rng, dt, 1, (*lead, n * h + extra, w))[0]
    old = dst.copy()
    comm.tgather(ranks, dst, *tiles, root=n - 1)
    bits = lambda a: a.view(f"u{a.dtype.itemsize}")                                   # noqa: E731
    want = np.concatenate([bits(r) for r in ranks] + [bits(old)[..., n * h:, :]], axis=-2)
    assert np.array_equal(bits(dst), want)                    # NaN payloads too; the rows beyond N x H kept
    assert all(np.array_equal(t.bits, b) for t, b in zip(tiles, before))              # the staging tiles kept
    back = [np.zeros_like(r) for r in ranks]
    comm.tscatter(back, dst, *tiles, root=0)
    assert all(np.array_equal(bits(b), bits(r)) for b, r in zip(back, ranks))


def test_tgather_checks_group_shapes_rows_root_and_tiles():
    a, b = np.zeros((2, 4), np.int32), np.zeros((2, 4), np.int32)
    t = Tile("vec", "i32", 1, 8)
    cases = [
        (([a, np.zeros((3, 4), np.int32)], np.zeros((5, 4), np.int32), t), {}, "pto.comm.shape"),  # ranks differ
        (([a, b], np.zeros((3, 4), np.int32), t), {}, "pto.comm.shape"),                          # 3 < 2 x 2 rows
        (([a, b], np.zeros((4, 5), np.int32), t), {}, "pto.comm.shape"),                          # columns differ
        (([a, b], np.zeros(8, np.int32), t), {}, "pto.comm.shape"),                               # no rows
        (([a, np.zeros((2, 4), np.int16)], np.zeros((4, 4), np.int32), t), {}, "pto.mem.elem_size"),
        (([a, b], np.zeros((4, 4), np.int32), Tile("vec", "f16", 1, 16)), {}, "pto.mem.elem_size"),
        (([a, b], np.zeros((4, 4), np.int32), Tile("mat", "i32", 16, 16)), {}, "pto.op.loc"),
        (([a, b], np.zeros((4, 4), np.int32), t), {"root": 2}, "pto.comm.root"),
        (([], np.zeros((4, 4), np.int32), t), {}, "pto.comm.group"),
        (([a, b], np.zeros((4, 4), np.int32), t, t), {}, "pto.comm.pingpong"),                     # pong is ping
        (([a, b], np.zeros((4, 4), np.int32), t, Tile("vec", "i32", 2, 8)), {}, "pto.comm.pingpong"),
    ]
    for args, kw, rule in cases:
        for fn in (comm.tgather, comm.tscatter):
            keep = [np.copy(x) for x in args[0]]
            with pytest.raises(TilesimError) as e:
                fn(*args, **kw)
            assert e.value.rule == rule, (fn.__name__, rule)
            assert all(np.array_equal(x, k) for x, k in zip(args[0], keep))     # a refused op writes nothing


def test_ping_pong_tput_and_tget_copy_as_the_one_tile_forms_and_check_pong():
    rng = np.random.default_rng(1)
    src, old = _ranks(rng, "f16", 2, (3, 8))
    one, two = old.copy(), old.copy()
    ping, pong = Tile("vec", "f16", 1, 16), Tile("vec", "f16", 1, 16)
    comm.tput(one, src, ping, atomic="add", target="cpu")
    comm.tput(two, src, ping, pong, atomic="add", target="cpu")
    assert np.array_equal(one.view(np.uint16), two.view(np.uint16))
    assert np.array_equal(comm.tget(np.zeros_like(src), src, ping, pong).view(np.uint16), src.view(np.uint16))
    for bad, rule in ((Tile("vec", "i16", 1, 16), "pto.comm.pingpong"), (Tile("mat", "f16", 16, 16), "pto.op.loc")):
        with pytest.raises(TilesimError, match=rule):
            comm.tput(two, src, ping, bad)


@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("root", [0, 2, 4])
def test_ping_pong_treduce_gives_the_one_tile_result_and_leaves_each_tile_its_last_remote_chunk(op, root):
    rng = np.random.default_rng(root)
    group = [rng.standard_normal((7, 16)).astype(np.float32) for _ in range(5)]
    acc, recv = Tile("vec", "f32", 3, 16), Tile("vec", "f32", 3, 16)
    ping, pong, acc2 = Tile("vec", "f32", 3, 16), Tile("vec", "f32", 3, 16), Tile("vec", "f32", 3, 16)
    one, two = np.zeros((7, 16), np.float32), np.zeros((7, 16), np.float32)
    comm.treduce(group, one, acc, recv, op=op, root=root, target="cpu")
    comm.treduce(group, two, acc2, ping, pong, op=op, root=root, target="cpu")
    assert np.array_equal(one.view(np.uint32), two.view(np.uint32))
    others = [r for r in range(5) if r != root]
    # the last chunk (row 6, one row) of remote ordinal 2 stays in ping, that of ordinal 3 in pong
    assert np.array_equal(ping.bits[0], group[others[2]][6].view(np.uint32))
    assert np.array_equal(pong.bits[0], group[others[3]][6].view(np.uint32))
    assert ping.valid == pong.valid == (3, 16)                                  # valid shapes restored


def test_async_engines_by_target():
    src = np.arange(8, dtype=np.int32).reshape(1, 8)
    for engine in ("sdma", "urma", "rdma", "DmaEngine::URMA"):
        assert np.array_equal(comm.tput_async(np.zeros_like(src), src, engine=engine, target="cpu"), src)
        assert np.array_equal(comm.tget_async(np.zeros_like(src), src, engine=engine, target="a5"), src)
    assert np.array_equal(comm.tput_async(np.zeros_like(src), src, engine="sdma", target="a2a3"), src)
    for engine, target in (("urma", "a2a3"), ("rdma", "a2a3"), ("ccu", "cpu")):
        dst = np.zeros_like(src)
        with pytest.raises(TilesimError, match="pto.comm.engine"):
            comm.tput_async(dst, src, engine=engine, target=target)
        assert not dst.any()


_VIEWS = "!pto.partition_tensor_view<2x8xi32>"
_TILE = "!pto.tile_buf<vec, 1x8xi32>"
GATHER = f"""
func.func @k(%x: !pto.ptr<i32>, %y: !pto.ptr<i32>, %z: !pto.ptr<i32>) {{
  %k0 = arith.constant 0 : index
  %k1 = arith.constant 1 : index
  %k8 = arith.constant 8 : index
  %k2 = arith.constant 2 : index
  %k6 = arith.constant 6 : index
  %bi = pto.get_block_idx
  %b = arith.index_cast %bi : i64 to index
  %xv = pto.make_tensor_view %x, shape = [%k6, %k8], strides = [%k8, %k1] : !pto.tensor_view<6x8xi32>
  %yv = pto.make_tensor_view %y, shape = [%k6, %k8], strides = [%k8, %k1] : !pto.tensor_view<6x8xi32>
  %zv = pto.make_tensor_view %z, shape = [%k6, %k8], strides = [%k8, %k1] : !pto.tensor_view<6x8xi32>
  %t = pto.alloc_tile : {_TILE}
  %u = pto.alloc_tile : {_TILE}
  %last = arith.cmpi eq, %b, %k2 : index
  scf.if %last {{
    %x0 = pto.partition_view %xv, offsets = [%k0, %k0], sizes = [%k2, %k8] : !pto.tensor_view<6x8xi32> -> {_VIEWS}
    %r1 = arith.constant 2 : index
    %x1 = pto.partition_view %xv, offsets = [%r1, %k0], sizes = [%k2, %k8] : !pto.tensor_view<6x8xi32> -> {_VIEWS}
    %r2 = arith.constant 4 : index
    %x2 = pto.partition_view %xv, offsets = [%r2, %k0], sizes = [%k2, %k8] : !pto.tensor_view<6x8xi32> -> {_VIEWS}
    pto.tgather ins(%x2, %x1, %x0, %t, %u : {_VIEWS}, {_VIEWS}, {_VIEWS}, {_TILE}, {_TILE}) outs(%yv : !pto.tensor_view<6x8xi32>) {{root = 2}}
    pto.tscatter ins(%yv, %t : !pto.tensor_view<6x8xi32>, {_TILE}) outs(%x0, %x1, %x2 : {_VIEWS}, {_VIEWS}, {_VIEWS})
  }}
  return
}}
"""


def test_the_collectives_pto_forms_run_between_blocks_beside_the_tile_tgather():
    x = np.arange(48, dtype=np.int32).reshape(6, 8)
    out = pto.run_text(GATHER, {"x": x}, "cpu", blocks=3)
    assert np.array_equal(out["y"], np.concatenate([x[4:6], x[2:4], x[0:2]]))    # the group's order, reversed
    assert np.array_equal(out["x"], out["y"])                                     # scattered back in order
    bad = GATHER.replace("{root = 2}", "{root = 3}")
    with pytest.raises(TilesimError, match=r":\d+:\d+: TGATHER: operand root: rule pto.comm.root"):
        pto.run_text(bad, {"x": x}, "cpu", blocks=3)
    tile_form = pto.run_text(TILE_TGATHER, {"s": np.arange(8, dtype=np.float32).reshape(1, 8),
                                            "i": np.array([[7, 0, 3, 3, 1, 2, 6, 5]], np.int32)}, "cpu")
    assert tile_form["d"].ravel().tolist() == [7, 0, 3, 3, 1, 2, 6, 5]          # the tile op keeps its name


TILE_TGATHER = """
func.func @g(%s: !pto.ptr<f32>, %i: !pto.ptr<i32>, %d: !pto.ptr<f32>) {
  %k0 = arith.constant 0 : index
  %k1 = arith.constant 1 : index
  %k8 = arith.constant 8 : index
  %sv = pto.make_tensor_view %s, shape = [%k1, %k8], strides = [%k8, %k1] : !pto.tensor_view<1x8xf32>
  %iv = pto.make_tensor_view %i, shape = [%k1, %k8], strides = [%k8, %k1] : !pto.tensor_view<1x8xi32>
  %dv = pto.make_tensor_view %d, shape = [%k1, %k8], strides = [%k8, %k1] : !pto.tensor_view<1x8xf32>
  %a = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  %b = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
  %c = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  pto.tload ins(%sv : !pto.tensor_view<1x8xf32>) outs(%a : !pto.tile_buf<vec, 1x8xf32>)
  pto.tload ins(%iv : !pto.tensor_view<1x8xi32>) outs(%b : !pto.tile_buf<vec, 1x8xi32>)
  pto.tgather ins(%a, %b : !pto.tile_buf<vec, 1x8xf32>, !pto.tile_buf<vec, 1x8xi32>) outs(%c : !pto.tile_buf<vec, 1x8xf32>)
  pto.tstore ins(%c : !pto.tile_buf<vec, 1x8xf32>) outs(%dv : !pto.tensor_view<1x8xf32>)
  return
}
"""


# ----------------------------------------------------------------------------- the st adapter (comm tree)
from .st_tool import st  # noqa: F401  (loads tools/ptoisa_st.py; tools/ is then on the path)

from ptoisa_st_folders import collective  # noqa: E402  (tools/ is on the path once ptoisa_st is loaded)

MAIN = """
TEST(TGather, FloatSmall_4Ranks)
{
    SKIP_IF_RANKS_LT(4);
    ASSERT_TRUE((RunGather<float, 256>(4, 4, 0, 0)));
}
TEST(TGather, Root1_Uint8)
{
    ASSERT_TRUE((RunGatherWithRoot<uint8_t, 320>(2, 2, 0, 0, 1)));
}
TEST(TGather, EmptyRows_FloatSmall)
{
    ASSERT_TRUE((RunGatherEmpty<float, 256>(2, 2, 0, 0, 0)));
}
TEST(TGatherPingPong, Int32_128x32_tile16_2ranks)
{
    ASSERT_TRUE(RunGatherPingPong_Int32_128x32_tile16(2, 2, 0, 0));
}
TEST(TGather, Other)
{
    ASSERT_TRUE(SomethingElse());
}
"""


def _tree(tmp_path: Path, folder: str, main: str) -> Path:
    f = tmp_path / folder
    f.mkdir()
    (f / "main.cpp").write_text(main.replace("Gather", "Scatter") if folder == "tscatter" else main)
    return f


@pytest.mark.parametrize("folder", ["tgather", "tscatter"])
def test_the_comm_tree_adapter_runs_each_runner_and_fails_a_wrong_instruction(tmp_path, folder, monkeypatch):
    f = _tree(tmp_path, folder, MAIN)
    row = collective.run_comm_st(f, tmp_path, True)
    assert (row.folder, row.cases, row.passed, row.failed, row.not_mapped) == (f"comm/{folder}", 5, 4, 0, 1)
    right = getattr(comm, folder)
    monkeypatch.setattr(comm, folder, lambda g, whole, *t, **k: right(g[::-1], whole, *t, **k))  # ranks reversed
    row = collective.run_comm_st(f, tmp_path, True)
    assert (row.passed, row.failed) == (1, 3)                  # only the empty case moves nothing


URMA = """
TEST(TPutAsyncUrma, Vec_FloatSmall_4Ranks)
{
    ASSERT_TRUE((RunPutAsyncUrmaRootPut<float, 256>(4, 4, 0, 0)));
}
TEST(TPutAsyncUrma, Vec_Uint8Small)
{
    ASSERT_TRUE((RunPutAsyncUrmaRootPut<uint8_t, 512>(2, 2, 0, 0)));
}
"""


@pytest.mark.parametrize("folder", ["tput_async_urma", "tget_async_urma"])
def test_the_urma_adapter_checks_every_peer(tmp_path, folder, monkeypatch):
    f = _tree(tmp_path, folder, URMA.replace("Put", "Get") if folder.startswith("tget") else URMA)
    row = collective.run_comm_st(f, tmp_path, False)
    assert (row.cases, row.passed, row.failed) == (2, 2, 0)
    monkeypatch.setattr(comm, folder[:-5], lambda dst, src, **k: dst)          # a copy that moves nothing
    row = collective.run_comm_st(f, tmp_path, False)
    assert (row.passed, row.failed) == (0, 2)


def test_tilesim_vectors_names_the_collectives_as_communication_instructions():
    from typer.testing import CliRunner

    from tilesim.cli import app
    for op in ("comm_tgather", "comm_tscatter"):
        r = CliRunner().invoke(app, ["vectors", "pto", op])
        assert r.exit_code != 0 and "communication instruction" in r.output and "--blocks" in r.output


_R = "!pto.partition_tensor_view<1x8xf32>"
_T = "!pto.tile_buf<vec, 1x8xf32>"
PING_PONG = f"""
func.func @k(%g: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>) {{
  %k0 = arith.constant 0 : index
  %k1 = arith.constant 1 : index
  %k2 = arith.constant 2 : index
  %k3 = arith.constant 3 : index
  %k8 = arith.constant 8 : index
  %gv = pto.make_tensor_view %g, shape = [%k3, %k8], strides = [%k8, %k1] : !pto.tensor_view<3x8xf32>
  %yv = pto.make_tensor_view %y, shape = [%k1, %k8], strides = [%k8, %k1] : !pto.tensor_view<1x8xf32>
  %zv = pto.make_tensor_view %z, shape = [%k1, %k8], strides = [%k8, %k1] : !pto.tensor_view<1x8xf32>
  %r0 = pto.partition_view %gv, offsets = [%k0, %k0], sizes = [%k1, %k8] : !pto.tensor_view<3x8xf32> -> {_R}
  %r1 = pto.partition_view %gv, offsets = [%k1, %k0], sizes = [%k1, %k8] : !pto.tensor_view<3x8xf32> -> {_R}
  %r2 = pto.partition_view %gv, offsets = [%k2, %k0], sizes = [%k1, %k8] : !pto.tensor_view<3x8xf32> -> {_R}
  %a = pto.alloc_tile : {_T}
  %p = pto.alloc_tile : {_T}
  %q = pto.alloc_tile : {_T}
  pto.treduce ins(%r0, %r1, %r2, %a, %p, %q : {_R}, {_R}, {_R}, {_T}, {_T}, {_T}) outs(%yv : !pto.tensor_view<1x8xf32>) {{op = #pto.reduce_op<Sum>, root = 1}}
  pto.tput ins(%yv, %p, %q : !pto.tensor_view<1x8xf32>, {_T}, {_T}) outs(%zv : !pto.tensor_view<1x8xf32>) {{atomicType = #pto.atomic_type<atomic_add>}}
  return
}}
"""


def test_ping_pong_treduce_and_tput_pto_forms():
    g = np.array([[1e8] * 8, [1.0] * 8, [-1e8] * 8], np.float32)
    z = np.full((1, 8), 0.5, np.float32)
    out = pto.run_text(PING_PONG, {"g": g, "z": z}, "cpu")
    assert out["y"].ravel().tolist() == [0.0] * 8                 # (1 + 1e8) + -1e8 in f32: the root first
    assert out["z"].ravel().tolist() == [0.5] * 8                 # z += y
    with pytest.raises(TilesimError, match=r":\d+:\d+: TREDUCE: operand pong: rule pto.comm.pingpong"):
        pto.run_text(PING_PONG.replace("%a, %p, %q :", "%a, %p, %p :"), {"g": g, "z": z}, "cpu")
