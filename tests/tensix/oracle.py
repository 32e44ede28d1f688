"""Slow scalar oracle: the seed pages' functional models, transcribed line by line.

Written from the ``GMPOOL.md`` and ``ELWMUL.md`` pages of tenstorrent/tt-isa-documentation, the
ELWADD/ELWSUB/MVMUL pages of the same doc version, ``RWCs.md`` (``ApplyAddrMod``) and the helper
definitions of those pages -- not from ``src/``. One datum at a time, Python
ints and numpy float32 *scalars* (IEEE binary32, what the pages' ``float`` is).

The doc-model decisions it shares with ``src`` (docs/decisions.md TT5, TT6): readers give a
signed zero for exponent 0; ``RoundToBF16``/``RoundToFP16`` are IEEE round-to-nearest-even
(ml_dtypes / numpy float16 conversions of a float32); every NaN is stored canonical.
GMPOOL's undefined rows (including rows +1..+3 with ArgMax) read as all ones (TT7).

State is :class:`OState`, plain lists and dicts, built from a Machine by :func:`snapshot`.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

FP32, FP16, BFP8a, BFP4a, TF32, BF16, BFP8, BFP4, INT32, INT16, FP8, BFP2a, INT8, BFP2 = \
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15
BF16_SET = {FP32, BF16, BFP8, BFP4, BFP2, INT32, INT16}
FP16_SET = {FP16, FP8, BFP8a, BFP4a, BFP2a, INT8}


class Stall(Exception):
    """The Wait Gate would wait forever."""


@dataclass
class OState:
    srca: list            # [bank][row][col]
    srcb: list
    bits: list            # DstBits[1024][16]
    valid: list           # [1024]
    config: list          # [2] dict name -> value
    tconfig: list         # [3] dict name -> value
    rwc: list             # [3] dict with the RWCs.md names
    srca_bank: int
    srcb_bank: int
    srca_client: list     # "Unpackers" / "MatrixUnit"
    srcb_client: list


RWC_NAMES = {"dst": "Dst", "dst_cr": "Dst_Cr", "srca": "SrcA", "srca_cr": "SrcA_Cr", "srcb": "SrcB",
             "srcb_cr": "SrcB_Cr", "fidelity": "FidelityPhase", "extra_addr_mod_bit": "ExtraAddrModBit"}
RWC_WIDTH = {"Dst": 10, "Dst_Cr": 10, "SrcA": 6, "SrcA_Cr": 6, "SrcB": 6, "SrcB_Cr": 6, "FidelityPhase": 2,
             "ExtraAddrModBit": 1}


def snapshot(m) -> OState:
    """Copy a Machine's state into plain Python values."""
    return OState(
        srca=m.srca.tolist(), srcb=m.srcb.tolist(), bits=m.dst.tolist(), valid=m.dst_valid.tolist(),
        config=[{n: c[n] for n in c} for c in m.config], tconfig=[{n: c[n] for n in c} for c in m.thread_config],
        rwc=[{RWC_NAMES[k]: v for k, v in r.as_dict().items()} for r in m.rwc],
        srca_bank=m.srca_bank, srcb_bank=m.srcb_bank,
        srca_client=[c.value for c in m.srca_client], srcb_client=[c.value for c in m.srcb_client])


def as_machine_view(o: OState) -> dict:
    """The parts of an OState that tests compare with a Machine."""
    return dict(srca=o.srca, srcb=o.srcb, bits=o.bits, valid=o.valid, rwc=o.rwc, banks=(o.srca_bank, o.srcb_bank),
                clients=(o.srca_client, o.srcb_client))


# -- Dst access ---------------------------------------------------------------------------------

def adj32(row: int) -> int:
    return ((row & 0x1F8) << 1) | (row & 0x207)


def dst16_read(o: OState, row: int, col: int, undefined: int) -> int:
    return o.bits[row][col] if o.valid[row] else undefined


def dst16_write(o: OState, row: int, col: int, v: int) -> None:
    """Write data; the row becomes defined once the instruction has written all of it (mark_valid)."""
    o.bits[row][col] = v & 0xFFFF


