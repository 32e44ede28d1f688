"""A scoreboard for a testbench that checks each transaction as the device produces it (cocotb, pyuvm).

- :func:`reference` gives the reference model of an op in one configuration: a callable that takes
  one transaction (the input operands of one vector, as the manifest names them) and returns the
  expected outputs, flags included, as bit patterns;
- :class:`Scoreboard` compares what the device produced with the expected outputs, one transaction
  at a time, and accumulates the mismatches (the :class:`~.check.Mismatch` records ``tilesim check``
  prints) and the coverage of the transactions' classes, crossed with the configuration.

Nothing here imports cocotb: a cocotb coroutine or a pyuvm scoreboard component calls
``scoreboard.check(...)`` with numpy arrays or Python ints. See ``docs/verification.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

import numpy as np

from ..errors import TilesimError, UnsupportedError
from . import lanes
from .check import Mismatch
from .vectorset import Operand, lane_dtype

__all__ = ["reference", "Scoreboard", "MODELS"]

Model = Callable[[Mapping[str, np.ndarray]], dict[str, np.ndarray]]


def _ame_mmacc(config: dict) -> Model:
    from .stimulus.ame import run_one
    tiles = (config["tA"], config["tB"], config["tC"], config["span"])

    def model(txn):
        beta = int(np.asarray(txn["imm"]).reshape(-1)[0]) & 1
        *_, c_out, status, _ = run_one(config["accumulation"], config["mxcfg"], config["mxtile"], tiles,
                                       np.asarray(txn["a"]), np.asarray(txn["b"]), np.asarray(txn["c_in"]), beta)
        return {"c": np.array(c_out), "mxstatus": np.array([status], np.uint8)}
    return model


def _formats_encode(config: dict) -> Model:
    from .. import formats

    def model(txn):
        x = np.asarray(txn["x"], np.uint64).view(np.float64)
        code, flags = formats.encode(x, config["format"], rounding=config["rounding"], saturate=config["saturate"],
                                     return_flags=True)
        return {"code": code, "flags": flags.bits()}
    return model


def _formats_decode(config: dict) -> Model:
    from .. import formats
    fmt = formats.get(config["format"])

    def model(txn):
        codes = np.asarray(txn["code"]).astype(fmt.dtype)
        if fmt.kind is formats.Kind.INT:
            v = formats.decode_int(codes, fmt).astype(np.int64 if fmt.signed else np.uint64)
            return {"value": v.view(np.uint64)}
        return {"value": formats.decode(codes, fmt).view(np.uint64)}
    return model


def _pto(op: str):
    def make(config: dict) -> Model:
        from .stimulus.pto import run_one
        return lambda txn: run_one(op, config, txn)
    return make


def _pto_models() -> dict:
    from .stimulus.pto import OPS
    return {("pto", op): _pto(op) for op in OPS}


def _tensix(config: dict) -> Model:
    from .stimulus.tensix import run_one
    return lambda txn: run_one(config, txn)


def _tensix_sfpu(config: dict) -> Model:
    from .stimulus.tensix_sfpu import run_one
    return lambda txn: run_one(config, txn)


def _tensix_models() -> dict:
    from .stimulus.tensix import OPS
    from .stimulus.tensix_sfpu import OPS as SFPU_OPS
    return {**{("tensix", op): _tensix for op in OPS}, **{("tensix", op): _tensix_sfpu for op in SFPU_OPS}}


#: (isa, op) -> model factory taking the manifest's ``config``
MODELS = {("ame", "mmacc"): _ame_mmacc, ("formats", "encode"): _formats_encode, ("formats", "decode"): _formats_decode,
          **_pto_models(),
          **_tensix_models()}


def reference(isa: str, op: str, config: dict) -> Model:
    """The reference model of ``op`` in the configuration a vector set's manifest records.

    Raises:
        UnsupportedError: an ISA or op ``tilesim vectors`` does not generate (rule ``verify.model``).
    """
    make = MODELS.get((isa, op))
    if make is None:
        known = ", ".join(sorted({f"{i} {o}" if i not in ("pto", "tensix") else f"{i} (every op)" for i, o in MODELS}))
        raise UnsupportedError(f"no per-transaction model for {isa} {op} (models: {known})",
                               instruction="tilesim.verify.reference",
                               operand="op", rule="verify.model", value=f"{isa} {op}")
    return make(config)


class Scoreboard:
    """Compare device outputs with expected ones per transaction; accumulate mismatches and coverage.

    Args:
        outputs: the output operands (``vs.operands`` or a golden's; inputs are ignored).
        config: configuration values crossed with each transaction's classes in :attr:`coverage`
            (e.g. ``{"rnd": "rne", "sat": 1}``).
    """

    def __init__(self, outputs: list[Operand], config: Mapping | None = None) -> None:
        self.outputs = [o for o in outputs if o.role == "output"]
        self.config = tuple(sorted((config or {}).items()))
        self.mismatches: list[Mismatch] = []
        self.transactions = 0
        self.failing: list[int] = []
        self.coverage: Counter = Counter()

    def check(self, txn: int, expected: Mapping[str, np.ndarray], got: Mapping[str, object],
              classes=(), xbits: Mapping[str, np.ndarray] | None = None) -> list[Mismatch]:
        """Compare one transaction; returns its mismatches (also kept). ``got`` values may be arrays or ints;
        ``xbits`` marks bits the device left X (a word with any is an ``x`` mismatch)."""
        found = []
        for o in self.outputs:
            if o.name not in got:
                raise TilesimError(f"transaction {txn} has no output {o.name!r}", instruction="Scoreboard.check",
                                   operand=o.name, rule="verify.scoreboard.output", value=sorted(got))
            dt = lane_dtype(o.lane_bits)
            exp = np.asarray(expected[o.name]).astype(dt).reshape(-1)
            dev = np.asarray(got[o.name]).astype(np.uint64).reshape(-1)
            if dev.size != exp.size or (o.lane_bits < 64 and (dev >> np.uint64(o.lane_bits)).any()):
                raise TilesimError(f"{o.name} needs {exp.size} codes of {o.lane_bits} bits, got {dev.size}",
                                   instruction="Scoreboard.check", operand=o.name, rule="verify.scoreboard.shape",
                                   value=list(np.shape(got[o.name])))
            dev = dev.astype(dt)
            xb = np.zeros(exp.size, np.uint64) if xbits is None or o.name not in xbits else \
                np.asarray(xbits[o.name], np.uint64).reshape(-1)
            equal = exp == dev
            if o.nan_any:
                equal |= lanes.nan_mask(exp, o.fmt) & lanes.nan_mask(dev, o.fmt)
            for f in np.flatnonzero(~equal | (xb != 0)).tolist():
                idx = tuple(int(i) for i in np.unravel_index(f, o.shape)) if o.shape else ()
                pair = None
                if o.fmt.startswith("tt.dst32rows."):
                    p = lanes.dst32_partner(f, o.shape)
                    pair = (int(exp[p]), int(dev[p]))
                found.append(Mismatch(txn, o.name, idx, int(exp[f]), int(dev[f]), o.fmt, o.lane_bits,
                                      tuple(classes), "x" if xb[f] else "bits", int(xb[f]), 0, o.flags, pair))
        self.transactions += 1
        for c in (tuple(classes) or ("random",)):
            self.coverage[(c, *self.config)] += 1
        if found:
            self.failing.append(txn)
            self.mismatches += found
        return found

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def coverage_record(self) -> dict:
        """Cross coverage as JSON-ready data: the configuration keys and one row per (class, values...)."""
        keys = ["class"] + [k for k, _ in self.config]
        rows = [dict(zip(keys, (c, *(v for _, v in rest))), count=n) for (c, *rest), n in sorted(self.coverage.items())]
        return {"keys": keys, "transactions": self.transactions, "bins": rows}

    def summary(self) -> str:
        """One line: PASS/FAIL, transactions that matched, mismatching elements per output."""
        per = Counter(m.operand for m in self.mismatches)
        verdict = "PASS" if self.ok else "FAIL"
        return (f"{verdict}: {self.transactions - len(self.failing)}/{self.transactions} transactions match; "
                f"mismatching elements: " + ", ".join(f"{o.name} {per.get(o.name, 0)}" for o in self.outputs))
