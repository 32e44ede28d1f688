"""Tensix stimulus: one Matrix Unit instruction per vector, with the state it reads and writes.

A vector is a fresh :class:`tilesim.tensix.state.Machine` (thread 0) with

- both SrcA and SrcB banks filled with 19-bit datums of the SrcA style (both owned by the Matrix
  Unit; ``bank_flip`` vectors start it on bank 1 or flip a bank), operands ``srca``/``srcb``;
- the Dst window, physical 16-bit rows 0..63 (``dst``) and their valid flags (``dst_valid``);
  every row outside the window is 0 and valid, and the instruction's rows stay inside it;
- the Config bank 0 and ThreadConfig 0 words (``config``, ``thread_config``), the RWCs of thread 0
  (``rwc``: dst, dst_cr, srca, srca_cr, srcb, srcb_cr, fidelity, extra_addr_mod_bit) and the
  instruction word (``insn``).

Outputs: the Dst window and valid flags after, the RWCs after, and ``banks`` (bit 0 SrcA bank,
bit 1 SrcB bank, bits 2-5 the four bank owners: 1 = Matrix Unit).
"""

from __future__ import annotations

import numpy as np

from ... import formats
from ...errors import TilesimError
from ...tensix import isa, layouts
from ...tensix.dataformat import data_format
from ...tensix.fpu.common import style_of
from ...tensix.fpu.pool import VISIT_ORDER
from ...tensix.state import RWC, Client, Machine
from ..classes import finish, plan
from ..vectorset import Operand, VectorSet
from .dist import Dist
from .values import applicable, class_codes, measure, random_codes

__all__ = ["OPS", "OPTIONS", "generate"]

OPS = ("gmpool", "gapool", "elwmul", "elwadd", "elwsub", "mvmul", "zeroacc")
OPTIONS = frozenset({"rounding_model", "srca", "srcb", "dst32", "argmax", "dist"})

WINDOW = 64                      # physical Dst rows carried
_RWC_NAMES = tuple(RWC().as_dict())
#: names of the bits of the ``banks`` output, from bit 0
_BANK_FLAGS = ("srca_bank1", "srcb_bank1", "srca0_fpu", "srca1_fpu", "srcb0_fpu", "srcb1_fpu")
def _src_from_int8(codes) -> np.ndarray:
    """INT8 codes (two's complement) as sign-magnitude Src datums; -128 has no such datum and becomes -127."""
    v = np.asarray(codes).astype(np.uint8).view(np.int8).astype(np.int64)
    return layouts.src_from_int8((v < 0).astype(np.uint32), np.minimum(np.abs(v), 127))


#: style -> (tilesim.formats name of the datums, how to make Src datums from its codes)
_STYLE = {
    "BF16": ("bf16", layouts.src_from_bf16),
    "FP16": ("fp16", layouts.src_from_fp16),
    "TF32": ("tf32", layouts.src_from_tf32),
    "INT8": ("int8", _src_from_int8),
}
_ROWS = {"mvmul": 8, "elwmul": 8, "elwadd": 8, "elwsub": 8, "gapool": 4, "gmpool": 1, "zeroacc": 16}


def _classes(op: str, fmt, argmax: bool, dst32: bool) -> list[str]:
    if op == "zeroacc":
        return ["undefined_dst"]
    vals = applicable(fmt)
    if op == "gmpool":
        vals = [c for c in vals if c != "nan"] + (["nan_at_0", "nan_after_0"] if "nan" in vals else [])
        if argmax:
            vals.append("argmax_tie")
    out = vals + ["undefined_dst", "bank_flip"]
    if op in ("elwmul", "elwadd", "elwsub", "mvmul"):
        out.append("broadcast")
    if op in ("elwmul", "mvmul"):
        out.append("fidelity_phase")
    if op in ("elwmul", "elwadd", "elwsub"):
        out.append("accumulate")
    if op in ("elwadd", "elwsub", "elwmul", "mvmul", "gapool") and not dst32:
        out.append("tie")
    if _overflows(op, fmt, dst32):
        out.append("overflow")
    return out


