"""Templates, rendering and node-reference resolution (no LLM)."""

from __future__ import annotations

import pytest
from graphotter_script import figure6_table

from celltrace.prompts import load
from celltrace.server.engine.actions import canonical_action, normalise_args, resolve
from celltrace.server.engine.loop import execute
from celltrace.server.engine.state import ReasoningState
from celltrace.server.infra.prompting import data_block, history_lines, render
from celltrace.server.infra.settings import Settings
from celltrace.server.infra.tokens import estimate_tokens
from celltrace.shared.graph import CellGraph
from celltrace.shared.schemas import Step, StepAction
from celltrace.shared.table import Table

GRAPH = CellGraph(figure6_table())


@pytest.mark.parametrize(
    "name", ["graph_system", "graph_trace_init", "graph_thought", "graph_action", "graph_answer"]
)
def test_templates_exist_and_name_the_paper_actions(name: str) -> None:
    text = load(name)
    assert text.strip()
    if name in ("graph_thought", "graph_action"):  # the Thought gets the tools, the Action their names
        tools = load("graph_tools") if name == "graph_thought" else text
        assert all(
            a in tools for a in ("VisitNode", "GetAllNeighbours", "GetSharedNeighbours", "AnswerQuestion")
        )


def test_render_checks_slots_and_never_rescans_values() -> None:
    assert render("reask", error="{{error}} x") == "Your previous reply could not be used: {{error}} x\n" + (
        "Reply again with only the JSON value in the requested schema, and nothing else.\n"
    )
    with pytest.raises(KeyError):
        render("reask")
    with pytest.raises(KeyError):
        render("reask", error="e", extra="x")


def test_data_block_delimits() -> None:
    assert data_block("TABLE", ["(0, 0, 'a')"]) == "<<<BEGIN TABLE>>>\n(0, 0, 'a')\n<<<END TABLE>>>"


@pytest.mark.parametrize(
    ("name", "canonical"),
    [("VisitNode", "VisitNode"), ("SearchNode", "VisitNode"), ("get_all_neighbors", "GetAllNeighbours"),
     ("GETSHAREDNEIGHBOURS", "GetSharedNeighbours"), ("Answer", "AnswerQuestion"),
     ("answer_question", "AnswerQuestion"), ("Teleport", None)],
)  # fmt: skip
def test_action_aliases(name: str, canonical: str | None) -> None:
    assert canonical_action(name) == canonical


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ([2, 3, "percent"], (2, 1)),  # a merged area answers to every cell inside it
        ("(0-1, 0, 'sub-groups of the agri-food industry')", (0, 0)),
        ({"row": 6, "col": 3, "text": "55.0"}, (6, 3)),  # numbers compare by value
        ([[1], [3, 4], "northern ontario"], (0, 3)),  # wrong position, text wins (nearest match)
        ([6, 9, "food service"], (6, 0)),  # out of range column: reconciled by text
        ("food service", (6, 0)),
        ([4, 3], (4, 3)),
    ],
)
def test_resolve(ref: object, expected: tuple[int, int]) -> None:
    res = resolve(GRAPH, None, ref)
    assert res.node is not None and (res.node.r0, res.node.c0) == expected


def test_resolve_failures_list_candidates() -> None:
    res = resolve(GRAPH, None, "french-language workers")
    assert res.node is None and len(res.candidates) == 2
    assert "candidates: [B2 'french-language workers', D2 " in res.failure("x", 5)
    missing = resolve(GRAPH, None, [99, 0])
    assert missing.node is None and "outside the 7x5 table" in missing.note
    assert "outside" in (resolve(GRAPH, None, "( 1,151 )").note)
    table = figure6_table()
    table.text[3][1] = "( 1,151 )"
    accounting = resolve(CellGraph(table), None, "( 1,151 )")  # accounting text, not a position
    assert accounting.node is not None and (accounting.node.r0, accounting.node.c0) == (3, 1)


def test_normalise_args() -> None:
    assert normalise_args("GetAllNeighbours", [1, 3, "x"]) == [[1, 3, "x"]]
    assert normalise_args("GetSharedNeighbours", ["((2, 3, 'a'), (6, 0, 'b'))"]) == [[2, 3, "a"], [6, 0, "b"]]
    assert normalise_args("GetSharedNeighbours", [2, 3, "a", 6, 0, "b"]) == [[2, 3, "a"], [6, 0, "b"]]
    assert normalise_args("VisitNode", ["percent"]) == ["percent"]


def test_history_is_bounded_newest_first() -> None:
    steps = [
        Step(
            thought="t" * 300,
            actions=[StepAction(name="VisitNode", args=[f"q{i}"])],
            observations=["o" * 300],
        )
        for i in range(10)
    ]
    lines = history_lines(steps, 500)
    assert sum(estimate_tokens(line) + 1 for line in lines) <= 500
    assert lines[-1].startswith("1. ooo")  # the newest step in full, the earlier ones as one line each
    assert "Step 1: [\"VisitNode('q0')\"]" in lines
    assert [line for line in lines if line.startswith("Thought step")] == [f"Thought step 10: {'t' * 300}"]
    short = history_lines(steps, 100)  # the newest step does not fit in full: one line each, oldest cut
    assert short[0] == "... 4 earlier steps not shown" and short[-1] == "Step 10: [\"VisitNode('q9')\"]"
    assert sum(estimate_tokens(line) + 1 for line in short[1:]) <= 100


def test_a_long_neighbour_list_keeps_its_end() -> None:
    """Past the cap a list shows its first cells and its last quarter (the total closing a column)."""
    rows = [["region", "count"], *([f"place {r}", str(r)] for r in range(1, 70)), ["total", "2415"]]
    table = Table(text=rows, title="places")
    graph = CellGraph(table)
    settings = Settings(_env_file=None, max_list_lines=40)  # type: ignore[call-arg]
    state = ReasoningState("what is the total count?", table, graph, settings)
    out = execute(state, StepAction(name="GetAllNeighbours", args=["B1"]))
    shown = out.observation.split("Same column: ")[1]
    assert shown.startswith("[B2 '1', B3 '2', ") and "B31 '30', ... 30 more ..., B62 '61', " in shown
    assert shown.endswith("B70 '69', B71 '2415'].") and "B32 '31'" not in shown and "B61 '60'" not in shown
    assert graph.node_at(70, 1).id in state.observed and graph.node_at(40, 1).id not in state.observed
