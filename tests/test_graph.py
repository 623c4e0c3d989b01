"""Property tests of the cell graph against brute force on random merge layouts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from celltrace.shared.a1 import range_ref
from celltrace.shared.graph import CellGraph, Node, graph_of, phrase_spans, render_node
from celltrace.shared.graph_json import graph_result
from celltrace.shared.table import Origin, Table


@st.composite
def tables(draw: st.DrawFn, max_side: int = 6) -> Table:
    """A random grid (texts from a tiny alphabet, so duplicates and blanks occur) with random
    non-overlapping merged rectangles."""
    n_rows = draw(st.integers(1, max_side))
    n_cols = draw(st.integers(1, max_side))
    text = [
        [draw(st.sampled_from(["", "a", "b", "Total", " "])) for _ in range(n_cols)] for _ in range(n_rows)
    ]
    taken: set[tuple[int, int]] = set()
    merges = []
    for _ in range(draw(st.integers(0, 6))):
        r0 = draw(st.integers(0, n_rows - 1))
        c0 = draw(st.integers(0, n_cols - 1))
        r1 = draw(st.integers(r0, n_rows - 1))
        c1 = draw(st.integers(c0, n_cols - 1))
        area = {(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)}
        if len(area) > 1 and not area & taken:
            taken |= area
            merges.append((r0, c0, r1, c1))
            for r, c in area - {(r0, c0)}:
                text[r][c] = ""
    return Table(text=text, merges=merges)


def brute_relation(a: Node, b: Node) -> str | None:
    if set(a.rows) & set(b.rows):
        return "same_row"
    if set(a.cols) & set(b.cols):
        return "same_column"
    return None


def brute_edges(g: CellGraph) -> list[tuple[int, int, str]]:
    out = []
    for a, b in combinations(g.nodes, 2):
        rel = brute_relation(a, b)
        if rel:
            out.append((a.id, b.id, rel))
    return out


def brute_adjacent(g: CellGraph, a: Node) -> set[int]:
    return {b.id for b in g.nodes if b.id != a.id and brute_relation(a, b)}


@settings(max_examples=150, deadline=None)
@given(tables())
def test_every_position_belongs_to_exactly_one_node(t: Table) -> None:
    g = CellGraph(t)
    for r in range(t.n_rows):
        for c in range(t.n_cols):
            owners = [n for n in g.nodes if n.covers(r, c)]
            assert len(owners) == 1
            assert g.node_at(r, c) is owners[0]
    merged = {(n.r0, n.c0, n.r1, n.c1) for n in g.nodes if n.merged}
    assert merged == set(t.merges)
    assert len(g) == t.n_rows * t.n_cols - sum((m[2] - m[0] + 1) * (m[3] - m[1] + 1) - 1 for m in t.merges)
    assert [n.id for n in g.nodes] == list(range(len(g)))
    assert [(n.r0, n.c0) for n in g.nodes] == sorted((n.r0, n.c0) for n in g.nodes)


@settings(max_examples=150, deadline=None)
@given(tables())
def test_edges_match_the_set_intersection_rule(t: Table) -> None:
    g = CellGraph(t)
    expected = brute_edges(g)
    assert list(g.edges()) == expected
    assert g.edge_count() == len(expected)
    assert g.edge_counts() == {
        "same_row": sum(rel == "same_row" for *_, rel in expected),
        "same_column": sum(rel == "same_column" for *_, rel in expected),
    }
    assert list(g.edges(limit=3)) == expected[:3]
    for a in g.nodes:
        same_row, same_col = g.neighbours(a)
        assert {n.id for n in same_row} | {n.id for n in same_col} == brute_adjacent(g, a)
        assert all(brute_relation(a, n) == "same_row" for n in same_row)
        assert all(brute_relation(a, n) == "same_column" for n in same_col)
        for b in g.nodes:
            assert g.relation(a, b) == g.relation(b, a)
            assert g.relation(a, b) == (brute_relation(a, b) if a.id != b.id else None)


@settings(max_examples=100, deadline=None)
@given(tables(max_side=5))
def test_shared_neighbours_is_the_intersection(t: Table) -> None:
    g = CellGraph(t)
    for a, b in combinations(g.nodes, 2):
        expected = sorted((brute_adjacent(g, a) & brute_adjacent(g, b)) - {a.id, b.id})
        assert [n.id for n in g.shared_neighbours(a, b)] == expected
        assert g.shared_neighbours(a, b) == g.shared_neighbours(b, a)


@settings(max_examples=100, deadline=None)
@given(tables(), st.integers(0, 40))
def test_graph_result_lists_edges_up_to_the_limit(t: Table, limit: int) -> None:
    g = CellGraph(t)
    result = graph_result(t, max_edges=limit)
    assert [(n.id, n.rows, n.cols) for n in result.nodes] == [
        (n.id, list(n.rows), list(n.cols)) for n in g.nodes
    ]
    if g.edge_count() <= limit:
        assert result.edges is not None
        assert [(e.a, e.b, e.relation) for e in result.edges] == brute_edges(g)
    else:
        assert result.edges is None and "edges omitted" in result.warnings[-1]


RENDER_SCRIPT = """
from celltrace.shared.graph import CellGraph, render_node
from celltrace.shared.graph_json import graph_result
from celltrace.shared.table import Table
text = [[w for w in row] for row in (["", "Year", "", "Total"], ["a", "b", "a", "Total"],
        ["b", "1", "2", "3"], ["Total", "4", "5", "6"])]
