"""The catalogue: every format tilesim knows, found by name, alias or AME code.

The table below is the single source of truth. Sources for each definition are
in ``docs/decisions.md`` (AME readings: decisions F1-F8 and AME1-AME4, from the
trustfarm "AME MAC Dataformat and MAC workloads profile v0.14_1"; OCP formats
follow OCP OFP8 v1.0 and MX v1.0).
"""

from __future__ import annotations

import numpy as np

from ..errors import FormatError
from .checks import count
from .format import Domain, Format, Kind

__all__ = ["get", "all_formats", "fixed", "AME_CODES"]

F, I, X = Kind.FLOAT, Kind.INT, Kind.FIXED
IEEE, FN, FINITE, SCALE = Domain.IEEE, Domain.FN, Domain.FINITE, Domain.SCALE


def _float(name, e, m, bias, domain, lane, *, signed=True, codes=(), aliases=(), note="", **kw):
    return Format(name=name, kind=F, bits=int(signed) + e + m, signed=signed, lane_bits=lane,
                  exp_bits=e, man_bits=m, bias=bias, domain=domain, ame_codes=tuple(codes),
                  aliases=tuple(aliases), note=note, **kw)


def _int(name, bits, lane, *, signed=True, codes=(), aliases=(), note=""):
    return Format(name=name, kind=I, bits=bits, signed=signed, lane_bits=lane,
                  ame_codes=tuple(codes), aliases=tuple(aliases), note=note)


def _fix(name, bits, frac, lane, *, codes=(), aliases=(), note=""):
    return Format(name=name, kind=X, bits=bits, signed=True, lane_bits=lane, frac_bits=frac,
                  ame_codes=tuple(codes), aliases=tuple(aliases), note=note)


