"""PTO program text: the parser (lark grammar), type reading, and the interpreter."""

from .interp import Interpreter, run_file, run_text
from .values import Global, PartView, Ptr, Scalar, TensorView
from .parser import Func, Operand, Program, Shape, Stmt, TypeRef, parse

__all__ = ["parse", "run_file", "run_text", "Interpreter", "Program", "Func", "Stmt", "Operand", "TypeRef", "Shape",
           "Scalar", "Global", "Ptr", "TensorView", "PartView"]
