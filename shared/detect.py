"""Find the table block(s) in a sheet's used range: captions above, notes below, several tables.

A sheet as people keep it holds more than one grid: a title line and a unit line above the table,
blank separator rows, notes and sources under it, sometimes a second table further down or beside
it. Tables side by side are first cut apart at blank columns (`column_bands`); each band's used
range is then cut into runs of non-blank rows; within and across runs:

* a *line* row holds one label starting in the first used column (a title, a caption such as
  `(in millions)`, a note, a source), or a note set out in two cells, its mark and its text
  (`5` | `Estimates are based on …`, `..` | `not available …`);
* a run of label rows with no figures (a header row split off by a blank row) joins the run below
  it, so a header band may contain blank rows;
* a run whose first grid row is not a header row (it holds figures) continues the table above it
  with the section lines before it (blank rows between sections of a statement);
* line rows before a table's first grid row are its caption (`Table.title`): those in its own run
  and the run of lines just above it; line rows after its last grid row are its notes (but the run
  right above the next table is that table's caption);
* name | value lines beside a wider table describe it (above: caption; below, keyed by flags:
  notes), and columns of text past a blank column beside a grid of figures are remarks (notes).

`detect_blocks` returns the blocks; `crop` cuts one out as a `Table` whose title is the caption and
whose origin is the block's sheet address; `locate` picks the block a question matches best (or
the one holding a given cell) and says, in `Table.warnings`, when the choice was a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime

from celltrace.shared.flags import footnote_marks, is_note_key, unmarked
from celltrace.shared.fragments import join_fragments
from celltrace.shared.graph import CellGraph, Node, graph_of, normalise_text
from celltrace.shared.numbers import MONTH_BY_SHORT, is_number_text, parse_number_info
from celltrace.shared.stemming import stem
from celltrace.shared.table import Origin, Table
from celltrace.shared.units import RELATIVE_KINDS

_WORD = re.compile(r"[^\W_]+")
_SUPERSCRIPTS = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_STOP = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "is", "it", "of", "on",
     "or", "the", "to", "was", "were", "what", "which", "who", "with", "between", "than", "did", "does",
     "do", "has", "have", "had", "many", "much", "its", "their", "this", "that", "these", "those", "been"}
)


@dataclass(frozen=True)
class Block:
    """One table: grid rows `r0..r1` and columns `c0..c1` (0-based in the used range), with the
    rows of its caption above and its notes below."""

    r0: int
    c0: int
    r1: int
    c1: int
    caption_rows: tuple[int, ...] = ()
    note_rows: tuple[int, ...] = ()
    note_cols: tuple[int, ...] = ()
    """Columns of remarks beside the grid, past a blank column (`Notes` | `IT includes the lease.`)."""
    lines: tuple[int, int] | None = None
    """The columns its caption and note lines are read in: those of its band when tables stand side
    by side (`column_bands`), else every column."""

    @property
    def cells(self) -> int:
        return (self.r1 - self.r0 + 1) * (self.c1 - self.c0 + 1)


def detect_blocks(table: Table) -> list[Block]:
    """The table blocks of a used range, band by band (`column_bands`) and top to bottom in each (one
    block when nothing needs cutting)."""
    bands = column_bands(graph_of(table))
    if len(bands) == 1:
        return _blocks(table)
    return [Block(b.r0, b.c0 + c0, b.r1, b.c1 + c0, b.caption_rows, b.note_rows,
                  tuple(c + c0 for c in b.note_cols), (c0, c1))
            for c0, c1 in bands for b in _blocks(_columns(table, c0, c1))]


def column_bands(graph: CellGraph) -> list[tuple[int, int]]:
    """Tables side by side: the column bands between blank columns (nothing in them, no merged area
    across) where each band holds its own table — row labels in its first column and figures. A
    band without both (a remarks column, figures after a blank spacer column: `2019 | | 2018`) stays
    with the band to its left. One band, the whole width, when nothing stands side by side."""
    blank = [all(n.empty and n.c0 == n.c1 for n in graph.col_nodes(c)) for c in range(graph.n_cols)]
    runs: list[tuple[int, int]] = []
    for c in (c for c, empty in enumerate(blank) if not empty):
        runs[-1:] = [(runs[-1][0], c)] if runs and runs[-1][1] == c - 1 else [*runs[-1:], (c, c)]
    bands: list[tuple[int, int]] = []
    for c0, c1 in runs:
        if bands and not _own_table(graph, c0, c1):
            bands[-1] = (bands[-1][0], c1)
        else:
            bands.append((c0, c1))
    if len(bands) < 2 or not _own_table(graph, *bands[0]):
        return [(0, graph.n_cols - 1)]
    return [(0 if i == 0 else c0, graph.n_cols - 1 if i == len(bands) - 1 else c1)
            for i, (c0, c1) in enumerate(bands)]


OWN_LABELS = 3
"""Text labels a band's first column needs (besides figures beside them) to be a table of its own."""