_TABLE: tuple[Format, ...] = (
    # --- IEEE 754 and friends
    _float("fp64", 11, 52, 1023, IEEE, 64, codes=[0x88], aliases=["float64", "f64", "binary64", "double"],
           note="IEEE 754 binary64"),
    _float("fp32", 8, 23, 127, IEEE, 32, codes=[0x48], aliases=["float32", "f32", "binary32", "float", "single"],
           note="IEEE 754 binary32"),
    _float("tf32", 8, 10, 127, IEEE, 32, lane_shift=13, codes=[0x49], aliases=["tensorfloat32", "tensor_float32"],
           note="NVIDIA TF32: FP32 with the low 13 bits zero"),
    _float("fp16", 5, 10, 15, IEEE, 16, codes=[0x28], aliases=["float16", "f16", "binary16", "half"],
           note="IEEE 754 binary16"),
    _float("bf16", 8, 7, 127, IEEE, 16, codes=[0x29], aliases=["bfloat16"], note="bfloat16"),
    _float("uf16_e8m8", 8, 8, 127, IEEE, 16, signed=False, codes=[0x2A], aliases=["e8m8", "uf16"],
           note="AME: unsigned, IEEE-like top exponent (decision)"),
    _float("fp12_e5m6", 5, 6, 15, IEEE, 16, codes=[0x19], aliases=["fp12"], note="AME: IEEE-like (decision)"),
    _float("fp12_e4m7", 4, 7, 7, IEEE, 16, codes=[0x1A], note="AME: IEEE-like (decision)"),
    # --- OCP 8-bit
    _float("fp8_e4m3", 4, 3, 7, FN, 8, codes=[0x11], aliases=["e4m3", "e4m3fn", "float8_e4m3fn", "ocp_e4m3", "f8e4m3"],
           note="OCP OFP8 E4M3 (no Inf, NaN S.1111.111)"),
    _float("fp8_e5m2", 5, 2, 15, IEEE, 8, codes=[0x12], aliases=["e5m2", "float8_e5m2", "ocp_e5m2", "f8e5m2"],
           note="OCP OFP8 E5M2 (IEEE-like)"),
    _float("e8m0", 8, 0, 127, SCALE, 8, signed=False, codes=[0x13],
           aliases=["ue8m0", "float8_e8m0fnu", "ocp_e8m0", "fp8_e8m0"], note="OCP MX E8M0 scale"),
    _float("hif8", 4, 3, 0, Domain.TAPERED, 8, aliases=["hifloat8", "hifloat8_t"],
           note="Huawei HiFloat8: tapered (dot-coded exponent width), ±Inf, one NaN, no -0 (decision PTO182)"),
    # --- OCP MX 6- and 4-bit, and the AME micro formats
    _float("fp6_e3m2", 3, 2, 3, FINITE, 8, codes=[0x06], aliases=["e3m2", "float6_e3m2fn", "ocp_e3m2"],
           note="OCP MX FP6 E3M2"),
    _float("fp6_e2m3", 2, 3, 1, FINITE, 8, codes=[0x07], aliases=["e2m3", "float6_e2m3fn", "ocp_e2m3"],
           note="OCP MX FP6 E2M3"),
    _float("fp6_e4m1", 4, 1, 7, FINITE, 8, codes=[0x08], aliases=["e4m1"], note="AME: finite, bias 7 (decision)"),
    _float("uf6_e4m2", 4, 2, 7, FINITE, 8, signed=False, codes=[0x09], aliases=["ue4m2"],
           note="AME: unsigned, finite, bias 7 (decision)"),
    _float("fp4_e2m1", 2, 1, 1, FINITE, 4, codes=[0x02], aliases=["e2m1", "float4_e2m1fn", "ocp_e2m1", "fp4"],
           note="OCP MX FP4 E2M1"),
    _float("fp4_e1m2", 1, 2, 0, FINITE, 4, codes=[0x03], aliases=["e1m2"], note="AME: finite, bias 0 (decision)"),
    _float("fp4_e1m2_b1", 1, 2, 1, FINITE, 4, aliases=["e1m2_b1", "float4_e1m2x2"],
           note="pto-isa CPU simulator's float4_e1m2x2_t: finite, bias 1 (decision PTO48); not an AME format"),
    _float("uf4_e2m2", 2, 2, 1, FINITE, 4, signed=False, codes=[0x04], aliases=["ue2m2"],
           note="AME: unsigned, finite, bias 1 (decision)"),
    _float("uf4_e1m3", 1, 3, 0, FINITE, 4, signed=False, codes=[0x05], aliases=["ue1m3"],
           note="AME: unsigned, finite, bias 0 (decision)"),
    # --- two's complement integers
    _int("int4", 4, 4, codes=[0x01], aliases=["i4", "s4"], note="two's complement"),
    _int("int8", 8, 8, codes=[0x10, 0x00], aliases=["i8", "s8"], note="two's complement; AME 0x00 is the default"),
    _int("int12", 12, 16, codes=[0x18], aliases=["i12"], note="AME: sign-extended in a 16-bit lane"),
    _int("int16", 16, 16, codes=[0x20], aliases=["i16", "s16"]),
    _int("int32", 32, 32, codes=[0x40], aliases=["i32", "s32"]),
    _int("int64", 64, 64, codes=[0x80], aliases=["i64", "s64"]),
    _int("uint4", 4, 4, signed=False, aliases=["u4"]),
    _int("uint8", 8, 8, signed=False, aliases=["u8", "ui8"]),
    _int("uint16", 16, 16, signed=False, aliases=["u16", "ui16"]),
    _int("uint32", 32, 32, signed=False, aliases=["u32", "ui32"]),
    _int("uint64", 64, 64, signed=False, aliases=["u64", "ui64"]),
    # --- fixed point: two's complement integer x 2**-frac (fix<width>_<frac>)
    _fix("q4_3", 8, 3, 8, codes=[0x14], aliases=["fix8_3"], note="AME: sign + 4 + 3 bits"),
    _fix("q2_5", 8, 5, 8, codes=[0x15], aliases=["fix8_5"], note="AME: sign + 2 + 5 bits"),
    _fix("mxint8", 8, 6, 8, aliases=["fix8_6"], note="OCP MX INT8 element: two's complement x 2^-6"),
    _fix("q4_8", 12, 8, 16, codes=[0x1B], aliases=["fix12_8"], note="AME: 12 bits, sign inside m (decision)"),
    _fix("q5_7", 12, 7, 16, codes=[0x1C], aliases=["fix12_7"], note="AME: 12 bits, sign inside m (decision)"),
    _fix("q8_8", 16, 8, 16, codes=[0x2B], aliases=["fix16_8"], note="AME: sign inside m"),
    _fix("q16_16", 32, 16, 32, codes=[0x4A], aliases=["fix32_16"], note="AME: sign inside m"),
    _fix("q32_32", 64, 32, 64, codes=[0x8A], aliases=["fix64_32"], note="AME: sign inside m"),
    # AME accumulators of the q formats: twice the width, twice the fraction bits (decision)
    _fix("fix16_6", 16, 6, 16, note="AME accumulator of q4_3"),
    _fix("fix16_10", 16, 10, 16, note="AME accumulator of q2_5"),
    _fix("fix24_16", 24, 16, 32, note="AME accumulator of q4_8"),
    _fix("fix24_14", 24, 14, 32, note="AME accumulator of q5_7"),
)


