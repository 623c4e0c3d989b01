"""Calibrated confidence and candidate selection of the offline engine, through `solve`."""

from __future__ import annotations

import numpy as np
import pytest

from celltrace.server.offline.solver import UNMET_CAP, UNSUPPORTED, candidate_plans, solve
from celltrace.server.offline.trees import TreeModel, load
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table


def _solve(cells: list[list[str]], question: str, merges: list[tuple[int, int, int, int]] | None = None):
    graph = CellGraph(Table(text=cells, merges=merges or []))
    return solve(question, graph, infer_headers(graph), None)


def test_tree_model_follows_splits_and_applies_the_logistic_link() -> None:
    spec = {"features": ["a", "b"], "init": 0.0, "learning_rate": 1.0, "trees": [
        {"feature": [0, -2, 1, -2, -2], "threshold": [0.5, 0, 2.0, 0, 0],
         "left": [1, -1, 3, -1, -1], "right": [2, -1, 4, -1, -1], "value": [0, -2.0, 0, 1.0, 3.0]},
    ]}
    model = TreeModel(spec)
    rows = [{"a": 0.0, "b": 9.0}, {"a": 1.0, "b": 1.0}, {"a": 1.0, "b": 5.0}]
    probs = model.probabilities(model.matrix(rows))
    assert probs == pytest.approx(1 / (1 + np.exp(-np.array([-2.0, 1.0, 3.0]))))
    missing = model.probabilities(model.matrix([{"a": 1.0}]))  # a missing feature reads -1
    assert missing == pytest.approx([1 / (1 + np.exp(-1.0))])


def test_the_shipped_model_loads_and_names_its_features() -> None:
    model = load("confidence_model")
    assert len(model.roots) > 0 and model.features
    assert all(0.0 < p < 1.0 for p in model.probabilities(model.matrix([{}])))


TABLE = [
    ["", "2019", "2020"],
    ["men", "120", "135"],
    ["women", "98", "101"],
    ["total", "218", "236"],
]


def test_confidence_is_a_probability_and_ambiguity_lowers_it() -> None:
    clear = _solve(TABLE, "how many women were there in 2020?")
    vague = _solve(TABLE, "how many were there?")
    assert clear.answer == ["101"]
    assert 0.0 <= vague.confidence < clear.confidence <= 1.0


def test_an_operation_word_inside_the_chosen_label_is_a_lookup() -> None:
    cells = [
        ["", "average age", "number of members"],
        ["men", "41.5", "1,200"],
        ["women", "39.2", "1,350"],
    ]
    plan = _solve(cells, "what was the average age of women?")
    assert plan.answer == ["39.2"]
    assert plan.operation == "lookup"
    assert any(op != "lookup" for op, _, _ in plan.considered) or len(plan.considered) == 1


def test_every_candidate_weighed_is_reported_with_its_probability() -> None:
    plan = _solve(TABLE, "what was the difference between men and women in 2019?")
    assert plan.considered
    assert all(0.0 <= p <= 1.0 for _, _, p in plan.considered)
    assert plan.considered[0][:2] == (plan.operation, plan.answer)
    assert plan.considered[0][2] == pytest.approx(plan.confidence, abs=1e-4)


def test_an_answer_of_another_kind_than_asked_is_flagged() -> None:
    """`which …` answered with a figure, `how many …` with a label: the type_mismatch feature."""
    graph = CellGraph(Table(text=TABLE))

    def mismatch(question: str) -> list[float]:
        return [f["type_mismatch"] for _, f in candidate_plans(question, graph, infer_headers(graph), None)]

    assert mismatch("how many women were there in 2020?") == [0.0]
    assert mismatch("which year had the most women?") == [0.0, 1.0]  # argmax names 2020; lookup: 98
    assert mismatch("how many were higher in 2019, men or women?") == [1.0, 0.0]  # `men`; lookup: 120
    shares = CellGraph(Table(text=[["Cohort", "New customers", "Month 6"], ["Jan 2025", "412", "56.1%"],
                                   ["Feb 2025", "388", "58.0%"]]))
    assert [f["type_mismatch"] for p, f in candidate_plans(  # a count asked, a percentage read
        "how many customers from the jan 2025 cohort were active in month 6?", shares,
        infer_headers(shares), None) if p.operation == "lookup"] == [1.0]
    money = CellGraph(Table(text=[["", "2023", "2022"], ["Salaries of employees", "4,820", "4,510"],
                                  ["Benefits", "1,200", "1,150"]], title="(in thousands of dollars)"))
    assert [f["type_mismatch"] for p, f in candidate_plans(  # a count asked, money read
        "how many employees were there in 2023?", money, infer_headers(money), None)
        if p.operation == "lookup"] == [1.0]
    bands = CellGraph(Table(text=[["Gift size", "Donors", "Dollars"],
                                  ["$1,000 – $9,999", "412", "$1,206,300"],
                                  ["$100,000 and above", "11", "$3,764,200"]]))
    for question, flagged in (("how much was raised from donors in the $100,000 and above band?", 1.0),
                              ("how many donors gave $100,000 and above?", 0.0)):  # money asked, a count
        assert [(p.answer, f["type_mismatch"]) for p, f in candidate_plans(  # read beside it; a count
            question, bands, infer_headers(bands), None)] == [(["11"], flagged)]  # asked
    model = load("confidence_model")
    assert "type_mismatch" in model.features


