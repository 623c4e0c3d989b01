"""What a generated program may say and what it can name: the portable isolation layer.

A program is parsed and checked against an AST allow-list (`check_program`) before it is compiled:
no attribute whose name starts with `_` or reaches frames, code or generators (`gi_frame`,
`f_globals`, `tb_frame`, ...), no name starting with `__`, no `globals`/`vars`/`open`/`exec`/
`eval`/`compile`/..., `getattr`/`hasattr` only called with a literal public name and `type` only
with one argument, no `async`, `with` or `match`, no class keywords (metaclasses),
and imports only of `ALLOWED_MODULES`. Annotations are dropped (nothing evaluates strings later)
and `x.format(...)`/`x.format_map(...)` go through a formatter without attribute lookups.

It then runs with `safe_builtins()` as its builtins: pure-computation builtins only, and an
`__import__` that hands out read-only proxies exposing a fixed list of each module's public
functions and classes (never a module object, so `datetime.sys` does not exist). Together these
mean a program can only compute over the values it is given: it cannot name the interpreter, the
file system, the process or the result channel. Standard library only: the sandbox child loads this
file by path before it locks itself down, on every operating system.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import string
import types
from collections.abc import Callable, Mapping
from typing import Any

FORMAT = "__ct_format__"
"""Name of the safe `str.format` helper the rewritten programs call."""

_PUBLIC = None
"""Marker in ALLOWED_MODULES: the module's public, non-module names (its `__all__` when it has one)."""

ALLOWED_MODULES: dict[str, tuple[str, ...] | None] = {
    "math": _PUBLIC,
    "cmath": _PUBLIC,
    "statistics": _PUBLIC,
    "re": _PUBLIC,
    "datetime": _PUBLIC,
    "decimal": ("Decimal", "ROUND_HALF_UP", "ROUND_HALF_EVEN", "ROUND_DOWN", "ROUND_UP",
                "ROUND_FLOOR", "ROUND_CEILING", "InvalidOperation", "getcontext", "localcontext"),
    "fractions": ("Fraction",),
    "itertools": _PUBLIC,
    "functools": ("reduce", "partial", "cmp_to_key", "lru_cache", "cache"),
    "collections": ("Counter", "OrderedDict", "defaultdict", "deque", "ChainMap"),
    "operator": ("add", "sub", "mul", "truediv", "floordiv", "mod", "neg", "abs", "eq", "ne", "lt",
                 "le", "gt", "ge", "itemgetter"),
    "json": ("dumps", "loads", "JSONDecodeError"),
    "typing": ("Any", "Dict", "List", "Optional", "Set", "Tuple", "Union", "Iterable", "Sequence",
               "Mapping", "Callable", "Iterator", "FrozenSet"),
    "string": ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "punctuation",
               "whitespace", "capwords"),
    "unicodedata": ("normalize", "category", "name", "numeric", "decimal", "digit"),
}
"""Modules a program may import, with the names it sees (anything else: ImportError)."""

BUILTIN_NAMES = [
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "classmethod",
    "complex", "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash",
    "hex", "id", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min",
    "next", "object", "oct", "ord", "pow", "print", "property", "range", "repr", "reversed",
    "round", "set", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "zip",
    "True", "False", "None", "Ellipsis", "NotImplemented"
]
"""Builtins a program sees, besides the exception classes (and `__build_class__` for classes)."""

