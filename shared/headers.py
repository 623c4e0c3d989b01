"""Header inference from table structure alone (no dataset annotations are ever read).

The model: a top band of `header_rows` column-header rows and a left band of `header_cols`
row-header columns; the rest is the data region. Cues, in order of use:

* **Top band** — leading rows that have text to the right of column 0 and hold no plain number
  there (year-like labels such as `2017` or `fy 2018` count as text). Title lines (content in
  column 0 only) and blank rows before or between such rows stay in the band without being levels;
  after the first level, a row whose only content sits in column 0 is a section label, not a column
  header, and ends the band. A table with no numeric row at all keeps one header row.
* **Units** — `unit_for` reads the unit of a cell from unit labels on its paths, unit rows and the
  caption (`celltrace.shared.units`).
* **Left band** — leading columns whose data-region cells are mostly text (years included), at
  least as wide as the empty top-left corner. A numeric first column (a rank, a player number, a
  count category) still is the row key: it and the text columns right after it form the band.
* **Parents** — merged areas span their children; blank header cells inherit the label to their
  left (upper header rows) or above (outer row-header columns) when a deeper level is filled;
  indented labels (leading spaces) hang under the nearest less-indented label above; section rows
  (a label whose data cells are all empty) head the rows below them until the next section row.

`HeaderModel` answers `is_header`, `col_path`, `row_path` and `path_text` for any node.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise

from celltrace.shared.graph import CellGraph, Node, normalise_text
from celltrace.shared.numbers import is_nil_text, is_number_text, is_year_text
from celltrace.shared.units import (
    CURRENCIES,
    PERIOD_UNITS,
    SCALE_UNITS,
    CaptionUnit,
    caption_unit,
    label_unit,
    label_unit_of_values,
    parse_unit,
)


def indent_of(text: str) -> int:
    """Leading spaces (a tab counts 4, a non-breaking space 1): the label's indentation level."""
    n = 0
    for ch in text:
        if ch == " " or ch == "\u00a0":
            n += 1
        elif ch == "\t":
            n += 4
        else:
            break
    return n


