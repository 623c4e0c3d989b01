"""The trace picture: an answer's table region drawn as SVG (pure Python, no renderer needed).

The grid shows merged areas as one box, the header band shaded, the evidence filled with the
write-back colours (answer strong, headers light), the visited nodes numbered in visit order and
joined by a path, and each shared-neighbour query as the two queried nodes joined to their
intersection. The question and the answer are the caption. Every piece of cell text is escaped and
cleaned of characters XML cannot hold. Big tables are cut to the header band plus a window around
the cells the answer touched (gaps are drawn as a thin break).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from celltrace.server.engine.context import headers_of
from celltrace.shared.a1 import col_letter
from celltrace.shared.actions import Colours, answer_text
from celltrace.shared.graph import CellGraph, Node, graph_of
from celltrace.shared.headers import HeaderModel
from celltrace.shared.safe_text import clean_text
from celltrace.shared.schemas import AskResult, Role, TraceCell
from celltrace.shared.table import Table

MAX_ROWS = 40
MAX_COLS = 14
ROW_H = 22
CHAR_W = 7
MIN_COL_W = 44
MAX_CELL_CHARS = 22
GAP = 8
MARGIN = 12
HEADING = 26
"""Width of the row numbers, height of the column letters."""
CAPTION_LINE = 18
CAPTION_CHARS = 110
BAND = "#EEF2F7"
GRID = "#C8CDD3"
TRACE = "#1F5FAD"
SHARED = "#8E3FAF"
FONT = "font-family='Segoe UI, Helvetica, Arial, sans-serif'"
LEGEND = (
    ("answer", "answer", GRID),
    ("header evidence", "header", GRID),
    ("header band", BAND, GRID),
    ("visited (in order)", "#FFFFFF", TRACE),
    ("shared neighbours", "#FFFFFF", SHARED),
)
"""Label, fill (`answer`/`header`: that evidence colour) and outline of each legend entry."""
LEGEND_GAP = 26


@dataclass(frozen=True)
class Axis:
    """Which table indices (rows or columns) are drawn, and where each one starts."""

    shown: tuple[int, ...]
    starts: tuple[int, ...]
    sizes: tuple[int, ...]

    @classmethod
    def build(cls, shown: Sequence[int], sizes: Sequence[int], offset: int) -> Axis:
        starts, pos, prev = [], offset, None
        for index, size in zip(shown, sizes, strict=True):
            if prev is not None and index != prev + 1:
                pos += GAP
            starts.append(pos)
            pos += size
            prev = index
        return cls(tuple(shown), tuple(starts), tuple(sizes))

    @property
    def end(self) -> int:
        return self.starts[-1] + self.sizes[-1] if self.shown else 0

    def span(self, lo: int, hi: int) -> tuple[int, int] | None:
        """Pixel start and end of the shown part of indices lo..hi (None when none is shown)."""
        inside = [i for i, index in enumerate(self.shown) if lo <= index <= hi]
        if not inside:
            return None
        return self.starts[inside[0]], self.starts[inside[-1]] + self.sizes[inside[-1]]


def visible(n: int, band: int, focus: Iterable[int], limit: int) -> list[int]:
    """All of 0..n-1 when it fits in `limit`; else the header band plus windows around `focus`."""
    if n <= limit:
        return list(range(n))
    keep = set(range(min(band, limit // 2)))
    for index in sorted(set(focus)):
        keep.update(range(max(0, index - 1), min(n, index + 2)))
    rest = iter(i for i in range(n) if i not in keep)
    while len(keep) < limit:
        nxt = next(rest, None)
        if nxt is None:
            break
        keep.add(nxt)
    return sorted(keep)[:limit]


def _text(text: str, limit: int) -> str:
    text = " ".join(clean_text(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word[:width])
    return lines or [""]


def _shared_pairs(
    graph: CellGraph, headers: HeaderModel, result: AskResult
) -> list[tuple[Node, Node, list[Node]]]:
    """Each `GetSharedNeighbours` query of the steps: both nodes and their intersection (the shared
    data cells; the shared header cells such as full-width titles only when no data cell is shared)."""
    from celltrace.server.engine.actions import SHARED_NEIGHBOURS, canonical_action, resolve

    pairs = []
    for step in result.steps:
        for action in step.actions:
            if canonical_action(action.name) != SHARED_NEIGHBOURS or len(action.args) < 2:
                continue
            a, b = (resolve(graph, None, arg).node for arg in action.args[:2])
            if a is not None and b is not None and a.id != b.id:
                shared = [n for n in graph.shared_neighbours(a, b) if not n.empty]
                pairs.append((a, b, [n for n in shared if headers.is_data(n)] or shared))
    return pairs


def _col_width(table: Table, rows: Sequence[int], col: int, wide: set[tuple[int, int]]) -> int:
    texts = [_text(table.text[r][col], MAX_CELL_CHARS) for r in rows if (r, col) not in wide]
    return max(MIN_COL_W, 10 + CHAR_W * max(map(len, texts), default=0))


def _attrs(attrs: dict[str, str]) -> str:
    """Keyword arguments as SVG attributes: `font_size` → `font-size`, `class_` → `class`."""
    return "".join(f" {k.rstrip('_').replace('_', '-')}={quoteattr(v)}" for k, v in attrs.items())


class _Canvas:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def rect(self, box: tuple[int, int, int, int], fill: str, stroke: str = "none", **attrs: str) -> None:
        x0, y0, x1, y1 = box
        extra = _attrs(attrs)
        self.parts.append(
            f"<rect x='{x0}' y='{y0}' width='{x1 - x0}' height='{y1 - y0}' fill='{fill}' "
            f"stroke='{stroke}'{extra}/>"
        )

    def text(self, x: float, y: float, text: str, **attrs: str) -> None:
        extra = _attrs(attrs)
        self.parts.append(f"<text x='{x:.0f}' y='{y:.0f}' {FONT}{extra}>{escape(text)}</text>")

    def line(self, points: Sequence[tuple[float, float]], colour: str, **attrs: str) -> None:
        extra = _attrs(attrs)
        path = " ".join(f"{x:.0f},{y:.0f}" for x, y in points)
        self.parts.append(f"<polyline points='{path}' fill='none' stroke='{colour}'{extra}/>")


def trace_svg(table: Table, result: AskResult, colours: Colours | None = None) -> str:
    """The trace picture of `result` over `table` as a standalone SVG document."""
    colours = colours or Colours()
    graph = graph_of(table)
    headers = headers_of(graph)
    pairs = _shared_pairs(graph, headers, result)
    marked: list[TraceCell | Node] = [*result.trace, *result.evidence]
    marked += [n for a, b, shared in pairs for n in (a, b, *shared)]
    marked_rows = [r for cell in marked for r in cell.rows]
    marked_cols = [c for cell in marked for c in cell.cols]
    rows = visible(table.n_rows, headers.header_rows, marked_rows, MAX_ROWS)
    cols = visible(table.n_cols, headers.header_cols, marked_cols, MAX_COLS)

    question = _wrap(_text(result.question, 400), CAPTION_CHARS)
    answer = _wrap(_text(f"Answer: {answer_text(result)}", 400), CAPTION_CHARS)
    caption_h = CAPTION_LINE * (len(question) + len(answer)) + 8
    wide = {(m[0], m[1]) for m in table.merges if m[3] > m[1]}  # their text spans several columns
    widths = [_col_width(table, rows, c, wide) for c in cols]
    x_axis = Axis.build(cols, widths, MARGIN + HEADING)
    y_axis = Axis.build(rows, [ROW_H] * len(rows), MARGIN + caption_h + HEADING)
    longest = max(len(line) for line in [*question, *answer]) + 3
    legend_w = sum(LEGEND_GAP + CHAR_W * len(label) for label, _, _ in LEGEND)
    width = max(x_axis.end + MARGIN, MARGIN * 2 + CHAR_W * longest, MARGIN * 2 + legend_w)
    legend_y = y_axis.end + 14
    height = legend_y + 26

    def box(node_rows: Sequence[int], node_cols: Sequence[int]) -> tuple[int, int, int, int] | None:
        xs = x_axis.span(min(node_cols), max(node_cols)) if node_cols else None
        ys = y_axis.span(min(node_rows), max(node_rows)) if node_rows else None
        return (xs[0], ys[0], xs[1], ys[1]) if xs and ys else None

    def centre(b: tuple[int, int, int, int]) -> tuple[float, float]:
        return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2

    svg = _Canvas()
    svg.rect((0, 0, width, height), "#FFFFFF")
    y = MARGIN + 12
    for i, line in enumerate(question):
        svg.text(MARGIN, y, ("Q: " if i == 0 else "   ") + line, font_size="13", font_weight="bold")
        y += CAPTION_LINE
    for line in answer:
        svg.text(MARGIN, y, line, font_size="13", fill="#7F6000" if result.status == "answered" else "#A00")
        y += CAPTION_LINE

    top, left = table.origin.top_left if table.origin else (1, 1)
    for c, x0, w in zip(x_axis.shown, x_axis.starts, x_axis.sizes, strict=True):
        svg.text(
            x0 + w / 2,
            y_axis.starts[0] - 8 if rows else 0,
            col_letter(left + c),
            font_size="10",
            fill="#666",
            text_anchor="middle",
        )
    for r, y0 in zip(y_axis.shown, y_axis.starts, strict=True):
        svg.text(MARGIN + HEADING - 4, y0 + 15, str(top + r), font_size="10", fill="#666", text_anchor="end")

    roles: dict[tuple[tuple[int, ...], tuple[int, ...]], Role] = {
        (tuple(e.rows), tuple(e.cols)): e.role for e in result.evidence if e.role == "answer"
    }
    for e in result.evidence:
        roles.setdefault((tuple(e.rows), tuple(e.cols)), e.role)
    shown = {n.id: n for n in (graph.node_at(r, c) for r in rows for c in cols)}
    for node in shown.values():
        b = box(list(node.rows), list(node.cols))
        if b is None:
            continue
        role = roles.get((tuple(node.rows), tuple(node.cols)))
        # a best guess (abstained) gets the muted fill the workbook gets, never the answer colour
        fill_role = "guess" if role == "answer" and result.status != "answered" else role
        fill = colours.for_role(fill_role) if fill_role else (BAND if headers.is_header(node) else "#FFFFFF")
        svg.rect(b, fill, GRID, stroke_width="1")
        if node.text:
            chars = max(1, (b[2] - b[0] - 8) // CHAR_W)
            weight = "bold" if role == "answer" else "normal"
            anchor_x, anchor = (
                (b[2] - 4, "end") if isinstance(node.value, int | float) else (b[0] + 4, "start")
            )
            svg.text(
                anchor_x,
                (b[1] + b[3]) / 2 + 4,
                _text(node.text, min(chars, 60)),
                font_size="11",
                font_weight=weight,
                text_anchor=anchor,
            )

    for a, b_node, shared in pairs:
        ends = [box(list(n.rows), list(n.cols)) for n in (a, b_node)]
        for s in shared:
            sb = box(list(s.rows), list(s.cols))
            if sb is None:
                continue
            svg.rect(sb, "none", SHARED, stroke_width="2.5")
            for end in ends:
                if end is not None:
                    svg.line([centre(end), centre(sb)], SHARED, stroke_width="1.5", stroke_dasharray="2,3")

    points = [centre(b) for b in (box(t.rows, t.cols) for t in result.trace) if b is not None]
    if len(points) > 1:
        svg.line(points, TRACE, stroke_width="1.5", stroke_dasharray="5,3", opacity="0.7")
    for number, cell in enumerate(result.trace, 1):
        b = box(cell.rows, cell.cols)
        if b is None:
            continue
        svg.rect(b, "none", TRACE, stroke_width="2")
        cx, cy = b[0] + 1, b[1] + 1  # on the top-left corner, clear of the cell text
        svg.parts.append(f"<circle cx='{cx}' cy='{cy}' r='7.5' fill='{TRACE}' stroke='#FFFFFF'/>")
        svg.text(
            cx,
            cy + 3.5,
            str(number),
            font_size="10",
            fill="#FFFFFF",
            text_anchor="middle",
            font_weight="bold",
            class_="step",
        )

    x = MARGIN
    for label, fill, stroke in LEGEND:
        fill = {"answer": colours.answer, "header": colours.header}.get(fill, fill)
        svg.rect((x, legend_y, x + 14, legend_y + 14), fill, stroke, stroke_width="2")
        svg.text(x + 18, legend_y + 11, label, font_size="11", fill="#333")
        x += LEGEND_GAP + CHAR_W * len(label)

    where = f"{table.sheet}!{table.origin.address}" if table.origin else "table"
    title = escape(_text(f"celltrace trace: {result.question} ({where})", 300))
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img'><title>{title}</title>" + "".join(svg.parts) + "</svg>\n"
    )


def write_picture(path: Path, svg: str) -> Path:
    """Write `svg` to `path`: `.svg` as is, `.png` through cairosvg (a UserError when missing)."""
    from celltrace.shared.errors import UserError

    suffix = path.suffix.lower()
    if suffix == ".svg":
        path.write_text(svg, encoding="utf-8")
    elif suffix == ".png":
        try:
            import cairosvg
        except ImportError:
            raise UserError(
                "a .png picture needs cairosvg (pip install cairosvg); .svg works without"
            ) from None
        cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(path), scale=2)
    else:
        raise UserError(f"--picture {path}: use a .svg or .png file name")
    return path