def dst32_read(o: OState, row: int, col: int, undefined: int) -> int:
    a = adj32(row)
    return ((o.bits[a][col] << 16) | o.bits[a + 8][col]) if o.valid[a] else undefined


def dst32_write(o: OState, row: int, col: int, v: int) -> None:
    a = adj32(row)
    o.bits[a][col] = (v >> 16) & 0xFFFF
    o.bits[a + 8][col] = v & 0xFFFF


def mark_valid(o: OState, rows, use32: bool) -> None:
    """After an instruction wrote whole rows: they are defined (32-bit: the flag of Adj32(r))."""
    for r in rows:
        o.valid[adj32(r) if use32 else r] = True


# -- helpers of spec §6 -------------------------------------------------------------------------

def f32(bits: int) -> np.float32:
    return np.array([bits & 0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0]


def bits32(x: np.float32) -> int:
    """The bits the model stores: NaN canonical (TT6)."""
    if np.isnan(x):
        return 0x7FC00000
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def ReadTF32(x: int) -> np.float32:
    sign, man, exp = (x >> 18) & 1, (x >> 8) & 0x3FF, x & 0xFF
    if exp == 0:
        return f32(sign << 31)
    return f32((sign << 31) | (exp << 23) | (man << 13))


def ReadBF16(x: int) -> np.float32:
    return ReadTF32(x & 0x7F8FF)


def ReadFP16(x: int) -> np.float32:
    sign, man, exp = (x >> 18) & 1, (x >> 8) & 0x3FF, x & 0x1F
    if exp == 0:
        return f32(sign << 31)
    return f32((sign << 31) | ((exp + 112) << 23) | (man << 13))


def ReadSrcInt8(x: int) -> int:
    sign, mag = (x >> 18) & 1, (x >> 8) & 0x3FF
    return -mag if sign else mag


def _unshuffle_hi(h: int) -> int:
    """Dst (sign, man7, exp8) to IEEE (sign, exp8, man7)."""
    return (h & 0x8000) | ((h & 0xFF) << 7) | ((h >> 8) & 0x7F)


def _shuffle_hi(h: int) -> int:
    return (h & 0x8000) | ((h & 0x7F) << 8) | ((h >> 7) & 0xFF)


def ReadDstFP32(v: int) -> np.float32:
    b = (_unshuffle_hi(v >> 16) << 16) | (v & 0xFFFF)
    return f32(b & 0x80000000) if (b >> 23) & 0xFF == 0 else f32(b)


def WriteDstFP32(x: np.float32) -> int:
    b = bits32(x)
    return (_shuffle_hi(b >> 16) << 16) | (b & 0xFFFF)


def ReadDstBF16(v: int) -> np.float32:
    return ReadDstFP32(v << 16)


def ReadDstFP16(v: int) -> np.float32:
    sign, man, exp = v >> 15, (v >> 5) & 0x3FF, v & 0x1F
    if exp == 0:
        return f32(sign << 31)
    return f32((sign << 31) | ((exp + 112) << 23) | (man << 13))


def RoundToBF16(x: np.float32) -> int:
    if np.isnan(x):
        return 0x7FC0
    return int(np.array([x], np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0])


def RoundToFP16(x: np.float32) -> int:
    if np.isnan(x):
        return 0x7E00
    return int(np.array([x], np.float32).astype(np.float16).view(np.uint16)[0])


def WriteDstBF16(b: int) -> int:
    return _shuffle_hi(b)


def WriteDstFP16(b: int) -> int:
    return (b & 0x8000) | ((b & 0x3FF) << 5) | ((b >> 10) & 0x1F)


def ReadDstInt32(v: int) -> int:
    b = (_unshuffle_hi(v >> 16) << 16) | (v & 0xFFFF)
    mag = b & 0x7FFFFFFF
    return -mag if b >> 31 else mag


def WriteDstInt32(x: int) -> int:
    b = (0x80000000 | -x) if x < 0 else x
    return (_shuffle_hi(b >> 16) << 16) | (b & 0xFFFF)


def SaturateAddInt32(a: int, b: int) -> int:
    return max(-(2**31 - 1), min(2**31 - 1, a + b))


def raw32(x: np.float32) -> int:
    """The bits of a float32 as they are (the page's ``union``), NaN payload included."""
    return int(np.array([x], np.float32).view(np.uint32)[0])


def SrcAFidelityBits(x: np.float32, phase: int) -> np.float32:
    u = raw32(x)
    if (phase & 1) == 0:
        return f32(u & 0xFFF80000)
    with np.errstate(all="ignore"):
        return np.float32(x - f32(u & 0xFFF83FFF))


def SrcBFidelityBits(x: np.float32, phase: int) -> np.float32:
    u = raw32(x)
    if (phase & 2) == 0:
        return f32(u & 0xFFFE0000)
    with np.errstate(all="ignore"):
        return np.float32(x - f32(u & 0xFFFE1FFF))


# -- shared pieces ------------------------------------------------------------------------------

def wait_gate(o: OState, a: bool, b: bool) -> None:
    if (a and o.srca_client[o.srca_bank] != "MatrixUnit") or (b and o.srcb_client[o.srcb_bank] != "MatrixUnit"):
        raise Stall()


def styles(o: OState, t: int):
    """ELWMUL's format determination: (SrcAStyle, UseDst32b)."""
    C = o.config[o.tconfig[t]["CFG_STATE_ID_StateID"]]
    if o.tconfig[t]["FP16A_FORCE_Enable"]:
        return "FP16", False
    if C["ALU_ACC_CTRL_INT8_math_enabled"]:
        return "INT8", True
    fmt = C["ALU_FORMAT_SPEC_REG_SrcA_val"] if C["ALU_FORMAT_SPEC_REG_SrcA_override"] else C["ALU_FORMAT_SPEC_REG0_SrcA"]
    style = "BF16" if fmt in BF16_SET else ("FP16" if fmt in FP16_SET else "TF32")
    return style, bool(C["ALU_ACC_CTRL_Fp32_enabled"])


def dst_base(o: OState, t: int, row: int, mask: int) -> int:
    C = o.config[o.tconfig[t]["CFG_STATE_ID_StateID"]]
    row += o.tconfig[t]["DEST_TARGET_REG_CFG_MATH_Offset"]
    row += o.rwc[t]["Dst"] + C["DEST_REGW_BASE_Base"]
    return row & mask


def flips(o: OState, t: int, flip: int) -> None:
    if flip & 1:
        if not o.tconfig[t]["CLR_DVALID_SrcA_Disable"]:
            o.srca_client[o.srca_bank] = "Unpackers"
        o.srca_bank ^= 1
    if flip & 2:
        if not o.tconfig[t]["CLR_DVALID_SrcB_Disable"]:
            o.srcb_client[o.srcb_bank] = "Unpackers"
        o.srcb_bank ^= 1


def ApplyAddrMod(o: OState, t: int, addr_mod: int) -> None:
    R = o.rwc[t]
    T = o.tconfig[t]
    index = addr_mod + (4 if (R["ExtraAddrModBit"] or T["ADDR_MOD_SET_Base"]) else 0)

    def f(kind, name):
        return T[f"ADDR_MOD_{kind}_SEC{index}_{name}"]

    def put(name, v):
        R[name] = v & ((1 << RWC_WIDTH[name]) - 1)

    if f("AB", "SrcAClear"):
        put("SrcA", 0), put("SrcA_Cr", 0)
    elif f("AB", "SrcACR"):
        put("SrcA_Cr", R["SrcA_Cr"] + f("AB", "SrcAIncr")), put("SrcA", R["SrcA_Cr"])
    else:
        put("SrcA", R["SrcA"] + f("AB", "SrcAIncr"))
    if f("AB", "SrcBClear"):
        put("SrcB", 0), put("SrcB_Cr", 0)
    elif f("AB", "SrcBCR"):
        put("SrcB_Cr", R["SrcB_Cr"] + f("AB", "SrcBIncr")), put("SrcB", R["SrcB_Cr"])
    else:
        put("SrcB", R["SrcB"] + f("AB", "SrcBIncr"))
    if f("DST", "DestClear"):
        put("Dst", 0), put("Dst_Cr", 0)
    elif f("DST", "DestCToCR"):
        put("Dst", R["Dst"] + f("DST", "DestIncr")), put("Dst_Cr", R["Dst"])
    elif f("DST", "DestCR"):
        put("Dst_Cr", R["Dst_Cr"] + f("DST", "DestIncr")), put("Dst", R["Dst_Cr"])
    else:
        put("Dst", R["Dst"] + f("DST", "DestIncr"))
    if f("DST", "FidelityClear"):
        put("FidelityPhase", 0)
    else:
        put("FidelityPhase", R["FidelityPhase"] + f("DST", "FidelityIncr"))
    if f("BIAS", "BiasClear"):
        put("ExtraAddrModBit", 0)
    elif f("BIAS", "BiasIncr") & 3:
        put("ExtraAddrModBit", R["ExtraAddrModBit"] + 1)


# -- ELWMUL / ELWADD / ELWSUB ------------------------------------------------------------------

def elw(o: OState, t: int, op: str, flip: int, add_dst: int, bcast: int, addr_mod: int, dst_row: int) -> None:
    """ELWMUL (op "mul", always accumulating), ELWADD ("add"), ELWSUB ("sub")."""
    wait_gate(o, True, True)
    style, use32 = styles(o, t)
    bcast_row, bcast_col = (bcast >> 1) & 1, bcast & 1
    R = o.rwc[t]
    a_row = R["SrcA"] & 0x38
    b_row = R["SrcB"] & (0x3F if bcast_row else 0x38)
    d_row = dst_base(o, t, dst_row, 0x3F8)
    phase = (R["FidelityPhase"] + o.tconfig[t]["FIDELITY_BASE_Phase"]) & 3
    accumulate = op == "mul" or add_dst
    for i in range(8):
        for j in range(16):
            a = o.srca[o.srca_bank][a_row + i][j]
            b = o.srcb[o.srcb_bank][b_row + (0 if bcast_row else i)][0 if bcast_col else j]
            if style == "INT8":
                if op == "mul":
                    ai = ReadSrcInt8(a & (0x41FFF if phase & 1 else 0x4E0FF))
                    bi = ReadSrcInt8(b & (0x40FFF if phase & 2 else 0x7F0FF))
                    r = ai * bi
                else:
                    ai, bi = ReadSrcInt8(a), ReadSrcInt8(b)
                    r = ai + bi if op == "add" else ai - bi
                if accumulate:
                    r = SaturateAddInt32(r, ReadDstInt32(dst32_read(o, d_row + i, j, 0)))
                dst32_write(o, d_row + i, j, WriteDstInt32(r))
                continue
            read = {"BF16": ReadBF16, "FP16": ReadFP16, "TF32": ReadTF32}[style]
            fa, fb = read(a), read(b)
            with np.errstate(all="ignore"):
                if op == "mul":
                    r = np.float32(SrcAFidelityBits(fa, phase) * SrcBFidelityBits(fb, phase))
                else:
                    r = np.float32(fa + fb) if op == "add" else np.float32(fa - fb)
                    if phase & 1:
                        r = np.float32(r / np.float32(32))
                    if phase & 2:
                        r = np.float32(r / np.float32(128))
                if use32:
                    if accumulate:
                        r = np.float32(r + ReadDstFP32(dst32_read(o, d_row + i, j, 0)))
                    dst32_write(o, d_row + i, j, WriteDstFP32(r))
                elif style == "FP16":
                    if accumulate:
                        r = np.float32(r + ReadDstFP16(dst16_read(o, d_row + i, j, 0)))
                    dst16_write(o, d_row + i, j, WriteDstFP16(RoundToFP16(r)))
                else:
                    if accumulate:
                        r = np.float32(r + ReadDstBF16(dst16_read(o, d_row + i, j, 0)))
                    dst16_write(o, d_row + i, j, WriteDstBF16(RoundToBF16(r)))
    mark_valid(o, range(d_row, d_row + 8), use32)
    flips(o, t, flip)
    ApplyAddrMod(o, t, addr_mod)


# -- MVMUL --------------------------------------------------------------------------------------

def mvmul(o: OState, t: int, flip: int, bcast_row: int, addr_mod: int, dst_row: int, num_rows: int | None = None):
    """MVMUL (``num_rows`` 4 for GAPOOL)."""
    wait_gate(o, True, True)
    style, use32 = styles(o, t)
    R = o.rwc[t]
    n = num_rows or (7 if bcast_row else 8)
    a_row = R["SrcA"] & 0x38
    b_row = R["SrcB"] & (0x3F if bcast_row else 0x38)
    d_row = dst_base(o, t, dst_row, 0x400 - n)
    phase = (R["FidelityPhase"] + o.tconfig[t]["FIDELITY_BASE_Phase"]) & 3
    read = {"BF16": ReadBF16, "FP16": ReadFP16, "TF32": ReadTF32}.get(style)
    B = [[0] * 16 for _ in range(n)]
    A = [[0] * 16 for _ in range(16)]
    for i in range(n):
        for j in range(16):
            v = o.srcb[o.srcb_bank][b_row + (0 if bcast_row else i)][j]
            B[i][j] = ReadSrcInt8(v & (0x40FFF if phase & 2 else 0x7F0FF)) if style == "INT8" \
                else SrcBFidelityBits(read(v), phase)
    for i in range(16):
        for j in range(16):
            v = o.srca[o.srca_bank][a_row + i][j]
            A[i][j] = ReadSrcInt8(v & (0x41FFF if phase & 1 else 0x4E0FF)) if style == "INT8" \
                else SrcAFidelityBits(read(v), phase)
    with np.errstate(all="ignore"):
        for i in range(0, n, 2 if bcast_row else 1):
            for j in range(16):
                if style == "INT8":
                    x = sum(B[i][k] * A[k][j] for k in range(16))
                    x = SaturateAddInt32(x, ReadDstInt32(dst32_read(o, d_row + i, j, 0)))
                    dst32_write(o, d_row + i, j, WriteDstInt32(x))
                    continue
                x = np.float32(0)
                for k in range(16):
                    x = np.float32(x + np.float32(B[i][k] * A[k][j]))
                if use32:
                    dst32_write(o, d_row + i, j, WriteDstFP32(np.float32(x + ReadDstFP32(dst32_read(o, d_row + i, j, 0)))))
                elif style == "FP16":
                    x = np.float32(x + ReadDstFP16(dst16_read(o, d_row + i, j, 0)))
                    dst16_write(o, d_row + i, j, WriteDstFP16(RoundToFP16(x)))
                else:
                    x = np.float32(x + ReadDstBF16(dst16_read(o, d_row + i, j, 0)))
                    dst16_write(o, d_row + i, j, WriteDstBF16(RoundToBF16(x)))
    mark_valid(o, range(d_row, d_row + n, 2 if bcast_row else 1), use32)
    flips(o, t, flip)
    ApplyAddrMod(o, t, addr_mod)


# -- GMPOOL -------------------------------------------------------------------------------------

NONLINEAR_I_TRANSFORM = [0, 3, 6, 1, 4, 7, 2, 5]


def ReadDst(v: int, style: str):
    sign = (v >> 31) & 1
    if style == "INT32":
        man = v & 0x3FF
        exp = (v >> 10) & 0x3F
        exp += ((v >> 24) & 7) << 6
    elif style == "FP16":
        exp = ((v >> 16) & 0x1F) + 15
        man = (v >> 21) & 0x3FF
    else:
        exp = ((v >> 16) & 0xFF) + 127
        man = ((v >> 24) & 0x7F) << 3
        if style == "TF32":
            man += (v >> 13) & 7
    return sign, exp & 0x1FF, man & 0x3FF


def WriteDst(d, style: str) -> int:
    sign, exp, man = d
    if style == "INT32":
        return ((sign << 31) | ((exp & 7) << 10) | man) & 0xFFFFFFFF
    if style == "FP16":
        if (exp & 0x3F) == 0:
            return 0
        exp = (exp - 15) & 0x1FF
        return ((sign << 31) | (man << 21) | ((exp & 0x1F) << 16)) & 0xFFFFFFFF
    if exp == 0:
        return 0
    exp = (exp - 127) & 0x1FF
    x = (sign << 31) | ((man & 0x3F8) << 21) | ((exp & 0xFF) << 16)
    if style == "TF32":
        x += (man & 7) << 13
    return x & 0xFFFFFFFF


def ReadAndScaleSrc(a: int, style: str, b: int):
    ae, be = a & 0xFF, b & 0xFF
    if be == 0:
        return 1, 0x1FF, 0x3FF
    if ae == 0:
        return 0, 0, 0
    man = (a >> 8) & 0x3FF
    sign = (a >> 18) & 1
    if style == "INT8":
        return sign, 0, man
    if style == "FP16":
        return sign, ((ae & 0x1F) + (be & 0x1F)) & 0x1FF, man
    if style == "TF32":
        return sign, (ae + be) & 0x1FF, man
    return sign, (ae + be) & 0x1FF, man & 0x3F8


def AsComparable(d) -> int:
    sign, exp, man = d
    return (-1 if sign else 1) * ((exp << 10) + man)


def gmpool(o: OState, t: int, flip: int, addr_mod: int, argmax: int, dst_row: int, strict: bool = False) -> None:
    wait_gate(o, True, True)
    C = o.config[o.tconfig[t]["CFG_STATE_ID_StateID"]]
    if o.tconfig[t]["FP16A_FORCE_Enable"]:
        a_style, d_style, use32 = "FP16", "FP16", False
    elif C["ALU_ACC_CTRL_INT8_math_enabled"]:
        a_style, d_style, use32 = "INT8", "INT32", True
    else:
        fmt = C["ALU_FORMAT_SPEC_REG_SrcA_val"] if C["ALU_FORMAT_SPEC_REG_SrcA_override"] else C["ALU_FORMAT_SPEC_REG0_SrcA"]
        use32 = bool(C["ALU_ACC_CTRL_Fp32_enabled"])
        if fmt in BF16_SET:
            a_style = "BF16"
            d_style = "BF16" if (argmax and use32) else ("TF32" if use32 else "BF16")
        elif fmt in FP16_SET:
            a_style = "FP16"
            d_style = "FP16" if (argmax and use32) else ("TF32" if use32 else "FP16")
        else:
            a_style = "TF32"
            d_style = "INT32" if argmax else ("TF32" if use32 else "BF16")
    R = o.rwc[t]
    a_row = R["SrcA"] & 0x30
    b_row = R["SrcB"] & 0x38
    d_row = dst_base(o, t, dst_row, 0x3FC)
    for j in range(16):
        v = dst32_read(o, d_row, j, 0xFFFFFFFF) if use32 else dst16_read(o, d_row, j, 0xFFFF) << 16
        mx = ReadDst(v, d_style)
        idx = v & 0xFF
        phase = (v + 0x100) & 0xF00
        for i_ in range(16):
            i = (i_ ^ 4) if i_ < 8 else i_
            x = ReadAndScaleSrc(o.srca[o.srca_bank][a_row + i][j], a_style, o.srcb[o.srcb_bank][b_row][i])
            better = AsComparable(x) > AsComparable(mx) if strict else AsComparable(x) >= AsComparable(mx)
            if better:
                mx = x
                if i < 8:
                    idx = ((phase >> 4) + NONLINEAR_I_TRANSFORM[i]) & 0xFF
        if argmax:
            res = phase | idx
            v = res if d_style == "INT32" else (WriteDst(mx, d_style) | res)
        else:
            v = WriteDst(mx, d_style)
        if use32:
            dst32_write(o, d_row, j, v)
            for i in range(1, 4):
                old = dst32_read(o, d_row + i, j, 0xFFFFFFFF)
                dst32_write(o, d_row + i, j, ((old + 0x100) & 0xF00) if argmax else 0)
        else:
            dst16_write(o, d_row, j, v >> 16)
            for i in range(1, 4):
                dst16_write(o, d_row + i, j, 0)
    mark_valid(o, range(d_row, d_row + 4), use32)
    flips(o, t, flip)
    ApplyAddrMod(o, t, addr_mod)


__all__ = ["OState", "Stall", "snapshot", "as_machine_view", "elw", "mvmul", "gmpool", "ApplyAddrMod",
           "RoundToBF16", "RoundToFP16"]