@dataclass
class HeaderModel:
    """Inferred header structure of one graph; all paths are lists of nodes, outermost first."""

    graph: CellGraph
    header_rows: int
    header_cols: int
    section_rows: frozenset[int] = frozenset()
    _row_parents: dict[int, list[Node]] = field(default_factory=dict, repr=False)
    _col_parents: dict[int, list[Node]] = field(default_factory=dict, repr=False)
    _unit_rows: dict[int, Node] = field(default_factory=dict, repr=False)
    _filled: dict[int, bool] = field(default_factory=dict, repr=False, compare=False)  # a memo

    # ---- classification -----------------------------------------------------------------------
    def is_header(self, node: Node) -> bool:
        """In the top band, in the left band, or a section-row label."""
        return (
            node.r0 < self.header_rows
            or node.c0 < self.header_cols
            or (node.r0 in self.section_rows and not node.empty)
        )

    def is_data(self, node: Node) -> bool:
        """A non-empty cell of the data region."""
        return not node.empty and not self.is_header(node)

    def data_nodes(self) -> list[Node]:
        return [n for n in self.graph.nodes if self.is_data(n)]

    def header_nodes(self) -> list[Node]:
        return [n for n in self.graph.nodes if not n.empty and self.is_header(n)]

    # ---- paths --------------------------------------------------------------------------------
    def col_path(self, node: Node) -> list[Node]:
        """Column-header nodes above `node` (for a column header: its ancestors), outermost first.

        For a row-header or data cell every column it covers contributes; blank upper header cells
        take the label to their left (unmerged spanning headers).
        """
        top = min(node.r0, self.header_rows) if node.r0 < self.header_rows else self.header_rows
        out: list[Node] = []
        seen: set[int] = set()
        for r in range(top):
            for c in node.cols:
                h = self._col_label(r, c)
                if h is not None and h.id not in seen and h.id != node.id:
                    seen.add(h.id)
                    out.append(h)
        return out

    def row_path(self, node: Node) -> list[Node]:
        """Row-header nodes qualifying `node`'s row, outermost first (parents included).

        For a data cell: the section/indent parents of its row, then the left-band labels of the
        row (merged labels spanning it, blank outer columns filled from above). For a row header:
        its parents only.
        """
        if node.r0 < self.header_rows:
            return []
        r = node.r0
        out: list[Node] = []
        seen: set[int] = set()

        def add(n: Node | None) -> None:
            if n is not None and not n.empty and n.id not in seen and n.id != node.id:
                seen.add(n.id)
                out.append(n)

        for p in self._row_parents.get(r, []):
            add(p)
        last = min(node.c0, self.header_cols) if node.c0 < self.header_cols else self.header_cols
        for c in range(last):
            add(self._row_label(r, c))
        return out

    def path_text(self, node: Node) -> str:
        """Readable header context, e.g. `year ended december 31 > 2017` for a column header.

        Header nodes: their ancestors then themselves. Data cells: `row path | column path`.
        """

        def join(nodes: list[Node]) -> str:
            return " > ".join(normalise_text(n.text) for n in nodes if n.text.strip())

        if self.is_header(node):
            path = self.col_path(node) if node.r0 < self.header_rows else self.row_path(node)
            return join([*path, node])
        rows, cols = join(self.row_path(node)), join(self.col_path(node))
        return f"{rows} | {cols}" if rows and cols else rows or cols

    def header_context(self, node: Node) -> list[Node]:
        """Row path + column path of a node (the headers that qualify a data cell)."""
        return [*self.row_path(node), *self.col_path(node)]

    # ---- units ---------------------------------------------------------------------------------
    def unit_for(self, node: Node) -> str | None:
        """The unit qualifying `node` (canonical, see `celltrace.shared.units`), or None.

        Innermost first: a unit label on the row path (a unit column or a `percent` row), on the
        column path (unit rows included), a unit row whose unit is written at the left of its
        group, then the caption (`Table.title`, e.g. `(in millions, except per share data)`, the
        full-width title lines at the top of the grid when they were selected with the table, or a
        unit in the corner above the row labels: `€ million`) unless
        the cell's labels name what the caption exempts (then the exemption's unit, if any:
        `CaptionUnit.exempt_unit`). A bare currency label (`$` over a change column) takes the
        caption's scale (`(in millions)` → `$ millions`).
        """
        rows, cols = _unit_labels(self.row_path(node)), _unit_labels(self.col_path(node))
        titles = self._title_lines()
        caption = (caption_unit(self.graph.table.title) or caption_unit("\n".join(n.text for n in titles))
                   or self._corner_unit())
        labels = [n.text for n in [*rows, *cols] if n not in titles]
        for label in [*reversed(rows), *reversed(cols)]:
            unit = label_unit_of_values(label.text)
            if unit in CURRENCIES.values() and caption is not None and caption.unit in SCALE_UNITS and (
                    caption.applies_to(labels)):
                return f"{unit} {caption.unit}"
            if unit is not None:
                return unit
        dated = any(is_year_text(n.text) for n in self.col_path(node))
        for r in range(min(node.r0, self.header_rows)):
            unit = self._unit_row_label(r, node.c0)
            if unit is not None and not (dated and unit in PERIOD_UNITS):
                return unit
        if caption is None:
            return None
        if not caption.applies_to(labels):
            return caption.exempt_unit
        return None if caption.leaves_out(labels) else caption.unit

    def _corner_unit(self) -> CaptionUnit | None:
        """The unit written in the corner above the row labels (`€ million` beside the dates), read
        like a caption's; a time unit there measures the row labels (`Age group (years)`, `Year`),
        not the figures."""
        corner = {self.graph.node_at(r, c).id: self.graph.node_at(r, c) for r in range(self.header_rows)
                  for c in range(self.header_cols)}
        return next((unit for n in corner.values() if not n.empty and (unit := caption_unit(n.text))
                     and unit.unit not in PERIOD_UNITS), None)

    def _title_lines(self) -> list[Node]:
        """The full-width rows that open the header band (title, unit line), top first."""
        lines: list[Node] = []
        for r in range(self.header_rows):
            if not _spans_row(self.graph, r):
                break
            lines.append(self.graph.node_at(r, 0))
        return lines

    def _unit_row_label(self, r: int, c: int) -> str | None:
        """In a band row of unit labels only, the unit written at or left of column `c`."""
        if c < self.header_cols:
            return None
        cells = (self.graph.node_at(r, cc) for cc in range(self.header_cols, self.graph.n_cols))
        units = {n.id: label_unit(n.text) for n in cells if not n.empty}
        if not units or None in units.values():
            return None
        for cc in range(c, self.header_cols - 1, -1):
            n = self.graph.node_at(r, cc)
            if not n.empty:
                return units[n.id]
        return None

    # ---- label lookup with fill -----------------------------------------------------------------
    def _col_label(self, r: int, c: int) -> Node | None:
        n = self.graph.node_at(r, c)
        if not n.empty:
            return n
        if c >= self.header_cols and r in self._unit_rows:
            return self._unit_rows[r]
        if r >= self.header_rows - 1 or c < self.header_cols:
            return None
        # blank upper header cell: inherit from an unmerged label to the left if the level below
        # (past blank rows of the band) is filled here
        level = next((rr for rr in range(r + 1, self.header_rows) if any(
            not self.graph.node_at(rr, cc).empty for cc in range(self.header_cols, self.graph.n_cols))), None)
        if level is None or self.graph.node_at(level, c).empty:
            return None
        for cc in range(c - 1, self.header_cols - 1, -1):
            left = self.graph.node_at(r, cc)
            if not left.empty:  # a merged label spans just its own columns (`Headcount` over B:D)
                merged = left.c1 > left.c0
                return left if not merged and not self.graph.node_at(level, cc).empty else None
        return None

    def _row_label(self, r: int, c: int) -> Node | None:
        n = self.graph.node_at(r, c)
        if not n.empty:
            return n
        if c >= self.header_cols - 1:
            return None
        # blank outer row-header cell: inherit from above if a deeper level is filled on this row
        deeper = [n for cc in range(c + 1, self.header_cols) if not (n := self.graph.node_at(r, cc)).empty]
        if not deeper:
            return None
        if self._filled_on_every_row(c) and any(_WHOLE_LINE.match(normalise_text(n.text)) for n in deeper):
            return None  # `(blank) | Total` below dated records: every record's total, not the last one's
        for rr in range(r - 1, self.header_rows - 1, -1):
            if rr in self.section_rows:
                return None
            up = self.graph.node_at(rr, c)
            if not up.empty:
                return None if self._past_merged_group(up, r) else up
        return None

    def _filled_on_every_row(self, c: int) -> bool:
        """Row-label column `c` holds a label of its own on every row of the data band but its total
        lines (a record's date or code, not a group label written once over its rows)."""
        filled = self._filled.get(c)
        if filled is None:
            rows = [r for r in range(self.header_rows, self.graph.n_rows) if r not in self.section_rows
                    and not any(_WHOLE_LINE.match(normalise_text(self.graph.node_at(r, cc).text))
                                for cc in range(c + 1, self.header_cols))]
            filled = self._filled[c] = len(rows) >= 3 and all(
                not self.graph.node_at(r, c).empty and self.graph.node_at(r, c).r0 == r for r in rows)
        return filled

    def _past_merged_group(self, up: Node, r: int) -> bool:
        """`All lines` below the merged `Commercial lines` (merged over its own rows only) is the
        whole table's total, not one of that group's: a total line under a merged group label that
        ends above it, not naming that group (`Total commercial lines` does)."""
        if not up.r0 < up.r1 < r:
            return False
        inner = next((self.graph.node_at(r, c) for c in range(self.header_cols - 1, up.c1, -1)
                      if not self.graph.node_at(r, c).empty), None)
        text = normalise_text(inner.text) if inner is not None else ""
        words = set(_WORDS.findall(text))
        return bool(_WHOLE_LINE.match(text)) and not set(_WORDS.findall(normalise_text(up.text))) <= words


