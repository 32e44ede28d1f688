"""The 4-bit dtypes (i4, f4e2m1, f4e1m2): TCVT on cpu against the scalar reading of the simulator in
oracle_sub_byte, and the packed global memory of TLOAD/TSTORE (PTO153)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, TilesimError
from tilesim.pto import Tile

from . import oracle_sub_byte as osb

SUB = ("i4", "f4e2m1", "f4e1m2")
PEERS = ("f32", "f16", "bf16", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")
MODES = ("RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "NONE")


def _cvt(src_dt, dst_dt, lanes, mode, sat):
    n = lanes.size
    cols = -(-n // 32) * 32
    src = Tile("vec", src_dt, 1, cols, valid=(1, n))
    src.bits[0, :n] = lanes
    dst = Tile("vec", dst_dt, 1, cols, valid=(1, n))
    pto.tcvt(dst, src, mode, sat, target="cpu")
    return dst.bits[0, :n]


@pytest.mark.parametrize("s", SUB)
def test_every_code_to_every_dtype(s):
    """Exhaustive: each of the 16 codes to every other dtype, every round mode, saturation off and on."""
    codes = np.arange(16, dtype=np.uint8)
    for d in SUB + PEERS:
        if d == s:
            continue
        for mode in MODES:
            for sat in (False, True):
                got = _cvt(s, d, codes, mode, sat).astype(np.uint64).tolist()
                assert got == [osb.tcvt(c, s, d, mode, sat) for c in range(16)], (s, d, mode, sat)


@pytest.mark.parametrize("d", SUB)
def test_every_small_value_and_edge_to_4_bit(d):
    """Quarters in -12..12 (ties of every mode, wrapping exponents), infinities, NaN, -0 and the limits, from
    f32, f16 and the integers."""
    vals = np.concatenate([np.arange(-48, 49) / 4.0, [np.inf, -np.inf, np.nan, -0.0, 1e-300, 65504, -3e38]])
    for s in ("f32", "f16", "bf16"):
        with np.errstate(over="ignore"):                      # -3e38 is -Inf in f16
            lanes = vals.astype(pto.get_dtype(s).np).view(pto.get_dtype(s).lane)
        for mode in MODES:
            for sat in (False, True):
                got = _cvt(s, d, lanes, mode, sat).astype(np.uint64).tolist()
                assert got == [osb.tcvt(int(b), s, d, mode, sat) for b in lanes], (s, mode, sat)
    for s in ("i8", "u8", "i16", "i32", "u32", "i64"):
        dt = pto.get_dtype(s)
        ints = np.arange(-20, 21) if s[0] == "i" else np.arange(0, 41)
        lanes = np.concatenate([ints, [dt.format.int_min, dt.format.int_max]]).astype(dt.np).view(dt.lane)
        for sat in (False, True):
            got = _cvt(s, d, lanes, "RINT", sat).astype(np.uint64).tolist()
            assert got == [osb.tcvt(int(b), s, d, "RINT", sat) for b in lanes], (s, sat)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(width=32), min_size=1, max_size=32), st.sampled_from(SUB), st.sampled_from(MODES),
       st.booleans())
def test_random_f32_to_4_bit(xs, d, mode, sat):
    lanes = np.array(xs, np.float32).view(np.uint32)
    got = _cvt("f32", d, lanes, mode, sat).astype(np.uint64).tolist()
    assert got == [osb.tcvt(int(b), "f32", d, mode, sat) for b in lanes]


def test_the_simulators_quirks():
    """Written out: 0.5 has no E2M1 code through MXType(double) (exponent field 0 without the implicit bit), 8
    wraps to 0, the -0 code reads as +0, NaN saturates to 7 in int4, fp4 -> f32 rounds to an integer first."""
    f32 = np.array([0.5, 8.0, 6.0, -0.0], np.float32).view(np.uint32)
    assert _cvt("f32", "f4e2m1", f32, "NONE", False).tolist() == [0, 0, 7, 0]
    assert _cvt("f4e2m1", "f32", np.array([8, 1, 3], np.uint8), "RINT", False).view(np.float32).tolist() == \
        [0.0, 0.0, 2.0]
    assert _cvt("f32", "i4", np.array([np.nan, -9.5, 2.5], np.float32).view(np.uint32), "RINT", False).tolist() == \
        [7, 8, 2]
    assert _cvt("i4", "u8", np.array([15, 8, 7], np.uint8), "RINT", False).tolist() == [255, 248, 7]


def test_cvt_4_bit_pairs_off_the_tcvt_page_are_cpu_only():
    """The NPUs convert only the page's 4-bit pairs (PTO189: A2A3 f16 <-> i4, A5 bf16 <-> fp4)."""
    src, dst = Tile("vec", "f32", 1, 8), Tile("vec", "i4", 1, 32, valid=(1, 8))
    for target in ("a2a3", "a5"):
        with pytest.raises(DtypeError) as e:
            pto.tcvt(dst, src, target=target)
        assert e.value.rule == "pto.op.dtype"