TRIANGLE = [
    ["Accident year", "Earned premium", "12 months", "24 months", "36 months", "48 months"],
    ["2016", "58,210", "16,112", "24,987", "30,651", "34,020"],
    ["2017", "66,825", "17,430", "27,118", "33,504", "36,465"],
    ["2018", "70,114", "18,004", "28,390", "35,012", ""],
]


def test_a_lookup_answering_an_operation_it_could_not_compute_abstains() -> None:
    """`paid loss ratio` asks a ratio the table holds no line of: the 48-month figure it reads is
    not that ratio, so its confidence stays below the answer threshold (`solver.UNMET_CAP`)."""
    plan = _solve(TRIANGLE, "What was the paid loss ratio at 48 months for accident year 2017?")
    assert plan.operation == "lookup" and plan.answer == ["36,465"] and plan.confidence <= UNMET_CAP


def test_figures_that_add_up_to_a_total_are_amounts_and_a_unit_row_marks_percentages() -> None:
    """`amounts_add_up`: the column read adds up to its total (82 remote staff of departments), so a
    `what percentage` answered from it reads amounts; `percent_mismatch` reads a `Percent` unit row
    over the table as the cells' own percent sign."""
    staff = CellGraph(Table(text=[
        ["Department", "Office", "Remote"], ["Engineering", "120", "51"], ["Sales", "60", "12"],
        ["Finance", "25", "4"], ["Legal", "10", "–"], ["Total headcount", "215", "67"],
    ]))
    feats = [f for p, f in candidate_plans("What percentage of total headcount works remotely?", staff,
                                           infer_headers(staff), None) if p.operation == "lookup"]
    assert [(f["amounts_add_up"], f["percent_mismatch"]) for f in feats] == [(1.0, 1.0)]
    shares = CellGraph(Table(text=[
        ["", "2022", "2023"], ["", "Percent", ""], ["Coal", "18.2", "15.1"], ["Gas", "40.3", "41.8"],
        ["Other", "41.5", "43.1"],
    ], merges=[(1, 1, 1, 2)]))
    feats = [f for p, f in candidate_plans("What percentage of generation was coal in 2023?", shares,
                                           infer_headers(shares), None) if p.operation == "lookup"]
    assert [(f["amounts_add_up"], f["percent_mismatch"]) for f in feats] == [(0.0, 0.0)]


def test_a_lookup_read_for_a_count_against_a_stated_bound_stays_under_the_answer_threshold() -> None:
    """`how many … had an IC50 below 10` asks a count; a figure read instead is capped."""
    table = Table(text=[
        ["Compound", "MCF-7 IC50"],
        ["Compound 4a", "18.42"],
        ["Compound 4b", "9.86"],
        ["Compound 4c", "7.31"],
        ["Reference drug", "1.24"],
    ])
    graph = CellGraph(table)
    plan = solve("How many of the compounds had an MCF-7 IC50 below 10?", graph, infer_headers(graph), None)
    assert plan.operation != "lookup" or plan.confidence <= UNMET_CAP


def test_a_precision_measure_no_label_gives_is_unsupported() -> None:
    """`the margin of error` where the table shows none (a note may state it): no cell is it."""
    table = Table(text=[
        ["", "Total", "Men", "Women"],
        ["Approve", "47", "43", "51"],
        ["Disapprove", "47", "52", "42"],
        ["Unweighted base (n)", "1,004", "492", "512"],
    ], notes=["Margin of sampling error: ±3.1 percentage points for the total sample."])
    graph = CellGraph(table)
    plan = solve("What is the margin of error for the total sample?", graph, infer_headers(graph), None)
    assert plan.unsupported and plan.confidence <= UNSUPPORTED
