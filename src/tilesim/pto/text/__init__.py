"""PTO program text: the parser (lark grammar) and the interpreter."""

from .parser import Func, Operand, Program, Shape, Stmt, TypeRef, parse

__all__ = ["parse", "Program", "Func", "Stmt", "Operand", "TypeRef", "Shape"]