FORBIDDEN_CALLS = frozenset(
    [
        "setattr", "delattr", "globals", "locals", "vars", "dir", "open", "exec", "eval", "compile",
        "breakpoint", "input", "help", "memoryview", "exit", "quit", "copyright", "credits",
        "license", "bytearray"
    ]
)
CALL_ONLY = {"getattr": (2, 3), "hasattr": (2, 2), "type": (1, 1)}
"""Builtins allowed only as a direct call of this many positional arguments; for getattr/hasattr
the name must be a string literal that passes the attribute rules (`getattr(cell, "number", None)`)."""
_FRAME_PREFIXES = ("gi_", "cr_", "ag_", "f_", "tb_", "co_")
_REWRITTEN_ATTRS = frozenset({"format", "format_map"})
_CLASS_DUNDERS = frozenset(
    f"__{n}__" for n in (
        [
            "init", "repr", "str", "eq", "ne", "lt", "le", "gt", "ge", "hash", "len", "iter",
            "next", "contains", "getitem", "setitem", "bool", "add", "sub", "mul", "truediv",
            "floordiv", "mod", "pow", "neg", "abs", "radd", "rsub", "rmul", "rtruediv", "iadd",
            "isub", "float", "int", "round"
        ]
    )
)
_NODES: tuple[type[ast.AST], ...] = (
    ast.Module, ast.Expr, ast.FunctionDef, ast.Lambda, ast.ClassDef, ast.Return, ast.Delete,
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.If, ast.Raise, ast.Try,
    ast.Assert, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Pass, ast.Break,
    ast.Continue, ast.BoolOp, ast.NamedExpr, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Dict, ast.Set,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Yield, ast.YieldFrom,
    ast.Compare, ast.Call, ast.FormattedValue, ast.JoinedStr, ast.Constant, ast.Attribute,
    ast.Subscript, ast.Starred, ast.Name, ast.List, ast.Tuple, ast.Slice, ast.comprehension,
    ast.ExceptHandler, ast.arguments, ast.arg, ast.keyword, ast.alias,
    ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop,
)


class ProgramRejected(ValueError):
    """The program uses something outside the allowed subset; the message names it and its line."""


def _reject(node: ast.AST, what: str) -> ProgramRejected:
    line = getattr(node, "lineno", None)
    where = f" (line {line})" if line else ""
    return ProgramRejected(f"not allowed in table programs: {what}{where}")


def _check_name(node: ast.AST, name: str | None, kind: str) -> None:
    if name and name.startswith("__"):
        raise _reject(node, f"{kind} {name!r} (names starting with '__')")


def _allowed_attribute(name: str) -> bool:
    return not name.startswith("_") and not name.startswith(_FRAME_PREFIXES)


def _plain_calls(tree: ast.Module) -> set[int]:
    """ids of the Name nodes of CALL_ONLY builtins that are called in an allowed form."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALL_ONLY:
            low, high = CALL_ONLY[node.func.id]
            shape = low <= len(node.args) <= high and not node.keywords
            shape = shape and not any(isinstance(a, ast.Starred) for a in node.args)
            if shape and node.func.id != "type":
                name = node.args[1]
                text = name.value if isinstance(name, ast.Constant) else None
                shape = isinstance(text, str) and _allowed_attribute(text)
            if shape:
                out.add(id(node.func))
    return out


def _check(tree: ast.Module) -> None:
    """Raise ProgramRejected at the first node outside the allow-list."""
    class_bodies = {id(s) for n in ast.walk(tree) if isinstance(n, ast.ClassDef) for s in n.body}
    plain_calls = _plain_calls(tree)
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise _reject(node, f"`{type(node).__name__}` statements or expressions")
        if isinstance(node, ast.Name):
            _check_name(node, node.id, "name")
            if node.id in FORBIDDEN_CALLS:
                raise _reject(node, f"`{node.id}`")
            if node.id in CALL_ONLY and id(node) not in plain_calls:
                raise _reject(node, f"`{node.id}` other than as {node.id}(…) with a literal, public name")
        elif isinstance(node, ast.Attribute):
            if not _allowed_attribute(node.attr):
                raise _reject(node, f"attribute `.{node.attr}`")
        elif isinstance(node, ast.FunctionDef):
            if not (id(node) in class_bodies and node.name in _CLASS_DUNDERS):
                _check_name(node, node.name, "function")
        elif isinstance(node, ast.ClassDef):
            _check_name(node, node.name, "class")
            if node.keywords:
                raise _reject(node, "class keywords (metaclass)")
        elif isinstance(node, ast.arg):
            _check_name(node, node.arg, "argument")
        elif isinstance(node, ast.ExceptHandler):
            _check_name(node, node.name, "name")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                _check_module(node, alias.name)
                _check_name(node, alias.asname, "name")
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                raise _reject(node, "relative imports")
            _check_module(node, node.module)
            for alias in node.names:
                if alias.name == "*" or alias.name.startswith("_"):
                    raise _reject(node, f"`from {node.module} import {alias.name}`")
                _check_name(node, alias.asname, "name")


def _check_module(node: ast.AST, name: str) -> None:
    if name not in ALLOWED_MODULES:
        allowed = ", ".join(sorted(ALLOWED_MODULES))
        raise _reject(node, f"import of {name!r} (allowed modules: {allowed})")


class _Rewrite(ast.NodeTransformer):
    """Drop annotations; route `x.format`/`x.format_map` through the safe formatter."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.returns = None
        return self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.annotation = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is None:
            return ast.copy_location(ast.Pass(), node)
        return self.visit(ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node))

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if node.attr in _REWRITTEN_ATTRS and isinstance(node.ctx, ast.Load):
            helper = ast.Name(id=FORMAT, ctx=ast.Load())
            call = ast.Call(func=helper, args=[node.value, ast.Constant(node.attr)], keywords=[])
            return ast.copy_location(call, node)
        return node


