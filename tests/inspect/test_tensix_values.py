"""Tensix traces read SrcA/SrcB and INT32 Dst in the configured formats, and record SFPU LReg writes (TT40)."""

import numpy as np
import pytest

from tilesim import formats
from tilesim.inspect import differences
from tilesim.tensix.layouts import dst32_from_int, src_pack, src_values
from tilesim.tensix.state import Machine
from tilesim.tensix.trace import _dst_writes, _src_codes, explain, trace_file

SFPU = "examples/tensix/llk_sfpu_reciprocal.tt"


@pytest.mark.parametrize("view, style", [("tf32", "TF32"), ("bf16", "BF16"), ("fp16", "FP16"), ("int8", "INT8")])
def test_src_codes_read_every_datum_as_the_matrix_unit_does(view, style):
    """Exhaustive over the 19-bit datums: the code's value is layouts.src_values' reading, except where the FPU
    reads an exponent IEEE does not (0 as zero, the top one as finite), and there the code keeps sign and mantissa."""
    d = np.arange(1 << 19, dtype=np.uint32)
    codes, fmt = _src_codes(d, view)
    got, want = formats.decode(codes, fmt), src_values(d, style)
    e = d & (0x1F if style == "FP16" else 0xFF)
    ieee = np.ones(d.size, bool) if style == "INT8" else (e != 0) & (e != (31 if style == "FP16" else 255))
    assert np.array_equal(got[ieee], want[ieee])
    assert ieee.sum() > (1 << 18)


def test_int32_dst_shows_its_integers():
    m = Machine()
    m.configure(ALU_ACC_CTRL_INT8_math_enabled=1, ALU_FORMAT_SPEC_REG0_SrcA=14, ALU_FORMAT_SPEC_REG1_SrcB=14)
    ints = np.array([-5, 123456, -(2**31 - 1), 2**31 - 1, 0, -1, 7, -300])
    raw = dst32_from_int(np.repeat(ints[:, None], 16, axis=1))
    m.dst[0:8], m.dst[8:16] = raw >> 16, raw & 0xFFFF
    (w,) = _dst_writes(m, 0, np.arange(16))
    assert (w.name, w.fmt) == ("dst32 rows 0-7", "int32")
    assert np.array_equal(w.values()[:, 0], ints)


def test_tensix_src_rows_carry_values():
    steps = trace_file("examples/tensix/elwmul_hifi4.tt").steps
    srcs = [w for s in steps for w in s.writes if w.name.startswith("src")]
    assert srcs and all(w.fmt in ("tf32", "bf16", "fp16") for w in srcs)
    assert all(np.isfinite(w.values()).all() for w in srcs)


def test_src_difference_has_values_and_ulps(tmp_path):
    from tests.inspect.programs import TENSIX_TIE
    p = tmp_path / "t.tt"
    p.write_text(TENSIX_TIE)
    a = trace_file(p).steps
    b = trace_file(p).steps
    w = next(w for w in b[0].writes if w.name.startswith("srca"))
    w.bits = w.bits.copy()
    w.bits[3, 5] += 1  # one BF16 ULP above 1.0
    (d,) = differences(a, b)
    assert (d.step.line, d.fmt, d.elements[0].index, d.elements[0].ulp) == (a[0].line, "bf16", (3, 5), 1)
    assert d.elements[0].values == (1.0, 1.0 + 2**-7)


def test_sfpu_lregs_are_writes():
    steps = trace_file(SFPU).steps
    first = steps[2]  # after .unpack, two SFPLOADIs set LReg0 to k0 = 0x3ea57ebb (tt-llk's _init_sfpu_reciprocal_)
    (w,) = [w for w in first.writes if w.name == "lreg0"]
    assert w.fmt == "fp32" and w.bits.shape == (4, 8) and (w.bits == 0x3EA57EBB).all()
    config = steps[3]  # SFPCONFIG copies LReg0 into the constant LReg12
    assert [w.name for w in config.writes] == ["lreg12"] and (config.writes[0].bits == 0x3EA57EBB).all()


def test_sfpu_diff_finds_the_first_sfpmad():
    a = trace_file(SFPU, rounding_model="hardware").steps
    b = trace_file(SFPU, rounding_model="doc").steps
    (d,) = differences(a, b)
    assert d.kind == "values" and d.step.op == "TTI_SFPMAD" and d.write == "lreg2" and d.step.line == 44
    assert all(e.ulp == 1 for e in d.elements)
    assert explain(d.step.op, {"rounding_model": "hardware"}, {"rounding_model": "doc"})[0].startswith("TT34")
    # every step before it wrote the same bits in both models
    assert all(np.array_equal(x.bits, y.bits) for s, t in zip(a[:d.step.index], b) for x, y in zip(s.writes, t.writes))