def _norm(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(".", "_")


_BY_NAME: dict[str, Format] = {}
AME_CODES: dict[int, Format] = {}


def _register(fmt: Format) -> None:
    for key in (fmt.name, *fmt.aliases):
        k = _norm(key)
        other = _BY_NAME.get(k)
        if other is not None and other is not fmt:
            raise ValueError(f"format name {key!r} used by both {other.name} and {fmt.name}")
        _BY_NAME[k] = fmt
    for code in fmt.ame_codes:
        if code in AME_CODES:
            raise ValueError(f"AME code {code:#04x} used twice")
        AME_CODES[code] = fmt


for _f in _TABLE:
    _register(_f)


def fixed(width: int, frac: int) -> Format:
    """The two's complement fixed-point format ``fix<width>_<frac>`` (created on first use).

    >>> fixed(16, 8) is get("q8_8")
    True
    """
    width = count(width, "width", "formats.fixed", 2, 64)
    frac = count(frac, "frac", "formats.fixed", 0, 64)
    name = f"fix{width}_{frac}"
    fmt = _BY_NAME.get(name)
    if fmt is None:
        lane = next(b for b in (8, 16, 32, 64) if b >= width)
        fmt = _fix(name, width, frac, lane, note="fixed point (created on demand)")
        _register(fmt)
    return fmt


def all_formats() -> list[Format]:
    """Every registered format, in table order."""
    seen, out = set(), []
    for fmt in _BY_NAME.values():
        if id(fmt) not in seen:
            seen.add(id(fmt))
            out.append(fmt)
    return out


def names() -> list[str]:
    return [f.name for f in all_formats()]


def get(key: "str | int | Format | np.dtype | type") -> Format:
    """Find a format by name, alias, AME FormatType code, or numpy/ml_dtypes dtype.

    >>> get("e4m3").name, get(0x29).name, get("bfloat16").name
    ('fp8_e4m3', 'bf16', 'bf16')

    Raises:
        FormatError: the key names no format; the message lists the valid names.
    """
    if isinstance(key, Format):
        return key
    if key is None:  # numpy reads None as float64: refuse rather than guess
        raise FormatError("no format given (None); valid: " + ", ".join(names()), instruction="formats.get",
                          operand="name", rule="formats.name", value=None)
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        fmt = AME_CODES.get(int(key))
        if fmt is None:
            raise FormatError(
                f"{int(key):#04x} is not an AME FormatType code; valid: "
                + ", ".join(f"{c:#04x}" for c in sorted(AME_CODES)),
                instruction="formats.get", operand="code", rule="ame.ft", value=key)
        return fmt
    if isinstance(key, str):
        fmt = _BY_NAME.get(_norm(key))
        if fmt is None:
            raise FormatError(f"unknown format {key!r}; valid: " + ", ".join(names()),
                              instruction="formats.get", operand="name", rule="formats.name", value=key)
        return fmt
    try:
        dt = np.dtype(key)
    except (TypeError, ValueError):
        raise FormatError(f"cannot find a format for {key!r}: give a format name, an AME code or a numpy dtype",
                          instruction="formats.get", operand="name", rule="formats.name", value=repr(key)) from None
    fmt = _BY_NAME.get(_norm(dt.name))
    if fmt is None:
        raise FormatError(f"no tilesim format for numpy dtype {dt.name}; valid: " + ", ".join(names()),
                          instruction="formats.get", operand="name", rule="formats.name", value=dt.name)
    return fmt

