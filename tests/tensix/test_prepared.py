"""Prepared programs (``Machine.run``, ``run_program``) against the same words run one at a time through
``execute``: the same bits, the same state (RWCs, banks, clients, last SrcA row) and the same error, with
nothing written by the trapping word, on random programs in every data-type combination and both rounding
models, with registers rewritten between runs and ``.config`` lines between instructions of a ``.tt`` file."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilesim.errors import TilesimError
from tilesim.tensix import Machine, make
from tilesim.tensix.isa import BY_MNEMONIC
from tilesim.tensix.cli import parse_program, run_program
from tilesim.tensix.prepared import prepare, prepare_words
from tilesim.tensix.program import execute
from tilesim.tensix.state import Client

from .helpers import COMBOS, random_machine
from .test_fast_path import REWRITES, assert_state, random_word, state

#: The kernel's instructions (most of a program) and the handler-run ones that move RWCs and banks between them.
KERNEL = ("ELWMUL", "ELWADD", "ELWSUB", "GMPOOL", "MVMUL", "DOTPV", "GAPOOL")
HANDLER = ("SETRWC", "INCRWC", "ZEROACC", "SETDVALID", "CLEARDVALID", "MOVA2D", "SHIFTXB", "SFPNOP")


def handler_word(rng, mnemonic: str) -> int:
    fields = {f.name: int(rng.integers(0, 1 << f.width)) for f in BY_MNEMONIC[mnemonic].fields}
    if rng.random() < 0.7:
        fields.update({k: 0 for k in ("FlipSrcA", "FlipSrcB", "Reset") if k in fields})
    return make(mnemonic, **fields).word()


def random_program(rng, n: int) -> list[int]:
    return [random_word(rng, str(rng.choice(KERNEL))) if rng.random() < 0.8 else
            handler_word(rng, str(rng.choice(HANDLER))) for _ in range(n)]


def calm(m, t) -> None:
    """Fewer traps, so that longer runs go through the kernel: fidelity phase 0 throughout (ELWADD/ELWSUB
    trap on another), no FP16-style datum the FPU rejects, and both banks the Matrix Unit's for good."""
    tc = m.thread_config[t]
    tc["CLR_DVALID_SrcA_Disable"] = tc["CLR_DVALID_SrcB_Disable"] = 1
    m.srca_client[:] = m.srcb_client[:] = [Client.MATRIX_UNIT] * 2
    tc["FIDELITY_BASE_Phase"] = m.rwc[t].fidelity = 0
    for i in range(8):
        tc[f"ADDR_MOD_DST_SEC{i}_FidelityIncr"] = 0
    for src in (m.srca, m.srcb):
        src &= np.uint32(~0xE0 & 0x7FFFF)


def one_at_a_time(m, words, thread):
    """``execute`` each word until one raises: (index of the trapping word or None, its error)."""
    for i, w in enumerate(words):
        try:
            execute(m, w, thread)
        except TilesimError as e:
            return i, (type(e), e.rule, str(e))
    return None, None


def give_banks(m):
    m.srca_client[m.srca_bank] = m.srcb_client[m.srcb_bank] = Client.MATRIX_UNIT


@given(seed=st.integers(0, 2**32 - 1), combo=st.sampled_from(COMBOS), rounding=st.sampled_from(["hardware", "doc"]),
       jit=st.booleans(), calmer=st.booleans())
def test_prepared_run_equals_one_word_at_a_time(seed, combo, rounding, jit, calmer):
    rng = np.random.default_rng(seed)
    fast, t, _ = random_machine(rng, combo, rounding)
    fast.jit = jit
    if calmer:
        calm(fast, t)
    ref = fast.copy()
    words = random_program(rng, 12)
    while words:
        before = state(fast)
        try:
            fast.run(words, t)
            got = None
        except TilesimError as e:
            got = (type(e), e.rule, str(e))
        at, want = one_at_a_time(ref, words, t)
        assert got == want
        assert_state(state(fast), state(ref))
        if at is None:
            break
        if at == 0:
            assert_state(state(fast), before)
        for m in (fast, ref):   # hand the banks back and go on after the trapping word
            give_banks(m)
        words = words[at + 1:]