def _own_table(graph: CellGraph, c0: int, c1: int) -> bool:
    first = [n for n in graph.col_nodes(c0) if not n.empty and n.c0 == c0]
    labels = [n for n in first if not _is_number(n) and n.r0 == n.r1]
    figures = any(_is_number(n) for c in range(c0 + 1, c1 + 1) for n in graph.col_nodes(c) if not n.empty)
    return len(labels) >= OWN_LABELS and 2 * len(labels) >= len(first) and figures


def _columns(table: Table, c0: int, c1: int) -> Table:
    """The columns `c0..c1` of a used range as a table of their own (rows kept)."""
    assert table.values is not None
    return Table(text=[row[c0 : c1 + 1] for row in table.text],
                 values=[row[c0 : c1 + 1] for row in table.values],
                 merges=[(m[0], m[1] - c0, m[2], m[3] - c0) for m in table.merges
                         if c0 <= m[1] and m[3] <= c1])


def _blocks(table: Table) -> list[Block]:
    """The blocks of one band, top to bottom."""
    graph = graph_of(table)
    rows = [_row(graph, r) for r in range(table.n_rows)]
    kinds = [kind for kind, _ in rows]
    spans = [span for _, span in rows]
    runs = _runs(kinds)
    if not runs:
        return []
    for i, (start, end) in enumerate(runs):  # caption lines: a run of lines and dated lines above
        if i + 1 < len(runs) and all(kinds[r] == "line" or _dated(graph, r) for r in range(start, end + 1)):
            kinds[start:end + 1] = ["line"] * (end + 1 - start)  # another run (`Period ending:` | | date)
            continue
        lead = start  # name | value lines right above a wider header
        while lead < end and (kinds[lead] == "line" or _described_by(graph, lead, kinds, spans)):
            lead += 1
        if kinds[lead] == "labels" and _width(range(lead, lead + 1), spans) > 2:
            kinds[start:lead] = ["line"] * (lead - start)
    groups: list[list[tuple[int, int]]] = []  # grid rows of each table, as runs
    captions: list[list[int]] = []
    notes: list[list[int]] = []
    pending: list[list[int]] = []  # runs of line rows since the last table
    for start, end in runs:
        grid = [r for r in range(start, end + 1) if kinds[r] != "line"]
        if not grid:
            pending.append(list(range(start, end + 1)))
            continue
        first = grid[0]
        described = groups and _described(groups[-1], kinds, spans, start, end)
        if groups and (kinds[first] == "figures" or (_header_only(groups[-1], kinds) and not described)
                       or _section_head(graph, groups[-1], kinds, spans, first, end)):
            groups[-1].append((start, end))  # section lines and a split header stay in the table
        else:
            # the line run next to the new table is its caption; earlier runs are the notes of the
            # table above (all of them are the caption when there is none)
            if groups:
                notes[-1] += [r for run in pending[:-1] for r in run]
                pending = pending[-1:]
            captions.append([r for run in pending for r in run] + list(range(start, first)))
            groups.append([(first, end)])
            notes.append([])
        pending = []
    if groups:
        notes[-1] += [r for run in pending for r in run]
    keys = [graph.node_at(r, 0).text for r in range(table.n_rows)]
    _fold_descriptions(groups, captions, notes, kinds, spans, keys)
    return [_block(graph, kinds, spans, group, captions[i], notes[i]) for i, group in enumerate(groups)]


def _described_by(graph: CellGraph, r: int, kinds: list[str], spans: list[tuple[int, int] | None]) -> bool:
    """Row `r` names a property of the table in words, with no blank row below it (`Unit of measure`
    | `Percentage of population …`, `Last update` | a date): a worded name and a value of three
    words or more or a date, not a group label over columns (`province` | `2016`)."""
    if kinds[r] != "labels" or spans[r] != (0, 1):
        return False
    key, value = graph.node_at(r, 0), graph.node_at(r, 1)
    return (not is_number_text(key.text) and key.c1 == 0
            and (len(value.text.split()) >= 3 or isinstance(value.value, date | datetime)
                 or _DATE.fullmatch(value.text.strip()) is not None))


