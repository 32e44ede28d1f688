"""TPUSH/TPOP through a TPipe on the CPU simulator (PTO178, PTO179): quantising pushes of acc tiles
(FixpipeParams F322F16, DEQF16 with a SET_QUANT_SCALAR value, VDEQF16 with a SET_QUANT_VECTOR tile), split
payloads between two vector subblocks in both directions, and the second subblock's part in unsplit
transfers (zeros on its pop, nothing from its push). Each case is one pipe, reset first, whose pops land in
the ``dst*`` tiles; the execution context of each step is set as the simulator's gtests set it. The pipe's
consumer buffers lie past the tiles (0x40000): the simulator stages a v2c payload in Mat memory there, which
would overwrite a Mat tile placed at the same address."""

from __future__ import annotations

from .common import Case, Spec, conversion_pool, lanes, sentinel
from .move import _fp_source, box, quant_word_pool

_SPLIT = {0: "TILE_NO_SPLIT", 1: "TILE_UP_DOWN", 2: "TILE_LEFT_RIGHT"}
#: SET_QUANT_SCALAR's f32 values of the scalar-mode cases (0.0: the word 0, which the simulator reads as 1.0)
QUANT_SCALARS = {"F322F16": (0.0, 0.5, -3.0, 1e30), "F322BF16": (0.0, 0.5, -3.0, 1e30),
                 "DEQF16": (2.0, 1 / 3, -0.75, 65504.0)}
#: the quantising pushes: (mode, acc dtype, payload dtype)
QUANT_PUSHES = (("F322F16", "f32", "f16"), ("DEQF16", "i32", "f16"), ("VDEQF16", "i32", "f16"))
#: c2v producers of the split cases: (dtype, location kind of ``box``)
SPLIT_PRODUCERS = (("f32", "acc"), ("f16", "nz"), ("i8", "nz"))


def _pipe(flag: int, direction: str, slot_bytes: int, no_split: bool = False) -> str:
    return (f"using Pp = TPipe<{flag}, Direction::DIR_{direction}, {slot_bytes}, 2, 2, {str(no_split).lower()}>; "
            "Pp::reset_for_cpu_sim(); Pp pp((__gm__ void*)nullptr, 0x40000, 0x40000); ")


def _in(sub: int, dim: int, body: str) -> str:
    """``body`` run as subblock ``sub`` of ``dim`` (the cube: 0 of 1)."""
    return f"{{ cpu_sim::ScopedExecutionContext ctx(0, {sub}, {dim}); {body} }} "


def _pop(role: str, split: int, sub: int, dim: int) -> str:
    s = _SPLIT[split]
    return _in(sub, dim, f"TPOP<Pp, T_{role}, TileSplitAxis::{s}>(pp, {role}); TFREE<Pp, TileSplitAxis::{s}>(pp);")


def quant_push_cases(rng, pushes=QUANT_PUSHES) -> list[Case]:
    cases = []
    R, C = 32, 32
    for mode, src_dt, dst_dt in pushes:
        for value in QUANT_SCALARS.get(mode, (None,)):
            src = box("src", src_dt, R, C, "acc", loc="acc")
            specs, data = [Spec("dst", dst_dt, R, C), src], {"dst": sentinel(dst_dt, (R, C)),
                                                             "src": _fp_source(rng, src_dt, R * C).reshape(R, C)}
            valid = {"dst": (R, C), "src": (R, C)}
            if value is None:
                specs.append(Spec("fp", "u64", 1, C, loc="scaling"))
                data["fp"], valid["fp"] = quant_word_pool(rng, C + 3)[:C].reshape(1, C), (1, C)
                setup, args = "SET_QUANT_VECTOR(fp); ", {"quant": mode}
            else:
                word = int(lanes("f32", [value])[0])
                setup = ("{ float s; int32_t w = P[0]; std::memcpy(&s, &w, 4); "
                         "SET_QUANT_SCALAR<typename T_dst::DType>(s); } ")
                args = {"quant": mode, "quant_scalar": word}
            call = ("{ " + _pipe(0, "C2V", 2 * R * C) + setup + _in(0, 1, f"TPUSH<Pp, T_src, FixpipeParams<"
                    f"LayoutMode_t::NZ2ND, QuantMode_t::{mode}>>(pp, src);") + _pop("dst", 0, 0, 1) + "}")
            params = (int(lanes("f32", [value]).view("int32")[0]),) if value is not None else ()
            cases.append(Case("tpush", call, tuple(specs), valid, data, params, args))
    return cases


