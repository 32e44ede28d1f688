"""The instruction table: opcodes and field positions pinned to the upstream diagrams, round trips
through encode / decode / text for every row, and every encoding and parsing error rule."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim.errors import EncodingError, ParseError
from tilesim.tensix import INSTRUCTIONS, decode, encode, make, parse
from tilesim.tensix.isa import BY_MNEMONIC, to_text

# From tt-isa-documentation Diagrams/Src/Bits32.lua ({lsb, width, name}; written here as hi:lo),
# opcode in bits 31:24. Fields the diagram leaves blank but the documented syntax sets are marked
# "syntax" (spec §5: tt-llk ckernel_ops.h shifts; ttsim data/wh/tensix_isa.json).
UPSTREAM = {
    "MVMUL": (0x26, {"DstRow": (9, 0), "AddrMod": (16, 15), "BroadcastSrcBRow": (19, 19), "FlipSrcA": (22, 22),
                     "FlipSrcB": (23, 23)}),
    "DOTPV": (0x29, {"DstRow": (9, 0), "AddrMod": (16, 15), "FlipSrcA": (22, 22), "FlipSrcB": (23, 23),
                     "InstrMod19": (20, 19), "DestAccumEn": (21, 21)}),                        # syntax: true, 0
    "GAPOOL": (0x34, {"DstRow": (9, 0), "AddrMod": (16, 15), "FlipSrcA": (22, 22), "FlipSrcB": (23, 23),
                      "ArgMax": (14, 14), "InstrMod19": (19, 19)}),                            # syntax: false, 0
    "GMPOOL": (0x33, {"DstRow": (9, 0), "ArgMax": (14, 14), "AddrMod": (16, 15), "FlipSrcA": (22, 22),
                      "FlipSrcB": (23, 23), "InstrMod19": (19, 19)}),                          # syntax: true
    "ELWMUL": (0x27, {"DstRow": (9, 0), "AddrMod": (16, 15), "BroadcastSrcBCol0": (19, 19),
                      "BroadcastSrcBRow": (20, 20), "FlipSrcA": (22, 22), "FlipSrcB": (23, 23),
                      "DestAccumEn": (21, 21)}),                                               # syntax: true
    "ELWADD": (0x28, {"DstRow": (9, 0), "AddrMod": (16, 15), "BroadcastSrcBCol0": (19, 19),
                      "BroadcastSrcBRow": (20, 20), "AddDst": (21, 21), "FlipSrcA": (22, 22), "FlipSrcB": (23, 23)}),
    "ELWSUB": (0x30, {"DstRow": (9, 0), "AddrMod": (16, 15), "BroadcastSrcBCol0": (19, 19),
                      "BroadcastSrcBRow": (20, 20), "AddDst": (21, 21), "FlipSrcA": (22, 22), "FlipSrcB": (23, 23)}),
    "ZEROACC": (0x10, {"Imm10": (9, 0), "AddrMod": (16, 15), "Revert": (18, 18), "Mode": (20, 19),
                       "UseDst32b": (21, 21)}),
    "ZEROSRC": (0x11, {"ClearSrcA": (0, 0), "ClearSrcB": (1, 1), "BothBanks": (2, 2), "SingleBankMatrixUnit": (3, 3),
                       "NegativeInfSrcA": (4, 4)}),
    "MOVA2D": (0x12, {"DstRow": (9, 0), "Move8Rows": (13, 13), "AddrMod": (16, 15), "SrcRow": (22, 17),
                      "UseDst32bLo": (23, 23)}),
    "MOVDBGA2D": (0x09, {"DstRow": (9, 0), "Move8Rows": (13, 13), "AddrMod": (16, 15), "SrcRow": (22, 17),
                         "UseDst32bLo": (23, 23)}),
    "MOVB2D": (0x13, {"DstRow": (9, 0), "BroadcastCol0": (12, 12), "Broadcast1RowTo8": (13, 13), "Move4Rows": (14, 14),
                      "AddrMod": (16, 15), "SrcRow": (22, 17), "UseDst32bLo": (23, 23)}),
    "MOVD2A": (0x08, {"DstRow": (9, 0), "Move4Rows": (13, 13), "AddrMod": (16, 15), "SrcRow": (22, 17),
                      "UseDst32bLo": (23, 23)}),
    "MOVD2B": (0x0A, {"DstRow": (9, 0), "Move4Rows": (13, 13), "AddrMod": (16, 15), "SrcRow": (22, 17),
                      "UseDst32bLo": (23, 23)}),
    "TRNSPSRCB": (0x16, {}),
    "SHIFTXA": (0x17, {"Direction": (1, 0)}),
    "SHIFTXB": (0x18, {"SrcRow": (5, 0), "ShiftInZero": (10, 10), "AddrMod": (16, 15)}),
    "CLREXPHIST": (0x21, {}),
    # Bit 0: tt-llk's reset_srca_gate_control (ckernel_ops.h TT_OP_GATESRCRST), TT26.
    "GATESRCRST": (0x35, {"ResetSrcAGate": (0, 0), "InvalidateSrcBCache": (1, 1)}),
    "CLEARDVALID": (0x36, {"Reset": (0, 0), "KeepReadingSameSrc": (1, 1), "FlipSrcA": (22, 22), "FlipSrcB": (23, 23)}),
    "SETRWC": (0x37, {"SrcA": (0, 0), "SrcB": (1, 1), "Dst": (2, 2), "Fidelity": (3, 3), "SrcAVal": (9, 6),
                      "SrcBVal": (13, 10), "DstVal": (17, 14), "SrcACr": (18, 18), "SrcBCr": (19, 19), "DstCr": (20, 20),
                      "DstCtoCr": (21, 21), "FlipSrcA": (22, 22), "FlipSrcB": (23, 23)}),
    "INCRWC": (0x38, {"SrcAInc": (9, 6), "SrcBInc": (13, 10), "DstInc": (17, 14), "SrcACr": (18, 18),
                      "SrcBCr": (19, 19), "DstCr": (20, 20), "DstCtoCr": (21, 21)}),   # bit 21: TT26
    "SETDVALID": (0x57, {"FlipSrcA": (0, 0), "FlipSrcB": (1, 1)}),
    # ttsim data/wh/tensix_isa.json (no doc page): srcb 5:0, instr_mod 13:12, addr_mode 16:15, srca 22:17;
    # instr_mod bit 1 (13) is tt-llk's p_movb2a::MOV_4_ROWS, bit 0 is not used (decodes as an error, TT23).
    "MOVB2A": (0x0B, {"SrcBRow": (5, 0), "Move4Rows": (13, 13), "AddrMod": (16, 15), "SrcARow": (22, 17)}),
}


def test_table_matches_the_upstream_diagrams():
    assert {m for m, r in BY_MNEMONIC.items() if r.unit != "SFPU"} == set(UPSTREAM)   # SFPU: test_sfpu_isa.py
    for name, (opcode, fields) in UPSTREAM.items():
        spec = BY_MNEMONIC[name]
        assert spec.opcode == opcode, name
        assert {f.name: (f.hi, f.lo) for f in spec.fields} == fields, name


@pytest.mark.parametrize("text, word", [
    # The seeds' syntax: TT_GMPOOL(flips, true, AddrMod, ArgMax, DstRow), TT_ELWMUL(flips, true, bcasts, AddrMod, DstRow)
    ("TT_GMPOOL(((1) << 1) + 0, true, 2, 1, 12)", (0x33 << 24) | (1 << 23) | (1 << 19) | (2 << 15) | (1 << 14) | 12),
    ("TT_ELWMUL(((0) << 1) + 1, true, ((1) << 1) + 0, 3, 16)", (0x27 << 24) | (1 << 22) | (1 << 21) | (1 << 20) | (3 << 15) | 16),
    ("TT_ZEROACC(((1) << 2) + 1, 0, 3)", (0x10 << 24) | (1 << 21) | (1 << 19) | 3),
    ("TT_SETRWC(0, 0, 0, 0, 0, 0b1111)", (0x37 << 24) | 0xF),
    ("TT_MOVB2D(0, 5, 1, (1 << 2) + (0 << 1) + 1, 8)", (0x13 << 24) | (5 << 17) | (1 << 15) | (1 << 14) | (1 << 12) | 8),
    ("TTI_TRNSPSRCB", 0x16 << 24),
    ("TT_DOTPV(0, true, 0, 1, 0)", (0x29 << 24) | (1 << 21) | (1 << 15)),
])
def test_seed_syntax_encodes_to_the_diagram_bits(text, word):
    assert encode(parse(text)) == word
    assert encode(parse(to_text(decode(word)))) == word


@pytest.mark.parametrize("spec", INSTRUCTIONS, ids=lambda s: s.mnemonic)
@given(data=st.data())
@settings(max_examples=40)
def test_every_row_round_trips(spec, data):
    fields = {f.name: data.draw(st.integers(0, (1 << f.width) - 1), label=f.name) for f in spec.fields}
    insn = make(spec.mnemonic, **fields)
    word = encode(insn)
    assert word >> 24 == spec.opcode
    back = decode(word)
    assert back == insn
    assert parse(back.text()) == insn
    assert parse(back.text()).word() == word


def test_revert_is_tt_llk_addr_mode_bit_3():
    """tt-llk's ZEROACC AddrMode argument is 4 bits (18:15): bit 3 is Revert, bit 2 is no field (TT26)."""
    insn = make("ZEROACC", Revert=1, Mode=1, Imm10=5, AddrMod=2)
    assert insn.text() == "TT_ZEROACC(1, 10, 5)"
    assert parse("TTI_ZEROACC(p_zeroacc::CLR_16, 8 | ADDR_MOD_2, 5)") == insn
    assert parse("TT_OP(0x10, 0xd0005)") == insn    # Mode 1 << 19 | Revert 1 << 18 | AddrMod 2 << 15 | Imm10 5
    with pytest.raises(ParseError) as e:
        parse("TTI_ZEROACC(0, 4, 0)")
    assert e.value.rule == "tt.text.value"


