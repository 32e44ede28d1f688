"""The command line's core behaviour: how errors print, ``--debug``, flags that take ``0``/``1``, checked paths.

:class:`Group` is the ``tilesim`` command group. Every command runs inside it,
so a command body only raises :class:`~tilesim.errors.TilesimError`:

- the error prints as one line (``error: prog.s:3:9: MMACC.T: operand K: ...``)
  and, for text input, the source line with a caret under the column; the exit
  status is 2. ``tilesim --debug CMD`` re-raises it for the traceback.
- any other exception is a bug in tilesim: one line that says so (exit status 3),
  never a traceback unless ``--debug`` (docs/decisions.md E6).
- a boolean flag also takes ``0`` or ``1`` after it (``--saturate 1``,
  ``--sat=0``); any other integer after a flag is a usage error rather than a
  stray argument (E5). ``--help`` and ``--version`` are such flags too:
  ``--version 0`` is off.
- a usage error (an unknown option, a missing argument, a value of the wrong
  type) is one line too, ``error: tilesim gemm: rule cli.usage: ...``, exit
  status 2 (E13).
- while a command runs, a line of progress goes to stderr at intervals when
  stderr is a log, not a terminal (:mod:`tilesim.progress`, E15).
- a negative number is a value, not an option: ``tilesim quantize -3.5 -f
  int4`` (E13).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from .errors import TilesimError
from .progress import reporting

__all__ = ["Group", "report", "output_path", "err_console"]

err_console = Console(stderr=True, highlight=False, soft_wrap=True)
_INT = re.compile(r"[+-]?\d+$")
_NEGATIVE = re.compile(r"-(\d|\.\d|inf|nan)", re.IGNORECASE)  # a negative number, never an option name
UsageError = typer.BadParameter.__mro__[1]  # click's (or typer's own click's) UsageError
_CLICK_ENDS = (typer.Exit, typer.Abort, UsageError.__mro__[1])  # exits, aborts and ClickExceptions pass through


def report(err: TilesimError, console: Console = err_console) -> None:
    """Print ``err`` as one line, plus the source line and a caret when it comes from a text file."""
    console.print(f"[bold red]error:[/] {escape(str(err))}", soft_wrap=True)
    text = _source_line(err)
    if text is not None:
        gutter = f"{err.line} | "
        console.print(escape(gutter + text), soft_wrap=True)
        caret = " " * (len(gutter) - 2) + "| " + " " * (max(err.column or 1, 1) - 1) + "^"
        console.print(f"[bold red]{caret}[/]", soft_wrap=True)


def _source_line(err: TilesimError) -> str | None:
    """The line ``err`` points at, tabs expanded to one space so the caret lines up; None without a file."""
    if not err.source or err.line is None or not os.path.isfile(err.source):
        return None
    try:
        lines = Path(err.source).read_text(errors="replace").splitlines()
    except OSError:
        return None
    if not 1 <= err.line <= len(lines):
        return None
    return lines[err.line - 1].replace("\t", " ")


def output_path(path: Path | None) -> Path | None:
    """Typer callback: an output file's folder must exist and be writable before the run starts."""
    if path is None:
        return None
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise typer.BadParameter(f"{str(path)!r} is a folder; give a file name")
    if not folder.is_dir():
        raise typer.BadParameter(f"folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise typer.BadParameter(f"cannot write to {str(path)!r} (permission denied)")
    return path


def _bool_flags(params) -> dict:
    return {o: p for p in params if getattr(p, "is_flag", False) and getattr(p, "is_bool_flag", False)
            for o in p.opts}


def _fold_flag_values(cmd, args: list[str], ctx=None, leading: bool = False) -> list[str]:
    """``--flag 1`` -> ``--flag``; ``--flag 0`` / ``--flag=0`` -> its off switch, or nothing when it has none.

    ``--help`` is such a flag (``--help 0`` is no help). ``leading``: only the options before the first
    other word (a group's own options, before the command's name).
    """
    params = list(cmd.params)
    if ctx is not None and cmd.get_help_option(ctx) is not None:
        params.append(cmd.get_help_option(ctx))
    flags = _bool_flags(params)
    out, i = [], 0
    while i < len(args):
        a = args[i]
        if a == "--" or leading and not a.startswith("-"):
            out += args[i:]
            break
        name, eq, val = a.partition("=")
        if name in flags and (eq or (i + 1 < len(args) and _INT.match(args[i + 1]))):
            if not eq:
                val, i = args[i + 1], i + 1
            if val not in ("0", "1"):
                raise UsageError(f"{name} is a flag: give it alone, or followed by 0 or 1 (not {val!r})", ctx)
            if val == "1":
                out.append(name)
            elif flags[name].secondary_opts:  # --x 0 is --no-x (or --dst32 0 is --dst16)
                out.append(flags[name].secondary_opts[0])
            elif flags[name].default and not getattr(flags[name], "is_eager", False):
                raise UsageError(f"{name} is on by default and has no off switch", ctx)
        else:
            out.append(a)
        i += 1
    return out


def _negatives_as_values(cmd, args: list[str]) -> list[str]:
    """Arguments that are negative numbers (``-3.5``) are values: move every argument after a ``--``.

    Options keep their order, and an option's own value (``--seed -1``) stays with it.
    """
    options = [p for p in cmd.params if getattr(p, "param_type_name", "") == "option"]
    takes_value = {o for p in options if not p.is_flag and not p.count for o in p.opts}
    opts, values, i = [], [], 0
    while i < len(args):
        a = args[i]
        if a == "--":
            values += args[i + 1:]
            break
        if a in takes_value:
            opts += args[i:i + 2]
            i += 2
            continue
        (opts if a.startswith("-") and a != "-" and not _NEGATIVE.match(a) else values).append(a)
        i += 1
    if not any(_NEGATIVE.match(v) for v in values):
        return args
    return opts + ["--"] + values


def _usage_line(e, command: str) -> str:
    """A click usage error as one line: the command, the rule, what is wrong, where the choices are listed."""
    ctx = getattr(e, "ctx", None)
    path = ctx.command_path if ctx is not None and ctx.parent is not None else command
    return f"{path}: rule cli.usage: {e.format_message()} (see {path} --help)"


class Group(TyperGroup):
    """The ``tilesim`` group: folds ``--flag 0/1`` and turns every error into a short message."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        self._command = prog_name or "tilesim"  # the command a usage error names: the group, or the one resolved
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except UsageError as e:
            if type(e).__name__ == "NoArgsIsHelpError":  # bare ``tilesim``: typer printed the help already
                sys.exit(2)
            err_console.print(f"[bold red]error:[/] {escape(_usage_line(e, self._command))}", soft_wrap=True)
            sys.exit(e.exit_code)
        except _CLICK_ENDS[2] as e:  # any other click error (a file it could not open)
            err_console.print(f"[bold red]error:[/] {escape(e.format_message())}", soft_wrap=True)
            sys.exit(e.exit_code)
        except typer.Abort:
            err_console.print("aborted", soft_wrap=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, _fold_flag_values(self, list(args), ctx, leading=True))

    def resolve_command(self, ctx, args):
        name, cmd, rest = super().resolve_command(ctx, args)
        if cmd is None:
            return name, cmd, rest
        self._command = f"{ctx.command_path} {name}"
        return name, cmd, _negatives_as_values(cmd, _fold_flag_values(cmd, rest, ctx))

    def invoke(self, ctx):
        name = " ".join([ctx.command_path, *getattr(ctx, "_protected_args", [])[:1]])
        try:
            with reporting(name):  # a line of progress on stderr at intervals, when it is a log (E15)
                return super().invoke(ctx)
        except _CLICK_ENDS:
            raise
        except TilesimError as e:
            if ctx.params.get("debug"):
                raise
            report(e)
            raise typer.Exit(2) from None
        except OSError as e:  # the file system said no (a full disk, a file vanished): not a bug
            if ctx.params.get("debug"):
                raise
            err_console.print(f"[bold red]error:[/] {escape(str(e))}", soft_wrap=True)
            raise typer.Exit(2) from None
        except Exception as e:
            if ctx.params.get("debug"):
                raise
            err_console.print(f"[bold red]internal error:[/] {type(e).__name__}: {escape(str(e))}\n"
                              "This is a bug in tilesim; rerun with --debug for the traceback and report it.",
                              soft_wrap=True)
            raise typer.Exit(3) from None
