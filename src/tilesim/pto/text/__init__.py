"""PTO program text: the parser (lark grammar), type reading, and the interpreter."""

from .interp import GlobalPtr, Interpreter, PartView, Scalar, TensorView, run_file, run_text
from .parser import Func, Operand, Program, Shape, Stmt, TypeRef, parse

__all__ = ["parse", "run_file", "run_text", "Interpreter", "Program", "Func", "Stmt", "Operand", "TypeRef", "Shape",
           "Scalar", "GlobalPtr", "TensorView", "PartView"]