def _dated(graph: CellGraph, r: int) -> bool:
    """Row `r` is a report's dated line: a name in words in the first column and a date somewhere
    after it, nothing else (`Period ending:` | | `06/30/2025`)."""
    cells = [n for n in graph.row_nodes(r) if not n.empty]
    if len(cells) != 2 or cells[0].c0 != 0 or is_number_text(cells[0].text):
        return False
    return isinstance(cells[1].value, date | datetime) or _DATE.fullmatch(cells[1].text.strip()) is not None


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DATE = re.compile(rf"\d{{1,4}}[/.-]\d{{1,2}}[/.-]\d{{1,4}}"
                   rf"|(?i:{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+{_MONTH},?\s+\d{{4}})")
"""A date written as text (`15/04/2024`, `2024-04-15`, `Jul 22, 2025`, `22 July 2025`)."""


def _pairs(group: list[tuple[int, int]], kinds: list[str], spans: list[tuple[int, int] | None]) -> bool:
    """Rows of a name and its value in the first two columns, no figures (`Unit of measure` |
    `Percentage of population`, `p` | `provisional`): what a table is, not a table."""
    rows = [r for s, e in group for r in range(s, e + 1)]
    return all(kinds[r] == "line" or (kinds[r] == "labels" and spans[r] == (0, 1)) for r in rows)


def _width(rows: range, spans: list[tuple[int, int] | None]) -> int:
    """Columns from the first used one to the last one filled in `rows`."""
    return max((span[1] for r in rows if (span := spans[r]) is not None), default=0) + 1


def _described(group: list[tuple[int, int]], kinds: list[str], spans: list[tuple[int, int] | None],
               start: int, end: int) -> bool:
    """`group` is name | value rows over a wider table starting in the run `start..end`."""
    return _pairs(group, kinds, spans) and _width(range(start, end + 1), spans) > 2


def _fold_descriptions(groups: list[list[tuple[int, int]]], captions: list[list[int]], notes: list[list[int]],
                       kinds: list[str], spans: list[tuple[int, int] | None], keys: list[str]) -> None:
    """Name | value rows beside a wider table describe it: above it, named in words (`Last update` |
    `15/04/2024`), they join its caption; below it, keyed by flags or note numbers (a legend: `p` |
    `provisional`), its notes. A two-column list keyed by ranks (`1` | `Toronto`) stays a table."""
    def rows(group: list[tuple[int, int]]) -> list[int]:
        return [r for s, e in group for r in range(s, e + 1)]

    def wide(group: list[tuple[int, int]]) -> bool:
        return _width(range(group[0][0], group[-1][1] + 1), spans) > 2

    def named(group: list[tuple[int, int]]) -> bool:
        return not any(is_number_text(keys[r]) for r in rows(group) if kinds[r] == "labels")

    def keyed(group: list[tuple[int, int]]) -> bool:
        return all(is_note_key(keys[r]) for r in rows(group) if kinds[r] == "labels")

    i = 0
    while i < len(groups):
        if len(groups) > 1 and _pairs(groups[i], kinds, spans):
            if i + 1 < len(groups) and wide(groups[i + 1]) and named(groups[i]):
                captions[i + 1] = captions[i] + rows(groups[i]) + notes[i] + captions[i + 1]
            elif i > 0 and wide(groups[i - 1]) and keyed(groups[i]):
                notes[i - 1] += captions[i] + rows(groups[i]) + notes[i]
            else:
                i += 1
                continue
            del groups[i], captions[i], notes[i]
            continue
        i += 1


def _row(graph: CellGraph, r: int) -> tuple[str, tuple[int, int] | None]:
    """The row's kind — `blank`, `line` (one single-row label in the first column), `figures` (a
    number beside a label) or `labels` (several labels, no figures) — and the columns its filled
    cells span (None when blank)."""
    cells = [n for n in graph.row_nodes(r) if not n.empty]
    if not cells:
        return "blank", None
    span = (min(n.c0 for n in cells), max(n.c1 for n in cells))
    if cells[0].c0 == 0 and cells[0].r0 == cells[0].r1 == r and (len(cells) == 1 or _keyed_note(cells)):
        return "line", span
    figures = any(n.c0 > 0 and _is_number(n) for n in cells)
    return ("figures" if figures else "labels"), span


