"""The cell graph (GraphOTTER §3.2): one node per cell, one node per merged area.

Two nodes are adjacent iff their row sets intersect (`same_row`) or their column sets intersect
(`same_column`); when both hold (possible with merged areas) the relation is `same_row`. The edge
set is quadratic in row/column length, so it is never materialised: adjacency goes through row and
column incidence lists (each node is listed under every row and column it covers), which keeps
memory O(cells). Node ids are row-major by anchor (top-left cell), so they are deterministic.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import Any, Literal

from celltrace.shared.a1 import col_letter
from celltrace.shared.bulk import gc_paused
from celltrace.shared.lru import WeightedLru
from celltrace.shared.table import Table

Relation = Literal["same_row", "same_column"]

GRAPH_CACHE_CELLS = 1_000_000
"""Grid cells of the graphs `graph_of` keeps (least recently used dropped first)."""


@dataclass(frozen=True, slots=True)
class Node:
    """A cell or merged area. `rows`/`cols` are the (contiguous) index sets it covers."""

    id: int
    r0: int
    c0: int
    r1: int
    c1: int
    text: str
    value: Any
    address: str = ""
    """Sheet A1 address (`D7`, `B1:C1` for a merged area); empty for nodes built outside a graph."""

    @property
    def rows(self) -> range:
        return range(self.r0, self.r1 + 1)

    @property
    def cols(self) -> range:
        return range(self.c0, self.c1 + 1)

    @property
    def empty(self) -> bool:
        return self.value is None and not self.text.strip()

    @property
    def merged(self) -> bool:
        return self.r1 > self.r0 or self.c1 > self.c0

    def covers(self, r: int, c: int) -> bool:
        return self.r0 <= r <= self.r1 and self.c0 <= c <= self.c1


def _node_factory() -> Callable[[int, int, int, int, int, str, Any, str], Node]:
    """`Node(...)` for the graph build at half the cost: a frozen dataclass's `__init__` goes
    through `object.__setattr__` per field; this sets the slots directly (same object, still frozen)."""
    setters = (getattr(Node, f.name).__set__ for f in fields(Node))
    s_id, s_r0, s_c0, s_r1, s_c1, s_text, s_value, s_address = setters
    new = object.__new__

    def make(nid: int, r0: int, c0: int, r1: int, c1: int, text: str, value: Any, address: str) -> Node:
        node = new(Node)
        s_id(node, nid), s_r0(node, r0), s_c0(node, c0), s_r1(node, r1), s_c1(node, c1)
        s_text(node, text), s_value(node, value), s_address(node, address)
        return node

    return make


def normalise_text(text: str) -> str:
    """Matching key: NFKC, case-folded, whitespace collapsed, footnote numbers in superscript off
    (`2023¹` is `2023`, not `20231`; `m²` keeps its power). Never used for display."""
    if text.isascii():  # NFKC leaves ASCII unchanged and casefold is lower (the common case: fast)
        return " ".join(text.lower().split())
    text = _SUPERSCRIPT_MARK.sub("", text)
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


_SUPERSCRIPT_MARK = re.compile(r"(?<=\w)(?<!m)(?<!ft)(?<!in)(?<!mi)[⁰¹²³⁴⁵⁶⁷⁸⁹]+|(?<=\w)[⁰¹⁴⁵⁶⁷⁸⁹]+")
"""Superscript digits after a word: a footnote's number, unless a power of a length (`km²`, `ft³`)."""


_WORDS = re.compile(r"\w[\w'&-]*")


def words(text: str) -> list[str]:
    """The words of `normalise_text(text)`, punctuation around them dropped (`Total, 16 years` →
    `total`, `16`, `years`); inner apostrophes, ampersands and hyphens kept (`r&d`, `non-hate`)."""
    return _WORDS.findall(normalise_text(text))


def phrase_spans(text: str, phrase: str) -> list[tuple[int, int]]:
    r"""Where `phrase` occurs in `text` as whole words (no word character either side): the spans
    of `re.finditer(rf"(?<!\w){re.escape(phrase)}(?!\w)", text)`, without compiling a pattern per
    label (a sheet of 3,000 labels overflowed the regex cache)."""
    spans: list[tuple[int, int]] = []
    if not phrase:
        return spans
    start = text.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        if not (start and _word_char(text[start - 1])) and not (end < len(text) and _word_char(text[end])):
            spans.append((start, end))
            start = text.find(phrase, end)
        else:
            start = text.find(phrase, start + 1)
    return spans


