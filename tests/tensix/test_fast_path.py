"""The machine's fast path (per-instruction plans kept per register stamp, ELW, MVMUL and GMPOOL in place
through numba) against the path it replaced (``Machine(jit=False)``: the numpy reference kernels,
read-compute-write in Python): the same bits and the same state after every instruction of random
programs, in both rounding models and every data-type combination, with registers rewritten
between instructions (the plans must follow), and the same error, with the state untouched, when an
instruction traps."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tilesim.errors import TilesimError
from tilesim.tensix import make
from tilesim.tensix.isa import BY_MNEMONIC
from tilesim.tensix.regs import THREAD_CONFIG_FIELDS

from .helpers import COMBOS, random_machine

OPS = ("ELWMUL", "ELWADD", "ELWSUB", "GMPOOL", "MVMUL", "DOTPV", "GAPOOL")
#: Registers a program might rewrite between instructions (a plan derived from them must not survive).
REWRITES = ("ALU_ACC_CTRL_Fp32_enabled", "FIDELITY_BASE_Phase", "DEST_REGW_BASE_Base", "ADDR_MOD_SET_Base",
            "ADDR_MOD_DST_SEC1_DestIncr", "ALU_ACC_CTRL_Zero_Flag_disabled_src", "CLR_DVALID_SrcA_Disable")


def state(m):
    return (m.srca.copy(), m.srcb.copy(), m.dst.copy(), m.dst_valid.copy(), [r.as_dict() for r in m.rwc],
            m.srca_bank, m.srcb_bank, list(m.srca_client), list(m.srcb_client), m.last_srca_row)


def assert_state(a, b):
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y)
        else:
            assert x == y


def random_word(rng, mnemonic):
    spec = BY_MNEMONIC[mnemonic]
    fields = {f.name: int(rng.integers(0, 1 << f.width)) for f in spec.fields}
    if rng.random() < 0.7:       # mostly no flips, so the program keeps running
        fields["FlipSrcA"] = fields["FlipSrcB"] = 0
    return make(mnemonic, **fields).word()


@given(seed=st.integers(0, 2**32 - 1), combo=st.sampled_from(COMBOS), rounding=st.sampled_from(["hardware", "doc"]))
def test_fast_path_equals_reference(seed, combo, rounding):
    rng = np.random.default_rng(seed)
    fast, t, _ = random_machine(rng, combo, rounding)
    ref = fast.copy()
    ref.jit = False
    tc_fields = {f.name: f.width for f in THREAD_CONFIG_FIELDS}
    for _ in range(6):
        if rng.random() < 0.3:
            name = str(rng.choice(REWRITES))
            width = tc_fields.get(name, 16 if name == "DEST_REGW_BASE_Base" else 1)
            value = int(rng.integers(0, 1 << width))
            for m in (fast, ref):
                m.configure(t, **{name: value})
        word = random_word(rng, str(rng.choice(OPS)))
        before = state(fast)
        errors = []
        for m in (fast, ref):
            try:
                m.execute(word, t)
                errors.append(None)
            except TilesimError as e:
                errors.append((type(e), e.rule, str(e)))
        assert errors[0] == errors[1]
        assert_state(state(fast), state(ref))
        if errors[0] is not None:
            assert_state(state(fast), before)
            for m in (fast, ref):   # hand the banks back so the program goes on
                m.srca_client[m.srca_bank] = m.srcb_client[m.srcb_bank] = type(m.srca_client[0]).MATRIX_UNIT
