"""TROWEXPAND/TCOLEXPAND and the expand-binary ops against the oracle, every dtype x target."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto import Tile

from . import oracle as o
from .helpers import FACTS, TARGETS, make_tile, nan_blind, per_block, rand_bits, sentinel, seed

KINDS = ("add", "sub", "mul", "div", "max", "min", "expdif")


def _lane_op(kind, a, b, dt, target):
    f = FACTS[target]
    if kind == "expdif":
        return o.unary("exp", o.binary("sub", a, b, dt, f["ftz"]), dt, f["ftz"])
    return o.binary(kind, a, b, dt, f["ftz"], f["nan"])


def _data(rng, dt, shape, kind):
    if kind == "div" and dt in o.INTS:
        return rand_bits(rng, dt, shape, special=0.0, ties=1.0) | 1  # odd integers: never zero
    if kind == "expdif":
        return rand_bits(rng, dt, shape, special=0.05, lo=-8, hi=8)
    return rand_bits(rng, dt, shape, special=0.05)


CASES = [(fam, k, t, s[0]) for fam in ("row", "col") for k in KINDS for t in TARGETS
         for s in sorted(pto.get_target(t).dtypes[f"t{fam}expand{k}"])]


@pytest.mark.parametrize("fam,kind,target,dt", CASES, ids=str)
def test_expand_binary_matches_oracle(fam, kind, target, dt):
    rng = np.random.default_rng(seed(fam, kind, target, dt))
    R, C = 5, per_block(dt) + 6
    a = _data(rng, dt, (R, C), kind)
    name = f"t{fam}expand{kind}"
    dst = make_tile(np.zeros((R, C), a.dtype), dt)
    before = sentinel(dst)
    if fam == "col":
        b = _data(rng, dt, (1, C), kind)
        getattr(pto, name)(dst, make_tile(a, dt), make_tile(b, dt), target=target)
        want = [[_lane_op(kind, int(a[i, j]), int(b[0, j]), dt, target) for j in range(C)] for i in range(R)]
    else:
        mode2 = seed(kind, dt) % 2 == 0
        n = per_block(dt) if mode2 else 1
        s = _data(rng, dt, (R, n), kind)
        ex = make_tile(s, dt, blayout="row_major" if mode2 else "col_major")
        first = kind in ("sub", "div") and not mode2  # broadcast operand first: s_i (op) src[i, j]
        args = (ex, make_tile(a, dt)) if first else (make_tile(a, dt), ex)
        getattr(pto, name)(dst, *args, target=target)
        pick = lambda i, j: int(s[i, j % n])
        want = [[_lane_op(kind, pick(i, j), int(a[i, j]), dt, target) if first
                 else _lane_op(kind, int(a[i, j]), pick(i, j), dt, target) for j in range(C)] for i in range(R)]
    assert nan_blind(dst.bits[:R, :C].tolist(), dt, target) == nan_blind(want, dt, target)  # cpu: PTO91
    after = dst.bits.copy()
    after[:R, :C] = before[:R, :C]
    assert (after == before).all()


@pytest.mark.parametrize("target,dt", [(t, s[0]) for t in TARGETS for s in sorted(pto.get_target(t).dtypes["trowexpand"])],
                         ids=str)
def test_trowexpand_tcolexpand_copy_bits(target, dt):
    assert (dt,) in pto.get_target(target).dtypes["tcolexpand"]
    rng = np.random.default_rng(seed(target, dt))
    s = rand_bits(rng, dt, (6, 3))
    src = make_tile(s, dt)
    dst = make_tile(np.zeros((6, 40), s.dtype), dt)
    pto.trowexpand(dst, src, target=target)
    assert (dst.bits[:6, :40] == s[:, :1]).all()
    src2 = make_tile(rand_bits(rng, dt, (2, 40)), dt)
    pto.tcolexpand(dst, src2, target=target)
    assert (dst.bits[:6, :40] == src2.bits[:1, :40]).all()


def test_softmax_step_by_hand():
    x = Tile.from_array(np.array([[1.0, 2.0, 3.0]], np.float32))
    m = Tile("vec", "f32", 8, 1, valid=(1, 1), blayout="col_major")
    m.values[0, 0] = 3.0
    d = Tile("vec", "f32", 1, 8, valid=(1, 3))
    pto.trowexpandsub(d, x, m)
    assert d.values[0, :3].tolist() == [-2.0, -1.0, 0.0]
    pto.trowexpandexpdif(d, x, m)
    assert d.values[0, 2] == 1.0 and d.values[0, 1] == np.float32(0.36787944117144233)  # exp(-1) rounded to f32
    pto.trowexpanddiv(d, x, m)
    assert d.values[0, :3].tolist() == [np.float32(1 / 3), np.float32(2 / 3), 1.0]


def _err(fn, *a, **k):
    with pytest.raises(TilesimError) as e:
        fn(*a, **k)
    return e.value


def test_expand_errors():
    full = Tile("vec", "f32", 4, 16)
    dst = Tile("vec", "f32", 4, 16)
    col = Tile("vec", "f32", 8, 1, valid=(4, 1), blayout="col_major")
    assert _err(pto.trowexpandadd, dst, Tile("vec", "f32", 4, 16, valid=(4, 8)),
                Tile("vec", "f32", 4, 16, valid=(4, 3))).rule == "pto.op.expand_full"
    assert _err(pto.trowexpandadd, dst, full, Tile("vec", "f32", 4, 16, valid=(4, 7))).rule == "pto.op.expand_shape"
    assert _err(pto.trowexpandadd, dst, full, Tile("vec", "f32", 8, 2, valid=(4, 2), blayout="col_major")
                ).rule == "pto.op.expand_shape"
    assert _err(pto.trowexpandadd, dst, full, Tile("vec", "f32", 8, 1, valid=(3, 1), blayout="col_major")
                ).rule == "pto.op.rows_match"
    assert _err(pto.trowexpandadd, dst, full, Tile("vec", "f32", 4, 8), Tile("vec", "f32", 1, 8)
                ).rule == "pto.op.expand_tmp_mode"
    pto.trowexpandadd(dst, full, col, Tile("vec", "f32", 1, 8))  # Mode 1 with tmp is fine
    assert _err(pto.trowexpandadd, Tile("vec", "f32", 8, 4, blayout="col_major"), full, col).rule == "pto.op.layout"
    assert _err(pto.trowexpandadd, dst, full, Tile("vec", "f16", 16, 1, blayout="col_major", valid=(4, 1))
                ).rule == "pto.op.same_dtype"
    assert _err(pto.trowexpanddiv, Tile("vec", "i32", 4, 8), Tile("vec", "i32", 4, 8),
                Tile("vec", "i32", 8, 1, valid=(4, 1), blayout="col_major")).rule == "pto.op.dtype"
    assert _err(pto.tcolexpandadd, dst, full, Tile("vec", "f32", 1, 8)).rule == "pto.op.cols_match"
    assert _err(pto.tcolexpandadd, dst, Tile("vec", "f32", 4, 16, valid=(3, 16)), Tile("vec", "f32", 1, 16)
                ).rule == "pto.op.valid_match"
    assert _err(pto.trowexpand, dst, Tile("vec", "f32", 3, 8)).rule == "pto.op.rows_match"
    assert _err(pto.trowexpand, dst, Tile("vec", "f32", 4, 8, valid=(4, 0)), target="a5").rule == "pto.op.valid_nonzero"
    before = sentinel(dst)
    pto.trowexpand(dst, Tile("vec", "f32", 4, 8, valid=(4, 0)), target="a2a3")  # A2A3 returns early
    assert (dst.bits == before).all()
    assert _err(pto.tcolexpand, dst, Tile("vec", "f32", 1, 8)).rule == "pto.op.cols_match"
    assert _err(pto.trowexpand, Tile("vec", "i64", 4, 4), Tile("vec", "i64", 4, 4), target="a2a3").rule == "pto.op.dtype"