def _kind(node: Node) -> str:
    if node.empty or is_nil_text(node.text):  # a dash in a figure's place (`—`) is no label
        return "empty"
    if is_number_text(node.text, years_as_labels=True):
        return "number"
    return "text"


def infer_headers(graph: CellGraph) -> HeaderModel:
    """Infer the header bands, section rows and row parents of `graph` from structure alone."""
    n_rows, n_cols = graph.n_rows, graph.n_cols
    if n_rows == 0 or n_cols == 0:
        return HeaderModel(graph, 0, 0)
    kinds = [[_kind(graph.node_at(r, c)) for c in range(n_cols)] for r in range(n_rows)]

    # top band
    has_number_row = any("number" in kinds[r][1:] for r in range(n_rows))
    header_rows = 0
    levels: list[int] = []  # band rows with labels right of column 0 (the header levels)
    if n_cols > 1 and has_number_row:
        for r in range(n_rows - 1):
            rest = kinds[r][1:]
            if "number" in rest:
                if not (levels and _counting_row(graph, kinds, r)):
                    break
                kinds[r] = ["text" if k == "number" else k for k in kinds[r]]
                levels.append(r)
                header_rows = r + 1
                continue
            if "text" not in rest:
                # a title/caption line or a blank row stays in the band when header rows follow;
                # after the header, a label in column 0 alone heads a section
                if (levels and kinds[r][0] != "empty") or not _header_row_follows(graph, kinds, r):
                    break
                continue
            # a full-width label below a real header row is a section heading; full-width rows at
            # the top (title, subtitle, unit line) belong to the band
            if _spans_row(graph, r) and not all(_spans_row(graph, k) for k in range(r)):
                break
            levels.append(r)
            header_rows = r + 1
        # a merged area that starts in the band and reaches below extends it (tall headers)
        for node in graph.nodes:
            if node.r0 < header_rows <= node.r1 and node.c0 > 0 and node.r1 < n_rows - 1:
                header_rows = node.r1 + 1
    elif n_rows > 1:
        header_rows = 1

    # left band
    corner = 0
    if levels:
        while corner < n_cols - 1 and all(graph.node_at(r, corner).empty for r in levels):
            corner += 1
    header_cols = _text_columns(kinds, header_rows, 0)
    if header_cols == 0 and n_cols > 1:  # a numeric key (rank, count) then the name columns
        header_cols = 1 + _text_columns(kinds, header_rows, 1)
    header_cols = max(header_cols, corner)
    if header_cols >= n_cols:
        header_cols = 1 if n_cols > 1 else 0

    # section rows: a left-band label whose data cells are all empty (or one label merged across the
    # whole row), or a row of unit labels alone (`percent` over the rows below it, the left band
    # blank), with data rows below it
    sections: list[int] = []
    for r in range(header_rows, n_rows):
        left = [kinds[r][c] for c in range(header_cols)]
        right = [kinds[r][c] for c in range(header_cols, n_cols)]
        spans = header_cols > 0 and _spans_row(graph, r)
        units = header_cols > 0 and "text" not in left and _units_only(graph, r, header_cols)
        if r + 1 < n_rows and (("text" in left and all(k == "empty" for k in right)) or spans or units):
            sections.append(r)

    model = HeaderModel(graph, header_rows, header_cols, frozenset(sections))
    model._row_parents = _row_parents(graph, model, sections)
    model._unit_rows = _unit_rows(graph, model)
    return model


