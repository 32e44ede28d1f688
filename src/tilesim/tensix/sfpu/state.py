"""The SFPU's own state: LRegs, lane flags and their stack, PRNG, configuration, LOADMACRO templates.

Wormhole B0's SFPU has 32 lanes, laid out as 4 rows ("instances") of 8 columns; lane
``8 * row + column`` reads and writes Dst row ``base + row``, column ``2 * column + odd``
(SFPLOAD/SFPSTORE). Each lane holds 16 LRegs of 32 bits:

- LReg0-7: general purpose;
- LReg8-14: constants (LReg8 0.8373, LReg9 0.0, LReg10 1.0 are fixed; LReg11-14 are
  programmable through SFPCONFIG; reset values as ttsim's ``tensix_init``);
- LReg15: the lane index times 2, read-only.

``flags`` is each lane's condition flag (``LaneFlags``), ``flags_enabled`` the global enable
(``UseLaneFlagsForLaneEnable``): a lane executes when the enable is off or its flag is set. The
condition stack (SFPPUSHC/SFPPOPC) holds up to 8 (flags, enable) pairs. The PRNG is one 32-bit
LFSR per lane (SFPMOV mode 8, SFP_STOCH_RND). ``templates`` are the 4 instruction templates and
``sequences`` the 4 sequence words of SFPLOADMACRO; ``macro_misc`` and ``lane_config`` are
SFPCONFIG's destinations 8 and 15.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SfpuState", "LANES", "LREGS", "STACK_DEPTH", "CONSTANTS", "step_prng"]

LANES = 32
LREGS = 16
STACK_DEPTH = 8
#: Reset values of the constant LRegs (LReg15 is the lane index times 2).
CONSTANTS = {8: 0x3F56594B, 9: 0x00000000, 10: 0x3F800000, 11: 0xBF800000, 12: 0x3B000000, 13: 0xBF2CC4C7,
             14: 0xBEB08FF9}


def step_prng(state: np.ndarray) -> np.ndarray:
    """One LFSR step per lane: shift right, feeding in the complement of the parity of taps 31, 21, 1, 0."""
    t = state & np.uint32(0x80200003)
    t ^= t >> np.uint32(16)
    t ^= t >> np.uint32(8)
    t ^= t >> np.uint32(4)
    t ^= t >> np.uint32(2)
    t ^= t >> np.uint32(1)
    return (((~t) & np.uint32(1)) << np.uint32(31)) | (state >> np.uint32(1))


class SfpuState:
    """The SFPU registers of one Tensix core (shared by the three threads, as the hardware's one SFPU).

    >>> s = SfpuState()
    >>> hex(s.lregs[10, 0]), int(s.lregs[15, 31]), bool(s.flags.all()), s.flags_enabled
    ('0x3f800000', 62, True, True)
    """

    def __init__(self) -> None:
        self.lregs = np.zeros((LREGS, LANES), np.uint32)
        for r, v in CONSTANTS.items():
            self.lregs[r] = v
        self.lregs[15] = np.arange(LANES, dtype=np.uint32) * 2
        self.flags = np.ones(LANES, bool)
        self.flags_enabled = True
        self.stack: list[tuple[np.ndarray, bool]] = []
        self.prng = np.zeros(LANES, np.uint32)
        self.lane_config = 0
        self.templates = [0, 0, 0, 0]
        self.sequences = [0, 0, 0, 0]
        self.macro_misc = 0

    @property
    def grid(self) -> np.ndarray:
        """The LRegs as (16, 4 rows, 8 columns): a view."""
        return self.lregs.reshape(LREGS, 4, 8)

    def enabled(self) -> np.ndarray:
        """The lanes that execute: every lane, or those whose flag is set when flags are enabled."""
        return self.flags if self.flags_enabled else _ALL

    def all_enabled(self) -> bool:
        return not self.flags_enabled or bool(self.flags.all())

    def seed_prng(self, seed: int) -> None:
        """Seed the lanes' LFSRs as a write of ``PRNG_SEED_Seed_Val`` (Config word 164) does, in ttsim's
        model: 32 steps of one LFSR from ``seed``, then lane 31 - i takes the state after 2 more steps each."""
        s = np.array([seed & 0xFFFFFFFF], np.uint32)
        for _ in range(32):
            s = step_prng(s)
        for i in range(32):
            s = step_prng(step_prng(s))
            self.prng[31 - i] = s[0]

    def copy(self) -> "SfpuState":
        c = SfpuState.__new__(SfpuState)
        c.__dict__.update(self.__dict__)
        c.lregs, c.flags, c.prng = self.lregs.copy(), self.flags.copy(), self.prng.copy()
        c.stack = [(f.copy(), e) for f, e in self.stack]
        c.templates, c.sequences = list(self.templates), list(self.sequences)
        return c


_ALL = np.ones(LANES, bool)
_ALL.setflags(write=False)
