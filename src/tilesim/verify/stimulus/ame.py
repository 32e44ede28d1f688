"""AME ``mmacc`` stimulus: A, B and C tiles, the CSRs and the immediate, run on :class:`tilesim.ame.Core`.

One vector is one ``MMACC.T tC, tA, tB, imm`` (C (+)= A x B^T) on a fresh core: ``mxcfg`` and
``mxtile`` from the options, ``imm`` bit 0 (beta) drawn per vector (0 accumulates onto ``c_in``).
A tiles start at tile 0, B tiles follow, and C tiles follow those when they fit (else C starts at
tile 0 and overlaps A and B, as the instruction allows; ``c_in`` is then what those tiles hold).
"""

from __future__ import annotations

import numpy as np

from ... import formats
from ...ame import Core, mxcfg, mxtile
from ...ame import regfile
from ...ame.csr import MXSTATUS
from ...ame.mmacc import plan as mmacc_plan
from ...ame.models import check_model
from ...formats import Format, Kind
from ..classes import finish, plan
from ..vectorset import Operand, VectorSet
from .dist import Dist
from .values import applicable, class_codes, lane_of, measure

__all__ = ["OPS", "OPTIONS", "generate"]

OPS = ("mmacc",)
OPTIONS = frozenset({"ft", "bovf", "sat", "rnd", "tiling", "accumulation", "k", "m", "dist"})
#: mxstatus bit names, from bit 0 (the CSR table's fields)
_STATUS_FLAGS = tuple(next((f.name for f in MXSTATUS.fields if f.lo == i), "") for i in range(4))


def run_one(accumulation: str, cfg: int, geo: int, tiles: tuple[int, int, int, int], a, b, c_in, beta: int):
    """One ``MMACC.T`` on a fresh core: A, B and C written from codes (C over A and B where they overlap).

    Returns what the tiles hold before (A, B, C) and after (C), mxstatus, and the executed record.
    """
    ta, tb, tc, span = tiles
    core = Core(accumulation)
    core.csrw("mxcfg", cfg)
    core.csrw("mxtile", geo)
    p = mmacc_plan(cfg, geo, 0, 0, 0, 0, instruction="MMACC.T")
    ft_, acc = p.ft, p.acc
    m, k = a.shape[-2:]
    for j in range(c_in.shape[0]):
        core.write_codes(tc + j * span, c_in[j], acc)
    for j in range(a.shape[0]):
        core.write_codes(ta + j, a[j], ft_, one_tile=True)
    for j in range(b.shape[0]):
        core.write_codes(tb + j, b[j], ft_, one_tile=True)
    a_read = [core.read_codes(ta + j, ft_, (m, k), one_tile=True) for j in range(a.shape[0])]
    b_read = [core.read_codes(tb + j, ft_, (m, k), one_tile=True) for j in range(b.shape[0])]
    c_read = [core.read_codes(tc + j * span, acc, (m, m)) for j in range(c_in.shape[0])]
    ex = core.mmacc_t(tc, ta, tb, beta)
    c_out = [core.read_codes(tc + j * span, acc, (m, m)) for j in range(c_in.shape[0])]
    return a_read, b_read, c_read, c_out, core.csrr("mxstatus"), ex


def _classes(ft: Format, acc: Format, k: int, saturate: bool, fallback: bool) -> list[str]:
    out = applicable(ft) + ["accumulate"] + (["overflow"] if _can_overflow(ft, acc, k) else [])
    if "nan" in out:
        out += ["nan_at_0"] + (["nan_after_0"] if k > 1 else [])
    if saturate:
        out.append("saturation")
    if fallback:
        out.append("guard_fallback")
    if _tie_base(acc) is not None and ft.is_float:
        out.append("tie")
    return out


def _tie_base(acc: Format):
    """The code of 2^(p) for a float accumulator with p significant bits, when 2^(p) + 2 is finite."""
    if not acc.is_float:
        return None
    base = 2.0 ** (acc.man_bits + 1)
    if base + 2 > float(acc.max_exact):
        return None
    return formats.encode(np.array([base]), acc)[0]


def _ft_key(ft):
    return int(ft, 0) if isinstance(ft, str) and ft.lower().startswith("0x") else ft