def test_comments_and_spacing_are_accepted():
    insn = parse("TT_ELWADD( /* flips */ 0 , /* AddDst */ 1, 0, 0, 8 ); // trailing")
    assert insn["AddDst"] == 1 and insn["DstRow"] == 8


# -- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("word, rule", [
    (0x96000000, "tt.enc.opcode"),         # SFPLE: a Blackhole SFPU opcode, not Wormhole's
    (0x02000000, "tt.enc.opcode"),         # NOP: not a Matrix Unit row
    (0x22000000, "tt.enc.legacy"),         # CONV3S1
    (0x27000400, "tt.enc.reserved"),       # ELWMUL bit 10
    (0x33020000, "tt.enc.reserved"),       # GMPOOL bit 17
    (1 << 32, "tt.enc.word"),
])
def test_decode_errors_name_the_opcode(word, rule):
    with pytest.raises(EncodingError) as e:
        decode(word)
    assert e.value.rule == rule
    if rule != "tt.enc.word":
        assert f"{word >> 24:#04x}" in str(e.value)


def test_every_32_bit_word_decodes_or_raises_encoding_error():
    rng = np.random.default_rng(1)
    words = list(rng.integers(0, 1 << 32, 20000)) + [op << 24 for op in range(256)]
    for w in words:
        try:
            insn = decode(int(w))
        except EncodingError as e:
            assert f"{int(w) >> 24:#04x}" in str(e)
        else:
            assert encode(insn) == int(w)