def _word_char(ch: str) -> bool:
    r"""A regex `\w` character."""
    return ch.isalnum() or ch == "_"


def _span(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def render_node(node: Node, max_chars: int | None = None) -> str:
    """The one prompt rendering of a node: its sheet address and quoted text, `D7 '55'`,
    `B1:C1 'year ended ...'`; a node without an address as `(3, 0, 'total')`, `(0-1, 2, '...')`."""
    text = node.text
    if max_chars is not None and len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    if node.address:
        return f"{node.address} {text!r}"
    return f"({_span(node.r0, node.r1)}, {_span(node.c0, node.c1)}, {text!r})"


class CellGraph:
    """Cell graph over a `Table` with O(cells) incidence indexes and ordered neighbour queries."""

    def __init__(self, table: Table) -> None:
        self.table = table
        n_rows, n_cols = table.n_rows, table.n_cols
        self.n_rows, self.n_cols = n_rows, n_cols
        grid = array("l", [-1]) * (n_rows * n_cols)
        merge_at = {(m[0], m[1]): m for m in table.merges}
        values = table.values or []
        top, left = table.origin.top_left if table.origin else (1, 1)
        letters = [col_letter(left + c) for c in range(n_cols)]
        nodes: list[Node] = []
        append, new_node = nodes.append, _node_factory()
        with gc_paused():  # one object per cell, none freed (see `celltrace.shared.bulk`)
            for r in range(n_rows):
                base = r * n_cols
                row_number = str(top + r)
                text_row, value_row = table.text[r], values[r]
                for c in range(n_cols):
                    if grid[base + c] != -1:
                        continue
                    nid = len(nodes)
                    m = merge_at.get((r, c)) if merge_at else None
                    if m is None:
                        append(new_node(nid, r, c, r, c, text_row[c], value_row[c], letters[c] + row_number))
                        grid[base + c] = nid
                        continue
                    r1, c1 = m[2], m[3]
                    append(Node(nid, r, c, r1, c1, text_row[c], value_row[c], table.address(r, c, r1, c1)))
                    for rr in range(r, r1 + 1):
                        for cc in range(c, c1 + 1):
                            grid[rr * n_cols + cc] = nid
        self.nodes = nodes
        self._grid = grid
        self._text_index: dict[str, list[int]] | None = None

    # ---- lookup -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.nodes)

    def node(self, node_id: int) -> Node:
        return self.nodes[node_id]

    def node_at(self, r: int, c: int) -> Node:
        """The node covering grid position (r, c); IndexError when outside the table."""
        if not (0 <= r < self.n_rows and 0 <= c < self.n_cols):
            raise IndexError(f"({r}, {c}) is outside the {self.n_rows}x{self.n_cols} table")
        return self.nodes[self._grid[r * self.n_cols + c]]

    def find_text(self, text: str) -> list[Node]:
        """Nodes whose normalised text equals `text` normalised, in id order."""
        if self._text_index is None:
            index: dict[str, list[int]] = {}
            for n in self.nodes:
                if n.text.strip():
                    index.setdefault(normalise_text(n.text), []).append(n.id)
            self._text_index = index
        return [self.nodes[i] for i in self._text_index.get(normalise_text(text), [])]

    # ---- incidence ----------------------------------------------------------------------------
    def row_nodes(self, r: int) -> list[Node]:
        """Distinct nodes covering row r, left to right."""
        base = r * self.n_cols
        return self._distinct(self._grid[base + c] for c in range(self.n_cols))

    def col_nodes(self, c: int) -> list[Node]:
        """Distinct nodes covering column c, top to bottom."""
        return self._distinct(self._grid[r * self.n_cols + c] for r in range(self.n_rows))

    def _distinct(self, ids: Iterator[int]) -> list[Node]:
        seen: set[int] = set()
        out = []
        for i in ids:
            if i not in seen:
                seen.add(i)
                out.append(self.nodes[i])
        return out

    # ---- adjacency ----------------------------------------------------------------------------
    @staticmethod
    def relation(a: Node, b: Node) -> Relation | None:
        """`same_row` if the row sets intersect, else `same_column` if the column sets do."""
        if a.id == b.id:
            return None
        if a.r0 <= b.r1 and b.r0 <= a.r1:
            return "same_row"
        if a.c0 <= b.c1 and b.c0 <= a.c1:
            return "same_column"
        return None

    def neighbours(self, node: Node) -> tuple[list[Node], list[Node]]:
        """All neighbours split by relation, each list in id (row-major) order."""
        row_ids: set[int] = set()
        for r in node.rows:
            base = r * self.n_cols
            row_ids.update(self._grid[base + c] for c in range(self.n_cols))
        col_ids: set[int] = set()
        for c in node.cols:
            col_ids.update(self._grid[r * self.n_cols + c] for r in range(self.n_rows))
        row_ids.discard(node.id)
        col_ids -= row_ids
        col_ids.discard(node.id)
        return [self.nodes[i] for i in sorted(row_ids)], [self.nodes[i] for i in sorted(col_ids)]

    def shared_neighbours(self, a: Node, b: Node) -> list[Node]:
        """Nodes adjacent to both a and b (true graph semantics), in id order.

        For two cells in different rows and columns these are the corner cells plus any merged
        area spanning both (the "common header" signal). When a and b share a row or column, the
        rest of that row/column is included too, because every node in it is adjacent to both.
        """
        if a.id == b.id:
            return []
        na, ca = self.neighbours(a)
        nb, cb = self.neighbours(b)
        ids_b = {n.id for n in nb} | {n.id for n in cb}
        out = {n.id for n in na if n.id in ids_b} | {n.id for n in ca if n.id in ids_b}
        out.discard(a.id)
        out.discard(b.id)
        return [self.nodes[i] for i in sorted(out)]

    def edges(self, limit: int | None = None) -> Iterator[tuple[int, int, Relation]]:
        """Edges (a < b, relation), ordered by a then b; stops after `limit` edges."""
        count = 0
        for node in self.nodes:
            same_row, same_col = self.neighbours(node)
            later = [(n.id, "same_row") for n in same_row if n.id > node.id]
            later += [(n.id, "same_column") for n in same_col if n.id > node.id]
            for other, rel in sorted(later):
                if limit is not None and count >= limit:
                    return
                count += 1
                yield node.id, other, rel  # type: ignore[misc]

    def edge_counts(self) -> dict[Relation, int]:
        """Edges per relation in O(nodes + rows + cols), without enumerating pairs.

        Distinct nodes never overlap, so no pair shares both a row and a column: `same_row` pairs
        are the pairs whose row spans intersect, `same_column` those whose column spans do.
        """
        return {
            "same_row": self._intersecting_pairs([(n.r0, n.r1) for n in self.nodes], self.n_rows),
            "same_column": self._intersecting_pairs([(n.c0, n.c1) for n in self.nodes], self.n_cols),
        }

    @staticmethod
    def _intersecting_pairs(spans: list[tuple[int, int]], size: int) -> int:
        """Unordered pairs of closed integer intervals in [0, size) that intersect."""
        starting_at_or_after = [0] * (size + 1)
        for lo, _ in spans:
            starting_at_or_after[lo] += 1
        for i in range(size - 1, -1, -1):
            starting_at_or_after[i] += starting_at_or_after[i + 1]
        disjoint = sum(starting_at_or_after[hi + 1] for _, hi in spans)
        n = len(spans)
        return n * (n - 1) // 2 - disjoint

    def edge_count(self) -> int:
        """Number of edges (see `edge_counts`)."""
        return sum(self.edge_counts().values())

    def area_address(self, node: Node) -> str:
        return self.table.address(node.r0, node.c0, node.r1, node.c1)


_graphs: WeightedLru[CellGraph] = WeightedLru(GRAPH_CACHE_CELLS, lambda g: g.n_rows * g.n_cols)


def graph_of(table: Table) -> CellGraph:
    """The cell graph of `table`, built once per table content and origin (the origin decides sheet
    addresses) and shared: table detection, the engine and the graph output of one request reuse it.

    Bounded LRU of at most `GRAPH_CACHE_CELLS` grid cells (a larger table is built, not kept).
    Graphs are read-only, so threads may share them.
    """
    return _graphs.get_or_build((table.content_hash(), table.origin), lambda: CellGraph(table))
