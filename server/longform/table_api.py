"""The table API of generated programs (the sandbox prelude; program-facing docs: TABLE_API.md).

The server builds a JSON payload with `reasoner.table_payload` (grid text and raw values, merged
areas, inferred header bands and every non-empty cell's header paths). In the sandbox child this
module is imported before lockdown, its `__all__` names are injected into the program's namespace,
and the child calls `sandbox_call(solve, payload)`, which builds a `TableView` and calls the
program, then `sandbox_export(result)`, which exports the result as `{"value", "cells"}` (the
program's exceptions are reported by the sandbox itself, with the program's frames).

Evidence without extra work for the program: a `Cell` is a `str` that knows its coordinates, a
`Number` is a `float` that remembers the cells it was computed from (arithmetic, `sum`, `max`,
`round(x, n)` keep that), and a `Record` is a row. Whatever of these the return value contains, plus
anything passed to `cite()`, becomes the program's `cells`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from celltrace.server.longform.faithfulness import number_spans
from celltrace.shared.graph import normalise_text
from celltrace.shared.numbers import parse_number

__all__ = [
    "Cell",
    "Number",
    "Record",
    "TableView",
    "cite",
    "numbers_in",
    "to_number",
]

PATH_SEP = " > "
MAX_EXPORT_DEPTH = 32


# ---- program side: values that carry their cells -----------------------------------------------
class Cell(str):
    """A cell's displayed text (a `str`) with its place: anchor `r`, `c` (0-based grid), `r1`, `c1`
    (last row/column of a merged area), `value` (raw), `is_header`, `row_path`, `col_path`."""

    r: int
    c: int
    r1: int
    c1: int
    value: Any
    is_header: bool
    row_path: list[str]
    col_path: list[str]

    def __new__(cls, text: str, r: int, c: int, r1: int, c1: int, value: Any = None) -> Cell:
        obj = super().__new__(cls, text)
        obj.r, obj.c, obj.r1, obj.c1, obj.value = r, c, r1, c1, value
        obj.is_header, obj.row_path, obj.col_path = False, [], []
        return obj

    @property
    def text(self) -> str:
        return str.__str__(self)

    @property
    def number(self) -> Number | None:
        """`to_number(self)`."""
        return to_number(self)

    @property
    def path(self) -> str:
        """Header context, `row path | column path` (e.g. `Walmart | Revenue ($ Million)`)."""
        rows, cols = PATH_SEP.join(self.row_path), PATH_SEP.join(self.col_path)
        return f"{rows} | {cols}" if rows and cols else rows or cols


class Number(float):
    """A float that remembers the cells (and Numbers) it was computed from."""

    __slots__ = ("_src",)
    _src: tuple[Any, ...]

    def __new__(cls, value: float, src: Iterable[Any] = ()) -> Number:
        obj = super().__new__(cls, value)
        obj._src = tuple(src)
        return obj

    def __neg__(self) -> Number:
        return Number(-float(self), (self,))

    def __pos__(self) -> Number:
        return self

    def __abs__(self) -> Number:
        return Number(abs(float(self)), (self,))

    def __round__(self, ndigits: int | None = None) -> Any:  # type: ignore[override]  # round(x) is an int
        if ndigits is None:
            return round(float(self))
        return Number(round(float(self), ndigits), (self,))


def _arith(name: str) -> Any:
    base = getattr(float, name)

    def op(self: Number, other: Any) -> Any:
        result = base(self, other)
        if isinstance(result, float):
            return Number(result, (self, other) if isinstance(other, Number) else (self,))
        return result

    op.__name__ = name
    return op


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow"):
    for _form in (f"__{_name}__", f"__r{_name}__"):
        setattr(Number, _form, _arith(_form))


class Record(dict[str, Any]):
    """One data row: column label → `Cell` (merged cells filled in). Lookup is forgiving: exact
    label, then case/space-insensitive, then the last header level, then a unique substring;
    an int is a grid column index. Attributes: `row` (grid row), `label` (row header path), `cells`."""

    row: int
    label: str
    cells: list[Cell]

    def __getitem__(self, key: Any) -> Cell:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        keys = list(self.keys())
        if isinstance(key, int) and not isinstance(key, bool):
            cells = list(self.values())
            if -len(cells) <= key < len(cells):
                return cells[key]
            raise KeyError(f"column index {key} outside 0..{len(cells) - 1}")
        i = _match_label(str(key), keys)
        if i is None:
            raise KeyError(f"no column matches {key!r}; columns: {keys}")
        return dict.__getitem__(self, keys[i])

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default


def _match_label(query: str, labels: list[str]) -> int | None:
    """Index of the label `query` names (rules in `Record`); None when nothing matches."""
    q = normalise_text(query)
    if not q:
        return None
    norm = [normalise_text(label) for label in labels]
    for i, n in enumerate(norm):
        if n == q:
            return i
    for i, n in enumerate(norm):
        if n.rsplit(PATH_SEP.strip(), 1)[-1].strip() == q:
            return i
    hits = [i for i, n in enumerate(norm) if q in n]
    return min(hits, key=lambda i: len(norm[i])) if hits else None


class TableView:
    """The table a program receives (see TABLE_API.md)."""

    def __init__(self, payload: dict[str, Any]) -> None:
        self.title: str = payload.get("title") or ""
        self.grid: list[list[str]] = payload["text"]
        self.values: list[list[Any]] = payload["values"]
        self.n_rows = len(self.grid)
        self.n_cols = len(self.grid[0]) if self.grid else 0
        self.merges: list[tuple[int, int, int, int]] = [(m[0], m[1], m[2], m[3]) for m in payload["merges"]]
        self.header_rows: int = payload["header_rows"]
        self.header_cols: int = payload["header_cols"]
        self.section_rows: list[int] = payload["section_rows"]
        self.columns: list[str] = payload["columns"]
        self._row_labels: list[list[str]] = payload["row_labels"]
        self._span: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        for m in self.merges:
            for rr in range(m[0], m[2] + 1):
                for cc in range(m[1], m[3] + 1):
                    self._span[(rr, cc)] = m
        self._paths = {(r, c): (rp, cp, h) for r, c, rp, cp, h in payload["nodes"]}
        self._cells: dict[tuple[int, int], Cell] = {}
        sections = set(self.section_rows)
        self.data_rows: list[int] = [
            r for r in range(self.header_rows, self.n_rows)
            if r not in sections and any(self.grid[r][c].strip() for c in range(self.n_cols))
        ]

    # ---- cells ------------------------------------------------------------------------------------
    def cell(self, r: int, c: int) -> Cell:
        """The cell covering grid position (r, c) (a merged area's anchor cell)."""
        if not (0 <= r < self.n_rows and 0 <= c < self.n_cols):
            raise IndexError(f"cell ({r}, {c}) is outside the {self.n_rows}x{self.n_cols} table")
        r0, c0, r1, c1 = self._span.get((r, c), (r, c, r, c))
        cell = self._cells.get((r0, c0))
        if cell is None:  # built on first use: one Cell object per cell or merged area
            cell = Cell(self.grid[r0][c0], r0, c0, r1, c1, self.values[r0][c0])
            cell.row_path, cell.col_path, cell.is_header = self._paths.get((r0, c0), ([], [], False))
            self._cells[(r0, c0)] = cell
        return cell

    def find(self, text: str) -> list[Cell]:
        """Cells whose text equals `text` (case and spacing ignored), row by row."""
        q = normalise_text(str(text))
        return self._matching(lambda t: q and t == q)

    def search(self, text: str) -> list[Cell]:
        """Cells whose text contains `text` (case and spacing ignored), row by row."""
        q = normalise_text(str(text))
        return self._matching(lambda t: q and q in t)

    def _matching(self, test: Any) -> list[Cell]:
        """Non-empty cells (anchors) whose normalised text passes `test`, row by row."""
        return [
            self.cell(r, c)
            for r in range(self.n_rows)
            for c in range(self.n_cols)
            if self.grid[r][c].strip() and self._span.get((r, c), (r, c))[:2] == (r, c)
            and test(normalise_text(self.grid[r][c]))
        ]

    # ---- rows and columns -------------------------------------------------------------------------
    def record(self, r: int) -> Record:
        """Grid row `r` as a `Record`."""
        rec = Record()
        for c, label in enumerate(self.columns):
            rec[label] = self.cell(r, c)
        rec.row = r
        rec.label = PATH_SEP.join(self._row_labels[r]) if 0 <= r < len(self._row_labels) else ""
        rec.cells = _distinct(rec.values())
        return rec

    def records(self) -> list[Record]:
        """Every data row (below the header rows, section label rows and blank rows skipped)."""
        return [self.record(r) for r in self.data_rows]

    def col_index(self, label: str | int) -> int:
        """The grid column a header label names (rules in `Record`); KeyError listing the columns."""
        if isinstance(label, int):
            return label
        i = _match_label(label, self.columns)
        if i is None:
            raise KeyError(f"no column matches {label!r}; columns: {self.columns}")
        return i

    def column(self, label: str | int) -> list[Cell]:
        """The column's cells in the data rows."""
        c = self.col_index(label)
        return [self.cell(r, c) for r in self.data_rows]

    def row_index(self, label: str | int) -> int:
        """The data row named by `label`: its row header, else a cell of the row equal to it, else
        a row header or cell containing it (first match); KeyError when none."""
        if isinstance(label, int):
            return label
        q = normalise_text(label)
        labels = {r: [normalise_text(x) for x in self._row_labels[r]] for r in self.data_rows}
        texts = {r: [normalise_text(self.grid[r][c]) for c in range(self.n_cols)] for r in self.data_rows}
        for test in (
            lambda r: q in labels[r] or normalise_text(PATH_SEP.join(self._row_labels[r])) == q,
            lambda r: q in texts[r],
            lambda r: any(q in x for x in labels[r]),
            lambda r: any(q in x for x in texts[r]),
        ):
            for r in self.data_rows:
                if q and test(r):
                    return r
        raise KeyError(f"no row matches {label!r}")

    def row(self, label: str | int) -> Record:
        """`record(row_index(label))`."""
        return self.record(self.row_index(label))

    def lookup(self, row_label: str | int, col_label: str | int) -> Cell:
        """The cell where the row named `row_label` meets the column named `col_label`."""
        return self.cell(self.row_index(row_label), self.col_index(col_label))

    # ---- the dict form of the TaPERA paper's Figure 4 ------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        """`table["title"]`, `table["header"]` (= columns) and `table["rows"]` (data rows as lists)."""
        if key == "title":
            return self.title
        if key == "header":
            return list(self.columns)
        if key == "rows":
            return [[self.cell(r, c) for c in range(self.n_cols)] for r in self.data_rows]
        raise KeyError(f"{key!r}: the table has keys 'title', 'header' and 'rows'; see TABLE_API.md")


def _distinct(cells: Iterable[Cell]) -> list[Cell]:
    out: list[Cell] = []
    seen: set[tuple[int, int]] = set()
    for cell in cells:
        if (cell.r, cell.c) not in seen:
            seen.add((cell.r, cell.c))
            out.append(cell)
    return out


# ---- helpers ------------------------------------------------------------------------------------
def to_number(x: Any, default: Any = None) -> Any:
    """A `Number` from a cell, text or number (`"(7.8)"` → -7.8, `"$5,813"` → 5813, `"24.5%"` → 24.5);
    `default` when it is not exactly one number. A cell's displayed text wins over its raw value."""
    if isinstance(x, Number):
        return x
    if isinstance(x, bool) or x is None:
        return default
    if isinstance(x, int | float):
        return Number(x)
    if isinstance(x, Cell):
        value = parse_number(str(x))
        if value is None and isinstance(x.value, int | float) and not isinstance(x.value, bool):
            value = float(x.value)
        return default if value is None else Number(value, (x,))
    if isinstance(x, str):
        value = parse_number(x)
        return default if value is None else Number(value)
    return default


def numbers_in(text: Any) -> list[Number]:
    """Every number written in `text` (`"Ut , 57 - 23"` → [57, 23]), as Numbers tied to the cell."""
    src = (text,) if isinstance(text, Cell) else ()
    return [Number(value, src) for _, value in number_spans(str(text))]


_CITED: list[Any] = []


def cite(*items: Any) -> None:
    """Mark cells (or Records, Numbers, lists of them) as evidence of the answer."""
    _CITED.extend(items)


def _collect(item: Any, cells: set[tuple[int, int]], depth: int = 0) -> None:
    """Add the cells behind `item` (iterative over Number provenance)."""
    stack = [(item, depth)]
    seen: set[int] = set()
    while stack:
        x, d = stack.pop()
        if id(x) in seen or d > MAX_EXPORT_DEPTH:
            continue
        seen.add(id(x))
        if isinstance(x, Cell):
            if x.strip():
                cells.add((x.r, x.c))
        elif isinstance(x, Number):
            stack.extend((s, d) for s in x._src)
        elif isinstance(x, Record):
            stack.extend((c, d + 1) for c in x.cells)
        elif isinstance(x, dict):
            stack.extend((v, d + 1) for v in x.values())
        elif isinstance(x, list | tuple | set | frozenset):
            stack.extend((v, d + 1) for v in x)


def _export(x: Any, depth: int = 0) -> Any:
    """Plain JSON-able value: Cell → text, Number → int/float, Record → {label: text}."""
    if depth > MAX_EXPORT_DEPTH:
        raise ValueError("return value nested too deeply")
    if isinstance(x, Cell):
        return x.text
    if isinstance(x, Number):
        v = float(x)
        return int(v) if v.is_integer() and abs(v) < 1e15 else v
    if isinstance(x, TableView):
        raise ValueError("return the answer, not the table")
    if isinstance(x, Record):
        return {k: v.text for k, v in x.items()}
    if isinstance(x, dict):
        return {str(_export(k, depth + 1)): _export(v, depth + 1) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_export(v, depth + 1) for v in x]
    if isinstance(x, set | frozenset):
        return sorted((_export(v, depth + 1) for v in x), key=str)
    return x


def sandbox_call(function: Any, payload: dict[str, Any]) -> Any:
    """Call the program's `function(TableView(payload))` (the sandbox child calls this)."""
    table = TableView(payload)
    _CITED.clear()
    return function(table)


def sandbox_export(result: Any) -> dict[str, Any]:
    """The program's result as `{"value": <JSON>, "cells": [[r, c], ...]}` (cells behind it and cited)."""
    cells: set[tuple[int, int]] = set()
    _collect(result, cells)
    _collect(_CITED, cells)
    return {"value": _export(result), "cells": [list(rc) for rc in sorted(cells)]}