def generate(op: str, *, n: int, seed: int, min_per_class: int, ft="int8", bovf: int = 0, sat: int = 0,
             rnd: str = "rne", tiling: str = "1x1", accumulation: str = "fused", k: int | None = None,
             m: int | None = None, dist: Dist | None = None) -> VectorSet:
    """A vector set for ``mmacc`` in one configuration (``--tiling 4x4`` sets GUARD4x4); ``dist`` draws the
    undirected elements (:mod:`.dist`)."""
    check_model(accumulation)
    fmt = formats.get(_ft_key(ft))
    e = formats.elements_per_row(fmt)
    k = e if k is None else k
    m = 16 if m is None else m
    guarded = isinstance(tiling, str) and tiling.lower().replace("×", "x") == "4x4"
    cfg = mxcfg(ft=_ft_key(ft), bovf=bovf, rnd=rnd, sat=sat)
    geo = mxtile(k=k, m=m, tiling="2x2" if guarded else tiling, guard4x4=guarded)
    probe = mmacc_plan(cfg, geo, 0, 0, 0, 0, instruction="MMACC.T")   # checks every field (BadGeom)
    na, nb, npairs, span = probe.tiling.n_a, probe.tiling.n_b, len(probe.pairs), probe.tiles_per_result
    ta, tb = 0, na
    tc = na + nb if na + nb + npairs * span <= regfile.N_TILES else 0
    ft_, acc = probe.ft, probe.acc
    rng = np.random.default_rng(seed)
    classes = _classes(ft_, acc, k, probe.saturate and _can_overflow(ft_, acc, k), probe.fallback)
    order = plan(classes, n, min_per_class, rng)
    count = len(order)
    dist = dist or Dist()
    a = dist.codes(ft_, rng, (count, na, m, k))
    b = dist.codes(ft_, rng, (count, nb, m, k))
    c_in = dist.codes(acc, rng, (count, npairs, m, m))
    beta = rng.integers(0, 1, count, endpoint=True)
    big = class_codes(ft_, "max_normal", rng, 1)[0] if ft_.is_float else \
        class_codes(ft_, "min_normal", rng, 1)[0]                      # INT: the most negative, squares to max
    one = formats.encode(np.ones(1), ft_)[0] if ft_.is_float else 0
    for i, cls in enumerate(order):
        if cls == "random" and dist.kind is None and ft_.kind is Kind.INT and rng.random() < 0.5:  # no overflow
            for x in (a, b):
                x[i] = lane_of((formats.decode_int(x[i], ft_) >> (ft_.bits // 2)).astype(np.uint64)
                               & np.uint64(ft_.code_mask), ft_)
        if cls in ("overflow", "saturation"):
            a[i, :, : m // 2 + 1] = big                                 # a row of big products in every result
            b[i] = big
        elif cls in ("nan_at_0", "nan_after_0"):      # in the sums' first term (k = 0) or a later one only
            col = 0 if cls == "nan_at_0" else int(rng.integers(1, k))
            rows = rng.choice(m, int(rng.integers(1, m, endpoint=True)), replace=False)
            a[i, :, rows, col] = class_codes(ft_, "nan", rng, 1)[0]
        elif cls == "accumulate":
            beta[i] = 0
        elif cls == "tie":          # C = 2^(p), one product 1 x 1: C + 1 is halfway between C and C + 2
            a[i], b[i] = 0, 0
            a[i, :, :, 0] = one
            b[i, :, :, 0] = one
            c_in[i] = _tie_base(acc)
            beta[i] = 0
        elif cls not in ("random", "guard_fallback"):
            kk = int(rng.integers(1, max(2, m * k // 8), endpoint=True))
            which = a if rng.random() < 0.5 else b
            flat = which[i].reshape(-1)
            flat[rng.choice(flat.size, kk, replace=False)] = class_codes(ft_, cls, rng, kk)
    c_out = np.zeros((count, npairs, m, m), acc.dtype)
    c_read = np.zeros_like(c_out)
    status = np.zeros((count, 1), np.uint8)
    tags: list[set] = []
    for i in range(count):
        a[i], b[i], c_read[i], c_out[i], status[i, 0], ex = run_one(
            accumulation, cfg, geo, (ta, tb, tc, span), a[i], b[i], c_in[i], int(beta[i]))
        t = {order[i]} - {"random"}
        meas = {**measure(np.concatenate([a[i].ravel(), b[i].ravel()]), ft_)}
        t |= {c for c, hit in meas.items() if c in classes and hit.any()}
        if beta[i] == 0:
            t.add("accumulate")
        if ex.sat_hit:
            t.add("saturation")
        if _overflowed(a[i], b[i], c_read[i], beta[i], ex.plan):
            t.add("overflow")
        if ex.plan.fallback:
            t.add("guard_fallback")
        tags.append(t | ({order[i]} if order[i] != "random" else set()))
    tags = finish([sorted(t) for t in tags], classes, min_per_class)
    config = {"ft": ft_.name, "acc": acc.name, "bovf": int(bovf), "sat": int(sat), "rnd": rnd, "tiling": tiling,
              "guard4x4": guarded, "accumulation": accumulation, "k": k, "m": m, "tA": ta, "tB": tb, "tC": tc,
              "instruction": f"MMACC.T t{tc}, t{ta}, t{tb}, imm", "mxcfg": cfg, "mxtile": geo, "span": span}
    nan_any = acc.is_float
    operands = [
        Operand("a", "input", (na, m, k), ft_.lane_bits, ft_.name, doc=f"A tiles t{ta}.., M x K {ft_.name} codes"),
        Operand("b", "input", (nb, m, k), ft_.lane_bits, ft_.name, doc=f"B tiles t{tb}.., M x K {ft_.name} codes"),
        Operand("c_in", "input", (npairs, m, m), acc.lane_bits, acc.name,
                doc=f"C before the instruction, one M x M {acc.name} result per sub-product (A-major)"),
        Operand("mxcfg", "input", (1,), 32, doc="the mxcfg CSR"),
        Operand("mxtile", "input", (1,), 32, doc="the mxtile CSR"),
        Operand("imm", "input", (1,), 3, doc="the immediate: bit 0 beta (1 overwrites C), bits 2:1 bTR = 01"),
        Operand("c", "output", (npairs, m, m), acc.lane_bits, acc.name, nan_any=nan_any,
                doc=f"C after the instruction ({acc.name} codes)"),
        Operand("mxstatus", "output", (1,), 4, doc="mxstatus after (from 0): bit 0 guard_fallback, 2 inexact, "
                                                    "3 sat_hit", flags=_STATUS_FLAGS),
    ]
    arrays = {"a": a, "b": b, "c_in": c_read, "mxcfg": np.full((count, 1), cfg, np.uint32),
              "mxtile": np.full((count, 1), geo, np.uint32),
              "imm": (beta.astype(np.uint8) | np.uint8(0b010)).reshape(count, 1), "c": c_out, "mxstatus": status}
    notes = [] if tc else [f"C overlaps A and B (tC = 0): {npairs} results of {span} tiles do not fit after them"]
    return VectorSet("ame", op, config, seed, operands, arrays, tags, classes, min_per_class, notes)


def _exact_results(a, b, c, beta, p) -> np.ndarray:
    """C (+)= A x B^T of every sub-product: Python integers for INT formats, float64 otherwise."""
    ia = np.array([x - p.a_tiles[0] for x, _, _ in p.pairs])
    ib = np.array([y - p.b_tiles[0] for _, y, _ in p.pairs])
    if p.ft.kind is Kind.INT and p.acc.kind is Kind.INT:
        av, bv, cv = (formats.decode_int(x, f).astype(object) for x, f in ((a, p.ft), (b, p.ft), (c, p.acc)))
    else:
        av, bv, cv = formats.decode(a, p.ft), formats.decode(b, p.ft), formats.decode(c, p.acc)
    out = np.matmul(av[ia], np.swapaxes(bv[ib], -1, -2))
    return out if beta else out + cv


def _overflowed(a, b, c, beta, p) -> bool:
    """Whether an exact result is outside the accumulator's finite range (float64 sums for floats, which
    only the directed overflow vectors reach, by far)."""
    with np.errstate(all="ignore"):
        r = _exact_results(a, b, c, beta, p)
    if p.acc.kind is Kind.INT:
        return bool(((r > p.acc.int_max) | (r < p.acc.int_min)).any())
    r = r[~np.isnan(r)]
    return bool((np.abs(r) > float(p.acc.max_exact)).any())


def _can_overflow(ft: Format, acc: Format, k: int) -> bool:
    """Whether K products of the largest inputs can leave the accumulator's range."""
    if ft.kind is Kind.INT and acc.kind is Kind.INT:
        return k * ft.int_min ** 2 > acc.int_max
    return float(ft.max_exact) ** 2 * k > float(acc.max_exact)