def _keyed_note(cells: list[Node]) -> bool:
    """A footnote or legend entry set out in two cells, its mark and its text: a sentence (`9` |
    `Services-producing sector.`) or four words or more (`..` | `not available for a specific
    reference period`)."""
    text = cells[-1]
    words = len(text.text.split())
    return (len(cells) == 2 and is_note_key(cells[0].text) and text.r0 == text.r1
            and (words >= 4 or (words >= 2 and text.text.rstrip().endswith("."))) and not _is_number(text))


def _is_number(node: Node) -> bool:
    if isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return not (1800 <= node.value <= 2100 and float(node.value).is_integer())
    return is_number_text(node.text, years_as_labels=True)


def _runs(kinds: list[str]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    start = None
    for r, kind in enumerate([*kinds, "blank"]):
        if kind != "blank" and start is None:
            start = r
        elif kind == "blank" and start is not None:
            runs.append((start, r - 1))
            start = None
    return runs


def _section_head(graph: CellGraph, group: list[tuple[int, int]], kinds: list[str],
                  spans: list[tuple[int, int] | None], first: int, end: int) -> bool:
    """Row `first` heads a section of the table above, past a blank row: its labels (`02` |
    `Structure`) stand left of the first column of figures above, and figures follow it."""
    above = [r for s, e in group for r in range(s, e + 1) if kinds[r] == "figures"]
    span = spans[first]
    if not above or span is None or first == end or kinds[first + 1] != "figures":
        return False
    figure_col = min(n.c0 for r in above for n in graph.row_nodes(r) if n.c0 > 0 and _is_number(n))
    return kinds[first] == "labels" and span[1] < figure_col


def _header_only(group: list[tuple[int, int]], kinds: list[str]) -> bool:
    """The table so far has no figures: it is a header band interrupted by a blank row."""
    return all(kinds[r] != "figures" for s, e in group for r in range(s, e + 1))


def _block(
    graph: CellGraph,
    kinds: list[str],
    spans: list[tuple[int, int] | None],
    group: list[tuple[int, int]],
    caption: list[int],
    after: list[int],
) -> Block:
    r0 = group[0][0]
    grid_end = max(r for s, e in group for r in range(s, e + 1) if kinds[r] != "line")
    notes = list(range(grid_end + 1, group[-1][1] + 1)) + after  # lines right under the grid, then runs
    filled = [span for span in spans[r0 : grid_end + 1] if span is not None]
    c0, c1 = min(lo for lo, _ in filled), max(hi for _, hi in filled)
    for r in range(r0, grid_end + 1):  # merged areas reaching past the grid's own columns
        for c in (c0, c1):
            n = graph.node_at(r, c)
            c0, c1 = min(c0, n.c0), max(c1, n.c1)
    last, remarks = _remarks(graph, range(r0, grid_end + 1), c0, c1)
    return Block(r0, c0, grid_end, last, tuple(caption), tuple(notes), remarks)


def _remarks(graph: CellGraph, rows: range, c0: int, c1: int) -> tuple[int, tuple[int, ...]]:
    """The grid's last column and the columns of remarks beside it: past the first blank column
    (nothing in it, no merged area across it), columns of text only (no figures) beside a grid
    that has figures. A blank spacer column between figure columns (`2019 | | 2018`) keeps both."""
    def cells(c: int) -> list[Node]:
        return [graph.node_at(r, c) for r in rows]

    blank = next((c for c in range(c0 + 1, c1) if all(n.empty and n.c0 == n.c1 for n in cells(c))), None)
    if blank is None:
        return c1, ()
    right = [n for c in range(blank + 1, c1 + 1) for n in cells(c) if not n.empty]
    left = [n for c in range(c0, blank) for n in cells(c) if not n.empty]
    if not right or any(_is_number(n) for n in right) or not any(_is_number(n) for n in left):
        return c1, ()
    return blank - 1, tuple(range(blank + 1, c1 + 1))


def crop(table: Table, block: Block) -> Table:
    """The block as a table: its grid, its caption lines as the title, the lines under it as its
    notes, a sheet-address origin."""
    rows = range(block.r0, block.r1 + 1)
    cols = slice(block.c0, block.c1 + 1)
    assert table.values is not None
    merges = [
        (m[0] - block.r0, m[1] - block.c0, m[2] - block.r0, m[3] - block.c0)
        for m in table.merges
        if block.r0 <= m[0] and m[2] <= block.r1 and block.c0 <= m[1] and m[3] <= block.c1
    ]
    caption = [_line_text(table, r, block.lines) for r in block.caption_rows]
    title = "\n".join(t for t in [table.title or "", *caption] if t)
    origin = None
    if table.origin is not None:
        address = table.address(block.r0, block.c0, block.r1, block.c1)
        origin = Origin(sheet=table.origin.sheet, address=address, workbook=table.origin.workbook)
    remarks = [" ".join(t for c in block.note_cols if (t := table.text[r][c].strip()))
               for r in range(block.r0, block.r1 + 1)]
    notes = [*table.notes, *(_line_text(table, r, block.lines) for r in block.note_rows),
             *(t for t in remarks if t)]
    text, values = _without_footnote_marks(
        [table.text[r][cols] for r in rows], [table.values[r][cols] for r in rows], footnote_marks(notes))
    return Table(
        text=text,
        values=values,
        merges=merges,
        title=title or None,
        origin=origin,
        hidden_rows=frozenset(r - block.r0 for r in table.hidden_rows if r in rows),
        hidden_cols=frozenset(c - block.c0 for c in table.hidden_cols if block.c0 <= c <= block.c1),
        warnings=list(table.warnings),
        notes=notes,
    )


def _without_footnote_marks(text: list[list[str]], values: list[list[object]], marks: frozenset[str]
                            ) -> tuple[list[list[str]], list[list[object]]]:
    """Labels without the footnote marks the notes define (`Ontario 2` → `Ontario`), so a question
    naming `Ontario` names the line; a numbered series (`Level 1`, `Level 2`) keeps its numbers."""
    if not marks:
        return text, values
    found = {(r, c): bare for r, row in enumerate(text) for c, t in enumerate(row)
             if parse_number_info(t) is None and (bare := unmarked(t, marks)) != t}
    origins: dict[str, set[str]] = {}
    for (r, c), bare in found.items():
        origins.setdefault(bare, set()).add(text[r][c])
    text, values = [list(row) for row in text], [list(row) for row in values]
    for (r, c), bare in found.items():
        if len(origins[bare]) == 1:
            text[r][c] = bare
            if isinstance(values[r][c], str):
                values[r][c] = bare
    return text, values


def _line_text(table: Table, r: int, cols: tuple[int, int] | None = None) -> str:
    row = table.text[r] if cols is None else table.text[r][cols[0] : cols[1] + 1]
    return " ".join(t.strip() for t in row if t.strip())


def block_text(table: Table, block: Block) -> str:
    """Caption, labels and cell text of a block (what a question can name)."""
    parts = [_line_text(table, r, block.lines) for r in block.caption_rows]
    parts += [t for r in range(block.r0, block.r1 + 1) for t in table.text[r][block.c0 : block.c1 + 1]]
    return " ".join(parts)


def _words(text: str) -> set[str]:
    """The text's word stems (`completions` names `Housing units completed`), a noun in `-ment`
    also as its verb (`payments` is named by `pay`), a month by its full name (`Apr 2024` is named by
    `April 2024`), without superscript marks (`Canada¹`)."""
    out = {stem(MONTH_BY_SHORT.get(w, w)) for w in _WORD.findall(normalise_text(_SUPERSCRIPTS.sub(" ", text)))
           if w not in _STOP}
    return out | {st[:-4] for st in out if st.endswith("ment") and len(st) >= 7}



def best_block(table: Table, blocks: list[Block], question: str) -> Block:
    """The block whose caption bears the designation the question says (`in Table B`), else the one
    sharing the most question words (`how many` asks a `number`; a percentage may be computed from
    any block's figures, so its words count later) in its own text: its
    cells and, when every block has caption lines of its own, the ones right above it (`B. Lift
    revenue`, not the sheet's title over the first block; a title over the first of two segment
    tables, the second headed by its `Operating income (loss)` cell, is the sheet's); then in its
    own caption alone (`… for the fiscal year ended June 30, 2023:` over a roll-forward whose lines
    name 2023 too), the fewer kinds of relative figure its caption declares that the question does
    not ask (`Job vacancy rate` is no answer to `what percentage of all job vacancies were in
    Quebec`, `Median total time` none to `the total number of visits`), its caption declaring
    percentages as the question asks one or not (`Units: percent` over delinquency rates is no
    answer to `the largest loan balance`; a percent change asks none); then in all its text (ties:
    the larger block, then the upper one)."""
    asked = _words(question) | ({"number"} if _HOW_MANY.search(question.lower()) else set())
    change = _PERCENT_CHANGE.search(normalise_text(question)) is not None
    if change:
        asked -= _PERCENT_WORDS  # the unit of a change computed, not of the figures read
    captioned = all(_own_caption(b) for b in blocks)
    rate = None if asked & _RATE_WORDS else False  # a rate may be a percentage or not
    percent_asked = bool(asked & _PERCENT_WORDS) or ("%" in question and not change) or rate

    wanted = _DESIGNATION.search(normalise_text(question))

    def score(b: Block) -> tuple[bool, int, int, int, bool, int, int, int]:
        caption = _own_caption(b) if captioned else ()
        own = replace(b, caption_rows=caption)
        said = " ".join(_line_text(table, r, b.lines) for r in caption)
        percent = bool(_words(said) & _PERCENT_UNIT) or "%" in said
        designated = wanted is not None and wanted.group(0) in {
            m.group(0) for m in _DESIGNATION.finditer(normalise_text(said))}
        return (designated, len((asked - _PERCENT_WORDS) & _words(block_text(table, own))),
                len(asked & _words(said)),
                -len(_unsaid(said, asked)), percent_asked in (None, percent),
                len(asked & _words(block_text(table, b))), b.cells, -b.r0)

    return max(blocks, key=score)


_DESIGNATION = re.compile(r"\btable\s+[a-z]?\d*[a-z]?\b")
"""A table's designation (`Table B`, `Table A1`, `Table 2`): said in the question, it picks the
block captioned so."""


def _unsaid(caption: str, asked: set[str]) -> list[frozenset[str]]:
    """The kinds of relative figure the caption declares that the question does not ask (`Job
    vacancy rate` to `what percentage of all job vacancies …`, `Median total time` to `the total
    number of … visits`): such a table's figures are not the counts or amounts asked."""
    said = _words(caption)
    return [kind for kind in _RELATIVE_KINDS if said & kind and not asked & kind]


_RELATIVE_KINDS = tuple(frozenset(_words(" ".join(kind))) for kind in RELATIVE_KINDS)
"""The stems of `units.RELATIVE_KINDS`: words declaring relative figures, by kind."""
_PERCENT_CHANGE = re.compile(
    r"\b(?:percent(?:age)?|%)\s*(?:point\s+)?(?:change|increase|decrease|growth|gain|rise|drop|decline|fall|loss)"
    r"|\bby\s+what\s+(?:percent(?:age)?|%)(?!\s*points?\b)|\bby\s+how\s+many\s+percent(?!(?:age)?\s+points?\b)")
"""A percentage the question asks of a change (`percent change in job vacancies`, `by what percent did
… grow`): it names no table of percentages (a change in percentage points does)."""
_PERCENT_WORDS = frozenset(_words("percent percentage share proportion"))
"""Question word stems asking a percentage."""
_RATE_WORDS = frozenset(_words("rate ratio"))
"""Question word stems that may ask a percentage or not (`homicide rate` per 100,000)."""
_PERCENT_UNIT = frozenset(_words("percent percentage"))
"""Caption word stems declaring the figures percentages (`Units: percent`)."""
_HOW_MANY = re.compile(r"(?<!\bin )\bhow many\b(?!\s+(?:of|percent(?:age)?|points?|basis|times|cents?|dollars"
                       r"|euros|pounds|(?:thousand|million|billion)s?)\b)")
"""`how many forest fires`: a number is asked (`Number of forest fires`, not `Area burned`); not `how
many percentage points`, `how many dollars` (a unit's amount), nor members counted (`in how many of
the age groups`)."""


def _own_caption(block: Block) -> tuple[int, ...]:
    """The caption rows next to the block (the run ending nearest it, past any blank row)."""
    rows = sorted(block.caption_rows)
    run = rows[-1:]
    for r in reversed(rows[:-1]):
        if r != run[0] - 1:
            break
        run.insert(0, r)
    return tuple(run)


def locate(table: Table, question: str | None = None, cell: tuple[int, int] | None = None) -> Table:
    """The table block to answer from: the one holding `cell` (0-based in `table`), else the one
    `question` matches best, else the largest. Warns when the used range held several tables or
    lines outside the table were left out. Number fragments in columns of their own (`$` | `2,979`)
    are joined first (`fragments.join_fragments`)."""
    table = join_fragments(table)
    blocks = detect_blocks(table)
    if not blocks:
        return table
    chosen = None
    if cell is not None:
        chosen = next((b for b in blocks if b.r0 <= cell[0] <= b.r1 and b.c0 <= cell[1] <= b.c1), None)
    if chosen is None and question is not None:
        chosen = best_block(table, blocks, question)
    if chosen is None:
        chosen = max(blocks, key=lambda b: (b.cells, -b.r0))
    whole = (chosen.r0, chosen.c0, chosen.r1, chosen.c1) == (0, 0, table.n_rows - 1, table.n_cols - 1)
    if len(blocks) == 1 and whole:
        return table
    closing = [b for b in blocks if b.lines == chosen.lines][-1]  # the sheet's closing notes (`Source:`,
    shared = closing.note_rows if closing is not chosen else ()  # `GA = goals against`) speak for
    out = crop(table, replace(chosen, note_rows=chosen.note_rows + shared))  # every table above too
    where = out.region or _address(table, chosen)
    if len(blocks) > 1:
        others = ", ".join(_address(table, b) for b in blocks if b is not chosen)
        if cell is not None and chosen.r0 <= cell[0] <= chosen.r1 and chosen.c0 <= cell[1] <= chosen.c1:
            how = "the one holding the selected cell"
        else:
            how = "the one the question matches best" if question is not None else "the largest"
        out.warnings.append(
            f"the sheet holds {len(blocks)} tables: used {where} ({how}), not {others}; "
            "give a range to choose another"
        )
    else:
        detail = [part for part, rows in (("title lines above kept as the caption", chosen.caption_rows),
                                          ("notes below left out", chosen.note_rows),
                                          ("remarks beside it left out", chosen.note_cols)) if rows]
        out.warnings.append(
            f"no range given: detected the table at {where}" + (f" ({'; '.join(detail)})" if detail else "")
        )
    if question is not None and cell is None:
        out.elsewhere = named_elsewhere(table, blocks, chosen, question)
        if out.elsewhere:
            out.warnings.append(f"the question also names {', '.join(repr(t) for t in out.elsewhere)}, shown "
                                "only in another table on the sheet: an answer combining tables is not given")
    return out


def named_elsewhere(table: Table, blocks: list[Block], chosen: Block, question: str) -> tuple[str, ...]:
    """What the question names that only another block shows: a word of that block's own caption
    no other caption holds (`Export` of `Table B. Export price indexes` beside `Table A. Import price
    indexes`), or a label of two words or more said whole (`Total appropriations`), when the chosen
    block's own caption and cells hold none of its words."""
    asked = _words(question)
    have = _words(block_text(table, replace(chosen, caption_rows=_own_caption(chosen))))  # not a sheet
    # title over both (`U.S. Import and Export Price Indexes`)
    said = normalise_text(question)
    texts = {b: " ".join(_line_text(table, r, b.lines) for r in _own_caption(b)) for b in blocks}
    captions = {b: _words(text) for b, text in texts.items()}
    found: list[str] = []
    for b in blocks:
        if b is chosen or b.lines != chosen.lines:
            continue
        others = set().union(*(w for o, w in captions.items() if o is not b))
        unique = {w for w in (captions[b] - others) & asked - have if w.isalpha() and len(w) > 2}
        found += [w for w in _WORD.findall(texts[b]) if stem(normalise_text(w)) in unique]  # as written
        for r in range(b.r0, b.r1 + 1):
            for text in table.text[r][b.c0 : b.c1 + 1]:
                words = _words(text)
                label = normalise_text(text).strip()
                if (len(words) >= 2 and not words & have and not is_number_text(text)
                        and re.search(rf"(?<!\w){re.escape(label)}(?!\w)", said)):
                    found.append(text.strip())
    return tuple(dict.fromkeys(found))


def _address(table: Table, b: Block) -> str:
    return table.address(b.r0, b.c0, b.r1, b.c1)