_COLUMN_NUMBER = re.compile(r"\d{1,3}")


def _counting_row(graph: CellGraph, kinds: list[list[str]], r: int) -> bool:
    """Row `r` numbers the columns under a label merged over them (`Development months` over `12 |
    24 | 36 …`): at least three whole numbers right of column 0, rising by one step, with numbers
    below them."""
    cols = [c for c in range(1, graph.n_cols) if kinds[r][c] != "empty"]
    texts = [graph.node_at(r, c).text.strip() for c in cols]
    if len(cols) < 3 or not all(_COLUMN_NUMBER.fullmatch(t) for t in texts) or r + 1 >= graph.n_rows:
        return False
    values = [int(t) for t in texts]
    steps = {b - a for a, b in pairwise(values)}
    over = {graph.node_at(r - 1, c).id for c in cols} if r else set()
    merged = any(graph.node(i).c1 > graph.node(i).c0 and not graph.node(i).empty for i in over)
    return len(steps) == 1 and min(steps) > 0 and merged and "number" in kinds[r + 1][1:]


def _header_row_follows(graph: CellGraph, kinds: list[list[str]], r: int) -> bool:
    """After row `r`, past blank and column-0-only lines, comes a row of labels (no numbers)."""
    for k in range(r + 1, len(kinds) - 1):
        rest = kinds[k][1:]
        if "number" in rest:
            return False
        if "text" in rest:
            return not (_spans_row(graph, k) and not all(_spans_row(graph, j) for j in range(k)))
    return False