_DIRECTED_OVERFLOW = {"elwmul": lambda x: x * x, "elwadd": lambda x: 2 * x, "elwsub": lambda x: 2 * x,
                      "mvmul": lambda x: 16 * x * x}


def _overflows(op: str, fmt, dst32: bool) -> bool:
    """Whether the largest inputs (SrcB negated for ELWSUB) give a result beyond Dst's format."""
    if op not in _DIRECTED_OVERFLOW:
        return False
    dst = formats.get("fp32" if dst32 else ("fp16" if fmt.name == "fp16" else "bf16"))
    return _DIRECTED_OVERFLOW[op](float(fmt.max_exact)) > float(dst.max_exact)


def _plant_tie(op: str, codes: np.ndarray, fmt, style: str, rng) -> None:
    """Inputs whose exact results are rounding ties in the 16-bit Dst format (BF16, or FP16 for the FP16
    style; m its mantissa bits), for every element an instruction can write:

    - ELWADD/ELWSUB: SrcA in [1, 2) with an odd last bit of Dst's format, SrcB = +-half its ulp;
    - ELWMUL: fidelity phase 0 multiplies SrcA's implicit 1 and top 4 mantissa bits by SrcB's implicit 1
      and top 6, so the inputs use only those: BF16 SrcA = SrcB = 1 + 2^-4, product 1 + 2^-3 + 2^-8
      (half a BF16 ulp past a BF16 value); FP16 SrcA = 17/16, SrcB = (64 + x)/64 with x odd in 57..63,
      product 17 (64 + x) / 2^10 in [2, 4), an odd count of 2^-10 where FP16's ulp is 2^-9;
    - MVMUL/GAPOOL: the same SrcA everywhere, SrcB zero but for column 0: each result is one such
      product (Dst starts at zero, see :func:`_dst_zero`).

    Signs and a power-of-two scale (2^-3 .. 2^3) are random; neither moves a tie.
    """
    m = 10 if style == "FP16" else 7
    if op in ("elwadd", "elwsub"):
        mags = (rng.integers(0, 1 << (m - 1), codes[0].shape) * 2 + 1) * 2.0 ** -m + 1
        codes[0] = formats.encode(mags, fmt)
        h = 2.0 ** -(m + 1) * (1 if op == "elwadd" else -1)
        codes[1] = formats.encode(np.array([h]), fmt)[0]
        return
    scale = lambda shape: rng.choice([-1.0, 1.0], shape) * 2.0 ** rng.integers(-3, 3, shape, endpoint=True)  # noqa: E731
    if style == "FP16":
        a, b = 17 / 16, (64 + rng.choice([57, 59, 61, 63], codes[1].shape)) / 64
    else:
        a, b = 1 + 2.0 ** -4, 1 + 2.0 ** -4
    codes[0] = formats.encode(a * scale(codes[0].shape), fmt)
    b = b * scale(codes[1].shape)
    if op in ("mvmul", "gapool"):
        b[..., 1:] = 0.0
    codes[1] = formats.encode(b, fmt)


def _dst_zero(m: Machine) -> None:
    """Dst rows of the window all +0 (tie vectors of the instructions that add to Dst)."""
    m.dst[:WINDOW] = 0


