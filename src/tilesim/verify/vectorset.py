"""A golden vector set: operands as bit-pattern arrays, class tags per vector, and its files.

``VectorSet.write(dir)`` writes

- ``manifest.json``: ISA, op, configuration, seed, count, tilesim version, every operand's
  description, the class tags of each vector, and the lists ``inputs`` and ``outputs`` of hex files;
- ``vectors.npz``: every operand by name, shape ``(count, *shape)``, as unsigned bit patterns;
- ``<operand>.hex``: one ``$readmemh`` file per operand (see :mod:`.hexfile`);
- ``coverage.json``: vectors per class (see :mod:`.coverage`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__
from . import coverage
from .hexfile import write_hex

__all__ = ["Operand", "VectorSet", "lane_dtype"]

MANIFEST_VERSION = 1


def lane_dtype(lane_bits: int) -> np.dtype:
    """The unsigned numpy dtype that holds a lane."""
    for bits, dt in ((8, np.uint8), (16, np.uint16), (32, np.uint32), (64, np.uint64)):
        if lane_bits <= bits:
            return np.dtype(dt)
    raise ValueError(f"lanes are at most 64 bits, not {lane_bits}")


@dataclass(frozen=True)
class Operand:
    """One input or output of the instruction, the same shape in every vector.

    Fields:
        name: the operand (also its file stem).
        role: ``input`` or ``output``.
        shape: elements per vector (C order in the hex file).
        lane_bits: bits per datum (the hex width).
        fmt: lane kind (:mod:`.lanes`): a format name, a Tensix datum kind, or ``bits``.
        nan_any: NaN payloads are not defined by the op, so any NaN matches any NaN.
        doc: what it holds, in words.
        flags: for a status word, the name of each bit from bit 0 (``""`` for a reserved bit);
            reports show the set bits by name.
    """

    name: str
    role: str
    shape: tuple[int, ...]
    lane_bits: int
    fmt: str = "bits"
    nan_any: bool = False
    doc: str = ""
    flags: tuple[str, ...] = ()

    @property
    def file(self) -> str:
        return f"{self.name}.hex"

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def manifest(self) -> dict:
        d = asdict(self)
        d["shape"] = list(self.shape)
        d["flags"] = list(self.flags)
        d["file"] = self.file
        return d

    @classmethod
    def from_manifest(cls, d: dict) -> "Operand":
        """The operand of a manifest entry that :func:`.schema.check_manifest` has accepted."""
        keys = ("name", "role", "shape", "lane_bits", "fmt", "nan_any", "doc", "flags")
        return cls(**{k: (tuple(d[k]) if k in ("shape", "flags") else d[k]) for k in keys if k in d})


@dataclass
class VectorSet:
    """Everything a vector set holds before it is written.

    ``arrays[name]`` has shape ``(count, *operand.shape)`` and the operand's lane dtype;
    ``tags[i]`` lists vector i's classes; ``classes`` are the classes that apply to this op and
    configuration (coverage reports each, hit or not).
    """

    isa: str
    op: str
    config: dict
    seed: int
    operands: list[Operand]
    arrays: dict[str, np.ndarray]
    tags: list[list[str]]
    classes: list[str]
    min_per_class: int = 1
    notes: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.tags)

    def __post_init__(self) -> None:
        for o in self.operands:
            a = self.arrays[o.name]
            if a.shape != (self.count, *o.shape) or a.dtype != lane_dtype(o.lane_bits):
                raise AssertionError(f"{o.name}: array {a.shape} {a.dtype} does not match {o}")
            if o.lane_bits < 64 and int(a.max(initial=0)) >> o.lane_bits:
                raise AssertionError(f"{o.name}: a datum is wider than {o.lane_bits} bits")

    def operand(self, name: str) -> Operand:
        return next(o for o in self.operands if o.name == name)

    def manifest(self) -> dict:
        return {
            "manifest_version": MANIFEST_VERSION,
            "tilesim_version": __version__,
            "isa": self.isa,
            "op": self.op,
            "config": self.config,
            "seed": self.seed,
            "count": self.count,
            "min_per_class": self.min_per_class,
            "classes": self.classes,
            "inputs": [o.file for o in self.operands if o.role == "input"],
            "outputs": [o.file for o in self.operands if o.role == "output"],
            "operands": [o.manifest() for o in self.operands],
            "vectors": [{"index": i, "classes": t} for i, t in enumerate(self.tags)],
            "notes": self.notes,
        }

    def write(self, out: Path) -> dict:
        """Write every file into ``out`` (created if needed); returns the coverage record."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "manifest.json").write_text(json.dumps(self.manifest(), indent=1) + "\n")
        np.savez(out / "vectors.npz", **self.arrays)
        labels = [f"vector {i}: {' '.join(t) or 'random'}" for i, t in enumerate(self.tags)]
        for o in self.operands:
            header = [f"tilesim {__version__} vectors {self.isa} {self.op} seed {self.seed}",
                      f"{o.role} {o.name}: {self.count} vectors x {o.size} datums {list(o.shape)}, "
                      f"{o.lane_bits}-bit lanes, {o.fmt}" + (f"; {o.doc}" if o.doc else "")]
            write_hex(out / o.file, self.arrays[o.name], o.lane_bits, header, labels)
        cov = coverage.record(self)
        (out / "coverage.json").write_text(json.dumps(cov, indent=1) + "\n")
        return cov
