"""The action registry and node-reference resolution for the reasoning loop (paper Table 1).

Canonical names are the paper's; the official code's aliases (`SearchNode`, `Answer`), the US
spelling `Neighbors` and any case/underscore variant map onto them. A node reference from the model
may be a sheet address as the prompts show nodes (`D7`, `B1:C1`, `'Sheet 1'!D7`, optionally
followed by the quoted text, `D7 '55'`), a `(row, col, 'text')` tuple or list, a string holding
one, span strings such as `"0-1"`, a list of indices (set-valued Rid/Cid), a `{"row", "col",
"text"}` or `{"address"}` object, or bare cell text.
Positions resolve by ANY cell a node covers; when the text given does not match the cell at the
position, the text wins (nearest node with that text). Nothing here raises on model input: a
failed resolution carries a message and candidates for the observation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from celltrace.server.infra.jsonparse import ParseError, parse_loose
from celltrace.server.infra.prompting import cell, format_arg, node_list
from celltrace.shared.a1 import col_number
from celltrace.shared.graph import CellGraph, Node, normalise_text
from celltrace.shared.numbers import parse_number

VISIT, ALL_NEIGHBOURS, SHARED_NEIGHBOURS, ANSWER = (
    "VisitNode",
    "GetAllNeighbours",
    "GetSharedNeighbours",
    "AnswerQuestion",
)
CANONICAL: tuple[str, ...] = (VISIT, ALL_NEIGHBOURS, SHARED_NEIGHBOURS, ANSWER)
ARITY = {VISIT: 1, ALL_NEIGHBOURS: 1, SHARED_NEIGHBOURS: 2, ANSWER: 0}
_ALIASES = {
    "visitnode": VISIT,
    "searchnode": VISIT,
    "getallneighbours": ALL_NEIGHBOURS,
    "getallneighbors": ALL_NEIGHBOURS,
    "getsharedneighbours": SHARED_NEIGHBOURS,
    "getsharedneighbors": SHARED_NEIGHBOURS,
    "answerquestion": ANSWER,
    "answer": ANSWER,
}
_SPAN = re.compile(r"^\s*(\d+)\s*(?:[-–:]\s*(\d+))?\s*$")
_TUPLE = re.compile(
    r"^\(\s*(\d+(?:\s*-\s*\d+)?)\s*,\s*(\d+(?:\s*-\s*\d+)?)\s*(?:,\s*(.*?))?\s*,?\s*\)$", re.DOTALL
)
"""The `render_node` form, whose spans (`0-2`) are not Python literals: `(0-2, 1, 'text')`."""
_A1 = re.compile(
    r"""^(?:(?:'[^']*'|[^'!\s]+)!)?\$?([A-Z]{1,3})\$?([1-9]\d{0,6})"""
    r"""(?::\$?([A-Z]{1,3})\$?([1-9]\d{0,6}))?(?:\s*[:=,]?\s*(['"].*))?$""",
    re.DOTALL,
)
"""A sheet address as prompts name nodes, optionally followed by the node's quoted text."""
CANDIDATES = 5
"""How many candidates a failed resolution lists."""


def canonical_action(name: str) -> str | None:
    """The canonical action for `name` (aliases, case and separators ignored), else None."""
    return _ALIASES.get(re.sub(r"[^a-z]", "", str(name).casefold()))


@dataclass(frozen=True)
class NodeRef:
    """A parsed reference: an optional position (inclusive spans) and optional text."""

    rows: tuple[int, int] | None
    cols: tuple[int, int] | None
    text: str | None
    verbatim: bool = False
    """True when `text` is the whole argument string that also parsed as a bare position
    (`"( 1,151 )"` may be accounting text): a cell holding exactly that text wins over the position."""

    @property
    def has_position(self) -> bool:
        return self.rows is not None and self.cols is not None


@dataclass
class Resolution:
    """A resolved node, or None with the reason and candidates; `note` reports a reconciliation."""

    node: Node | None
    note: str = ""
    candidates: list[Node] = field(default_factory=list)

    def failure(self, arg: Any, limit: int) -> str:
        """The observation for a failed resolution."""
        found = node_list(self.candidates, limit) if self.candidates else "none"
        return f"node not found for {arg!r}: {self.note}; candidates: {found}"


def parse_ref(arg: Any, top_left: tuple[int, int] = (1, 1)) -> NodeRef:
    """Parse any accepted reference form; unparseable input becomes a text-only reference.

    Sheet addresses are made table-relative with `top_left`, the table's first sheet row and column.
    """
    if isinstance(arg, str):
        stripped = arg.strip()
        address = _address(stripped, top_left)
        if address is not None:
            return address
        m = _TUPLE.match(stripped)
        if m is not None:
            if m.group(3) is None:
                return NodeRef(_span(m.group(1)), _span(m.group(2)), stripped, verbatim=True)
            return _ref(m.group(1), m.group(2), _unquote(m.group(3)))
        if stripped[:1] in "([{":
            try:
                parsed = parse_loose(stripped)
            except ParseError:
                parsed = None
            if isinstance(parsed, list | dict):
                ref = parse_ref(parsed, top_left)
                if ref.has_position:
                    return ref if ref.text is not None else NodeRef(ref.rows, ref.cols, stripped, True)
        return NodeRef(None, None, stripped)
    if isinstance(arg, dict):
        low = {str(k).casefold(): v for k, v in arg.items()}
        row = next((low[k] for k in ("row", "rid", "r", "row_index") if k in low), None)
        col = next((low[k] for k in ("col", "column", "cid", "c", "column_index") if k in low), None)
        text = next((low[k] for k in ("text", "content", "value", "cell", "cell_content") if k in low), None)
        name = next((low[k] for k in ("address", "node", "name") if k in low), None)
        if row is None and col is None and isinstance(name, str):
            ref = parse_ref(name, top_left)
            return ref if text is None or not ref.has_position else NodeRef(ref.rows, ref.cols, str(text))
        return _ref(row, col, text)
    if isinstance(arg, list | tuple):
        head = _address(arg[0], top_left) if arg and isinstance(arg[0], str) else None
        if head is not None and head.has_position:
            text = str(arg[1]) if len(arg) > 1 and arg[1] is not None else head.text
            return NodeRef(head.rows, head.cols, text, verbatim=head.verbatim and len(arg) == 1)
        if len(arg) >= 2 and _span(arg[0]) and _span(arg[1]):
            return _ref(arg[0], arg[1], arg[2] if len(arg) > 2 else None)
        if len(arg) == 1:
            return parse_ref(arg[0], top_left)
        return NodeRef(None, None, " ".join(str(a) for a in arg))
    return NodeRef(None, None, None if arg is None else str(arg))


def _address(text: str, top_left: tuple[int, int]) -> NodeRef | None:
    """`D7`, `B1:C1`, `'Sheet'!D7 '55'` → table-relative position (and text); else None.

    An address alone is `verbatim`: a cell holding exactly that text (`Q1`) wins over the position.
    """
    m = _A1.match(text.strip())
    if m is None:
        return None
    top, left = top_left
    r0, c0 = int(m.group(2)) - top, col_number(m.group(1)) - left
    r1 = int(m.group(4)) - top if m.group(4) else r0
    c1 = col_number(m.group(3)) - left if m.group(3) else c0
    rows, cols = (min(r0, r1), max(r0, r1)), (min(c0, c1), max(c0, c1))
    if m.group(5) is None:
        return NodeRef(rows, cols, text.strip(), verbatim=True)
    return NodeRef(rows, cols, _unquote(m.group(5)))


def _unquote(text: str) -> str:
    try:
        value = parse_loose(text)
    except ParseError:
        return text
    return value if isinstance(value, str) else text


def _ref(row: Any, col: Any, text: Any) -> NodeRef:
    return NodeRef(_span(row), _span(col), None if text is None else str(text))


def _span(value: Any) -> tuple[int, int] | None:
    """`3`, `"3"`, `"0-1"`, `[0, 1, 2]` → inclusive (lo, hi); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (value, value)
    if isinstance(value, float) and value.is_integer():
        return (int(value), int(value))
    if isinstance(value, str):
        m = _SPAN.match(value)
        if m:
            lo = int(m.group(1))
            return (lo, int(m.group(2)) if m.group(2) else lo)
        return None
    if isinstance(value, list | tuple) and value and all(_span(v) for v in value):
        spans = [_span(v) for v in value]
        return (min(s[0] for s in spans if s), max(s[1] for s in spans if s))
    return None


def normalise_args(name: str, args: list[Any]) -> list[Any]:
    """Regroup argument lists models flatten or nest.

    `GetAllNeighbours(1, 3, 'x')` → one tuple; `GetSharedNeighbours([(..), (..)])` or a string
    holding both tuples → two arguments; `GetSharedNeighbours(1, 3, 'a', 6, 0, 'b')` → two tuples.
    """
    action = canonical_action(name)
    if action in (VISIT, ALL_NEIGHBOURS) and len(args) >= 2 and _span(args[0]) and _span(args[1]):
        return [args[:3]]
    if action == SHARED_NEIGHBOURS:
        if len(args) == 1:
            inner = args[0]
            if isinstance(inner, str) and inner.strip()[:1] in "([":
                try:
                    inner = parse_loose(inner)
                except ParseError:
                    return args
            if isinstance(inner, list) and len(inner) == 2 and all(isinstance(a, list | str) for a in inner):
                return list(inner)
        if len(args) in (4, 6) and all(_span(a) for a in args[:2]):
            half = len(args) // 2
            return [args[:half], args[half:]]
    return args


def text_matches(node: Node, text: str) -> bool:
    """Normalised text equality, or equal numbers (`55` = `55.0`, `1,234` = `1234`)."""
    if normalise_text(node.text) == normalise_text(text):
        return True
    a, b = parse_number(node.text), parse_number(text)
    return a is not None and b is not None and a == b


def _distance(node: Node, r: int, c: int) -> int:
    dr = 0 if node.r0 <= r <= node.r1 else min(abs(node.r0 - r), abs(node.r1 - r))
    dc = 0 if node.c0 <= c <= node.c1 else min(abs(node.c0 - c), abs(node.c1 - c))
    return dr + dc


def resolve(graph: CellGraph, retriever: Any, arg: Any, search: bool = False) -> Resolution:
    """Resolve a model's node reference; `search` lets a free-text query go through the retriever.

    Order: the node covering the position when its text agrees (or no text was given); else
    nodes whose text matches (nearest to the position first); else, with `search`, the top
    retriever hit when it is not tied; else a failure with candidates.
    """
    origin = graph.table.origin
    ref = parse_ref(arg, origin.top_left if origin is not None else (1, 1))
    if ref.verbatim and ref.text is not None:
        exact = graph.find_text(ref.text)
        if len(exact) == 1:
            return Resolution(exact[0])
        ref = NodeRef(ref.rows, ref.cols, None)
    at: Node | None = None
    if ref.has_position:
        assert ref.rows is not None and ref.cols is not None
        r, c = ref.rows[0], ref.cols[0]
        if 0 <= r < graph.n_rows and 0 <= c < graph.n_cols:
            at = graph.node_at(r, c)
            if ref.text is None or text_matches(at, ref.text):
                return Resolution(at)
    if not ref.text:
        where = f"position {format_arg(arg)}" if ref.has_position else repr(arg)
        return Resolution(None, f"{where} is outside the {graph.n_rows}x{graph.n_cols} table")
    by_text = _by_text(graph, ref.text)
    if by_text:
        if ref.has_position:
            assert ref.rows is not None and ref.cols is not None
            row, col = ref.rows[0], ref.cols[0]
            by_text.sort(key=lambda n: (_distance(n, row, col), n.id))
            best = by_text[0]
            note = "" if at is None or best.id == at.id else f"the cell at that position is {cell(at)}"
            return Resolution(best, f"matched by text; {note}".rstrip("; ") if note else "")
        if len(by_text) == 1:
            return Resolution(by_text[0])
        return Resolution(None, f"{len(by_text)} nodes hold {ref.text!r}; name one by its address", by_text)
    hits = retriever.search(ref.text, CANDIDATES) if retriever is not None else []
    if at is not None:
        return Resolution(at, f"no cell holds {ref.text!r}; using the cell at the position, {cell(at)}")
    if search and hits and (len(hits) == 1 or hits[0].score > hits[1].score):
        return Resolution(hits[0].node, f"closest match ({hits[0].how})")
    reason = "several nodes match equally" if search and hits else f"no cell holds {ref.text!r}"
    return Resolution(None, reason, [h.node for h in hits])


def _by_text(graph: CellGraph, text: str) -> list[Node]:
    exact = graph.find_text(text)
    if exact or parse_number(text) is None:
        return exact
    return [n for n in graph.nodes if not n.empty and text_matches(n, text)]