text[0][2] = ""
t = Table(text=text, merges=[(0, 1, 0, 2), (1, 0, 2, 0)])
g = CellGraph(t)
for n in g.nodes:
    print(render_node(n), [m.id for m in g.neighbours(n)[0]], [m.id for m in g.neighbours(n)[1]])
print([render_node(n) for n in g.find_text("total")])
print([render_node(n) for n in g.shared_neighbours(g.node_at(2, 1), g.node_at(3, 3))])
print(graph_result(t, 1000).model_dump_json())
"""


def test_rendering_is_deterministic_across_hash_seeds() -> None:
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-c", RENDER_SCRIPT], env=env, capture_output=True, check=True, timeout=60
        )
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    assert b"B1:C1 'Year'" in outputs[0]


def test_render_node_truncates() -> None:
    node = Node(0, 0, 1, 1, 3, "Year ended December 31", None)
    assert render_node(node) == "(0-1, 1-3, 'Year ended December 31')"
    assert render_node(node, max_chars=5) == "(0-1, 1-3, 'Year…')"


@given(tables(), st.integers(1, 30), st.integers(1, 30))
@settings(max_examples=60, deadline=None)
def test_node_addresses_follow_the_origin(t: Table, top: int, left: int) -> None:
    t.origin = Origin(sheet="S", address=range_ref(top, left, top + t.n_rows - 1, left + t.n_cols - 1))
    for node in CellGraph(t).nodes:
        assert node.address == t.address(node.r0, node.c0, node.r1, node.c1)


def test_graph_of_shares_one_graph_per_content_and_origin() -> None:
    rows = [["year", "revenue"], ["2016", "700"]]
    first = graph_of(Table(text=[list(r) for r in rows]))
    assert graph_of(Table(text=[list(r) for r in rows])) is first
    moved = Table(text=[list(r) for r in rows], origin=Origin(sheet="S", address="C3:D4"))
    assert graph_of(moved) is not first
    assert graph_of(moved).node_at(1, 1).address == "D4"
    changed = Table(text=[["year", "revenue"], ["2016", "701"]])
    assert graph_of(changed).node_at(1, 1).text == "701"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab _-(é1²", max_size=14), st.text(alphabet="ab _-(é1²", min_size=1, max_size=3))
def test_phrase_spans_are_the_whole_word_matches(text: str, phrase: str) -> None:
    """The regex-free search finds what `(?<!\\w)phrase(?!\\w)` finds."""
    expected = [m.span() for m in re.finditer(rf"(?<!\w){re.escape(phrase)}(?!\w)", text)]
    assert phrase_spans(text, phrase) == expected


def test_phrase_spans_skip_a_phrase_inside_a_longer_word() -> None:
    assert phrase_spans("net income and other income", "income") == [(4, 10), (21, 27)]
    assert phrase_spans("incomes", "income") == [] and phrase_spans("x", "") == []