def subblock_cases(rng) -> list[Case]:
    cases = []
    R, C = 16, 64
    for dt, kind in SPLIT_PRODUCERS:
        loc = "acc" if kind == "acc" else "mat"
        for split in (1, 2):                      # c2v: the cube's tile, each subblock pops its half
            hr, hc = (R // 2, C) if split == 1 else (R, C // 2)
            src = box("src", dt, R, C, kind, loc=loc)
            specs = (Spec("dst0", dt, hr, hc), Spec("dst1", dt, hr, hc), src)
            data = {"src": conversion_pool(rng, dt, R * C).reshape(R, C), "dst0": sentinel(dt, (hr, hc)),
                    "dst1": sentinel(dt, (hr, hc))}
            call = ("{ " + _pipe(1, "C2V", R * C * 4) + _in(0, 1, f"TPUSH<Pp, T_src, TileSplitAxis::{_SPLIT[split]}>"
                    "(pp, src);") + _pop("dst0", split, 0, 2) + _pop("dst1", split, 1, 2) + "}")
            cases.append(Case("tpush", call, specs, {"src": (R, C), "dst0": (hr, hc), "dst1": (hr, hc)}, data, (),
                              {"direction": "c2v", "split": split}))
        for split in (1, 2):                      # v2c: each subblock pushes its half, the cube pops them joined
            hr, hc = (R // 2, C) if split == 1 else (R, C // 2)
            dst = box("dst", dt, R, C, "nz", loc="mat")
            specs = (dst, Spec("src0", dt, hr, hc), Spec("src1", dt, hr, hc))
            data = {"dst": sentinel(dt, (R, C)), "src0": conversion_pool(rng, dt, hr * hc).reshape(hr, hc),
                    "src1": conversion_pool(rng, dt, hr * hc).reshape(hr, hc)}
            s = _SPLIT[split]
            call = ("{ " + _pipe(2, "V2C", R * C * 4) + _in(0, 2, f"TPUSH<Pp, T_src0, TileSplitAxis::{s}>(pp, src0);")
                    + _in(1, 2, f"TPUSH<Pp, T_src1, TileSplitAxis::{s}>(pp, src1);") + _pop("dst", split, 0, 1) + "}")
            cases.append(Case("tpush", call, specs, {"dst": (R, C), "src0": (hr, hc), "src1": (hr, hc)}, data, (),
                              {"direction": "v2c", "split": split}))
    for dt, kind in SPLIT_PRODUCERS[:2]:
        loc = "acc" if kind == "acc" else "mat"
        for no_split in (False, True):            # c2v unsplit: subblock 1's tile is zero-filled
            src = box("src", dt, R, C, kind, loc=loc)
            specs = (Spec("dst0", dt, R, C), Spec("dst1", dt, R, C), src)
            data = {"src": conversion_pool(rng, dt, R * C).reshape(R, C), "dst0": sentinel(dt, (R, C)),
                    "dst1": sentinel(dt, (R, C))}
            call = ("{ " + _pipe(3 + no_split, "C2V", R * C * 4, no_split) + _in(0, 1, "TPUSH<Pp, T_src, "
                    "TileSplitAxis::TILE_NO_SPLIT>(pp, src);") + _pop("dst1", 0, 1, 2) + _pop("dst0", 0, 0, 2) + "}")
            cases.append(Case("tpush", call, specs, {"src": (R, C), "dst0": (R, C), "dst1": (R, C)}, data, (),
                              {"direction": "c2v", "split": 0, "no_split": no_split}))
        dst = box("dst", dt, R, C, "nz", loc="mat")   # v2c unsplit: subblock 1's push sends nothing
        specs = (dst, Spec("src0", dt, R, C), Spec("src1", dt, R, C))
        data = {"dst": sentinel(dt, (R, C)), "src0": conversion_pool(rng, dt, R * C).reshape(R, C),
                "src1": conversion_pool(rng, dt, R * C).reshape(R, C)}
        call = ("{ " + _pipe(5, "V2C", R * C * 4) + _in(1, 2, "TPUSH<Pp, T_src1, TileSplitAxis::TILE_NO_SPLIT>"
                "(pp, src1);") + _in(0, 2, "TPUSH<Pp, T_src0, TileSplitAxis::TILE_NO_SPLIT>(pp, src0);")
                + _pop("dst", 0, 0, 1) + "}")
        cases.append(Case("tpush", call, specs, {"dst": (R, C), "src0": (R, C), "src1": (R, C)}, data, (),
                          {"direction": "v2c", "split": 0}))
    return cases


def pipe_cases(rng) -> list[Case]:
    """The TPUSH family: quantising pushes, then the subblock forms."""
    return quant_push_cases(rng) + subblock_cases(rng)


def pipe_bf16_cases(rng) -> list[Case]:
    """F322BF16 pushes (bf16 payloads: built by ``--bf16-cxx``)."""
    return quant_push_cases(rng, (("F322BF16", "f32", "bf16"),))