def _text_columns(kinds: list[list[str]], header_rows: int, start: int) -> int:
    """How many consecutive columns from `start` have mostly text data cells (the last column,
    which must hold data, excluded)."""
    n = 0
    for c in range(start, len(kinds[0]) - 1):
        col = [row[c] for row in kinds[header_rows:] if row[c] != "empty"]
        if not col or col.count("number") * 2 >= len(col):
            break
        n += 1
    return n


def _spans_row(graph: CellGraph, r: int) -> bool:
    """Row `r` is one label merged from column 0 across the whole table (a section heading)."""
    first = graph.node_at(r, 0)
    return not first.empty and first.c1 == graph.n_cols - 1 and first.r0 == first.r1 == r


def _units_only(graph: CellGraph, r: int, first: int) -> bool:
    """Row `r` holds labels from column `first` on, and all name one unit (`percent`): a row naming
    several (`number`, `percent`) qualifies columns, not the rows below it."""
    cells = (graph.node_at(r, c) for c in range(first, graph.n_cols))
    units = {parse_unit(n.text) for n in cells if not n.empty}
    return len(units) == 1 and None not in units


def _unit_rows(graph: CellGraph, model: HeaderModel) -> dict[int, Node]:
    """Header rows whose only label sits over the first data column (`percent` then blanks).

    Such a label names the unit of every data column (it is a spanning header written once); a
    label merged over some of them (`Headcount` over B:D, not over `FTE`) spans just those.
    """
    out: dict[int, Node] = {}
    if graph.n_cols - model.header_cols < 2:
        return out
    for r in range(model.header_rows):
        cells = {graph.node_at(r, c).id: graph.node_at(r, c) for c in range(model.header_cols, graph.n_cols)}
        labels = [n for n in cells.values() if not n.empty]
        if len(labels) == 1 and labels[0].c0 == model.header_cols and len(cells) > 1 and (
                labels[0].c1 in (labels[0].c0, graph.n_cols - 1)):
            out[r] = labels[0]
    return out


def _outer_sections(labels: list[Node]) -> set[int]:
    """Section labels over repeated blocks: where the same section labels recur (`age group`,
    `sexual orientation` under `currently sexually active`, again under `more than one partner`),
    a label that does not recur and is followed by one that does heads a block, one level up."""
    recurs = _recurring(labels)
    return {n.id for i, n in enumerate(labels) if not recurs[i] and any(recurs[i + 1:])}


def _block_heads(labels: list[Node]) -> set[int]:
    """Rows heading repeated blocks: where the same run of row labels (two or more) follows each of
    several rows whose labels do not recur (`management occupations`, … under `total population`,
    again under `females` and `males`), those rows head their runs."""
    recurs = _recurring(labels)
    starts = [i for i in range(len(labels) - 2) if not recurs[i] and recurs[i + 1] and recurs[i + 2]]
    if len(starts) < 2:
        return set()
    runs = {tuple(normalise_text(n.text) for n in labels[i + 1 : j])
            for i, j in zip(starts, [*starts[1:], len(labels)], strict=True)}
    return {labels[i].id for i in starts} if len(runs) == 1 else set()


def _recurring(labels: list[Node]) -> list[bool]:
    counts = Counter(normalise_text(n.text) for n in labels)
    return [counts[normalise_text(n.text)] > 1 for n in labels]


_WHOLE_LINE = re.compile(r"^(?:all|total|grand\s+total|overall)\b")
_WORDS = re.compile(r"[^\W_]+")
_ANY_TOTAL = re.compile(r"\b(?:sub)?totals?\b")
"""A total line however worded (`Americas total`)."""
_TOTAL_LINE = re.compile(r"^(?:sub)?totals?\b")
"""A `Total …` line sums the rows above it, however deep it is indented (statements often indent
totals further than their items)."""


