"""Machine state of one Tensix core's Matrix Unit, as raw numpy arrays and small records.

- ``srca``, ``srcb``: ``uint32`` (2 banks, 64 rows, 16 columns) of 19-bit datums (``SrcASrcB.md``).
- ``dst``: ``uint16`` (1024, 16), the ``DstBits`` store; ``dst_valid``: ``bool`` (1024,), one
  valid ("zero") flag per physical row; ZEROACC clears them (``Dst.md``, ``ZEROACC.md``).
- ``config[bank][FIELD]`` (2 banks) and ``thread_config[thread][FIELD]`` (3 threads), see :mod:`.regs`.
- ``rwc[thread]``: the RWCs (``RWCs.md``).
- ``srca_bank``/``srcb_bank``: the Matrix Unit's bank pointers; ``unpacker_bank`` = [SrcA's, SrcB's];
  ``srca_client``/``srcb_client``: each bank's ``AllowedClient``.

Reset (decision TT3): all registers, counters and data 0; every Dst row valid (the newest
``Dst.md``: "initially true"); every Src bank owned by the unpackers, bank pointers 0.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from functools import cache

import numpy as np

from ..errors import GeometryError, TilesimError
from .regs import RegisterFile

__all__ = ["Client", "RWC", "Machine", "ROUNDING_MODELS"]

ROUNDING_MODELS = ("hardware", "doc")


class Client(enum.Enum):
    """Who may use a Src bank (``SrcClient`` in ``SrcASrcB.md``)."""

    UNPACKERS = "Unpackers"
    MATRIX_UNIT = "MatrixUnit"


_RWC_BITS = {"dst": 10, "dst_cr": 10, "srca": 6, "srca_cr": 6, "srcb": 6, "srcb_cr": 6, "fidelity": 2,
             "extra_addr_mod_bit": 1}
_RWC_MASKS = {name: (1 << bits) - 1 for name, bits in _RWC_BITS.items()}


@dataclass
class RWC:
    """One thread's register-window counters. Assignments wrap to the counter's width."""

    dst: int = 0
    dst_cr: int = 0
    srca: int = 0
    srca_cr: int = 0
    srcb: int = 0
    srcb_cr: int = 0
    fidelity: int = 0
    extra_addr_mod_bit: int = 0

    def __setattr__(self, name: str, value: int) -> None:
        bits = _RWC_BITS.get(name)
        if bits is None:
            raise AttributeError(f"RWC has no counter {name!r}")
        object.__setattr__(self, name, int(value) & ((1 << bits) - 1))

    def update(self, srca: int, srca_cr: int, srcb: int, srcb_cr: int, dst: int, dst_cr: int, fidelity: int,
               extra_addr_mod_bit: int) -> None:
        """Assign every counter at once (each wrapped to its width): one call per ``ApplyAddrMod``."""
        k = _RWC_MASKS
        self.__dict__.update(srca=srca & k["srca"], srca_cr=srca_cr & k["srca_cr"], srcb=srcb & k["srcb"],
                             srcb_cr=srcb_cr & k["srcb_cr"], dst=dst & k["dst"], dst_cr=dst_cr & k["dst_cr"],
                             fidelity=fidelity & k["fidelity"],
                             extra_addr_mod_bit=extra_addr_mod_bit & k["extra_addr_mod_bit"])

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


class Machine:
    """The Matrix Unit and the state it reads: Src, Dst, configuration, RWCs, bank handshake.

    Args:
        rounding: ``"hardware"`` (the FPU's alignment and round-half-away, the default) or
            ``"doc"`` (the seed pages' functional model with IEEE binary32 ``float``).
        jit: run the hardware model's ELWMUL/ELWADD/ELWSUB and GMPOOL through their numba kernels,
            in place on the arrays (the default); ``False`` takes the numpy reference path, which
            ``tests/tensix/test_fast_path.py`` holds the kernels equal to.

    >>> m = Machine()
    >>> m.srca.shape, m.dst.dtype.name, m.config[0]["ALU_ACC_CTRL_Fp32_enabled"]
    ((2, 64, 16), 'uint16', 0)
    """

    def __init__(self, rounding: str = "hardware", jit: bool = True) -> None:
        if rounding not in ROUNDING_MODELS:
            raise TilesimError(f"unknown rounding model; valid: {', '.join(ROUNDING_MODELS)}",
                               instruction="Machine", operand="rounding", rule="tt.rounding", value=rounding)
        self.rounding = rounding
        self.jit = jit
        self.srca = np.zeros((2, 64, 16), np.uint32)
        self.srcb = np.zeros((2, 64, 16), np.uint32)
        self.dst = np.zeros((1024, 16), np.uint16)
        self.dst_valid = np.ones(1024, bool)
        self.config = (RegisterFile.config(), RegisterFile.config())
        self.thread_config = tuple(RegisterFile.thread_config() for _ in range(3))
        self.rwc = tuple(RWC() for _ in range(3))
        self.srca_bank = 0
        self.srcb_bank = 0
        self.unpacker_bank = [0, 0]
        self.srca_client = [Client.UNPACKERS, Client.UNPACKERS]
        self.srcb_client = [Client.UNPACKERS, Client.UNPACKERS]
        #: ``Unpackers[i].SrcRow[thread]``: reset to ``SRC?_SET_Base << 4`` by SETDVALID.
        self.unpacker_src_row = [[0, 0, 0], [0, 0, 0]]
        #: The SrcA row the last instruction that reads SrcA started at (SHIFTXA's ``HardwareBug()``).
        self.last_srca_row = 0
        self.sfpu = _sfpu_state()
        self._memo: dict = {}

    # -- conveniences ---------------------------------------------------------------------------

    def cfg(self, thread: int = 0) -> RegisterFile:
        """The Config bank that ``thread`` uses (``CFG_STATE_ID_StateID``)."""
        return self.config[self.thread_config[check_thread(thread)]["CFG_STATE_ID_StateID"]]

    def memo(self, thread: int, key, make):
        """``make(self, thread)``, kept while the registers are unchanged: what an instruction derives
        from its fields and the configuration (a format selection, an ADDR_MOD section, a compiled
        kernel) is worked out once, not per call. ``key`` names what is derived (with the
        instruction word where it depends on it); any register write (stamps of the Config banks
        and of the thread's ThreadConfig) or a change of ``rounding`` or ``jit`` makes it derive again."""
        tc = self.thread_config[thread]
        stamp = (self.config[0].stamp, self.config[1].stamp, tc.stamp, self.rounding, self.jit)
        hit = self._memo.get((thread, key))
        if hit is not None and hit[0] == stamp:
            return hit[1]
        value = make(self, thread)
        self._memo[thread, key] = stamp, value
        return value

    def configure(self, thread: int = 0, **fields: int) -> "Machine":
        """Write Config fields of ``thread``'s bank and ThreadConfig fields of ``thread`` by name."""
        tc = self.thread_config[check_thread(thread)]
        for name, value in fields.items():
            (tc if name in tc else self.cfg(thread))[name] = value
        return self

    def execute(self, insn, thread: int = 0, trace: bool = False):
        """Run one instruction (a 32-bit word, an :class:`~.isa.Instruction` or its text).

        Returns a :class:`~.program.TraceEntry` (with the physical Dst rows whose data or valid
        flag changed) when ``trace`` is set, else ``None``.

        Raises:
            StateError: the instruction would wait forever for a Src bank (``tt.stall.*``).
            EncodingError, UnsupportedError, SpecGapError: see :mod:`.program`.
        """
        return _program().execute(self, insn, thread, trace=trace)

    def run(self, program, thread: int = 0, trace: bool = False):
        """Run a sequence of instructions (words, Instructions, text lines, or one text block).

        Returns a list of :class:`~.program.TraceEntry` when ``trace`` is set, else ``None``.
        """
        from .program import run
        return run(self, program, thread, trace)

    def unpack(self, target: str, values, fmt, **kw):
        """Load values into SrcA, SrcB or Dst through the unpacker's conversion (see :mod:`.unpack`)."""
        from .unpack import unpack
        return unpack(self, target, values, fmt, **kw)

    def pack(self, fmt, row: int = 0, rows: int = 16, **kw):
        """Read Dst rows through the packer's early conversion (see :mod:`.pack`)."""
        from .pack import pack
        return pack(self, fmt, row, rows, **kw)

    def copy(self) -> "Machine":
        """A deep copy (for what-if runs and tests)."""
        m = Machine(self.rounding, self.jit)
        m.srca, m.srcb, m.dst, m.dst_valid = (a.copy() for a in (self.srca, self.srcb, self.dst, self.dst_valid))
        m.config = tuple(c.copy() for c in self.config)
        m.thread_config = tuple(c.copy() for c in self.thread_config)
        m.rwc = tuple(RWC(**r.as_dict()) for r in self.rwc)
        m.srca_bank, m.srcb_bank = self.srca_bank, self.srcb_bank
        m.unpacker_bank = list(self.unpacker_bank)
        m.srca_client, m.srcb_client = list(self.srca_client), list(self.srcb_client)
        m.unpacker_src_row = [list(r) for r in self.unpacker_src_row]
        m.last_srca_row = self.last_srca_row
        m.sfpu = self.sfpu.copy()
        return m


def check_thread(thread: int) -> int:
    if thread not in (0, 1, 2):
        raise GeometryError("a Tensix core has threads 0, 1 and 2", instruction="Machine", operand="thread",
                            rule="tt.thread", value=thread)
    return thread


def _sfpu_state():
    """A reset :class:`~.sfpu.state.SfpuState` (the SFPU's LRegs, flags, PRNG and configuration)."""
    from .sfpu.state import SfpuState
    return SfpuState()


@cache
def _program():
    """The :mod:`.program` module (it imports this one, so it is found on first use)."""
    from . import program
    return program