def check_program(source: str, filename: str = "<generated>") -> ast.Module:
    """The checked and rewritten module of `source`; ProgramRejected or SyntaxError otherwise."""
    try:
        tree = ast.parse(source, filename)
    except (RecursionError, MemoryError) as exc:
        raise ProgramRejected("not allowed in table programs: nesting too deep") from exc
    _check(tree)
    return ast.fix_missing_locations(_Rewrite().visit(tree))


def compile_program(source: str, filename: str = "<generated>") -> types.CodeType:
    """`check_program` then `compile`."""
    return compile(check_program(source, filename), filename, "exec", dont_inherit=True)


# ---- what a checked program sees ----------------------------------------------------------------
class _FieldFormatter(string.Formatter):
    """`str.format` without attribute lookups in replacement fields (`{0.__class__}`)."""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        if "." in field_name:
            raise ValueError("attribute lookups in format fields are not allowed in table programs")
        return super().get_field(field_name, args, kwargs)


_FORMATTER = _FieldFormatter()


def _safe_format(obj: Any, attr: str) -> Callable[..., str]:
    """`obj.format` / `obj.format_map` for a str (or `str.format` itself), via `_FieldFormatter`."""
    if obj is str:
        if attr == "format":
            return lambda template, *a, **k: _FORMATTER.vformat(str(template), a, k)
        return lambda template, mapping: _FORMATTER.vformat(str(template), (), mapping)
    if isinstance(obj, str):
        if attr == "format":
            return lambda *a, **k: _FORMATTER.vformat(str.__str__(obj), a, k)
        return lambda mapping: _FORMATTER.vformat(str.__str__(obj), (), mapping)
    raise AttributeError(f"{type(obj).__name__!r} object has no attribute {attr!r} in table programs")


def _proxy(name: str, members: Mapping[str, Any]) -> Any:
    """A read-only stand-in for module `name` exposing only `members`."""

    class Module:
        __slots__ = ()

        def __getattr__(self, attr: str) -> Any:
            try:
                return members[attr]
            except KeyError:
                raise AttributeError(f"module {name!r} has no attribute {attr!r} in table programs") from None

        def __setattr__(self, attr: str, value: Any) -> None:
            raise AttributeError(f"module {name!r} is read-only in table programs")

        __delattr__ = __setattr__  # type: ignore[assignment]  # the same refusal

        def __repr__(self) -> str:
            return f"<module {name!r}>"

    Module.__name__ = Module.__qualname__ = "module"
    return Module()


def _members(name: str, wanted: tuple[str, ...] | None) -> dict[str, Any]:
    module = importlib.import_module(name)
    names = wanted or getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    return {n: getattr(module, n) for n in names
            if hasattr(module, n) and not isinstance(getattr(module, n), types.ModuleType)}


def safe_builtins() -> dict[str, Any]:
    """The builtins of a checked program (imports every allowed module now, before lockdown)."""
    proxies = {name: _proxy(name, _members(name, wanted)) for name, wanted in ALLOWED_MODULES.items()}

    def safe_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                    level: int = 0) -> Any:
        if level or name not in proxies:
            raise ImportError(f"module {name!r} is not available in table programs "
                              f"(allowed: {', '.join(sorted(proxies))})")
        return proxies[name]

    names = {n: getattr(builtins, n) for n in (*BUILTIN_NAMES, *CALL_ONLY)}
    errors = {n: v for n, v in vars(builtins).items()
              if isinstance(v, type) and issubclass(v, BaseException) and not n.startswith("_")}
    return {**errors, **names, "__build_class__": builtins.__build_class__, "__import__": safe_import,
            FORMAT: _safe_format}
