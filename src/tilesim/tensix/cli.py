"""``.tt`` programs: Matrix Unit instructions plus a few directives to load and read data.

One statement per line; ``#`` and ``//`` start comments; a line ending in ``\\`` continues.

- ``TT_ELWMUL(0, 1, 0, 0, 0)``, ``TTI_TRNSPSRCB``, ``TT_OP(0x27, 0)`` or a hex word: an instruction.
- ``.thread N``: run what follows on thread N (0..2).
- ``.config FIELD = VALUE``: a Config field (of the thread's bank) or a ThreadConfig field;
  format-code fields also take data format names (``BF16``, ``TF32``, ...).
- ``.array NAME [RxC] = v0 v1 ...`` or ``.array NAME RxC fill=V``: an input array, unless
  ``--input`` supplies NAME; at most :data:`MAX_ARRAY` elements (64 Dst16 banks' worth, TT39).
- ``.unpack srca|srcb|dst NAME FORMAT [row=R] [out=FMT] [flip=0|1] [raw=1] [exps=NAME] [face=F]``:
  load an array through the unpacker (see :func:`tilesim.tensix.unpack.unpack`); ``face=F`` loads
  face F (0..3) of a 32x32 tile (tt-llk's order: top-left, top-right, bottom-left, bottom-right).
- ``.pack NAME FORMAT [row=R] [rows=N] [dst32=0|1] [type=T] [rounding=0|1] [tile=1]``: read Dst
  through the packer's early conversion into output NAME (values) and ``NAME_bits`` (codes);
  ``tile=1`` reads 64 rows (four faces) back as one 32x32 tile.
- ``.argmax NAME [row=R] [rows=N]``: GMPOOL's ArgMax indices in the low bits of 32-bit Dst rows
  ``R .. R+N-1`` (within 0..511, N >= 1, as ``.pack``), with the non-linear transform undone (0..7 = SrcA row).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.table import Table

from ..errors import DtypeError, GeometryError, ParseError, TilesimError
from .dataformat import data_format
from .fpu.pool import argmax_rows
from .layouts import adj32
from .prepared import Prepared
from .program import TraceEntry, execute, instruction_of
from .state import ROUNDING_MODELS, Machine

__all__ = ["Statement", "parse_program", "check_inputs", "run_program", "run_file", "value_table", "face_of", "tile_of",
           "MAX_ARRAY"]

_FORMAT_FIELDS = ("ALU_FORMAT_SPEC_REG0_SrcA", "ALU_FORMAT_SPEC_REG1_SrcB", "ALU_FORMAT_SPEC_REG2_Dstacc",
                  "ALU_FORMAT_SPEC_REG_SrcA_val", "ALU_FORMAT_SPEC_REG_SrcB_val", "ALU_FORMAT_SPEC_REG_Dstacc_val")


@dataclass(frozen=True)
class Statement:
    """One program line: ``kind`` is ``insn`` or a directive name; ``args`` its parsed pieces."""

    line: int
    kind: str
    args: tuple
    text: str


#: the most elements a ``.array`` may declare: 64 times a 16-bit Dst (1024 rows of 16), far past any input
MAX_ARRAY = 64 * 1024 * 16


def _err(msg: str, source, line: int, text: str, rule: str, column: int = 1) -> ParseError:
    return ParseError(msg, instruction=text.split()[0] if text.split() else "?", rule=rule, value=text,
                      source=source, line=line, column=column)


def _logical_lines(text: str):
    buf, start = "", None
    for n, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(#|//).*", "", raw).rstrip()
        if start is None:
            start = n
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        if buf.strip():
            yield start, buf.strip()
        buf, start = "", None
    if buf.strip():
        yield start, buf.strip()


def _options(words: list[str], allowed: set[str], source, line, text) -> dict[str, str]:
    out = {}
    for w in words:
        key, eq, val = w.partition("=")
        if not eq or key not in allowed:
            raise _err(f"unknown option {w!r}; options: {', '.join(sorted(allowed))}", source, line, text,
                       "tt.prog.option", text.find(w) + 1)
        out[key] = val
    return out


def _int(v: str, source, line, text) -> int:
    try:
        return int(v, 0)
    except ValueError:
        raise _err(f"{v!r} is not an integer", source, line, text, "tt.prog.value", text.find(v) + 1) from None


def parse_program(text: str, source: str | None = None) -> list[Statement]:
    """Parse a ``.tt`` program into statements (instructions are decoded here).

    Raises:
        ParseError: with line and column (rules ``tt.prog.*`` and the instruction text rules).
    """
    out = []
    for n, t in _logical_lines(text):
        if not t.startswith("."):
            out.append(Statement(n, "insn", (instruction_of(t, source=source, line=n),), t))
            continue
        word, _, rest = t.partition(" ")
        kind = word[1:]
        parts = rest.split()
        if kind == "thread":
            if len(parts) != 1 or parts[0] not in ("0", "1", "2"):
                raise _err(".thread takes 0, 1 or 2", source, n, t, "tt.prog.thread")
            out.append(Statement(n, kind, (int(parts[0]),), t))
        elif kind == "config":
            m = re.fullmatch(r"(\w+)\s*=\s*(\S+)", rest.strip())
            if not m:
                raise _err(".config FIELD = VALUE", source, n, t, "tt.prog.syntax")
            name, val = m.groups()
            if name in _FORMAT_FIELDS and not re.fullmatch(r"[0-9]+|0[xX][0-9a-fA-F]+", val):
                try:
                    v = data_format(val).code
                except TilesimError as e:
                    raise e.at(source=source, line=n, column=t.find(val) + 1) from None
            else:
                v = _int(val, source, n, t)
            out.append(Statement(n, kind, (name, v), t))
        elif kind == "array":
            m = re.fullmatch(r"(\w+)(?:\s+(\d+)x(\d+))?\s*(?:=\s*(.*)|fill=(\S+))", rest.strip())
            if not m:
                raise _err(".array NAME [RxC] = numbers, or .array NAME RxC fill=V", source, n, t, "tt.prog.syntax")
            name, r, c, nums, fill = m.groups()
            if r is not None and max(int(r) * int(c), int(r), int(c)) > MAX_ARRAY:  # before anything is allocated
                raise _err(f"a {r}x{c} array has {int(r) * int(c):,} elements; .array takes at most {MAX_ARRAY:,}",
                           source, n, t, "tt.prog.array_size", t.find(r) + 1)
            try:
                if fill is not None:
                    if r is None:
                        raise ValueError("fill= needs a shape")
                    arr = np.full((int(r), int(c)), float(fill))
                else:
                    arr = np.array([float(x) for x in nums.replace(",", " ").split()])
                    if r is not None:
                        if arr.size != int(r) * int(c):
                            raise ValueError(f"{r}x{c} takes {int(r) * int(c)} numbers, {arr.size} given")
                        arr = arr.reshape(int(r), int(c))
            except ValueError as e:
                raise _err(f"bad array: {e}", source, n, t, "tt.prog.value") from None
            out.append(Statement(n, kind, (name, arr), t))
        elif kind == "unpack":
            if len(parts) < 3 or parts[0] not in ("srca", "srcb", "dst"):
                raise _err(".unpack srca|srcb|dst NAME FORMAT [options]", source, n, t, "tt.prog.syntax")
            opts = _options(parts[3:], {"row", "out", "flip", "raw", "exps", "face"}, source, n, t)
            out.append(Statement(n, kind, (parts[0], parts[1], parts[2], opts), t))
        elif kind in ("pack", "argmax"):
            if len(parts) < (2 if kind == "pack" else 1):
                raise _err(f".{kind} NAME{' FORMAT' if kind == 'pack' else ''} [options]", source, n, t,
                           "tt.prog.syntax")
            allowed = {"row", "rows", "dst32", "type", "rounding", "tile"} if kind == "pack" else {"row", "rows"}
            k = 2 if kind == "pack" else 1
            out.append(Statement(n, kind, (*parts[:k], _options(parts[k:], allowed, source, n, t)), t))
        else:
            raise _err(f"unknown directive .{kind}; directives: .thread .config .array .unpack .pack .argmax",
                       source, n, t, "tt.prog.directive")
    return out


def check_inputs(statements: list[Statement], inputs: dict, source: str | None = None) -> dict[str, np.ndarray]:
    """The inputs as arrays, checked against the program: every name is one the program reads
    (``.array``, ``.unpack``, ``exps=``), holds real numbers, and has the shape its ``.array`` declares.

    Raises:
        ParseError: an input the program does not read (``tt.prog.input_name``).
        DtypeError: not an array of real numbers (``tt.prog.input_dtype``).
        GeometryError: a shape other than the declared one (``tt.prog.input_shape``).
    """
    declared = {s.args[0]: s for s in statements if s.kind == "array"}
    used = set(declared) | {s.args[1] for s in statements if s.kind == "unpack"} | \
        {s.args[3]["exps"] for s in statements if s.kind == "unpack" and "exps" in s.args[3]}
    where = dict(source=source, line=1, column=1)
    out = {}
    for name, value in inputs.items():
        if name not in used:
            raise ParseError(f"the program reads no array {name!r}; it reads: {', '.join(sorted(used)) or 'none'}",
                             instruction="input", operand=name, rule="tt.prog.input_name", value=name, **where)
        x = np.asarray(value)
        if x.dtype.kind not in "biuf":
            raise DtypeError(f"input {name!r} must hold real numbers (bool, int or float), not {x.dtype}",
                             instruction="input", operand=name, rule="tt.prog.input_dtype", value=str(x.dtype), **where)
        if name in declared and x.shape != declared[name].args[1].shape:
            d = declared[name]
            raise GeometryError(f"input {name!r} has shape {x.shape}; line {d.line} declares "
                                f"{'x'.join(map(str, d.args[1].shape))}", instruction="input", operand=name,
                                rule="tt.prog.input_shape", value=x.shape, source=source, line=d.line, column=1)
        out[name] = x
    return out


def run_program(statements: list[Statement], inputs: dict[str, np.ndarray], rounding: str = "hardware",
                source: str | None = None, on_trace=None, observe=None, trace: bool = False, jit: bool = True):
    """Run parsed statements on a fresh machine. Returns ``(machine, outputs)``; outputs in order.
    Inputs are checked first (:func:`check_inputs`). ``observe(statement, machine, thread, outputs)`` is
    called after each statement; ``trace=True`` returns ``(machine, Traced(outputs, steps))`` with the values
    each statement wrote (:mod:`tilesim.tensix.trace`)."""
    if trace:
        from ..inspect.steps import Traced
        from .trace import observer
        steps: list = []
        seen = observer(steps, source or "<text>")

        def both(*args) -> None:
            seen(*args)
            if observe is not None:
                observe(*args)
        m, outputs = run_program(statements, inputs, rounding, source, on_trace, both, jit=jit)
        return m, Traced(outputs, steps)
    arrays = check_inputs(statements, inputs, source)
    m = Machine(rounding, jit)
    outputs: dict[str, np.ndarray] = {}
    thread = 0
    count = 0
    where: list[Statement] = []   # the statement that trapped inside a prepared run
    for s in statements if on_trace is not None or observe is not None else _prepared_runs(statements):
        try:
            if s.kind == "prepared":
                s.args[0].run(m, thread, lambda i, e, run=s.args[1]: where.append(run[i]))
            elif s.kind == "insn":
                e = execute(m, s.args[0], thread, count, trace=on_trace is not None)
                count += 1
                if on_trace is not None:
                    on_trace(e)
            elif s.kind == "thread":
                thread = s.args[0]
            elif s.kind == "config":
                m.configure(thread, **{s.args[0]: s.args[1]})
            elif s.kind == "array":
                arrays.setdefault(s.args[0], s.args[1])
            elif s.kind == "unpack":
                target, name, fmt, o = s.args
                kw = dict(row=int(o.get("row", "0"), 0), flip=o.get("flip", "1") != "0", raw=o.get("raw", "0") == "1",
                          out=o.get("out"), thread=thread)
                if "exps" in o:
                    kw["exponents"] = _array(arrays, o["exps"], s, source)
                values = _array(arrays, name, s, source)
                if "face" in o:
                    values = face_of(values, int(o["face"], 0), name)
                m.unpack(target, values, fmt, **kw)
            elif s.kind == "pack":
                name, fmt, o = s.args
                tile = o.get("tile", "0") != "0"
                kw = dict(row=int(o.get("row", "0"), 0), rows=int(o.get("rows", "64" if tile else "16"), 0),
                          rounding=o.get("rounding", "1") != "0", thread=thread, dst_type=o.get("type"))
                if "dst32" in o:
                    kw["dst32"] = o["dst32"] != "0"
                p = m.pack(fmt, **kw)
                outputs[name], outputs[name + "_bits"] = (tile_of(p.values), tile_of(p.codes)) if tile else \
                    (p.values, p.codes)
            else:  # argmax
                name, o = s.args
                row, count = int(o.get("row", "0"), 0), int(o.get("rows", "1"), 0)
                if not (0 <= row and count >= 1 and row + count <= 512):
                    raise GeometryError(f"rows {row}..{row + count - 1} do not fit the 32-bit Dst rows 0..511 "
                                        "(rows >= 1)", instruction=".argmax", operand="row", rule="tt.argmax.rows",
                                        value=(row, count))
                hi = adj32(row + np.arange(count))
                outputs[name] = argmax_rows(m.dst[hi + 8]).astype(np.float64)
        except ParseError:
            raise
        except (TilesimError, ValueError) as e:
            s = where[0] if where else s
            if isinstance(e, TilesimError):
                raise e.at(source=source, line=s.line, column=1) from None
            raise _err(str(e), source, s.line, s.text, "tt.prog.value") from None
        if observe is not None:
            observe(s, m, thread, outputs)
    return m, outputs


def _prepared_runs(statements: list[Statement]):
    """The statements, each run of consecutive instructions as one ``prepared`` statement (its
    :class:`~.prepared.Prepared` program and the instruction statements)."""
    run: list[Statement] = []
    for s in [*statements, None]:
        if s is not None and s.kind == "insn":
            run.append(s)
            continue
        if run:
            yield Statement(run[0].line, "prepared", (Prepared([r.args[0] for r in run]), run), run[0].text)
            run = []
        if s is not None:
            yield s


def face_of(tile, face: int, name: str) -> np.ndarray:
    """Face ``face`` (0..3) of a 32x32 tile: tt-llk's faces are 16x16, row-major in the tile."""
    x = np.asarray(tile)
    if x.shape != (32, 32) or face not in range(4):
        raise GeometryError(f"face=F takes a 32x32 array and F in 0..3; got {x.shape} and {face}", instruction=".unpack",
                            operand=name, rule="tt.prog.face", value=face)
    r, c = divmod(face, 2)
    return x[16 * r:16 * r + 16, 16 * c:16 * c + 16]


