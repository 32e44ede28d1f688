"""Communication instructions (PTO155, PTO156): the Python entry points against numpy oracles, and the .pto
forms between the blocks of a run, where the order of the blocks' steps decides the answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, StateError, TilesimError
from tilesim.pto import comm
from tilesim.pto.tile import Tile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "pto"


# ----------------------------------------------------------------------------- Python entry points
def test_tput_and_tget_copy_bits_nan_payloads_included():
    src = np.array([[0x7FC12345, 0xFF800001, 0x80000000, 1]], np.uint32).view(np.float32)
    for fn in (comm.tput, comm.tget):
        dst = np.zeros((1, 4), np.float32)
        fn(dst, src, Tile("vec", "f32", 1, 8, (1, 4)))
        assert dst.view(np.uint32).tolist() == src.view(np.uint32).tolist()
    dst = np.zeros((1, 4), np.float32)
    assert comm.tput_async(dst, src) is dst and (dst.view(np.uint32) == src.view(np.uint32)).all()
    assert (comm.tget_async(np.zeros_like(src), src).view(np.uint32) == src.view(np.uint32)).all()


def test_tput_atomic_add_every_f16_pair_of_a_row_is_numpy_float16_addition():
    # numpy's float16 + float16 rounds the exact sum once to nearest even: an independent oracle
    rng = np.random.default_rng(1)
    a = rng.integers(0, 1 << 16, (64, 256), dtype=np.uint16)
    b = rng.integers(0, 1 << 16, (64, 256), dtype=np.uint16)
    dst = a.copy().view(np.float16)
    comm.tput(dst, b.view(np.float16), Tile("vec", "f16", 64, 256), atomic="AtomicAdd", target="cpu")
    with np.errstate(all="ignore"):
        want = a.view(np.float16) + b.view(np.float16)
    ok = (dst.view(np.uint16) == want.view(np.uint16)) | (np.isnan(dst) & np.isnan(want))
    assert ok.all()


@given(st.lists(st.integers(-(1 << 15), (1 << 15) - 1), min_size=16, max_size=16),
       st.lists(st.integers(-(1 << 15), (1 << 15) - 1), min_size=16, max_size=16))
@settings(max_examples=50, deadline=None)
def test_tput_atomic_add_int16_wraps(xs, ys):
    dst = np.array([xs], np.int16)
    comm.tput(dst, np.array([ys], np.int16), Tile("vec", "i16", 1, 16), atomic="add")
    assert dst[0].tolist() == [((x + y + (1 << 15)) % (1 << 16)) - (1 << 15) for x, y in zip(xs, ys)]


def test_tput_checks_shapes_element_sizes_tile_and_atomic():
    t = Tile("vec", "f32", 1, 8)
    with pytest.raises(GeometryError, match="pto.comm.shape"):
        comm.tput(np.zeros((1, 8), np.float32), np.zeros((2, 8), np.float32), t)
    with pytest.raises(DtypeError, match="pto.mem.elem_size"):
        comm.tget(np.zeros((1, 8), np.float32), np.zeros((1, 8), np.float16), t)
    with pytest.raises(DtypeError, match="pto.mem.elem_size"):
        comm.tput(np.zeros((1, 8), np.float16), np.zeros((1, 8), np.float16), t)
    with pytest.raises(TilesimError, match="pto.op.loc"):
        comm.tput(np.zeros((1, 8), np.float32), np.zeros((1, 8), np.float32), Tile("mat", "f32", 16, 8))
    dst = np.zeros((1, 8), np.float32)
    with pytest.raises(TilesimError, match="pto.comm.atomic"):
        comm.tput(dst, np.ones((1, 8), np.float32), t, atomic="max")
    assert not dst.any()                                     # a refused op wrote nothing


def test_tnotify_set_and_wrapping_atomic_add():
    s = np.zeros(1, np.int32)
    assert comm.tnotify(s, 7).tolist() == [7]
    assert comm.tnotify(s, -9, op="#pto.notify_op<AtomicAdd>").tolist() == [-2]
    s[0] = np.iinfo(np.int32).max
    assert comm.tnotify(s, 1, op="atomic_add").tolist() == [np.iinfo(np.int32).min]
    for bad, rule in ((np.zeros(2, np.int32), "pto.comm.signal"), (np.zeros(1, np.int64), "pto.comm.signal")):
        with pytest.raises(TilesimError, match=rule):
            comm.tnotify(bad, 1)
    with pytest.raises(TilesimError, match="pto.comm.value"):
        comm.tnotify(s, 1 << 31)
    with pytest.raises(TilesimError, match="pto.comm.notify_op"):
        comm.tnotify(s, 1, op="xor")


@pytest.mark.parametrize("cmp,py", [("eq", lambda a, b: a == b), ("ne", lambda a, b: a != b),
                                    ("gt", lambda a, b: a > b), ("ge", lambda a, b: a >= b),
                                    ("lt", lambda a, b: a < b), ("le", lambda a, b: a <= b)])
def test_ttest_is_every_element_compared(cmp, py):
    rng = np.random.default_rng(3)
    for _ in range(50):
        sig = rng.integers(-3, 4, rng.integers(1, 5), dtype=np.int32)
        v = int(rng.integers(-3, 4))
        assert comm.ttest(sig, v, cmp=cmp.upper()) == all(py(int(x), v) for x in sig)


def test_twait_alone_returns_when_true_and_refuses_a_wait_for_ever():
    s = np.array([[1, 1], [1, 2]], np.int32)
    assert comm.twait(s, 1, cmp="ge") is None
    with pytest.raises(StateError, match="pto.comm.wait") as e:
        comm.twait(s, 1, cmp="eq")
    assert "holds 1, 2" in str(e.value) and s.tolist() == [[1, 1], [1, 2]]
    with pytest.raises(TilesimError, match="pto.comm.cmp"):
        comm.twait(s, 1, cmp="approx")


def test_tbroadcast_copies_into_every_member():
    src = np.arange(32, dtype=np.int16).reshape(2, 16)
    group = [np.zeros((2, 16), np.int16) for _ in range(3)]
    comm.tbroadcast(group, src, Tile("vec", "i16", 2, 16))
    assert all((g == src).all() for g in group)
    with pytest.raises(TilesimError, match="pto.comm.group"):
        comm.tbroadcast([], src, Tile("vec", "i16", 2, 16))


@pytest.mark.parametrize("op,ref", [("sum", np.add.reduce), ("max", np.maximum.reduce), ("min", np.minimum.reduce)])
@pytest.mark.parametrize("root", [0, 2])
def test_treduce_in_chunks_matches_numpy(op, ref, root):
    rng = np.random.default_rng(5)
    group = [rng.integers(-1000, 1000, (37, 40), dtype=np.int32) for _ in range(3)]
    dst = np.zeros((37, 40), np.int32)
    acc, recv = Tile("vec", "i32", 16, 32), Tile("vec", "i32", 16, 32)   # partial chunks at both edges
    comm.treduce(group, dst, acc, recv, op=op, root=root)
    assert (dst == ref(group)).all() and acc.valid == (16, 32)


def test_treduce_f32_sum_adds_the_root_first_then_rank_order():
    a, b, c = (np.array([[v] * 8], np.float32) for v in (1.0, 2.0 ** 24, -(2.0 ** 24)))
    dst = np.zeros((1, 8), np.float32)
    t = lambda: Tile("vec", "f32", 1, 8)                                   # noqa: E731
    comm.treduce([a, b, c], dst, t(), t(), root=0)
    assert dst[0, 0] == 0.0                                # (1 + 2^24) rounds to 2^24, minus 2^24
    comm.treduce([a, b, c], dst, t(), t(), root=2)
    assert dst[0, 0] == 1.0                                # (-2^24 + 1) is exact, plus 2^24
    with pytest.raises(TilesimError, match="pto.comm.root"):
        comm.treduce([a, b], dst, t(), t(), root=2)


# ----------------------------------------------------------------------------- .pto between blocks
def _handoff(blocks: int, target: str = "cpu"):
    x = np.arange(8, dtype=np.float32) + 0.5
    return x, pto.run_file(EXAMPLES / "comm_handoff.pto", {"x": x, "flag": np.zeros(1, np.int32)}, target,
                           blocks=blocks)


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_a_waiting_block_lets_the_producer_run_first(target):
    x, out = _handoff(2, target)
    # block 0 runs first and waits; had it not waited, z would hold y's zeros
    assert (out["z"][0] == x).all() and out["flag"].tolist() == [1]


def test_a_notified_signal_needs_no_input_and_starts_at_zero():
    x = np.arange(8, dtype=np.float32)
    out = pto.run_file(EXAMPLES / "comm_handoff.pto", {"x": x}, "cpu", blocks=2)
    assert (out["z"][0] == x).all() and out["flag"].ravel().tolist() == [1]


def test_a_wait_no_block_can_satisfy_names_block_op_and_signal():
    with pytest.raises(StateError, match=r"comm_handoff.pto:\d+:\d+: TWAIT: operand signal: rule pto.comm.wait"
                                         r".*%flag at \[0, 0\] holds 0 .* eq 1; no other block runs"):
        _handoff(1)


COUNTER = """
module {
  func.func @count(%c: !pto.ptr<i32>, %seen: !pto.ptr<i32>) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %bi = pto.get_block_idx
    %bn = pto.get_block_num
    %b = arith.index_cast %bi : i64 to index
    %n = arith.index_cast %bn : i64 to i32
    %cv = pto.make_tensor_view %c, shape = [%k1, %k1], strides = [%k1, %k1] : !pto.tensor_view<1x1xi32>
    %sv = pto.make_tensor_view %seen, shape = [%k1, %k1], strides = [%k1, %k1] : !pto.tensor_view<1x1xi32>
    %first = arith.cmpi eq, %b, %k0 : index
    scf.if %first {
      pto.twait ins(%cv, %n : !pto.tensor_view<1x1xi32>, i32) {cmp = #pto.cmp<GE>}
      %now = pto.ttest ins(%cv, %n : !pto.tensor_view<1x1xi32>, i32) {cmp = #pto.cmp<EQ>} -> i1
      %w = arith.extui %now : i1 to i32
      pto.tnotify %sv, %w {op = #pto.notify_op<Set>} : (!pto.tensor_view<1x1xi32>, i32)
    }
    pto.tnotify ins(%one : i32) outs(%cv : !pto.tensor_view<1x1xi32>) {op = #pto.notify_op<AtomicAdd>}
    return
  }
}
"""


@pytest.mark.parametrize("blocks", [2, 5])
def test_block0_waits_for_every_other_blocks_atomic_add(blocks):
    # from 0, the other n - 1 blocks' adds leave c at n - 1; only block 0's own add, after its wait, would
    # reach n: the wait can never hold
    with pytest.raises(StateError, match=r"block 0: %c at \[0, 0\] holds \d+ .* ge \d+; every other block is done"):
        pto.run_text(COUNTER, {"c": np.zeros(1, np.int32), "seen": np.zeros(1, np.int32)}, "cpu", blocks=blocks)
    out = pto.run_text(COUNTER, {"c": np.ones(1, np.int32), "seen": np.zeros(1, np.int32)}, "cpu", blocks=blocks)
    # the others' adds made c = 1 + (n - 1) = n before block 0 tested; its own add came last
    assert out["seen"].tolist() == [1] and out["c"].tolist() == [blocks + 1]


def test_the_pages_assembly_form_of_tput_and_an_unknown_cmp():
    text = """
    func.func @k(%x: !pto.ptr<i32>, %y: !pto.ptr<i32>) {
      %k1 = arith.constant 1 : index
      %k8 = arith.constant 8 : index
      %xv = pto.make_tensor_view %x, shape = [%k1, %k8], strides = [%k8, %k1] : !pto.tensor_view<1x8xi32>
      %yv = pto.make_tensor_view %y, shape = [%k1, %k8], strides = [%k8, %k1] : !pto.tensor_view<1x8xi32>
      %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
      pto.tput %yv, %xv, %t {atomicType = #pto.atomic_type<atomic_add>} : (!pto.tensor_view<1x8xi32>, !pto.tensor_view<1x8xi32>, !pto.tile_buf<vec, 1x8xi32>)
      return
    }"""
    x = np.arange(8, dtype=np.int32).reshape(1, 8)
    out = pto.run_text(text, {"x": x, "y": np.full((1, 8), 10, np.int32)}, "a5")
    assert out["y"].tolist() == (x + 10).tolist()
    bad = COUNTER.replace("#pto.cmp<GE>", "#pto.cmp<ABOUT>")
    with pytest.raises(TilesimError, match=r":\d+:\d+: TWAIT: operand cmp: rule pto.comm.cmp"):
        pto.run_text(bad, {"c": np.ones(1, np.int32), "seen": np.zeros(1, np.int32)}, "cpu", blocks=2)


def test_tilesim_vectors_names_a_comm_op_and_where_it_runs():
    from typer.testing import CliRunner

    from tilesim.cli import app
    r = CliRunner().invoke(app, ["vectors", "pto", "tput"])
    assert r.exit_code != 0 and "communication instruction" in r.output and "--blocks" in r.output


def test_tilesim_run_blocks_runs_the_handoff(tmp_path):
    from typer.testing import CliRunner

    from tilesim.cli import app
    np.save(tmp_path / "x.npy", np.arange(8, dtype=np.float32))
    np.save(tmp_path / "flag.npy", np.zeros(1, np.int32))
    out = tmp_path / "out.npz"
    args = ["run", str(EXAMPLES / "comm_handoff.pto"), "--target", "cpu", "--input", f"x={tmp_path / 'x.npy'}",
            "--input", f"flag={tmp_path / 'flag.npy'}", "-o", str(out)]
    r = CliRunner().invoke(app, [*args, "--blocks", "2"])
    assert r.exit_code == 0, r.output
    assert np.load(out)["z"].ravel().tolist() == list(range(8))
    r = CliRunner().invoke(app, args)                       # one block: the wait can never hold
    assert r.exit_code != 0 and "pto.comm.wait" in r.output and "Traceback" not in r.output


SPIN = """
func.func @spin(%s: !pto.ptr<i32>) {
  %k0 = arith.constant 0 : index
  %k1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %true = arith.constant 1 : i1
  %sv = pto.make_tensor_view %s, shape = [%k1, %k1], strides = [%k1, %k1] : !pto.tensor_view<1x1xi32>
  %n = scf.while (%i = %k0) : (index) -> (index) {
    %ok = pto.ttest ins(%sv, %one : !pto.tensor_view<1x1xi32>, i32) {cmp = #pto.cmp<EQ>} -> i1
    %go = arith.xori %ok, %true : i1
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    %j1 = arith.addi %j, %k1 : index
    scf.yield %j1 : index
  }
  return
}
"""


def test_a_ttest_loop_no_block_can_end_is_stopped(monkeypatch):
    import tilesim.pto.text.comm as text_comm
    monkeypatch.setattr(text_comm, "_SPIN_LIMIT", 40)
    with pytest.raises(StateError, match=r"TTEST: operand signal: rule pto.comm.spin: block 0: %s .* 40 times"):
        pto.run_text(SPIN, {"s": np.zeros(1, np.int32)}, "cpu")
    pto.run_text(SPIN, {"s": np.ones(1, np.int32)}, "cpu")          # true at once: the loop ends


COLLECTIVES = """
func.func @k(%x: !pto.ptr<i32>, %r: !pto.ptr<i32>, %y: !pto.ptr<i32>) {
  %k0 = arith.constant 0 : index
  %k1 = arith.constant 1 : index
  %k2 = arith.constant 2 : index
  %k8 = arith.constant 8 : index
  %k24 = arith.constant 24 : index
  %xv = pto.make_tensor_view %x, shape = [%k1, %k8], strides = [%k8, %k1] : !pto.tensor_view<1x8xi32>
  %rv = pto.make_tensor_view %r, shape = [%k24, %k8], strides = [%k8, %k1] : !pto.tensor_view<24x8xi32>
  %yv = pto.make_tensor_view %y, shape = [%k1, %k8], strides = [%k8, %k1] : !pto.tensor_view<1x8xi32>
  %r0 = pto.partition_view %rv, offsets = [%k0, %k0], sizes = [%k1, %k8] : !pto.tensor_view<24x8xi32> -> !pto.partition_tensor_view<1x8xi32>
  %r1 = pto.partition_view %rv, offsets = [%k8, %k0], sizes = [%k1, %k8] : !pto.tensor_view<24x8xi32> -> !pto.partition_tensor_view<1x8xi32>
  %r2 = pto.partition_view %rv, offsets = [%k2, %k0], sizes = [%k1, %k8] : !pto.tensor_view<24x8xi32> -> !pto.partition_tensor_view<1x8xi32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
  %u = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
  pto.tbroadcast ins(%xv, %t : !pto.tensor_view<1x8xi32>, !pto.tile_buf<vec, 1x8xi32>) outs(%r0, %r1 : !pto.partition_tensor_view<1x8xi32>, !pto.partition_tensor_view<1x8xi32>)
  pto.treduce ins(%r0, %r1, %r2, %t, %u : !pto.partition_tensor_view<1x8xi32>, !pto.partition_tensor_view<1x8xi32>, !pto.partition_tensor_view<1x8xi32>, !pto.tile_buf<vec, 1x8xi32>, !pto.tile_buf<vec, 1x8xi32>) outs(%yv : !pto.tensor_view<1x8xi32>) {op = #pto.reduce_op<Max>, root = 2}
  return
}
"""


def test_the_collectives_pto_forms():
    x = np.array([[5, -3, 7, 0, 1, 2, 3, 4]], np.int32)
    r = np.zeros((24, 8), np.int32)
    r[2] = [9, -9, 0, 0, 9, -9, 0, 9]
    out = pto.run_text(COLLECTIVES, {"x": x, "r": r}, "a2a3")
    assert (out["r"][0] == x[0]).all() and (out["r"][8] == x[0]).all() and (out["r"][2] == r[2]).all()
    assert out["y"][0].tolist() == np.maximum(x[0], r[2]).tolist()
    bad = COLLECTIVES.replace("root = 2", "root = 3")
    with pytest.raises(TilesimError, match=r":\d+:\d+: TREDUCE: operand root: rule pto.comm.root"):
        pto.run_text(bad, {"x": x, "r": r}, "a2a3")