@given(seed=st.integers(0, 2**32 - 1), combo=st.sampled_from(COMBOS))
def test_register_writes_between_runs_resolve_the_plans(seed, combo):
    """The same prepared program run again after a register write follows the new configuration."""
    rng = np.random.default_rng(seed)
    fast, t, _ = random_machine(rng, combo, "hardware")
    ref = fast.copy()
    words = tuple(random_word(rng, str(rng.choice(KERNEL))) for _ in range(8))
    for _ in range(3):
        name = str(rng.choice(REWRITES))
        value = int(rng.integers(0, 1 << (16 if name == "DEST_REGW_BASE_Base" else 1)))
        for m in (fast, ref):
            m.configure(t, **{name: value})
            give_banks(m)
        try:
            prepare_words(words).run(fast, t)
            got = None
        except TilesimError as e:
            got = (type(e), e.rule, str(e))
        assert got == one_at_a_time(ref, words, t)[1]
        assert_state(state(fast), state(ref))


def _tt_program(rng, n: int) -> str:
    """A ``.tt`` text: data loaded, then instructions with ``.config`` lines among them."""
    lines = [".array a 64x16 fill=1.5", ".array b 64x16 fill=-0.75", ".config ALU_FORMAT_SPEC_REG0_SrcA = BF16",
             ".config ALU_FORMAT_SPEC_REG1_SrcB = BF16", ".unpack srca a BF16", ".unpack srcb b BF16"]
    for _ in range(n):
        if rng.random() < 0.2:
            lines.append(f".config {rng.choice(['ALU_ACC_CTRL_Fp32_enabled', 'ADDR_MOD_SET_Base'])} = "
                         f"{int(rng.integers(0, 2))}")
        mnemonic = str(rng.choice(KERNEL))
        w = make(mnemonic, **{"DstRow": int(rng.integers(0, 64))} if mnemonic != "GAPOOL" else {}).word()
        lines.append(f"{w:#010x}")
    return "\n".join(lines)


@given(seed=st.integers(0, 2**32 - 1))
def test_tt_program_prepared_equals_observed(seed):
    """``run_program`` without a hook (prepared runs between directives) against the same program with an
    ``observe`` hook (one statement at a time)."""
    statements = parse_program(_tt_program(np.random.default_rng(seed), 24), source="p.tt")
    seen = []
    m1, _ = run_program(statements, {})
    m2, _ = run_program(statements, {}, observe=lambda s, *args: seen.append(s))
    assert len(seen) == len(statements)
    assert_state(state(m1), state(m2))


def test_tt_program_error_names_the_trapping_line():
    text = ".array a 64x16 fill=1\n.unpack srca a BF16\nTT_ELWADD(0, 0, 0, 0, 0)\nTT_ELWMUL(0, 0, 0, 0, 0)\n"
    with pytest.raises(TilesimError) as prepared:
        run_program(parse_program(text, source="p.tt"), {}, source="p.tt")
    with pytest.raises(TilesimError) as observed:
        run_program(parse_program(text, source="p.tt"), {}, source="p.tt", observe=lambda *args: None)
    assert str(prepared.value) == str(observed.value)
    assert prepared.value.line == 3 and prepared.value.rule == "tt.stall.srcb"


def test_kernel_runs_the_arithmetic_and_handlers_the_rest():
    m = Machine()
    words = [make(n).word() for n in ("ELWMUL", "SETRWC", "MVMUL", "GMPOOL", "SFPNOP")]
    assert prepare(words).fast_steps(m) == 3
    m.jit = False   # the numpy reference path: every step takes its handler (GMPOOL's kernel is the jit's too)
    assert prepare(words).fast_steps(m) == 0


def test_bad_thread_and_empty_program_as_one_at_a_time():
    m = Machine()
    m.run([], 5)   # nothing runs, so nothing is checked
    with pytest.raises(TilesimError, match="threads 0, 1 and 2"):
        m.run([make("ELWMUL").word()], 5)
