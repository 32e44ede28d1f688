"""The assembler: the syntax table, field expressions, and one test per kind of malformed line."""

import pytest

from tilesim.ame import assemble
from tilesim.ame.asm import SYNTAX, XREGS, Slice
from tilesim.errors import ParseError, TilesimError


def one(text):
    (ins,) = assemble(text)
    return ins.mnemonic, ins.args


def test_instructions_and_operands():
    assert one("li x1, 0x7C0") == ("li", (1, 0x7C0))
    assert one("LI t0, -1") == ("li", (5, -1))
    assert one("li a0, 0b1010_1010") == ("li", (10, 0xAA))
    assert one("csrw mxcfg, x1") == ("csrw", ("mxcfg", ("x", 1)))
    assert one("csrw 0x7C1, 5") == ("csrw", ("mxtile", 5))
    assert one("csrr zero, mx.status") == ("csrr", (0, "mxstatus"))
    assert one("MMACC.T tr4, tr0, tr2") == ("mmacc.t", (4, 0, 2, 0))
    assert one("mmacc tr31, tr0, tr1, 7") == ("mmacc", (31, 0, 1, 7))
    assert one("mld tr0, x[0:16, 8:24]") == ("mld", (0, Slice("x", 0, 16, 8, 24)))
    assert one("mst tr8, y[0:4, 0:4], bf16") == ("mst", (8, Slice("y", 0, 4, 0, 4), "bf16"))
    assert one("mst tr8, y[0:4, 0:4], 0x28") == ("mst", (8, Slice("y", 0, 4, 0, 4), "fp16"))


def test_field_expressions():
    # Ft=0x11, RND=3 at [11:9], SAT at 12
    assert one("li x1, Ft=fp8_e4m3 | RND=rtz | SAT=1")[1] == (1, 0x11 | 3 << 9 | 1 << 12)
    assert one("li x1, Ft=e4m3|rnd=3|sat=1")[1] == (1, 0x11 | 3 << 9 | 1 << 12)
    assert one("csrw mxcfg, Ft=0x16")[1] == ("mxcfg", 0x16)  # reserved codes pass; MMACC traps on them
    assert one("csrw mxtile, K=16 | M=16 | TILING=2×2 | GUARD4x4=1")[1] == ("mxtile", 16 | 16 << 8 | 1 << 16 | 1 << 18)
    assert one("li x2, TILING=4x1")[1] == (2, 3 << 16)
    assert one("csrw mxstatus, inexact=1")[1] == ("mxstatus", 4)


def test_comments_blank_lines_and_positions():
    prog = assemble("# header\n\n  li x1, 1   # one\nli x2, 2 ; two\n", source="p.s")
    assert [(i.line, i.column, i.text) for i in prog] == [(3, 3, "li x1, 1   # one"), (4, 1, "li x2, 2 ; two")]
    assert len(prog) == 2 and prog.source == "p.s"


def test_abi_registers():
    assert XREGS["zero"] == 0 and XREGS["ra"] == 1 and XREGS["t0"] == 5 and XREGS["s0"] == XREGS["fp"] == 8
    assert XREGS["a0"] == 10 and XREGS["s11"] == 27 and XREGS["t6"] == 31


@pytest.mark.parametrize("text,col,rule,words", [
    ("li x1, $", 8, "ame.asm.char", "unexpected character '$'"),
    ("li x1, 12abc", 8, "ame.asm.number", "malformed number"),
    ("add x1, x2", 1, "ame.asm.mnemonic", "expected a mnemonic"),
    ("42", 1, "ame.asm.mnemonic", "expected a mnemonic"),
    ("li x1 2", 7, "ame.asm.expected", "expected ',' before operand 2"),
    ("MMACC.T tr0, tr1", 17, "ame.asm.expected", "found end of line"),
    ("li x1, 5 6", 10, "ame.asm.expected", "expected end of line"),
    ("li x32, 2", 4, "ame.asm.xreg", "expected a scalar register"),
    ("MMACC.T tr0, x1, tr2", 14, "ame.asm.tile", "expected a tile register"),
    ("MMACC.T tr0, tr1, tr40", 19, "ame.asm.tile", "does not exist"),
    ("csrw mxfoo, 1", 6, "ame.asm.csr", "expected a CSR"),
    ("csrr x1, 0x7C5", 10, "ame.asm.csr", "expected a CSR"),
    ("li x1, tr3", 8, "ame.asm.value", "expected an integer or a field expression"),
    ("li x1, Ft", 10, "ame.asm.expected", "expected '=' after Ft, found end of line"),
    ("csrw mxcfg, tr1", 13, "ame.asm.value", "expected an integer, a register"),
    ("csrw mxcfg, Foo=1", 13, "ame.asm.field", "expected a field name"),
    ("csrw mxcfg, Ft=int8 | K=16", 23, "ame.asm.field", "belongs to mxtile"),
    ("li x1, Ft=int8 | Ft=fp16", 18, "ame.asm.field", "given twice"),
    ("li x1, Ft int8", 11, "ame.asm.expected", "expected '=' after Ft"),
    ("li x1, Ft=bogus", 11, "ame.asm.value", "bad value 'bogus' for mxcfg.Ft"),
    ("li x1, Ft=uint8", 11, "ame.asm.value", "no FormatType code"),
    ("csrw mxtile, K=300", 16, "ame.asm.value", "does not fit 8 bits"),
    ("csrw mxtile, TILING=3x3", 21, "ame.asm.value", "unknown tiling"),
    ("csrw mxcfg, RND=rmm", 17, "ame.asm.value", "unknown rounding"),
    ("MMACC tr0, tr1, tr2, x", 22, "ame.asm.number", "expected an immediate"),
    ("MMACC tr0, tr1, tr2, 8", 22, "ame.asm.imm", "only bits [2:0]"),
    ("MMACC.T tr0, tr1, tr2, 4", 24, "ame.asm.imm", "needs MMACC"),
    ("mld tr0, 5", 10, "ame.asm.slice", "expected an array block"),
    ("mld tr0, x(0:16, 0:16)", 11, "ame.asm.char", "unexpected character '('"),
    ("mld tr0, x 0:16, 0:16]", 12, "ame.asm.expected", "expected '[' after x"),
    ("mld tr0, x[0:16 0:16]", 17, "ame.asm.expected", "between the row and column ranges"),
    ("mld tr0, x[0:16, a:16]", 18, "ame.asm.number", "expected a column start"),
    ("mld tr0, x[0:16, 0:16", 22, "ame.asm.expected", "']' to close"),
    ("mld tr0, x[0:17, 0:16]", 12, "ame.asm.slice", "at most 16"),
    ("mst tr0, x[0:16, 4:4]", 18, "ame.asm.slice", "non-empty"),
    ("mld tr0, x[0:16, 0:16], fp99", 25, "ame.asm.format", "expected a format"),
])
def test_malformed_lines(text, col, rule, words):
    with pytest.raises(ParseError) as info:
        assemble("li x9, 0\n" + text, source="prog.s")
    e = info.value
    assert (e.line, e.column, e.rule) == (2, col, rule), str(e)
    assert words in str(e) and str(e).startswith(f"prog.s:2:{col}: ")
    assert isinstance(e, SyntaxError) and isinstance(e, TilesimError)


def test_syntax_table_is_complete():
    assert {s.mnemonic for s in SYNTAX} == {"li", "csrw", "csrr", "mmacc.t", "mmacc", "mld", "mst"}
    assert [s.template for s in SYNTAX if s.mnemonic == "mld"] == ["mld tile, array, [format]"]