def _dst_init(m: Machine, rng, dst32: bool, style: str) -> None:
    """Random finite Dst data in the window, in the accumulator format the mode uses."""
    if dst32 and style == "INT8":
        m.dst[:WINDOW] = rng.integers(0, 1 << 16, (WINDOW, 16), dtype=np.uint16)
        return
    x = rng.normal(0, 4, (WINDOW, 16))
    if dst32:
        bits = formats.encode(x, "fp32").astype(np.uint32)
        for r in range(WINDOW // 2):      # 32-bit rows 0..31 cover physical rows 0..63
            hi = int(layouts.adj32(r))
            m.dst[hi] = (bits[r] >> 16).astype(np.uint16)
            m.dst[hi + 8] = (bits[r] & 0xFFFF).astype(np.uint16)
    else:
        name = "fp16" if style == "FP16" else "bf16"
        to = layouts.dst16_from_fp16 if style == "FP16" else layouts.dst16_from_bf16
        m.dst[:WINDOW] = to(formats.encode(x, name)).astype(np.uint16)


def _src_codes(fmt, rng, cls: str, shape, dist: Dist) -> np.ndarray:
    """Codes of the style's format drawn from ``dist``, with class codes planted."""
    codes = dist.codes(fmt, rng, shape)
    if cls in ("nan", "inf", "zero", "subnormal", "min_normal", "max_normal"):
        flat = codes.reshape(-1)
        k = int(rng.integers(1, 24, endpoint=True))
        # the first 16 rows of each bank are what the instructions read at RWC 0
        pos = rng.choice(16 * 16, k, replace=False)
        bank = rng.integers(0, 2, k)
        flat[bank * 64 * 16 + pos] = class_codes(fmt, cls, rng, k)
    return codes


def generate(op: str, *, n: int, seed: int, min_per_class: int, rounding_model: str = "hardware",
             srca: str = "BF16", srcb: str | None = None, dst32: bool = True, argmax: bool | None = None,
             dist: Dist | None = None) -> VectorSet:
    """A vector set for one Matrix Unit instruction in one format configuration."""
    if argmax is not None and op not in ("gmpool", "gapool"):
        raise TilesimError("--argmax/--no-argmax applies to gmpool and gapool only", instruction="tilesim vectors",
                           operand="--argmax", rule="verify.option", value=op)
    argmax = True if argmax is None else argmax
    fa, fb = data_format(srca), data_format(srcb if srcb is not None else srca)
    int8 = fa.name == "INT8"                   # INT8 math: ALU_ACC_CTRL_INT8_math_enabled, INT32 Dst
    style = "INT8" if int8 else style_of(fa.code, op.upper())
    if style not in _STYLE:
        raise TilesimError(f"SrcA {fa.name} selects {style} style; vectors support BF16, FP16, TF32 and INT8",
                           instruction="tilesim vectors", operand="--srca", rule="verify.tensix.style", value=srca)
    if int8 and fb.name != "INT8":
        raise TilesimError("INT8 math takes INT8 in SrcB too", instruction="tilesim vectors", operand="--srcb",
                           rule="verify.tensix.style", value=srcb)
    if int8 and not dst32:
        raise TilesimError("INT8 math accumulates in a 32-bit Dst (INT32); --dst16 does not apply",
                           instruction="tilesim vectors", operand="--dst16", rule="verify.tensix.style", value=srca)
    Machine(rounding_model)     # checks the rounding model
    fname, to_src = _STYLE[style]
    fmt = formats.get(fname)
    rng = np.random.default_rng(seed)
    classes = _classes(op, fmt, argmax, dst32)
    order = plan(classes, n, min_per_class, rng)
    cols: dict[str, list] = {k: [] for k in ("srca", "srcb", "dst", "dst_valid", "config", "thread_config", "rwc",
                                              "insn", "dst_out", "dst_valid_out", "rwc_out", "banks", "banks_in")}
    tags = []
    cfg_addrs: list[int] = []
    tc_addrs: list[int] = []
    for cls in order:
        m = Machine(rounding_model)
        m.configure(0, ALU_FORMAT_SPEC_REG0_SrcA=fa.code, ALU_FORMAT_SPEC_REG1_SrcB=fb.code,
                    ALU_ACC_CTRL_Fp32_enabled=int(dst32), ALU_ACC_CTRL_INT8_math_enabled=int(int8))
        t: set[str] = set()
        codes = _src_codes(fmt, rng, cls, (2, 2, 64, 16), dist or Dist())     # (SrcA/SrcB, bank, row, col)
        if op == "gmpool":
            _plant_gmpool(cls, codes, fmt, rng)
        if cls == "tie":
            _plant_tie(op, codes, fmt, style, rng)
        if cls == "overflow":
            big = class_codes(fmt, "max_normal", rng, 1)[0] & ~np.array(1 << fmt.sign_bit, codes.dtype)
            codes[0] = big
            codes[1] = big | (np.array(1 << fmt.sign_bit, codes.dtype) if op == "elwsub" else 0)
        m.srca[...] = to_src(codes[0].astype(np.uint64)).astype(np.uint32)
        m.srcb[...] = to_src(codes[1].astype(np.uint64)).astype(np.uint32)
        m.srca_client = [Client.MATRIX_UNIT, Client.MATRIX_UNIT]
        m.srcb_client = [Client.MATRIX_UNIT, Client.MATRIX_UNIT]
        _dst_init(m, rng, dst32, style)
        if cls == "tie" and op in ("elwmul", "mvmul", "gapool"):
            _dst_zero(m)
        fields = _fields(op, cls, rng, dst32, argmax, m, t)
        if op != "zeroacc" and cls != "undefined_dst" and rng.random() < 0.2:
            fields["FlipSrcA"] = 1
        if cls == "undefined_dst" or (op == "zeroacc" and cls == "random"):
            m.dst_valid[:WINDOW] = rng.random(WINDOW) < 0.5
        if not m.dst_valid[:WINDOW].all():
            t.add("undefined_dst")
        if cls == "bank_flip":
            if rng.random() < 0.5:
                m.srca_bank = m.srcb_bank = 1         # the Matrix Unit reads bank 1
            else:
                fields["FlipSrcA" if rng.random() < 0.5 else "FlipSrcB"] = 1
        if m.srca_bank or fields.get("FlipSrcA") or fields.get("FlipSrcB"):
            t.add("bank_flip")
        insn = isa.make(op.upper(), **fields)
        a_bank, b_bank = m.srca_bank, m.srcb_bank
        used = codes[0, a_bank, :16].reshape(-1) if op != "zeroacc" else np.zeros(0, fmt.dtype)
        used_b = codes[1, b_bank, :16].reshape(-1) if op != "zeroacc" else np.zeros(0, fmt.dtype)
        meas = measure(np.concatenate([used, used_b]), fmt)
        t |= {c for c, hit in meas.items() if c in classes and hit.any()}
        before = (m.srca.copy(), m.srcb.copy(), m.dst[:WINDOW].copy(), m.dst_valid[:WINDOW].copy(),
                  [dict(m.rwc[0].as_dict())], _banks(m))
        if not cfg_addrs:
            cfg_addrs = sorted({m.config[0]._field(f).addr for f in m.config[0]})
            tc_addrs = sorted({m.thread_config[0]._field(f).addr for f in m.thread_config[0]})
        cols["config"].append([m.config[0].word(a) for a in cfg_addrs])
        cols["thread_config"].append([m.thread_config[0].word(a) for a in tc_addrs])
        m.execute(insn)
        if op != "zeroacc" and ((m.dst[WINDOW:] != 0).any() or not m.dst_valid[WINDOW:].all()):
            raise AssertionError(f"{op} wrote outside the carried Dst window")
        cols["srca"].append(before[0])
        cols["srcb"].append(before[1])
        cols["dst"].append(before[2])
        cols["dst_valid"].append(before[3])
        cols["rwc"].append([before[4][0][k] for k in _RWC_NAMES])
        cols["banks_in"].append([before[5]])
        cols["insn"].append([isa.encode(insn)])
        cols["dst_out"].append(m.dst[:WINDOW].copy())
        cols["dst_valid_out"].append(m.dst_valid[:WINDOW].copy())
        cols["rwc_out"].append([m.rwc[0].as_dict()[k] for k in _RWC_NAMES])
        cols["banks"].append([_banks(m)])
        if cls != "random":
            t.add(cls)
        tags.append(sorted(t))
    tags = finish(tags, classes, min_per_class)
    dst_kind = f"tt.dst32rows.{'INT32' if int8 else 'FP32'}" if dst32 else f"tt.dst16.{'FP16' if style == 'FP16' else 'BF16'}"
    src_kind = f"tt.src.{style}"
    operands = [
        Operand("srca", "input", (2, 64, 16), 19, src_kind, doc="SrcA, both banks (Src datum layout)"),
        Operand("srcb", "input", (2, 64, 16), 19, src_kind, doc="SrcB, both banks"),
        Operand("dst", "input", (WINDOW, 16), 16, dst_kind, doc="Dst physical rows 0..63 (DstBits)"),
        Operand("dst_valid", "input", (WINDOW,), 1, doc="valid flag of each Dst row in the window"),
        Operand("config", "input", (len(cfg_addrs),), 32, doc="Config bank 0 words at addresses " +
                ",".join(map(str, cfg_addrs))),
        Operand("thread_config", "input", (len(tc_addrs),), 16, doc="ThreadConfig of thread 0, words at "
                "addresses " + ",".join(map(str, tc_addrs))),
        Operand("rwc", "input", (len(_RWC_NAMES),), 10, doc="thread 0 RWCs: " + ", ".join(_RWC_NAMES)),
        Operand("banks_in", "input", (1,), 6, doc="bank pointers and owners before (see banks)"),
        Operand("insn", "input", (1,), 32, doc="the instruction word"),
        Operand("dst_out", "output", (WINDOW, 16), 16, dst_kind, doc="Dst rows 0..63 after"),
        Operand("dst_valid_out", "output", (WINDOW,), 1, doc="valid flags after"),
        Operand("rwc_out", "output", (len(_RWC_NAMES),), 10, doc="RWCs after"),
        Operand("banks", "output", (1,), 6, doc="bit 0 SrcA bank, 1 SrcB bank, 2-3 SrcA bank 0/1 owned by the "
                "Matrix Unit, 4-5 SrcB bank 0/1 owned by the Matrix Unit", flags=_BANK_FLAGS),
    ]
    dtypes = {"srca": np.uint32, "srcb": np.uint32, "dst": np.uint16, "dst_valid": np.uint8, "config": np.uint32,
              "thread_config": np.uint16, "rwc": np.uint16, "banks_in": np.uint8, "insn": np.uint32,
              "dst_out": np.uint16, "dst_valid_out": np.uint8, "rwc_out": np.uint16, "banks": np.uint8}
    arrays = {k: np.array(v).astype(dtypes[k]) for k, v in cols.items()}
    config = {"srca": fa.name, "srcb": fb.name, "style": style, "dst32": bool(dst32), "int8_math": int8,
              "config_addrs": cfg_addrs, "thread_config_addrs": tc_addrs, "rounding_model": rounding_model,
              "argmax": bool(argmax) if op in ("gmpool", "gapool") else None, "thread": 0, "dst_window_rows": WINDOW}
    return VectorSet("tensix", op, config, seed, operands, arrays, tags, classes, min_per_class)


def _banks(m: Machine) -> int:
    mu = [c is Client.MATRIX_UNIT for c in (*m.srca_client, *m.srcb_client)]
    return m.srca_bank | m.srcb_bank << 1 | sum(int(b) << (2 + i) for i, b in enumerate(mu))


def _fields(op: str, cls: str, rng, dst32: bool, argmax: bool, m: Machine, t: set) -> dict:
    """The instruction's fields (and RWC changes) for one vector; rows stay inside the Dst window."""
    rows = _ROWS[op]
    limit = (WINDOW // 2 if dst32 else WINDOW) - max(rows, 8)
    dst_row = int(rng.integers(0, limit // 8, endpoint=True)) * 8
    if op == "zeroacc":
        mode = int(rng.integers(0, 3, endpoint=True))       # one row, 16 rows, half or all of Dst
        imm = {0: int(rng.integers(0, (WINDOW // 2 if dst32 else WINDOW) - 1, endpoint=True)),
               1: int(rng.integers(0, 3, endpoint=True)) // (2 if dst32 else 1), 2: 0, 3: 0}[mode]
        return {"Imm10": imm, "Mode": mode, "UseDst32b": int(dst32)}
    f = {"DstRow": dst_row}
    if op in ("gmpool", "gapool"):
        f["ArgMax"] = int(argmax)
    if op in ("elwmul", "elwadd", "elwsub", "mvmul"):
        if cls == "broadcast" or rng.random() < 0.15:
            if op == "mvmul":
                f["BroadcastSrcBRow"] = 1
            else:
                f["BroadcastSrcBCol0" if rng.random() < 0.5 else "BroadcastSrcBRow"] = 1
            t.add("broadcast")
    if op in ("elwmul", "mvmul") and (cls == "fidelity_phase" or (cls != "tie" and rng.random() < 0.15)):
        m.rwc[0].fidelity = int(rng.integers(1, 3, endpoint=True))
        t.add("fidelity_phase")
    if op in ("elwmul", "elwadd", "elwsub") and (cls == "accumulate" or (cls != "tie" and rng.random() < 0.3)):
        f["DestAccumEn" if op == "elwmul" else "AddDst"] = 1
        t.add("accumulate")
    return f


def _plant_gmpool(cls: str, codes: np.ndarray, fmt, rng) -> None:
    """NaN in the first row GMPOOL visits (or a later one) and equal maxima among rows 0..7, in every bank."""
    a = codes[0]
    if cls in ("nan_at_0", "nan_after_0"):
        row = VISIT_ORDER[0] if cls == "nan_at_0" else VISIT_ORDER[int(rng.integers(1, 16))]
        col = rng.choice(16, int(rng.integers(1, 16, endpoint=True)), replace=False)
        a[:, row, col] = class_codes(fmt, "nan", rng, col.size)
    elif cls == "argmax_tie":
        top = class_codes(fmt, "max_normal", rng, 1)[0] & ~np.array(1 << fmt.sign_bit, codes.dtype)
        r1, r2 = rng.choice(8, 2, replace=False)
        a[:, r1, :] = top
        a[:, r2, :] = top


def run_one(config: dict, txn) -> dict[str, np.ndarray]:
    """One instruction on a fresh machine from a transaction (the vector set's inputs by name): Config and
    ThreadConfig words at the manifest's addresses, both Src register files, the Dst window and its valid
    flags, thread 0's RWCs, the bank pointers and owners, and the instruction word; returns the outputs."""
    m = Machine(config["rounding_model"])
    for addr, word in zip(config["config_addrs"], np.asarray(txn["config"]).reshape(-1).tolist()):
        m.config[0].set_word(addr, int(word))
    for addr, word in zip(config["thread_config_addrs"], np.asarray(txn["thread_config"]).reshape(-1).tolist()):
        m.thread_config[0].set_word(addr, int(word))
    m.srca[...] = np.asarray(txn["srca"]).astype(np.uint32)
    m.srcb[...] = np.asarray(txn["srcb"]).astype(np.uint32)
    m.dst[:WINDOW] = np.asarray(txn["dst"]).astype(np.uint16)
    m.dst_valid[:WINDOW] = np.asarray(txn["dst_valid"]).astype(bool)
    for name, v in zip(_RWC_NAMES, np.asarray(txn["rwc"]).reshape(-1).tolist()):
        setattr(m.rwc[0], name, int(v))
    banks = int(np.asarray(txn["banks_in"]).reshape(-1)[0])
    m.srca_bank, m.srcb_bank = banks & 1, banks >> 1 & 1
    owner = [Client.MATRIX_UNIT if banks >> (2 + i) & 1 else Client.UNPACKERS for i in range(4)]
    m.srca_client, m.srcb_client = owner[:2], owner[2:]
    m.execute(isa.decode(int(np.asarray(txn["insn"]).reshape(-1)[0])))
    return {"dst_out": m.dst[:WINDOW].copy(), "dst_valid_out": m.dst_valid[:WINDOW].astype(np.uint8),
            "rwc_out": np.array([m.rwc[0].as_dict()[k] for k in _RWC_NAMES], np.uint16),
            "banks": np.array([_banks(m)], np.uint8)}