@pytest.mark.parametrize("kwargs, rule", [
    (dict(mnemonic="ELWMUL", DstRow=1024), "tt.enc.value"),
    (dict(mnemonic="ELWMUL", Bogus=1), "tt.enc.field"),
    (dict(mnemonic="NOPE"), "tt.enc.mnemonic"),
])
def test_make_errors(kwargs, rule):
    with pytest.raises(EncodingError) as e:
        make(**kwargs)
    assert e.value.rule == rule


@pytest.mark.parametrize("text, rule, column", [
    ("TT_ELWMUL(0, 1, 0, 0)", "tt.text.args", 1),
    ("TT_ELWMUL(0, 1, 4, 0, 0)", "tt.text.value", 17),       # BroadcastSrcB* argument is 2 bits
    ("TT_MOVA2D(0, 0, 0, 1, 0)", "tt.text.value", 20),       # bit 12 of the Move8Rows argument is reserved
    ("TT_ELWMUL(0, 1, x, 0, 0)", "tt.text.syntax", 17),
    ("TT_FOO(1)", "tt.text.syntax", 1),
    ("elwmul 1 2", "tt.text.syntax", 1),
    ("TT_OP(0x27)", "tt.text.args", 1),
    ("TT_OP(0x100, 0)", "tt.text.value", 1),
    ("TT_GATESRCRST(1, 2)", "tt.text.value", 18),            # the second argument is one bit
    ("TT_SETRWC(0, 0, 0, 0, 0, p_setrwc::CLR_X)", "tt.text.syntax", 26),  # unknown tt-llk name
])
def test_parse_errors_carry_rule_line_and_column(text, rule, column):
    with pytest.raises(ParseError) as e:
        parse(text, source="p.tt", line=3)
    assert e.value.rule == rule and e.value.line == 3 and e.value.column == column
    assert str(e.value).startswith(f"p.tt:3:{column}:")


def test_raw_word_with_reserved_bits_is_an_encoding_error_at_its_line():
    with pytest.raises(EncodingError) as e:
        parse("TT_OP(0x27, 0x400)", line=7)
    assert e.value.rule == "tt.enc.reserved" and e.value.line == 7


def test_docs_embed_the_generated_table():
    from pathlib import Path

    from tilesim.tensix.isa import table_markdown
    doc = (Path(__file__).resolve().parents[2] / "docs" / "tensix.md").read_text()
    assert table_markdown() in doc