def _row_parents(graph: CellGraph, model: HeaderModel, sections: list[int]) -> dict[int, list[Node]]:
    """Per data-band row, the parent labels of its innermost row label, outermost first.

    A stack of (indent, label, is_section): a section label replaces labels at its indentation or
    deeper; a plain label pops the plain labels at its indentation or deeper (an unindented table's
    section therefore scopes every row up to the next section row) and, at a section's own
    indentation, a section whose first row was indented under it (`Current assets:`, its indented
    items, then `Total assets` back at the left is not one of them; `Toronto` then `Total` and its
    items at the left, some with indented parts, keeps them all). A row less indented than the
    first row under a section ends it (`Atlantic provinces`, its provinces indented four spaces, then
    `  Quebec` at two), unless it is a total (`  Americas total` under `Americas`). A `Total …` label is never
    under a plain label (`_TOTAL_LINE`); a section over repeated blocks (`_outer_sections`) and a
    row heading a repeated run of rows (`_block_heads`) sit one level further out; such a head stays
    under the sections around it, and the next section row ends its block.
    """
    out: dict[int, list[Node]] = {}
    stack: list[tuple[int, Node, bool]] = []
    indented: set[int] = set()  # sections whose rows sit deeper than their own label
    seen: set[int] = set()  # sections a row has followed (`Toronto` then `Total` at its indentation)
    depth: dict[int, int] = {}  # a section's first row's indentation: a row less indented ends it
    label_col = model.header_cols - 1
    labels = {r: next(graph.node_at(r, c) for c in range(graph.n_cols) if not graph.node_at(r, c).empty)
              for r in sections}
    outer = _outer_sections([labels[r] for r in sorted(labels)])
    plain = [graph.node_at(r, label_col) for r in range(model.header_rows, graph.n_rows)
             if r not in sections] if label_col >= 0 else []
    heads = _block_heads(list({n.id: n for n in plain if not n.empty}.values()))
    for r in range(model.header_rows, graph.n_rows):
        if r in sections:
            label = labels[r]
            ind = indent_of(label.text) - (label.id in outer)
            stack = [e for e in stack if e[0] < ind and e[1].id not in heads]  # a section ends a block
            out[r] = [n for _, n, _ in stack]
            stack.append((ind, label, True))
            continue
        lab = graph.node_at(r, label_col) if label_col >= 0 else None
        if lab is None or lab.empty or lab.r0 != r:
            out[r] = [n for _, n, is_section in stack if is_section]
            continue
        if lab.id in heads:  # one level further out than its block, inside the sections around it
            ind = indent_of(lab.text)
            stack = [e for e in stack if e[0] < ind - 1 or (e[2] and e[1].id not in heads and e[0] <= ind)]
            out[r] = [n for _, n, _ in stack]
            stack.append((ind - 1, lab, True))
            continue
        ind = indent_of(lab.text)
        closing = _TOTAL_LINE.match(normalise_text(lab.text)) is not None
        totals = _ANY_TOTAL.search(normalise_text(lab.text)) is not None
        stack = [e for e in stack if (e[0] < ind and (e[2] or not closing)
                                      and (totals or depth.get(e[1].id, ind) <= ind))
                 or (e[2] and e[0] == ind and e[1].id not in indented)]
        indented.update(n.id for i, n, is_section in stack if is_section and i < ind and n.id not in seen)
        seen.update(n.id for _, n, is_section in stack if is_section)  # the first row says which
        if stack and stack[-1][2]:
            depth.setdefault(stack[-1][1].id, ind)
        out[r] = [n for _, n, _ in stack]
        closed = _closed_section(lab.text, stack) if closing else None
        if closed is not None:  # `Total current assets` ends `Current assets`: `Total assets` is not in it
            stack = stack[:closed]
            continue
        stack.append((ind, lab, False))
    return out


def _closed_section(total: str, stack: list[tuple[int, Node, bool]]) -> int | None:
    """The stack position of the section a `Total …` line names whole (`Total current assets` →
    `Current assets:`), or None."""
    named = _TOTAL_LINE.sub("", normalise_text(total)).strip(" :,-")
    return next((i for i, (_, n, is_section) in enumerate(stack)
                 if is_section and named and normalise_text(n.text).strip(" :") == named), None)


def _unit_labels(path: list[Node]) -> list[Node]:
    """The labels of a header path that may state its values' unit: a time unit over period labels
    (`Year` over `2022 | 2023`) names the periods, not what is counted."""
    if not any(is_year_text(n.text) for n in path):
        return path
    return [n for n in path if label_unit_of_values(n.text) not in PERIOD_UNITS]
