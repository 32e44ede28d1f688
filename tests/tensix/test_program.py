"""Running programs: words, Instructions and text; the trace; errors that leave the state untouched."""

import numpy as np
import pytest

from tilesim.errors import EncodingError, GeometryError, ParseError, StateError, TilesimError, UnsupportedError
from tilesim.tensix import Machine, make
from tilesim.tensix.state import Client

from .helpers import random_machine

PROGRAM = """
# load happens in Python; this zeroes Dst, multiplies, and flips both banks back
TT_ZEROACC(3, 0, 0)          // all of Dst undefined
TT_ELWMUL(3, 1, 0, 0, 8)
0x16000000                   # TTI_TRNSPSRCB as a raw word (bank 0 is no longer the FPU's: stalls)
"""


def loaded():
    m = Machine()
    m.configure(ALU_FORMAT_SPEC_REG0_SrcA=5, ALU_FORMAT_SPEC_REG1_SrcB=5)
    m.unpack("srca", np.full((8, 16), 2.0), "BF16")
    m.unpack("srcb", np.full((8, 16), 3.0), "BF16")
    return m


def test_run_text_with_trace():
    m = loaded()
    with pytest.raises(StateError) as e:
        m.run(PROGRAM)
    assert e.value.rule == "tt.stall.srcb"                  # the third line waits for SrcB forever
    m = loaded()
    trace = m.run(PROGRAM.splitlines()[:4], trace=True)
    assert [t.instruction.mnemonic for t in trace] == ["ZEROACC", "ELWMUL"]
    assert trace[0].dst_rows == tuple(range(1024)) and trace[1].dst_rows == tuple(range(8, 16))
    assert "Dst rows 8-15" in str(trace[1]) and trace[1].word == 0x27E00008
    assert (m.pack("BF16", row=8, rows=8).values == 6.0).all()


def test_run_accepts_words_and_instructions():
    m = loaded()
    assert m.run([0x10180000, make("ELWMUL", DstRow=16)]) is None
    assert (m.pack("BF16", row=16, rows=1).values == 6.0).all()


def test_parse_error_has_line_number():
    with pytest.raises(ParseError) as e:
        Machine().run("TT_ZEROACC(3, 0, 0)\n\nTT_ELWMUL(1, 2)\n")
    assert e.value.line == 3 and e.value.rule == "tt.text.args"
    with pytest.raises(EncodingError) as e:
        Machine().run("TT_ZEROACC(3, 0, 0)\n0x27000400\n")
    assert e.value.line == 2 and e.value.rule == "tt.enc.reserved"


def test_unsupported_rows_do_not_execute():
    for text in ("TTI_CLREXPHIST",):
        with pytest.raises(UnsupportedError) as e:
            Machine().execute(text)
        assert e.value.rule == "tt.exec.unsupported"
    with pytest.raises(TilesimError) as e:
        Machine().execute(3.5)
    assert e.value.rule == "tt.exec.type"


def state(m):
    return (m.srca.copy(), m.srcb.copy(), m.dst.copy(), m.dst_valid.copy(), [r.as_dict() for r in m.rwc],
            m.srca_bank, m.srcb_bank, list(m.srca_client), list(m.srcb_client), m.last_srca_row)


def same(a, b):
    return all((np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y) for x, y in zip(a, b))


@pytest.mark.parametrize("insn, setup, err, rule", [
    ("TT_ELWMUL(3, 1, 0, 1, 0)", lambda m: m.srca_client.__setitem__(m.srca_bank, Client.UNPACKERS),
     StateError, "tt.stall.srca"),
    ("TT_GMPOOL(3, 1, 1, 1, 0)", lambda m: m.srcb_client.__setitem__(m.srcb_bank, Client.UNPACKERS),
     StateError, "tt.stall.srcb"),
    ("TT_MVMUL(3, 0, 1, 0)", lambda m: setattr(m.rwc[0], "srca", 56), GeometryError, "tt.geom.srca"),
    ("TT_ELWMUL(3, 1, 0, 1, 0)", lambda m: m.configure(ALU_FORMAT_SPEC_REG0_SrcA=12), TilesimError, "tt.fmt.code"),
    ("TT_ELWADD(3, 1, 0, 1, 0)", lambda m: setattr(m.rwc[0], "fidelity", 2), UnsupportedError, "tt.hw.elw_fidelity"),
])
def test_trapping_instructions_leave_the_machine_untouched(insn, setup, err, rule):
    m, _, _ = random_machine(np.random.default_rng(5), "bf16_dst32", "hardware", thread=0, offsets=False)
    m.thread_config[0]["FIDELITY_BASE_Phase"] = 0
    setup(m)
    before = state(m)
    with pytest.raises(err) as e:
        m.execute(insn)
    assert e.value.rule == rule and same(before, state(m))