def tile_of(rows: np.ndarray) -> np.ndarray:
    """A 32x32 tile from 64 Dst rows holding its four faces in order."""
    if rows.shape != (64, 16):
        raise GeometryError(f"tile=1 reads 64 rows of 16; got {rows.shape}", instruction=".pack", operand="rows",
                            rule="tt.prog.face", value=rows.shape[0])
    f = rows.reshape(2, 2, 16, 16)
    return np.concatenate([np.concatenate([f[r, 0], f[r, 1]], axis=1) for r in range(2)], axis=0)


def _array(arrays, name, s: Statement, source) -> np.ndarray:
    if name not in arrays:
        raise _err(f"no array {name!r}: give it with --input {name}=file.npy or .array", source, s.line, s.text,
                   "tt.prog.array", s.text.find(name) + 1)
    return arrays[name]


def value_table(title: str, values: np.ndarray, fmt: str = "{:g}") -> Table:
    """A rich table of a 2-D array of numbers."""
    v = np.atleast_2d(values)
    t = Table(title=title, show_header=True, header_style="bold")
    t.add_column("row", justify="right", style="dim")
    for j in range(v.shape[1]):
        t.add_column(str(j), justify="right")
    for i, row in enumerate(v):
        t.add_row(str(i), *(fmt.format(x) for x in row))
    return t


def run_file(path: Path, inputs: dict[str, np.ndarray], console, *, trace: bool = False,
             rounding_model: str | None = None) -> dict[str, np.ndarray]:
    """The ``tilesim run`` entry for ``.tt`` files: run, print every output, return them."""
    rounding = rounding_model or "hardware"
    if rounding not in ROUNDING_MODELS:
        raise TilesimError(f"unknown rounding model; valid: {', '.join(ROUNDING_MODELS)}", instruction="tilesim run",
                           operand="--rounding-model", rule="tt.rounding", value=rounding)
    path = Path(path)
    statements = parse_program(path.read_text(), source=str(path))

    def show(e: TraceEntry) -> None:
        console.print(str(e), markup=False, highlight=False)

    _, outputs = run_program(statements, inputs, rounding, str(path), show if trace else None)
    console.print(f"[bold]{path.name}[/]: {sum(s.kind == 'insn' for s in statements)} instructions, "
                  f"rounding model [cyan]{rounding}[/]")
    for name, v in outputs.items():
        if not name.endswith("_bits"):
            console.print(value_table(name, v))
    return outputs
