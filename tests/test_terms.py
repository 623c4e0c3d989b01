"""Answers in the user's terms: `value` and `unit` of every answer, rendered numbers, best guesses."""

from __future__ import annotations

import pytest

from celltrace.server.commands.ask_cmd import human
from celltrace.server.engine.api import answer_question
from celltrace.server.engine.context import headers_of
from celltrace.server.engine.policy import FinalAnswer
from celltrace.server.engine.terms import in_user_terms
from celltrace.shared.graph import CellGraph
from celltrace.shared.schemas import AskResult, confidence_text
from celltrace.shared.table import Table

FILING = Table(
    text=[
        ["", "2017", "2016"],
        ["Passenger", "$31,000", "$29,000"],
        ["Cargo", "1,234", "1,100"],
        ["Total revenue", "$32,234", "$30,100"],
        ["Load factor", "83.6%", "82.1%"],
        ["Net income", "(1,234)", "2,000"],
    ],
    title="Consolidated statement of operations (in millions, except per share data)",
)


def ask(question: str, table: Table = FILING) -> AskResult:
    return answer_question(table, question, engine="offline")


def test_a_lookup_keeps_the_cell_text_with_its_number_and_caption_unit() -> None:
    r = ask("what was passenger revenue in 2016?")
    assert (r.answer, r.value, r.unit) == (["$29,000"], 29000.0, "$ millions")
    r = ask("what was net income in 2017?")
    assert (r.answer, r.value, r.unit) == (["(1,234)"], -1234.0, "millions")
    r = ask("what was the load factor in 2017?")
    assert (r.answer, r.value, r.unit) == (["83.6%"], pytest.approx(0.836), "%")
    assert r.confidence is not None and 0 <= r.confidence <= 1


def test_computed_answers_render_in_the_sources_format() -> None:
    r = ask("what was the average passenger revenue?")
    assert (r.answer, r.value, r.unit) == (["$30,000"], 30000.0, "$ millions")
    r = ask("what percentage of total revenue was cargo in 2017?")
    assert (r.answer, r.unit) == (["3.8%"], "%") and r.value == pytest.approx(1234 / 32234)


def test_a_label_answer_has_no_number() -> None:
    r = ask("which year had the higher passenger revenue, 2017 or 2016?")
    assert r.status in ("answered", "abstained") and r.answer == ["2017"]  # a best guess keeps its answer
    assert (r.value, r.unit) == (None, None)


def test_a_scale_caption_in_a_header_label_and_a_thousands_shorthand() -> None:
    t = Table(text=[["", "Passengers (000s)"], ["2019", "148,522"], ["2018", "130,256"]])
    r = ask("how many passengers in 2019?", t)
    assert (r.answer, r.value, r.unit) == (["148,522"], 148522.0, "thousands")


def test_cli_shows_a_best_guess_as_such() -> None:
    guess = AskResult(question="q", status="abstained", error="confidence 0.10 below 0.15", engine="offline",
                      answer=["$29,000"], value=29000.0, unit="$ millions", confidence=0.1)
    text = "\n".join(human(guess, FILING))
    assert text.startswith("Best guess (low confidence): $29,000 ($ millions) · confidence 0.10")
    assert "confidence 0.10 below 0.15" in text
    abstained = AskResult(question="q", status="abstained", engine="offline")
    assert human(abstained, FILING)[0] == "No answer (abstained)."


def test_a_confidence_under_the_threshold_never_shows_as_reaching_it() -> None:
    """Shown rounded down: 0.818 under the threshold 0.82 reads 0.81, not `0.82 below 0.82`."""
    shown = [confidence_text(c) for c in (0.818, 0.82, 0.29, 0.0, 1.0)]
    assert shown == ["0.81", "0.82", "0.29", "0.00", "1.00"]


def test_a_unit_row_gives_the_unit_of_the_numbers_under_it() -> None:
    t = Table(text=[["", "2019", "2020"], ["", "percent", "percent"], ["men", "24.5", "25.1"],
                    ["women", "26.0", "27.3"]])
    r = ask("what was the rate for women in 2020?", t)
    assert (r.answer, r.value, r.unit) == (["27.3"], 27.3, "percent")  # a number of percent, as shown