def test_packed_global_memory():
    """A packed array's row of B bytes holds 2B elements, element 2k in the low nibble of byte k; TLOAD reads
    a window at an element offset, TSTORE writes one and leaves the other nibbles as they were."""
    rng = np.random.default_rng(7)
    gm = rng.integers(0, 256, (6, 20), dtype=np.uint8)           # 6 rows of 40 codes
    codes = np.stack([gm & 0xF, gm >> 4], axis=-1).reshape(6, 40)
    for dt in ("f4e2m1", "f4e1m2"):
        t = Tile("vec", dt, 4, 32, valid=(3, 27))
        pto.tload(t, gm, offset=(2, 5), target="cpu")
        assert (t.valid_bits == codes[2:5, 5:32]).all()
        out = gm.copy()
        t.bits[...] = rng.integers(0, 16, t.bits.shape, dtype=np.uint8)
        pto.tstore(out, t, offset=(1, 3), target="cpu")
        want = codes.copy()
        want[1:4, 3:30] = t.valid_bits
        assert (out == (want[:, 0::2] | (want[:, 1::2] << 4))).all()
        with pytest.raises(GeometryError) as e:
            pto.tload(t, gm, offset=(0, 14), target="cpu")              # 14 + 27 > 40 elements
        assert e.value.rule == "pto.mem.window"
        with pytest.raises(TilesimError) as e:
            pto.tstore(out.copy(), t, atomic="add", target="cpu")
        assert e.value.rule == "pto.tstore.atomic"
    i4 = Tile("vec", "i4", 2, 32, valid=(2, 5))                      # int4b_t: one code a byte, as the simulator
    pto.tload(i4, np.arange(10, dtype=np.uint8).reshape(2, 5), target="cpu")
    assert i4.valid_bits.tolist() == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]


@pytest.mark.parametrize("dt", ["f4e2m1", "f4e1m2"])
def test_tload_pads_fp4_with_the_simulators_limits(dt):
    """fp4 has no infinity, so PadValue::Max/Min pad with numeric_limits max() and min(): codes 0x7 and 0x1 for
    both twin types (pto-isa include/pto/cpu/MXTypes.hpp, TLoad.hpp getPadValue)."""
    for pad, code in (("max", 0x7), ("min", 0x1), ("null", 0x0)):
        t = Tile("vec", dt, 2, 64, valid=(2, 3), pad=pad)
        pto.tload(t, np.full((2, 3), 0xA, np.uint8), packed=False, target="cpu")
        assert (t.bits[:, :3] == 0xA).all() and (t.bits[:, 3:] == code).all()


def test_pto_text_types():
    prog = """
    module {
      func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c32 = arith.constant 32 : index
        %tx = pto.make_tensor_view %x, shape = [%c1, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
        %ty = pto.make_tensor_view %y, shape = [%c1, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
        %px = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c1, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x32xf32>
        %py = pto.partition_view %ty, offsets = [%c0, %c0], sizes = [%c1, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x32xf32>
        %a = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
        %q = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=i4, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
        pto.tload ins(%px : !pto.partition_tensor_view<1x32xf32>) outs(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
        pto.tcvt ins(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%q : !pto.tile_buf<loc=vec, dtype=i4, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
        pto.tcvt ins(%q : !pto.tile_buf<loc=vec, dtype=i4, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
        pto.tstore ins(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%py : !pto.partition_tensor_view<1x32xf32>)
        return
      }
    }
    """
    x = (np.arange(32, dtype=np.float32) - 16) / 2
    out = pto.run_text(prog, {"x": x.reshape(1, 32), "y": np.zeros((1, 32), np.float32)}, "cpu")
    assert out["y"].ravel().tolist() == np.clip(np.rint(x), -8, 7).tolist()


def test_pto_program_tensors_hold_one_fp4_code_an_element():
    """A .pto program's global tensors keep one code per element (the interpreter's memory model): TLOAD of
    an f4E2M1FN view reads codes, not packed bytes; TCVT then gives the simulator's values."""
    f4 = "!pto.tile_buf<loc=vec, dtype=f4E2M1FN, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, " \
         "slayout=none_box, fractal=512, pad=0>"
    f32 = f4.replace("f4E2M1FN", "f32")
    prog = f"""
    module {{
      func.func @k(%x: !pto.ptr<f4E2M1FN>, %y: !pto.ptr<f32>) {{
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c32 = arith.constant 32 : index
        %tx = pto.make_tensor_view %x, shape = [%c1, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf4E2M1FN>
        %ty = pto.make_tensor_view %y, shape = [%c1, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
        %px = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c1, %c32] : !pto.tensor_view<?x?xf4E2M1FN> -> !pto.partition_tensor_view<1x32xf4E2M1FN>
        %py = pto.partition_view %ty, offsets = [%c0, %c0], sizes = [%c1, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x32xf32>
        %a = pto.alloc_tile : {f4}
        %b = pto.alloc_tile : {f32}
        pto.tload ins(%px : !pto.partition_tensor_view<1x32xf4E2M1FN>) outs(%a : {f4})
        pto.tcvt ins(%a : {f4}) outs(%b : {f32})
        pto.tstore ins(%b : {f32}) outs(%py : !pto.partition_tensor_view<1x32xf32>)
        return
      }}
    }}
    """
    codes = np.resize(np.arange(16, dtype=np.uint8), 32).reshape(1, 32)
    x = codes.view(pto.get_dtype("f4e2m1").np).astype(np.float32)  # the codes' values, each exact in fp4
    out = pto.run_text(prog, {"x": x, "y": np.zeros((1, 32), np.float32)}, "cpu")
    want = np.array([osb.tcvt(int(c), "f4e2m1", "f32", "RINT", False) for c in codes.ravel()], np.uint32)
    assert (out["y"].ravel().view(np.uint32) == want).all()