def test_a_difference_of_percentages_is_in_percentage_points() -> None:
    t = Table(text=[["", "2019", "2020"], ["", "percent", "percent"], ["men", "24.5", "25.1"],
                    ["women", "26.0", "27.3"]])
    r = ask("how much did the rate for women increase from 2019 to 2020?", t)
    assert (r.answer, r.value, r.unit) == (["1.3"], pytest.approx(1.3), "percentage points")
    r = ask("how much did the load factor change from 2016 to 2017?")
    assert (r.answer, r.unit) == (["1.5%"], "percentage points") and r.value == pytest.approx(0.015)
    r = ask("what was the average load factor?")  # a mean of percentages is a percentage
    assert r.unit == "%"


def test_an_answer_read_beside_the_cell_asked_for_says_that_cell_shows_no_figure() -> None:
    """The cell the question names shows `..`: whatever the best guess, the result says so, with the
    legend's meaning of the mark."""
    t = Table(text=[["", "2019", "2020"], ["iceland", "3.9", ".."], ["spain", "14.1", "15.5"]],
              notes=[".. not available for a specific reference period"])
    r = ask("what was the unemployment rate in iceland in 2020?", t)
    assert any(w.startswith("C2, the cell the question names best, shows '..' (not available for a specific "
                            "reference period)") for w in r.warnings), r.warnings
    r = ask("what was the unemployment rate in spain in 2020?", t)
    assert r.answer == ["15.5"] and not any("names best" in w for w in r.warnings)


def test_a_bare_number_from_any_engine_is_shown_as_its_cell_shows_it() -> None:
    graph = CellGraph(FILING)
    headers = headers_of(graph)

    def terms(answer: str, row: int, col: int) -> tuple[list[str], float | None, str | None]:
        node = graph.node_at(row, col)
        final = FinalAnswer(status="answered", answer=[answer], answer_nodes=[node.id], header_nodes=[])
        return in_user_terms(final, FILING, graph, headers)

    assert terms("31000", 1, 1) == (["$31,000"], 31000.0, "$ millions")
    assert terms("83.6", 4, 1) == (["83.6%"], pytest.approx(0.836), "%")
    assert terms("1234", 5, 1) == (["1234"], 1234.0, "millions")  # not the cell's number (-1,234)
    assert terms("about 31000", 1, 1)[0] == ["about 31000"]


def test_several_values_read_from_cells_carry_the_unit_they_share() -> None:
    r = ask("what was passenger revenue in 2016 and 2017?")
    assert (r.answer, r.value, r.unit) == (["$29,000", "$31,000"], None, "$ millions")
    r = ask("what were the passenger and cargo revenue in 2017, respectively?")
    assert r.answer == ["$31,000", "1,234"] and r.unit is None  # `$ millions` and `millions`


def test_what_a_money_caption_does_not_measure_has_no_money_unit() -> None:
    """A count (`Qty`), a price per share and a year under `Dollars in millions` are none of them
    millions of dollars."""
    table = Table(text=[
        ["", "FY 2025", "", ""],
        ["", "Qty", "$M", "Maturity"],
        ["PAC-3 MSE", "230", "1,232.8", "2046"],
        ["Javelin", "1,000", "179.8", "2031"],
    ], merges=[(0, 1, 0, 2)], title="Dollars in millions")
    assert ask("How many PAC-3 MSE were requested in FY 2025?", table).unit is None
    assert ask("How much is requested for Javelin in FY 2025?", table).unit == "$ millions"
    assert ask("In what year does Javelin mature?", table).unit is None
    quarters = Table(text=[
        ["", "First Quarter", "Second Quarter"],
        ["Net sales", "$412,300", "$455,120"],
        ["Stock price range: High", "$48.20", "$55.10"],
    ], title="(in thousands, except per share data)")
    assert ask("What was the high stock price in the second quarter?", quarters).unit == "$"


def test_a_time_unit_in_the_corner_measures_the_row_labels_not_the_figures() -> None:
    table = Table(text=[
        ["Age group (years)", "2013", "2023"],
        ["0 to 14", "412,300", "398,100"],
        ["15 to 64", "1,611,200", "1,650,400"],
        ["Total, all ages", "2,023,500", "2,048,500"],
    ])
    assert ask("What was the total population in 2023?", table).unit is None
