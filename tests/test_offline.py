"""Offline engine: operations, abstention, evidence and the policy replay on hand-built tables."""

from __future__ import annotations

import pytest
from tables import run, statement

from celltrace.server.engine.api import answer_question
from celltrace.server.infra.retrieval import Retriever
from celltrace.server.infra.settings import Settings
from celltrace.server.offline import operations as ops
from celltrace.server.offline.arithmetic import compute_plan
from celltrace.server.offline.grounding import (
    Grounder,
    Plan,
    asked_periods,
    interim_period,
    is_interim_label,
    line_year,
    month_span,
    period_end,
    price_base,
    ranked_cells,
    spelled_later,
    spelled_years,
    whole_table_words,
)
from celltrace.server.offline.intent import candidates
from celltrace.server.offline.intervals import whole_classes
from celltrace.server.offline.lexicon import (
    abbreviates,
    acronym,
    content_words,
    label_tokens,
    match_words,
    quantity_words,
)
from celltrace.server.offline.lines import is_aggregate_label, value_cell
from celltrace.server.offline.lookup import wants_label
from celltrace.server.offline.solver import solve
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.numstyle import NumStyle
from celltrace.shared.table import Table
from celltrace.shared.units import without_exemptions

STATEMENT = statement()

SURVEY = Table(
    text=[
        ["province", "men", "", "women", ""],
        ["", "number", "percent", "number", "percent"],
        ["ontario", "120", "40.5", "150", "45.1"],
        ["quebec", "90", "30.2", "80", "24.0"],
        ["alberta", "60", "20.1", "70", "21.0"],
        ["total", "270", "90.8", "300", "90.1"],
    ],
    merges=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 0, 4)],
)


def cells(graph: CellGraph, ids: list[int]) -> list[tuple[int, int]]:
    return sorted((graph.node(i).r0, graph.node(i).c0) for i in ids)


def test_lookup_returns_displayed_text_with_evidence() -> None:
    plan, g = run(STATEMENT, "What was cargo revenue in 2016?")
    assert (plan.operation, plan.answer) == ("lookup", ["1,100"])
    assert cells(g, plan.answer_nodes) == [(4, 2)]
    assert {(1, 2), (4, 0)} <= set(cells(g, plan.header_nodes))
    assert plan.confidence >= 0.5


def test_lookup_through_merged_column_groups() -> None:
    plan, g = run(SURVEY, "what percent of women lived in quebec?")
    assert plan.answer == ["24.0"] and cells(g, plan.answer_nodes) == [(3, 4)]
    plan, _ = run(SURVEY, "how many men were in alberta?")
    assert plan.answer == ["60"]


def test_difference_from_to_is_later_minus_earlier() -> None:
    plan, g = run(STATEMENT, "How much did cargo revenue increase from 2016 to 2017?")
    assert (plan.operation, plan.answer) == ("diff", ["134"])
    assert cells(g, plan.answer_nodes) == [(4, 1), (4, 2)]
    plan, _ = run(STATEMENT, "what was the difference between passenger revenue in 2017 and 2016?")
    assert plan.answer == ["$2,000"]  # in the sources' format


BALANCE_SHEET = Table(
    text=[
        ["", "December 31, 2020", "December 31, 2019"],
        ["Cash and cash equivalents", "152,340", "98,211"],
        ["Total assets", "823,097", "740,611"],
        ["Long-term debt", "250,000", "275,000"],
    ],
)


CENSUS = Table(
    text=[["Age group", "2016", "", "2021", ""], ["", "Males", "Females", "Males", "Females"],
          ["0 to 14 years", "2,990", "2,850", "3,140", "3,021"],
          ["65 years and over", "2,700", "3,200", "2,835", "3,392"]],
    merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 0, 1, 0)],
)
"""Years heading column groups (`Males`/`Females` under each), as census tables have them."""


def test_dated_columns_are_named_by_their_year() -> None:
    """A balance sheet's `December 31, 2019` is the column a question naming 2019 means: a change
    between two such dates is the later minus the earlier, however the columns are ordered."""
    plan, g = run(BALANCE_SHEET, "How much did total assets increase from 2019 to 2020?")
    assert (plan.operation, plan.answer) == ("diff", ["82,486"])
    assert cells(g, plan.answer_nodes) == [(2, 1), (2, 2)]
    plan, _ = run(BALANCE_SHEET, "What was the change in long-term debt between 2019 and 2020?")
    assert plan.answer == ["-25,000"]


def test_other_is_a_word_of_a_label() -> None:
    """`Other income` is not `Operating income`: `other` is not a function word to skip."""
    table = Table(text=[["", "2019", "2018"], ["Operating income", "3,883", "3,190"],
                        ["Other income (expense), net", "(112)", "48"], ["Net income", "2,979", "2,558"]])
    plan, g = run(table, "What was other income in 2019?")
    assert plan.answer == ["(112)"] and cells(g, plan.answer_nodes) == [(2, 1)]


def test_total_alone_does_not_name_a_sections_total_line() -> None:
    """`total revenue` is the revenue line, not `Total operating expenses` (whose other words its
    section already holds)."""
    table = Table(text=[["", "2019", "2018"], ["Revenue", "24,578", "22,310"],
                        ["Operating expenses:", "", ""], ["  Research", "3,120", "2,870"],
                        ["  Marketing", "2,410", "2,265"],
                        ["  Total operating expenses", "5,530", "5,135"]])
    plan, g = run(table, "What was total revenue in 2019?")
    assert plan.answer == ["24,578"] and cells(g, plan.answer_nodes) == [(1, 1)]
    plan, _ = run(table, "What were total operating expenses in 2018?")
    assert plan.answer == ["5,135"]


def test_a_change_in_one_year_is_against_the_year_shown_before_it() -> None:
    """With no change line in the table, `increase in 2020` compares 2020 with 2019 beside it (a
    decrease: 2019 − 2020), as sure as its two lookups, when the question asks the amount of a
    change; `increase to` asks the level reached."""
    plan, g = run(BALANCE_SHEET, "How much did cash and cash equivalents increase in 2020?")
    assert (plan.operation, plan.answer) == ("diff", ["54,129"])
    assert sorted(cells(g, plan.answer_nodes)) == [(1, 1), (1, 2)]
    assert plan.parts == ["How much did cash and cash equivalents in 2020?",
                          "How much did cash and cash equivalents in 2019?"]
    plan, _ = run(BALANCE_SHEET, "How much did long-term debt decrease in 2020?")
    assert (plan.operation, plan.answer) == ("diff", ["25,000"])
    plan, _ = run(BALANCE_SHEET, "What was the percentage change in cash and cash equivalents in 2020?")
    assert ("growth", ["55.1%"]) in [(op, answer) for op, answer, _ in plan.considered]
    for question in ("By what percentage did cash and cash equivalents increase in 2020?",
                     "What was the growth rate of cash and cash equivalents in 2020?"):
        plan, _ = run(BALANCE_SHEET, question)
        assert (plan.operation, plan.answer) == ("growth", ["55.1%"]), question
    assert plan.parts == ["What was the rate of cash and cash equivalents in 2020?",
                          "What was the rate of cash and cash equivalents in 2019?"]  # a growth rate is
    # as sure as its two years' lookups
    plan, _ = run(BALANCE_SHEET, "What was the growth in cash and cash equivalents in 2020?")
    assert (plan.operation, plan.answer) == ("diff", ["54,129"])
    plan, _ = run(BALANCE_SHEET, "What was the total assets growth in 2020?")
    assert (plan.operation, plan.answer) == ("diff", ["82,486"])
    for level in ("How much did total assets increase to in 2020?",
                  "What was the rate of long-term debt that fell with time in 2020?",
                  "What was the difference in cash and cash equivalents in 2020?"):
        plan, _ = run(BALANCE_SHEET, level)  # the level reached; a rate that fell; a difference
        # in one year is between groups: no change over the year asked
        assert plan.operation != "diff", level
    with_change = Table(text=[[*row, label] for row, label in zip(
        BALANCE_SHEET.text, ["Change", "54,129", "82,486", "(25,000)"], strict=True)])
    plan, _ = run(with_change, "How much did total assets increase in 2020?")
    assert plan.operation != "diff"  # the table gives changes itself


def test_a_change_over_the_year_before_said_without_a_year_is_the_latest_years() -> None:
    """`year over year`, `compared with the prior year`: the latest year shown against the one before,
    its parts asking each year's lookup."""
    plan, g = run(BALANCE_SHEET, "How much did cash and cash equivalents increase year over year?")
    assert (plan.operation, plan.answer) == ("diff", ["54,129"])
    assert sorted(cells(g, plan.answer_nodes)) == [(1, 1), (1, 2)]
    assert plan.parts == ["How much did cash and cash equivalents in 2020",
                          "How much did cash and cash equivalents in 2019"]
    plan, _ = run(BALANCE_SHEET, "By what percentage did cash and cash equivalents increase compared "
                                 "with the prior year?")
    assert (plan.operation, plan.answer) == ("growth", ["55.1%"])
    plan, _ = run(BALANCE_SHEET, "How much did cash and cash equivalents increase?")
    assert plan.operation != "diff"  # no year and no year before: not this change


def test_a_change_between_years_that_head_column_groups() -> None:
    """`from 2016 to 2021` where each year heads `Males`/`Females`: the later group's line minus
    the earlier's, its parts one lookup per year."""
    plan, g = run(CENSUS, "How much did the number of males aged 65 and over increase from 2016 to 2021?")
    assert (plan.operation, plan.answer) == ("diff", ["135"])
    assert sorted(cells(g, plan.answer_nodes)) == [(3, 1), (3, 3)]
    assert plan.parts == ["How much did the number of males aged 65 and over in 2021?",
                          "How much did the number of males aged 65 and over in 2016?"]


def test_a_pair_option_is_the_label_nearest_the_or() -> None:
    """`more males or females aged 0 to 14 in 2016`: the second option is `Females` (its words next
    to the `or`), not the `2016` group its trailing words also match."""
    plan, _ = run(CENSUS, "Were there more males or females aged 0 to 14 in 2016?")
    assert (plan.operation, plan.answer) == ("pair_max", ["Males"])
    plan, _ = run(CENSUS, "Were there more males or females aged 65 years and over in 2021?")
    assert (plan.operation, plan.answer) == ("pair_max", ["Females"])


def test_a_decrease_over_a_span_is_the_earlier_minus_the_later() -> None:
    plan, _ = run(BALANCE_SHEET, "How much did long-term debt decrease from 2019 to 2020?")
    assert (plan.operation, plan.answer) == ("diff", ["25,000"])
    plan, _ = run(BALANCE_SHEET, "How much did total assets decline between 2019 and 2020?")
    assert plan.answer == ["-82,486"]  # they rose: a negative decrease, never a made-up fall


def test_a_year_range_is_a_span() -> None:
    plan, _ = run(STATEMENT, "How much did cargo revenue increase over 2016-2017?")
    assert (plan.operation, plan.answer) == ("diff", ["134"])


def test_a_change_over_two_years_is_as_sure_as_its_less_sure_end() -> None:
    """Each end of the span is asked as a lookup; the change is as probable as the less sure one
    (dated columns too). Worded in percent the change may be relative: the model's estimate stays."""
    graph = CellGraph(BALANCE_SHEET)
    headers = infer_headers(graph)
    plan = solve("How much did total assets increase from 2019 to 2020?", graph, headers, None)
    assert plan.parts == ["How much did total assets in 2020?", "How much did total assets in 2019?"]
    ends = [solve(q, graph, headers, None) for q in plan.parts]
    assert [e.answer_nodes for e in ends] == [[n] for n in plan.answer_nodes]
    assert plan.confidence == pytest.approx(min(e.confidence for e in ends), abs=1e-4)
    assert plan.confidence > 0.5
    plan, _ = run(STATEMENT, "How many percentage points did cargo revenue increase from 2016 to 2017?")
    assert plan.operation == "diff" and plan.parts == []
    plan, _ = run(STATEMENT, "How much did cargo revenue increase from 2016 to 2017?")
    assert plan.parts == ["How much did cargo revenue in 2017?", "How much did cargo revenue in 2016?"]


INCOME = Table(text=[["", "2019", "2018", "2017"], ["Revenue", "24,578", "22,310", "20,145"],
                     ["Operating income", "3,883", "3,190", "2,546"],
                     ["Research and development", "3,120", "2,870", "2,615"]])


@pytest.mark.parametrize(("question", "answer", "parts"), [
    ("What is the average revenue for 2018 and 2019?", "23,444",
     ["What is the revenue in 2018?", "What is the revenue in 2019?"]),
    ("What was the average operating income from 2017 to 2019?", "3,206.3",
     ["What was the operating income in 2019?", "What was the operating income in 2018?",
      "What was the operating income in 2017?"]),
    ("What is the total research and development for 2018 and 2019?", "5,990",
     ["What is the research and development in 2018?", "What is the research and development in 2019?"]),
    ("What is the percentage change in operating income from 2018 to 2019?", "21.7%",
     ["What is the in operating income in 2019?", "What is the in operating income in 2018?"]),
])
def test_arithmetic_over_named_years_is_as_sure_as_its_least_sure_operand(
        question: str, answer: str, parts: list[str]) -> None:
    """An average, a total or a percentage change over the years the question names is right when
    every operand is (HiTab's few such operations were rarely right, so the model alone says ~0.3)."""
    graph = CellGraph(INCOME)
    headers = infer_headers(graph)
    plan = solve(question, graph, headers, None)
    assert (plan.answer, plan.parts) == ([answer], parts)
    operands = [solve(q, graph, headers, None) for q in plan.parts]
    assert [o.answer_nodes for o in operands] == [[n] for n in plan.answer_nodes]
    assert plan.confidence == pytest.approx(min(o.confidence for o in operands), abs=1e-4)
    assert plan.confidence > 0.5


@pytest.mark.parametrize(("question", "answer"), [
    ("How much did revenue increase in 2019 compared to 2018?", "2,268"),
    ("What was the percentage change in operating income in 2019 versus 2018?", "21.7%"),
])
def test_a_year_compared_to_another_is_a_span_of_two_lookups(question: str, answer: str) -> None:
    graph = CellGraph(INCOME)
    headers = infer_headers(graph)
    plan = solve(question, graph, headers, None)
    assert plan.answer == [answer] and len(plan.parts) == 2 and plan.parts[0].endswith("in 2019?")
    operands = [solve(q, graph, headers, None) for q in plan.parts]
    assert [o.answer_nodes for o in operands] == [[n] for n in plan.answer_nodes]
    assert plan.confidence == pytest.approx(min(o.confidence for o in operands), abs=1e-4)


MODEL = Table(text=[["", "FY2020A", "FY2021A", "FY2022E", "FY2023E"],
                     ["Revenue", "1,200", "1,350", "1,500", "1,650"],
                     ["Revenue growth", "", "12.5%", "11.1%", "10.0%"],
                     ["EBITDA", "240", "290", "330", "370"],
                     ["% margin", "20.0%", "21.5%", "22.0%", "22.4%"],
                     ["Net income", "110", "140", "165", "190"]])
"""A financial model's summary: actual and estimated years, a yearly growth line, a margin line."""


@pytest.mark.parametrize(("question", "answer", "cols"), [
    ("What was revenue in 2022?", "1,500", [3]),
    ("How much did revenue grow from 2021 to 2023?", "300", [2, 4]),
    ("What is the percentage growth in revenue from 2021 to 2023?", "22.2%", [2, 4]),
    ("What was the average net income from 2021 to 2023?", "165", [2, 3, 4]),
    ("What was revenue growth in 2022?", "11.1%", [3]),
    ("What was the percentage growth of revenue between 2021 and 2022?", "11.1%", [3]),
    ("What is the percentage change in EBITDA from 2020 to 2021?", "20.8%", [1, 2]),
])
def test_a_models_actual_and_estimated_years_are_years(question: str, answer: str, cols: list[int]) -> None:
    """`FY2021A` and `2022E` name their year; over two years with another between them, a yearly
    growth line has no cell for the span, so the change is computed from the levels; one year's
    growth, or the growth from the year before, is read from that line (the later year's cell);
    EBITDA has no growth line (`% margin` is not one): its change is computed."""
    plan, g = run(MODEL, question)
    assert plan.answer == [answer]
    assert sorted(c for _, c in cells(g, plan.answer_nodes)) == cols


def test_a_change_between_years_is_read_from_a_line_that_names_the_span() -> None:
    table = Table(text=[["", "2017", "2018", "2019", "% change 2017-19"],
                        ["students", "100", "104", "110", "10.0"]])
    plan, g = run(table, "How many percent did students grow between 2017 and 2019?")
    assert (plan.answer, cells(g, plan.answer_nodes)) == (["10.0"], [(1, 4)])


PROVINCES = Table(text=[["Province", "2019r", "2020r", "2021p"],
                         ["Canada", "19,123.4", "17,993.9", "18,928.6"],
                         ["Ontario", "7,508.9", "7,056.3", "7,413.8"],
                         ["Quebec", "4,355.5", "4,171.3", "4,297.9"]])
"""A statistics table: revised and preliminary years, the country first (no `total` in its label)."""


@pytest.mark.parametrize(("question", "answer", "where"), [
    ("How much did employment in Quebec change from 2019 to 2021?", "-57.6", [(3, 1), (3, 3)]),
    ("What percentage of Canada's employment in 2021 was in Ontario?", "39.2%", [(1, 3), (2, 3)]),
])
def test_revised_years_and_a_whole_named_by_its_possessor(
        question: str, answer: str, where: list[tuple[int, int]]) -> None:
    """`2019r` and `2021p` are years; `Canada's employment` names Canada as the share's whole."""
    plan, g = run(PROVINCES, question)
    assert (plan.answer, cells(g, plan.answer_nodes)) == ([answer], where)


QUARTERLY = Table(
    text=[["", "Three Months Ended", "", "Nine Months Ended", ""],
          ["", "Sep 30, 2021", "Sep 30, 2020", "Sep 30, 2021", "Sep 30, 2020"],
          ["Net sales", "1,250.4", "1,102.7", "3,610.2", "3,055.9"],
          ["Net income", "124.4", "82.1", "324.5", "134.0"]],
    merges=[(0, 1, 0, 2), (0, 3, 0, 4)],
)


@pytest.mark.parametrize(("question", "answer", "cols"), [
    ("How much did net sales increase in the nine months ended September 30, 2021 compared to 2020?",
     "554.3", [3, 4]),
    ("How much did net sales increase in the three months ended September 30, 2021 compared to 2020?",
     "147.7", [1, 2]),
    ("By what percentage did net income increase in the nine months ended September 30, 2021 compared "
     "to the same period of 2020?", "142.2%", [3, 4]),
])
def test_a_change_between_dates_takes_the_period_the_question_names(
        question: str, answer: str, cols: list[int]) -> None:
    """Two dates under `Three Months Ended` and two under `Nine Months Ended`: the pair under the
    period the question names, composed from its two lookups."""
    graph = CellGraph(QUARTERLY)
    headers = infer_headers(graph)
    plan = solve(question, graph, headers, None)
    assert plan.answer == [answer] and len(plan.parts) == 2
    assert sorted(c for _, c in cells(graph, plan.answer_nodes)) == cols


SEGMENTS = Table(text=[["Segment", "Q1 2022", "Q2 2022", "Q3 2022", "Q4 2022", "FY 2022"],
                        ["Hardware", "1,200", "1,350", "1,400", "1,600", "5,550"],
                        ["Software", "800", "820", "900", "950", "3,470"],
                        ["Total", "2,000", "2,170", "2,300", "2,550", "9,020"]])


def test_a_year_said_inside_quarters_does_not_name_the_whole_year() -> None:
    """`from Q1 2022 to Q4 2022` names two quarters; `FY 2022` is not a third operand."""
    plan, g = run(SEGMENTS, "How much did hardware revenue grow from Q1 2022 to Q4 2022?")
    assert (plan.answer, cells(g, plan.answer_nodes)) == (["400"], [(1, 1), (1, 4)])


@pytest.mark.parametrize(("question", "answer", "row"), [
    ("What was the total software revenue in Q1 2022 and Q2 2022?", "1,620", 2),
    ("What was total revenue in Q1 2022 and Q2 2022 combined?", "4,170", 3),
])
def test_the_sums_own_word_does_not_name_the_total_line(question: str, answer: str, row: int) -> None:
    """`the total software revenue in Q1 and Q2` sums Software; with `combined` asking the sum,
    `total revenue` names the Total line."""
    plan, g = run(SEGMENTS, question)
    assert (plan.operation, plan.answer) == ("sum", [answer])
    assert cells(g, plan.answer_nodes) == [(row, 1), (row, 2)]


MONTHLY = Table(text=[["Region", "Jan-21", "Feb-21", "Mar-21", "Apr-21"],
                       ["North", "$12,000", "$13,500", "$12,800", "$14,100"],
                       ["South", "$9,800", "$10,200", "$11,050", "$10,900"],
                       ["Total", "$21,800", "$23,700", "$23,850", "$25,000"]])
"""Month columns as Excel shows dates formatted `mmm-yy`."""


@pytest.mark.parametrize(("question", "answer", "where"), [
    ("What were sales in the North region in March 2021?", "$12,800", [(1, 3)]),
    ("What were the total sales of the South region from January to April?", "$41,950",
     [(2, 1), (2, 2), (2, 3), (2, 4)]),
    ("What were total sales of the South region in January and February combined?", "$20,000",
     [(2, 1), (2, 2)]),
    ("How much did sales in the North region increase from January to April?", "$2,100", [(1, 1), (1, 4)]),
    ("What were total sales from January to March?", "$69,350", [(3, 1), (3, 2), (3, 3)]),
])
def test_months_are_periods(question: str, answer: str, where: list[tuple[int, int]]) -> None:
    """`Mar-21` is March 2021 (not any question naming 2021); a span of months runs like a span of
    years."""
    plan, g = run(MONTHLY, question)
    assert (plan.answer, cells(g, plan.answer_nodes)) == ([answer], where)


def test_a_span_of_months_is_as_sure_as_its_months() -> None:
    graph = CellGraph(MONTHLY)
    headers = infer_headers(graph)
    plan = solve("What were the total sales of the South region from January to April?", graph, headers, None)
    assert plan.parts == [f"What were the sales of the South region in {m}?" for m in
                          ("January", "February", "March", "April")]
    operands = [solve(q, graph, headers, None) for q in plan.parts]
    assert [o.answer_nodes for o in operands] == [[n] for n in plan.answer_nodes]
    assert plan.confidence == pytest.approx(min(o.confidence for o in operands), abs=1e-4)


def test_a_ranking_leaves_out_a_member_that_is_the_sum_of_the_others() -> None:
    """`Canada` is the total of the provinces listed (counts add up) though no label says `total`;
    shares do not add up, so a share that happens to equal the others' sum stays a member."""
    counts = Table(text=[["", "stores"], ["Canada", "1,000"], ["Ontario", "420"], ["Quebec", "330"],
                         ["Alberta", "250"]])
    plan, _ = run(counts, "Which province had the most stores?")
    assert (plan.operation, plan.answer) == ("argmax", ["Ontario"])
    rates = Table(text=[["", "rate"], ["economic", "2.2"], ["family", "1.2"], ["refugee", "1.0"]])
    plan, _ = run(rates, "Which immigrant class had the highest rate?")
    assert (plan.operation, plan.answer) == ("argmax", ["economic"])


def test_a_change_between_year_groups_whose_labels_carry_a_status() -> None:
    """`2021p` heads a group of columns (`Men`, `Women`) like `2021` does."""
    table = Table(text=[["", "2019", "", "2021p", ""], ["", "Men", "Women", "Men", "Women"],
                        ["Canada", "5.9", "5.4", "7.8", "7.2"], ["Ontario", "5.8", "5.4", "8.3", "7.8"]],
                  merges=[(0, 1, 0, 2), (0, 3, 0, 4)])
    question = "By how many percentage points did the rate of men in Canada change from 2019 to 2021?"
    plan, g = run(table, question)
    assert (plan.answer, cells(g, plan.answer_nodes)) == (["1.9"], [(2, 1), (2, 3)])


@pytest.mark.parametrize(("table", "question", "answer", "value"), [
    (INCOME, "What was the compound annual growth rate of revenue from 2017 to 2019?", "10.5%",
     (24_578 / 20_145) ** 0.5 - 1),
    (MODEL, "What is the revenue CAGR from 2020 to 2023?", "11.2%", (1_650 / 1_200) ** (1 / 3) - 1),
])
def test_a_compound_annual_growth_rate_runs_over_the_years_between(
        table: Table, question: str, answer: str, value: float) -> None:
    """CAGR = (later / earlier) ** (1 / years between) − 1, composed from the two years' lookups."""
    graph = CellGraph(table)
    plan = solve(question, graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer, len(plan.parts)) == ("cagr", [answer], 2)
    assert plan.computed is not None and plan.computed.value == pytest.approx(value)


def test_arithmetic_over_years_the_question_does_not_name_keeps_the_models_estimate() -> None:
    plan, _ = run(INCOME, "What was the average revenue?")  # over every year shown: which span was meant
    assert (plan.operation, plan.answer, plan.parts) == ("average", ["22,344.3"], [])


def test_sum_of_listed_items() -> None:
    plan, g = run(STATEMENT, "what was the total of passenger and cargo revenue in 2016?")
    assert (plan.operation, plan.answer) == ("sum", ["30,100"])
    assert cells(g, plan.answer_nodes) == [(3, 2), (4, 2)]


def test_a_total_over_a_span_of_years_sums_the_years_between() -> None:
    """`total … from 2019 to 2021` and `… from 2019 to 2021 in total` sum the three year columns;
    `total` after the span that does not end the question (`… from 2015 to 2016, how many in total
    in 2016`) does not make it a sum."""
    table = Table(text=[["", "2021", "2020", "2019"], ["Dividends paid", "(150)", "(140)", "(130)"],
                        ["Capital expenditures", "(520)", "(480)", "(455)"]])
    for question, total in (("What were total dividends paid from 2019 to 2021?", "(420)"),
                            ("How much in dividends was paid in total from 2019 to 2021?", "420"),
                            ("How much was paid in dividends from 2019 to 2021 in total?", "420")):
        plan, g = run(table, question)  # `how much … was paid`: the outflow's size
        assert (plan.operation, plan.answer) == ("sum", [total]), question
        assert sorted(cells(g, plan.answer_nodes)) == [(1, 1), (1, 2), (1, 3)]
    plan, _ = run(table, "Of the dividends paid from 2019 to 2021, how much was paid in total in 2020?")
    assert plan.operation != "sum"


def test_percent_of_total_and_ratio() -> None:
    plan, g = run(STATEMENT, "what percentage of total operating revenue was cargo in 2017?")
    assert plan.operation == "percent_of" and plan.answer == ["3.8%"]  # a percent, the fraction kept
    assert plan.computed is not None and plan.computed.value == pytest.approx(1234 / 32234)
    assert cells(g, plan.answer_nodes) == [(4, 1), (5, 1)]
    plan, _ = run(SURVEY, "how many times the number of men in alberta was the number in ontario?")
    assert plan.operation == "ratio" and plan.answer in (["2"], ["0.5"])


def test_a_share_of_a_named_line_that_is_not_a_total() -> None:
    """`percentage of revenue` names the whole, a plain line (not `Total operating expenses`, the
    only total), and `revenue` inside `Cost of revenue` still names it; the part is the label said
    whole (`Net income`, not `Other income (expense), net`); `X as a percentage of Y` is a share."""
    table = Table(text=[["", "2019", "2018"], ["Revenue", "24,578", "22,310"],
                        ["Cost of revenue", "14,120", "12,987"], ["Operating expenses:", "", ""],
                        ["  Research", "3,120", "2,870"], ["  Total operating expenses", "6,575", "6,133"],
                        ["Other income (expense), net", "(112)", "48"], ["Net income", "2,979", "2,558"]])
    for question in ("What percentage of revenue was cost of revenue in 2019?",
                     "What was cost of revenue as a percentage of revenue in 2019?"):
        plan, g = run(table, question)
        assert (plan.operation, plan.answer) == ("percent_of", ["57.4%"]), question
        assert sorted(cells(g, plan.answer_nodes)) == [(1, 1), (2, 1)]
    plan, g = run(table, "What percentage of revenue was net income in 2018?")
    assert (plan.operation, plan.answer) == ("percent_of", ["11.5%"])
    assert sorted(cells(g, plan.answer_nodes)) == [(1, 2), (7, 2)]


def test_percentage_column_is_a_lookup_not_a_computation() -> None:
    plan, _ = run(SURVEY, "what percentage of men lived in ontario?")
    assert (plan.operation, plan.answer) == ("lookup", ["40.5"])


def test_average_over_a_row() -> None:
    plan, g = run(STATEMENT, "what was the average passenger revenue?")
    assert (plan.operation, plan.answer) == ("average", ["$29,000"])
    assert cells(g, plan.answer_nodes) == [(3, 1), (3, 2), (3, 3)]


def test_argmax_and_argmin_return_labels_skipping_totals() -> None:
    plan, g = run(SURVEY, "which province had the highest number of women?")
    assert plan.operation == "argmax" and plan.answer == ["ontario"]
    assert cells(g, plan.answer_nodes) == [(2, 0)]
    plan, _ = run(SURVEY, "which province had the lowest percent of men?")
    assert plan.answer == ["alberta"]


def test_which_noun_ranks_the_members_of_the_section_it_names() -> None:
    """`which sex …` ranks the members under `sex`, though `more` also names `more severe`."""
    table = Table(
        text=[
            ["", "one aid", "three or more aids"],
            ["sex", "", ""],
            ["men", "40.1", "12.5"],
            ["women", "38.0", "15.2"],
            ["severity", "", ""],
            ["milder", "45.3", "6.1"],
            ["more severe", "30.2", "24.8"],
        ],
    )
    plan, _ = run(table, "which sex were more likely to require three or more aids?")
    assert (plan.operation, plan.answer) == ("argmax", ["women"])


def test_a_unit_row_written_once_is_not_the_ranked_member() -> None:
    """`rate` heads every province column: the provinces are what `which province` ranks."""
    table = Table(text=[["year", "n.l", "p.e.i", "n.s", "que"], ["", "rate", "", "", ""],
                        ["2015", "1.0", "0.5", "2.0", "1.2"], ["2016", "1.3", "0.2", "1.1", "1.6"]])
    plan, _ = run(table, "which province was lowest in 2016?")
    assert (plan.operation, plan.answer) == ("argmin", ["p.e.i"])


def test_a_ranking_with_too_few_members_on_one_side_ranks_the_other() -> None:
    """`the top two … occupations in 1990`: the women's occupations are ranked, not the 2 years."""
    table = Table(text=[["", "1990", "2016"], ["women", "", ""], ["retail salespersons", "7.2", "5.1"],
                        ["cashiers", "3.0", "2.9"], ["food and beverage servers", "4.3", "3.3"],
                        ["estheticians and related occupations", "1.1", "1.5"]])
    plan, _ = run(table, "what were the top two female occupations in 1990?")
    assert (plan.operation, plan.answer) == ("top2_max", ["retail salespersons", "food and beverage servers"])


def test_a_comma_after_a_word_ends_it() -> None:
    assert ops.words("which total was lower,2013 or 2010? 1,234.5") == [
        "which", "total", "was", "lower", "2013", "or", "2010", "1,234.5"]
    assert ops.direction("which year's total number of volunteers was lower,2013 or 2010?") == "min"


def test_the_size_of_a_ranking_is_not_its_direction() -> None:
    assert ops.direction("list the top 3 fields of study least likely to be overqualified") == "min"
    assert ops.direction("which were the top 3 fields?") == "max"
    assert ops.top_k("list the provinces that reported the lowest three homicide rates") == 3
    assert ops.top_k("list the 2 largest cities") == 2


def test_the_first_years_are_a_period_not_a_ranking() -> None:
    assert ops.top_k("what percent separated during the first 3 years after release?") is None
    assert ops.top_k("list the first 3 provinces by population") == 3


def test_an_ordinal_place_picks_that_member_of_the_ranking() -> None:
    assert ops.ordinal_rank("which city had the third highest index?") == (3, "max")
    assert ops.ordinal_rank("which cd had the second-smallest rate?") == (2, "min")
    assert ops.ordinal_rank("what was the 4th leading cause of death?") == (4, "max")
    assert ops.ordinal_rank("what were the second and third most common causes?") is None
    assert ops.ordinal_rank("which province had the highest rate in the second quarter?") is None
    plan, _ = run(SURVEY, "which province had the second largest number of women?")
    assert (plan.operation, plan.answer) == ("argmax", ["quebec"])
    plan, _ = run(SURVEY, "which province had the second lowest percent of men?")
    assert plan.answer == ["quebec"]


def test_which_noun_answers_the_rows_name_under_that_column() -> None:
    """A discography: the chart positions read as labels, `album` holds the rows' names."""
    table = Table(
        text=[
            ["year", "single", "peak chart positions", "", "certifications", "album"],
            ["", "", "us", "uk", "", ""],
            ["1995", "one of us", "4", "6", "us gold", "relish"],
            ["1996", "st. teresa", "-", "33", "none", ""],
            ["", "right hand man", "-", "-", "none", ""],
        ],
        merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 3), (0, 4, 1, 4), (0, 5, 1, 5), (2, 5, 4, 5),
                (3, 0, 4, 0)],
    )
    plan, _ = run(table, 'in 1995, which album included the single "one of us"?')
    assert (plan.operation, plan.answer) == ("lookup_label", ["relish"])


def test_pair_comparison_a_or_b() -> None:
    plan, _ = run(SURVEY, "were there more women in quebec or alberta?")
    assert plan.operation == "pair_max" and plan.answer == ["quebec"]
    plan, _ = run(SURVEY, "which had fewer men, ontario or quebec?")
    assert plan.answer == ["quebec"]


def test_count_and_computed_formatting() -> None:
    nums = [ops.Num(1.25, 2, False), ops.Num(2.5, 1, False), ops.Num(3, 0, False)]

    def text(op: ops.Op, args: list[ops.Num]) -> str | None:
        done = ops.compute(op, args)
        return None if done is None else done.text

    assert text("count", nums) == "3"
    assert text("sum", nums) == "6.75"
    assert text("diff", nums[1:]) == "-0.5"
    assert text("average", [ops.Num(1, 0, False), ops.Num(2, 0, False)]) == "1.5"
    assert text("ratio", [ops.Num(1, 0, False), ops.Num(3, 0, False)]) == "0.333"  # 3 significant digits
    assert ops.compute("ratio", [ops.Num(1, 0, False), ops.Num(3, 0, False)]).value == pytest.approx(1 / 3)
    assert ops.compute("ratio", [ops.Num(1, 0, False), ops.Num(0, 0, False)]) is None
    assert ops.parse("(7.8)") == ops.Num(-7.8, 1, False, NumStyle(1, None, False, None, False, True))


def test_a_sum_of_small_cells_is_grouped_as_the_table_groups_thousands() -> None:
    cash = Table(text=[["", "2021", "2020", "2019"], ["Net income", "1,210", "980", "(120)"],
                       ["Capital expenditures", "(520)", "(480)", "(455)"]])
    plan, _ = run(cash, "What were total capital expenditures from 2019 to 2021?")
    assert (plan.operation, plan.answer) == ("sum", ["(1,455)"])


def test_computed_values_keep_the_sources_format() -> None:
    usd = [ops.parse("$31,000"), ops.parse("$56,000")]
    total = ops.compute("sum", usd)
    assert (total.text, total.value, total.same_unit) == ("$87,000", 87000, True)
    assert total.style.code() == '"$"#,##0'
    assert ops.compute("diff", [ops.parse("(1,234)"), ops.parse("2,000")]).text == "(3,234)"
    pct = ops.compute("diff", [ops.parse("83.1%"), ops.parse("69.3%")])
    assert (pct.text, pct.value) == ("13.8%", pytest.approx(0.138))
    share = ops.compute("percent_of", [ops.parse("2,317"), ops.parse("60,535")])
    assert (share.text, share.same_unit) == ("3.8%", False) and share.value == pytest.approx(2317 / 60535)
    assert ops.magnitude(ops.parse("(25)")) == "25" and ops.magnitude(ops.parse("-3.2%")) == "3.2%"


def test_operation_vocabulary() -> None:
    assert ops.direction("which was higher, a or b?") == "max"
    assert ops.direction("who had the fewest wins") == "min"
    assert ops.pair_options("was the rate higher for men or women?") == ("men", "women")
    assert ops.pair_options("what was the rate?") is None
    assert ops.asks_label("which province had the most") and not ops.asks_label("how many were there")


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings(dense_retrieval=False)


def test_policy_end_to_end_answers_without_llm(settings: Settings) -> None:
    res = answer_question(STATEMENT, "What was cargo revenue in 2016?", engine="offline", settings=settings)
    assert res.engine == "offline" and res.status == "answered" and res.answer == ["1,100"]
    assert res.usage.llm_calls == 0
    roles = {(e.address, e.role) for e in res.evidence}
    assert ("C5", "answer") in roles and ("C2", "header") in roles
    names = [[a.name for a in s.actions] for s in res.steps]
    assert names[0] == ["VisitNode"] * len(names[0]) and names[-1] == ["AnswerQuestion"]
    assert ["GetSharedNeighbours"] in names


def test_policy_abstains_on_ungrounded_question(settings: Settings) -> None:
    q = "How many zebras crossed the river?"
    res = answer_question(STATEMENT, q, engine="offline", settings=settings)
    assert res.status == "abstained" and res.error and "confidence" in res.error
    strict = settings.model_copy(update={"offline_min_confidence": 0.0})
    res = answer_question(STATEMENT, q, engine="offline", settings=strict)
    assert res.status == "answered"


def test_respectively_returns_one_cell_per_item() -> None:
    plan, g = run(SURVEY, "what percent of men lived in ontario and quebec respectively?")
    assert (plan.operation, plan.answer) == ("lookup_each", ["40.5", "30.2"])
    assert cells(g, plan.answer_nodes) == [(2, 2), (3, 2)]


def test_ratio_of_operands_named_at_an_outer_header_level() -> None:
    plan, g = run(SURVEY, "how many times were there as many women as men in ontario?")
    assert (plan.operation, plan.answer) == ("ratio", ["1.25"])
    assert cells(g, plan.answer_nodes) == [(2, 1), (2, 3)]


def test_share_of_the_aggregate_line() -> None:
    plan, g = run(STATEMENT, "in 2016, what percentage of revenue came from cargo?")
    assert (plan.operation, plan.answer) == ("percent_of", ["3.7%"])
    assert cells(g, plan.answer_nodes) == [(4, 2), (5, 2)]


def test_decrease_asked_as_an_amount_is_positive() -> None:
    plan, g = run(STATEMENT, "by how much did cargo revenue decline in 2015?")
    assert (plan.operation, plan.answer) == ("opposite", ["7.8"])
    assert cells(g, plan.answer_nodes) == [(4, 3)]
    plan, _ = run(STATEMENT, "what was cargo revenue in 2015?")
    assert (plan.operation, plan.answer) == ("lookup", ["(7.8)"])


def test_share_and_decrease_vocabulary() -> None:
    assert ops.asks_share("how many percentage points did research account for of all obligations?")
    assert ops.asks_share("what proportion of cases were theft?")
    assert not ops.asks_share("how many percentage points did gdp decrease?")
    assert ops.asks_decrease("how many percentage points did gdp decline in 2014?")
    assert not ops.asks_decrease("how many percentage points did gdp rise in 2014?")
    assert ops.asks_decrease("by what percentage did culture gdp contract in 2014?")
    # `or less`, `less than 5` bound a group; `how much less` asks the decrease
    assert not ops.asks_decrease("with a high school diploma or less, how much has the rate increased?")
    assert not ops.asks_decrease("for firms with less than 50 employees, how much did sales rise?")
    assert ops.asks_decrease("how much less did women earn than men?")
    assert ops.compute("percent_of", [ops.Num(1, 0, False), ops.Num(3, 0, False)]).text == "33.3%"


def test_ranked_label_wording() -> None:
    assert ops.asks_ranked_label("by household size,which kind of people were more likely to report it?")
    assert ops.asks_ranked_label("where were men more likely to die?")
    assert ops.asks_ranked_label("what was the most common charge in 2015?")
    assert not ops.asks_ranked_label("what percent of women who had children were most satisfied?")
    assert not ops.asks_ranked_label("how many households where the income was highest received care?")
    plan, _ = run(SURVEY, "by province,where were there the most women?")
    assert (plan.operation, plan.answer) == ("argmax", ["ontario"])


def test_a_question_opening_with_where_asks_for_a_name() -> None:
    """`where the highest rate of …` names a rate, but opening on `where` it asks for the place."""
    assert ops.asks_label("where is the highest average age of mothers?")
    police = Table(text=[["police service", "officers", "rate"], ["windsor", "450", "132"],
                         ["victoria", "250", "161"], ["ottawa", "1,223", "121"]])
    plan, _ = run(police, "where the highest rate of police strength was reported?")
    assert (plan.operation, plan.answer) == ("argmax", ["victoria"])


CI_TABLE = Table(
    text=[
        ["characteristic", "total", "", "", "women", "", ""],
        ["", "estimate", "95% confidence interval", "", "estimate", "95% confidence interval", ""],
        ["", "", "from", "to", "", "from", "to"],
        ["has internet access", "98.8", "98.1", "99.3", "98.5", "97.6", "99.1"],
        ["does not have internet access", "1.2", "0.7", "1.9", "1.5", "0.9", "2.4"],
    ],
    merges=[(0, 1, 0, 3), (0, 4, 0, 6), (1, 2, 1, 3), (1, 5, 1, 6)],
)


def test_percent_after_a_number_is_not_the_percent_unit() -> None:
    plan, g = run(CI_TABLE, "what percentage of women had internet access?")
    assert plan.answer == ["98.5"] and cells(g, plan.answer_nodes) == [(3, 4)]


def test_unqualified_group_defaults_to_the_total_and_negation_is_matched() -> None:
    plan, g = run(CI_TABLE, "what percentage did not have internet access?")
    assert plan.answer == ["1.2"] and cells(g, plan.answer_nodes) == [(4, 1)]
    plan, _ = run(CI_TABLE, "what percentage had internet access?")
    assert plan.answer == ["98.8"]


def test_how_many_percentage_points_asks_for_the_percent_column() -> None:
    for q in ("how many percentage points of women lived in quebec?",
              "how manypercentage points of women lived in quebec?"):
        plan, _ = run(SURVEY, q)
        assert plan.answer == ["24.0"], q
    plan, _ = run(SURVEY, "how many women lived in quebec?")
    assert plan.answer == ["80"]


def test_a_whole_label_with_a_function_word_beats_the_label_inside_it() -> None:
    table = Table(text=[["severity", "not in labour force"], ["mild", "30.1"], ["moderate", "41.0"],
                        ["severe", "52.3"], ["very severe", "67.7"]])
    plan, _ = run(table, "what percentage of persons with very severe disabilities were not working?")
    assert plan.answer == ["67.7"]


def test_per_cent_and_fraction_ask_for_the_percent_column() -> None:
    for q in ("how many per cent of women lived in quebec?", "what fraction of women lived in quebec?"):
        plan, _ = run(SURVEY, q)
        assert plan.answer == ["24.0"], q
    table = Table(text=[["", "men", "women"], ["", "per cent", "per cent"], ["quebec", "30.2", "24.0"]],
                  merges=[])
    plan, _ = run(table, "what percentage of women lived in quebec?")
    assert plan.answer == ["24.0"]


def test_label_completeness_counts_only_what_it_adds_to_its_parents() -> None:
    t = Table(
        text=[
            ["", "immigrant", ""],
            ["", "all", "recent immigrant"],
            ["refugee", "15", "8"],
            ["family class", "27", "24"],
        ],
        merges=[(0, 1, 0, 2)],
    )
    plan, _ = run(t, "what was the figure for refugee immigrants?")
    assert plan.answer == ["15"]


def test_a_suppressed_cell_is_never_an_answer_item_or_a_ranked_member() -> None:
    table = Table(text=[["", "2016", "2015"], ["rate", "..", "0.37"], ["percent", "20.3", "21.9"]])
    plan, _ = run(table, "what were the homicide rates in 2016 and 2015 respectively?")
    assert plan.answer == ["20.3", "21.9"]  # the next line on which both years have a value
    table = Table(text=[["", "share"], ["$", "40.1"], ["men", "31.2"], ["women", "28.7"]])
    plan, _ = run(table, "which group had the highest share?")
    assert plan.answer == ["men"]


def test_respectively_items_at_an_outer_header_level_in_question_order() -> None:
    plan, g = run(SURVEY, "what percent of women and men lived in alberta, respectively?")
    assert (plan.operation, plan.answer) == ("lookup_each", ["21.0", "20.1"])
    assert cells(g, plan.answer_nodes) == [(4, 2), (4, 4)]


def test_title_words_weigh_less_than_label_words() -> None:
    """A question word found in the title explains less of the question than a label-only word."""
    rows = [["", "number"], ["moved in 2011", "120"], ["in a couple", "7,856"]]
    question = "how many people lived in a couple in 2011?"
    for title, title_word_weighs_less in (("living arrangements, canada, 2011", True), (None, False)):
        graph = CellGraph(Table(text=rows, title=title))
        g = Grounder(question, graph, infer_headers(graph), None)
        year, couple = g.rows
        assert (g.coverage(year) < g.coverage(couple)) is title_word_weighs_less
        assert g.coverage(year) <= g.coverage(couple)


def test_derived_word_forms_match_softly() -> None:
    plan, _ = run(
        Table(text=[["offence", "guilty", "withdrawn"], ["theft", "61", "30"], ["fraud", "55", "40"]]),
        "what share of theft cases ended in a withdrawal?",
    )
    assert plan.answer == ["30"]


CLUBS = Table(
    text=[
        ["club", "season", "league", ""],
        ["", "", "apps", "goals"],
        ["stoke", "2011-12", "30", "4"],
        ["", "2012-13", "28", "6"],
        ["port vale", "2013-14", "35", "9"],
    ],
    merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 3), (2, 0, 3, 0)],
)


def test_which_question_returns_the_unmentioned_outer_label() -> None:
    plan, g = run(CLUBS, "which club did he play for in 2013-14?")
    assert plan.answer == ["port vale"] and cells(g, plan.answer_nodes) == [(4, 0)]


def test_when_question_returns_the_year_of_the_row() -> None:
    t = Table(text=[["year", "title", "uk"], ["1992", "farewell", "55"], ["1994", "some girls", "9"]])
    plan, g = run(t, 'when did "some girls" release?')
    assert (plan.operation, plan.answer) == ("lookup_time", ["1994"])
    assert cells(g, plan.answer_nodes) == [(2, 0)]


def test_a_question_quoting_a_rows_figures_asks_for_that_row() -> None:
    """`when did he catch 90 passes for 1,137 yards`: the one row holding both figures; a single
    quoted figure, or figures spread over two rows, leave the lookup as it was."""
    stats = Table(text=[["season", "team", "receptions", "yards", "td"],
                        ["2009", "arizona", "97", "1,092", "13"], ["2010", "arizona", "90", "1,137", "6"],
                        ["2011", "arizona", "80", "1,411", "8"]])
    plan, g = run(stats, "when did he catch 90 passes for 1,137 yards and six touchdowns?")
    assert (plan.operation, plan.answer) == ("lookup_time", ["2010"])
    assert cells(g, plan.answer_nodes) == [(2, 0)]
    plan, _ = run(stats, "when did he catch 97 passes for 1,411 yards?")  # one figure in each of two rows
    assert plan.answer != ["2010"]


LASERS = Table(
    text=[
        ["product", "total", "", "", "males", "", "", "females", "", ""],
        ["", "%", "95% ci", "", "%", "95% ci", "", "%", "95% ci", ""],
        ["", "", "from", "to", "", "from", "to", "", "from", "to"],
        ["laser pointer", "11.1", "10.3", "11.8", "58.5", "55.1", "61.8", "41.5", "38.2", "44.9"],
        ["laser scanner", "38.7", "37.5", "39.9", "48.3", "46.9", "49.6", "51.7", "50.4", "53.1"],
    ],
    merges=[(0, 0, 2, 0), (0, 1, 0, 3), (0, 4, 0, 6), (0, 7, 0, 9), (1, 1, 2, 1), (1, 2, 1, 3),
            (1, 4, 2, 4), (1, 5, 1, 6), (1, 7, 2, 7), (1, 8, 1, 9)],
)


def test_argmax_ranks_groups_not_their_repeated_qualifiers() -> None:
    plan, g = run(LASERS, "which sex had a higher proportion of using a laser scanner?")
    assert (plan.operation, plan.answer) == ("argmax", ["females"])
    assert cells(g, plan.answer_nodes) == [(0, 7)]


def test_ordinal_words_match_ordinal_numbers() -> None:
    t = Table(
        text=[["", "2016", ""], ["", "high", "low"],
              ["1st quarter", "61.41", "42.17"], ["2nd quarter", "58.90", "37.41"]],
        merges=[(0, 1, 0, 2)],
    )
    plan, _ = run(t, "what was the high price in the second quarter of 2016?")
    assert plan.answer == ["58.90"]


def test_text_cells_of_a_row_describe_the_row() -> None:
    t = Table(
        text=[
            ["employee group", "active employees", "union"],
            ["pilots", "13,203", "ALPA"],
            ["dispatchers", "432", "PAFCA"],
        ]
    )
    plan, g = run(t, "how many active employees are represented by PAFCA?")
    assert plan.answer == ["432"] and cells(g, plan.answer_nodes) == [(2, 1)]


def test_growth_rate_vocabulary_and_arithmetic() -> None:
    assert ops.asks_growth("how many percent did obligations decline from fy 2012 to fy 2013?")
    assert ops.asks_growth("by what percentage has revenue increased between 2016 and 2017?")
    assert not ops.asks_growth("how many percentage points did the rate decline?")
    assert not ops.asks_growth("how many percent of women were employed?")
    assert ops.asks_growth("how much did net sales grow from 2022 to 2023 in percent?")
    assert ops.asks_growth("what was the change in exports as a percentage?")
    assert not ops.asks_growth("how much did the share in percent of exports change?")
    growth = ops.compute("growth", [ops.Num(110, 0, False), ops.Num(100, 0, False)])
    assert (growth.text, growth.value) == ("10%", pytest.approx(0.1))
    assert ops.has_phrase("what was the multiple relationship between a and b?", ops.RATIO_PHRASES)
    plan, g = run(STATEMENT, "How many percent did cargo revenue increase from 2016 to 2017?")
    assert (plan.operation, plan.answer) == ("growth", ["12.2%"])
    assert cells(g, plan.answer_nodes) == [(4, 1), (4, 2)]
    for question in ("What was the percentage change in cargo revenue from 2016 to 2017?",
                     "What was the % increase in cargo revenue from 2016 to 2017?"):
        plan, _ = run(STATEMENT, question)
        assert (plan.operation, plan.answer) == ("growth", ["12.2%"])


def test_operation_word_in_the_title_is_not_an_operation() -> None:
    t = Table(
        text=[["", "boys", "girls"], ["light activity", "211", "208"], ["vigorous activity", "75", "68"]],
        title="average daily minutes of physical activity, by sex",
    )
    plan, _ = run(t, "what is the average daily minutes of light activity for boys?")
    assert (plan.operation, plan.answer) == ("lookup", ["211"])


def test_amount_of_alternatives_is_their_sum() -> None:
    assert ops.asks_union("what percent of victims were either a spouse or a parent?")
    assert not ops.asks_union("was the rate higher for men or women?")
    assert not ops.asks_union("what were the percentages of women and men, respectively?")
    plan, g = run(SURVEY, "what percent of women lived in either quebec or alberta?")
    assert (plan.operation, plan.answer) == ("sum", ["45.0"])  # the sources show one decimal
    assert cells(g, plan.answer_nodes) == [(3, 4), (4, 4)]


def test_plural_initialism_matches_its_words() -> None:
    t = Table(
        text=[["", "economic class", "government-assisted refugees"],
              ["neither english nor french", "17.8", "67.7"]]
    )
    plan, _ = run(t, "what is the percentage of gars knowing neither english nor french?")
    assert plan.answer == ["67.7"]


HELMETS = Table(
    text=[
        ["behaviour", "%"],
        ["current smoker", ""],
        ["always uses helmet", "9.5"],
        ["does not always use helmet", "20.6"],
        ["heavy drinking", ""],
        ["always uses helmet", "16.6"],
        ["does not always use helmet", "26.8"],
    ],
)


def test_pair_options_match_negations_and_the_named_section() -> None:
    plan, g = run(HELMETS,
                  "who were less likely to engage in heavy drinking, helmet users or non helmet users?")
    assert (plan.operation, plan.answer) == ("pair_min", ["always uses helmet"])
    assert cells(g, plan.answer_nodes) == [(5, 0)]


def test_suppressed_cells_are_never_the_answer() -> None:
    t = Table(text=[["", "rate", "number"], ["yukon", "..", "25"], ["nunavut", "366", "6"]])
    plan, g = run(t, "what was the rate in yukon?")
    assert plan.answer == ["25"] and cells(g, plan.answer_nodes) == [(1, 2)]


def test_an_outflow_asked_as_an_amount_is_its_size() -> None:
    """`how much was spent / paid` on a line a statement shows negative: the amount that went out;
    asked plainly (`what were dividends paid`), the figure as the statement shows it."""
    t = Table(text=[["", "2021", "2020", "2019"], ["Dividends paid", "(150)", "(140)", "(130)"],
                    ["Capital expenditures", "(520)", "(480)", "(455)"]])
    for question, answer in (("How much was spent on capital expenditures in 2021?", ["520"]),
                             ("How much did the company pay in dividends in 2020?", ["140"]),
                             ("What were dividends paid in 2020?", ["(140)"]),
                             ("How much was spent on dividends from 2019 to 2021 in total?", ["420"]),
                             ("What were total dividends paid from 2019 to 2021?", ["(420)"])):
        plan, _ = run(t, question)
        assert plan.answer == answer, question


def test_a_nil_dash_asked_for_is_the_answer_not_another_periods_figure() -> None:
    """`—` in a statement: nothing that year. A value question answers it; a label question (which
    line, which year) reads labels only, and `..` stays a suppression mark, never an answer."""
    t = Table(text=[["", "2021", "2020"], ["Acquisitions", "(200)", "—"],
                    ["Dividends paid", "(150)", "(140)"], ["Repurchases", "(300)", "-"]])
    plan, g = run(t, "What were acquisitions in 2020?")
    assert plan.answer == ["—"] and cells(g, plan.answer_nodes) == [(1, 2)]
    plan, g = run(t, "How much were repurchases in 2020?")
    assert plan.answer == ["-"] and cells(g, plan.answer_nodes) == [(3, 2)]
    plan, _ = run(t, "What were dividends paid in 2020?")
    assert plan.answer == ["(140)"]
    graph = CellGraph(t)
    for question, dashes in (("What were acquisitions in 2020?", 2), ("Which line was nil in 2020?", 0)):
        ranked = ranked_cells(Grounder(question, graph, infer_headers(graph), None))
        assert sum(value_cell(graph, r, c).text in "—-" for _, r, c in ranked) == dashes


def test_unit_words_in_the_title_keep_their_weight() -> None:
    """`percent` in the title still explains as much as a label word; `couples` there explains less."""
    t = Table(text=[["", "number", "percent"], ["in a couple", "7,856", "56.2"]],
              title="number and percent of couples")
    graph = CellGraph(t)
    g = Grounder("what percent lived in a couple?", graph, infer_headers(graph), None)
    (couple,), percent = g.rows, g.cols[1]
    assert g.coverage(percent) > g.coverage(couple)
    plain = CellGraph(Table(text=t.text))
    g = Grounder("what percent lived in a couple?", plain, infer_headers(plain), None)
    assert g.coverage(g.cols[1]) == pytest.approx(g.coverage(g.rows[0]))


def test_pair_options_are_told_apart_by_their_distinguishing_words() -> None:
    t = Table(text=[["", "large network"], ["type of municipality", ""], ["central", "1.00"],
                    ["peripheral 1st ring", "0.73"], ["peripheral 2nd ring", "0.50"]])
    plan, _ = run(t, "where were people less likely to have a large network, "
                     "peripheral municipalities or central municipalities?")
    assert (plan.operation, plan.answer) == ("pair_min", ["peripheral 1st ring"])


def test_top_k_lists_ranked_members_and_largest_decrease_is_a_minimum() -> None:
    assert ops.top_k("list the top3 cities") == 3 and ops.top_k("which two classes had the most") == 2
    assert ops.top_k("what income put workers in the top 1% in 2015?") is None
    assert ops.direction("which city reported the largest decreases?") == "min"
    t = Table(text=[["city", "change"], ["a", "5"], ["b", "-7"], ["c", "9"], ["d", "-2"]])
    plan, _ = run(t, "list the top 2 cities with the largest change")
    assert plan.answer == ["c", "a"]
    plan, _ = run(t, "list the top 2 cities with the largest decreases in change")
    assert plan.answer == ["b", "d"]


def test_union_of_listed_or_paraphrased_alternatives_is_a_sum() -> None:
    assert ops.alternatives("how often were they affected: moderately, quite a bit, or extremely?") == [
        "moderately", "quite a bit", "extremely"]
    assert ops.alternatives("in 2015, what percent were men or women?") == ["men", "women"]
    assert ops.alternatives("what percent lived either as a couple, as a lone parent or as a child?") == [
        "as a couple", "as a lone parent", "as a child"]
    t = Table(text=[["destination", "refugees"], ["toronto", "15.9"],
                    ["medium-sized census metropolitan areas", "34.0"],
                    ["small census metropolitan areas", "23.6"], ["rural areas", "0.4"]])
    plan, g = run(t, "what is the percentage of refugees residing in medium-sized centres or small "
                     "metropolitan areas?")
    assert (plan.operation, plan.answer) == ("sum", ["57.6"])
    assert cells(g, plan.answer_nodes) == [(2, 1), (3, 1)]


def test_abbreviations_are_truncations_or_vowel_free_contractions() -> None:
    assert abbreviates("att", "attempts") and abbreviates("yds", "yards")
    assert abbreviates("td", "touchdown")
    assert abbreviates("avg", "average") and abbreviates("pct", "percent")
    assert not abbreviates("ci", "canadian") and not abbreviates("men", "management")
    assert not abbreviates("ca", "canada")


def test_comparison_amount_is_a_difference_of_the_two_named_operands() -> None:
    assert ops.asks_comparison_amount("what was the rate of arab women higher than that of others?")
    assert not ops.asks_comparison_amount("how many children had item 2 (more care use than usual)?")
    assert ops.asks_comparison_amount("how many more car thefts were there in all of 2023 than in 2022?")
    assert ops.asks_comparison_amount("how much higher was median household income in ohio than in iowa?")
    assert not ops.asks_comparison_amount("which group was more likely than men to vote?")
    assert ops.comparison_is_less("what was the rate of a lower than that of b?")
    t = Table(text=[["group", "rate"], ["filipino", "4.7"], ["arab", "16.0"],
                    ["other visible minority", "9.0"], ["not a visible minority", "5.3"]])
    plan, g = run(t, "what was the rate of filipino lower than that of women who did not belong to a "
                     "visible minority group?")
    assert (plan.operation, plan.answer) == ("diff", ["0.6"])
    assert sorted(cells(g, plan.answer_nodes)) == [(1, 1), (4, 1)]
    plan, _ = run(t, "what was the rate of arab higher than that of women who were not a visible minority?")
    assert plan.answer == ["10.7"]


ESTIMATES = Table(
    text=[
        ["", "texas", "", "california", ""],
        ["label", "estimate", "margin of error", "estimate", "margin of error"],
        ["households", "11,087,708", "31,245", "13,550,586", "28,775"],
        ["median income (dollars)", "73,035", "474", "91,551", "372"],
    ],
    merges=[(0, 1, 0, 2), (0, 3, 0, 4)],
)


def test_a_difference_of_groups_named_above_their_columns() -> None:
    # `how many more <noun> did A have than B`: the noun and verb come between `more` and `than`
    assert ops.asks_comparison_amount("how many more households did california have than texas?")
    plan, g = run(ESTIMATES, "How many more households did California have than Texas?")
    assert (plan.operation, plan.answer) == ("diff", ["2,462,878"])
    assert cells(g, plan.answer_nodes) == [(2, 1), (2, 3)]
    plan, _ = run(ESTIMATES, "What was the difference in median income between California and Texas?")
    assert (plan.operation, plan.answer) == ("diff", ["18,516"])
    # a difference said in passing is context, not the question
    plan, _ = run(ESTIMATES, "there was a difference between california and texas; what was the median "
                             "income in texas?")
    assert plan.operation == "lookup"


@pytest.mark.parametrize("verb", ["fall", "drop"])
def test_a_fall_between_two_named_years_is_their_difference(verb: str) -> None:
    table = Table(text=[["geo", "2019", "2023"], ["italy", "10.0", "7.7"], ["spain", "14.1", "12.1"]])
    plan, g = run(table, f"How much did the unemployment rate in Italy {verb} from 2019 to 2023?")
    assert (plan.operation, plan.answer) == ("diff", ["2.3"])
    assert cells(g, plan.answer_nodes) == [(1, 1), (1, 2)]


def test_a_year_said_inside_the_whole_of_a_share_qualifies_the_whole() -> None:
    """`share of 2023 sales … from the North`: North's part of the 2023 total, not 2023's part of
    North's total across years."""
    pivot = Table(text=[["Row Labels", "2022", "2023", "Grand Total"],
                        ["East", "120,500", "134,200", "254,700"],
                        ["North", "98,300", "101,750", "200,050"],
                        ["Grand Total", "218,800", "235,950", "454,750"]])
    plan, g = run(pivot, "What share of 2023 sales came from the North?")
    assert (plan.operation, plan.answer) == ("percent_of", ["43.1%"])
    assert cells(g, plan.answer_nodes) == [(2, 2), (3, 2)]


def test_a_function_word_in_capitals_is_a_name() -> None:
    """`IT` (information technology) is not the pronoun `it` when written in capitals."""
    assert label_tokens("IT") == ["it"] and label_tokens("WHAT IS IT") == []
    assert ("it", "it") in content_words("What was the IT budget in 2024?")
    assert ("it", "it") not in content_words("What was it in 2024?")
    table = Table(text=[["Department", "2023", "2024"], ["Finance", "1,200", "1,350"],
                        ["IT", "2,400", "2,900"], ["Total", "3,600", "4,250"]])
    plan, _ = run(table, "What was the IT budget in 2024?")
    assert plan.answer == ["2,900"]


def test_amount_asked_before_a_which_clause_is_a_value_lookup() -> None:
    plan, _ = run(SURVEY, "what was the percent of women in quebec, which is in the east?")
    assert plan.answer == ["24.0"]
    assert wants_label("which province had the most men?")
    assert wants_label("who won, by what percent of votes?")
    assert not wants_label("how many men lived in quebec, which is in the east?")


def test_ranking_skips_measure_labels_and_ranks_the_members() -> None:
    assert ops.is_measure_label("95% confidence interval") and ops.is_measure_label("from")
    assert not ops.is_measure_label("females") and not ops.is_measure_label("rest of the population")
    assert not ops.is_measure_label("18 to 29")  # an age group: a member
    t = Table(text=[["cause", "number", "percent", "rank"], ["females", "", "", ""],
                    ["accidents", "115", "25.8", "1"], ["cancer", "60", "13.5", "2"],
                    ["males", "", "", ""], ["accidents", "200", "31.0", "1"], ["cancer", "90", "14.0", "2"]])
    plan, _ = run(t, "which gender has a smaller share of death because of accidents?")
    assert plan.answer == ["females"]


def test_soft_matching_embeds_only_grams_around_unexplained_words() -> None:
    graph = CellGraph(SURVEY)
    g = Grounder("what percent of ladies lived in quebec?", graph, infer_headers(graph), None)
    grams = g._unexplained_grams()
    assert "ladies" in grams and "of ladies lived" in grams
    assert "quebec" not in grams and "percent" not in grams and "in quebec" not in grams


def test_parenthesised_acronym_mentions_the_whole_label() -> None:
    table = Table(text=[
        ["", "2018", "2017"],
        ["Available seat miles (ASMs) (000s)", "159,795", "153,811"],
        ["Operating expenses per ASM (cents)", "11.74", "11.53"],
    ])
    plan, _ = run(table, "What was the ASM of Southwest in 2017?")
    assert plan.answer == ["153,811"]
    assert acronym("revenue passenger miles (rpms)") == {"rpms", "rpm"} and not acronym("load factor (c)")


def test_dotted_initials_name_the_words_they_abbreviate() -> None:
    table = Table(text=[["", "canada", "n.l", "b.c"], ["2012", "257,905", "751", "36,244"],
                        ["2013", "259,024", "790", "36,212"]])
    plan, g = run(table, "how many new arrivals did british columbia admit in 2012?")
    assert plan.answer == ["36,244"] and cells(g, plan.answer_nodes) == [(1, 3)]
    plan, _ = run(table, "how many arrivals were there in newfoundland and labrador in 2013?")
    assert plan.answer == ["790"]
    q = "what was the net number of residents?"  # initials, never a contraction: `n.b` is not `number`
    assert match_words("n.b", quantity_words(q, content_words(q))) == {}
    q = "how many men were employed?"  # a word the question asks itself is not its initials (m-e-n)
    assert match_words("Men, 16 years and over", quantity_words(q, content_words(q))) == {"male": 1.0}
    q = "among households receiving hhc only, how many had home health care?"
    assert match_words("hhc only", quantity_words(q, content_words(q)))["care"] == 0.8


def test_a_pair_option_may_name_an_abbreviated_label() -> None:
    table = Table(text=[["year", "ont", "b.c", "canada"], ["2015", "1.48", "1.40", "1.60"],
                        ["2016", "1.46", "1.41", "1.54"]])
    plan, _ = run(table, "which has the lower fertility rate in 2016, british columbia or total canada?")
    assert (plan.operation, plan.answer) == ("pair_min", ["b.c"])
    plan, _ = run(table, "which had a higher rate in 2015, ontario or british columbia?")
    assert plan.answer == ["ont"]


def test_amount_asked_before_a_which_clause_is_a_lookup_not_a_ranking() -> None:
    assert ops.amount_before_name("what was the rate of manitoba, which had the highest rate?")
    assert ops.amount_before_name("how many percent of alberta which had the largest decrease?")
    assert not ops.amount_before_name("which province had the highest rate of men?")
    assert not ops.amount_before_name("where were men more likely to die?")
    plan, g = run(SURVEY, "what was the number of men in alberta, which had the lowest number of men?")
    assert plan.operation == "lookup" and plan.answer == ["60"]
    assert cells(g, plan.answer_nodes) == [(4, 1)]


def test_asked_category_noun_is_not_soft_matched() -> None:
    assert ops.asked_category("which gender has a smaller share of deaths?") == "gender"
    assert ops.asked_category("which kind of people were more likely to report it?") is None
    assert ops.asked_category("what was the rate of men?") is None
    graph = CellGraph(SURVEY)
    grounder = Grounder("which gender had the lower share in quebec?", graph, infer_headers(graph), None)
    grams = grounder._unexplained_grams()
    assert "share" in grams and not any("gender" in gram.split() for gram in grams)


@pytest.mark.parametrize(("lexical_confidence", "solves"), [(0.9, [False]), (0.5, [False, True])])
def test_embeddings_only_when_lexical_grounding_is_not_decisive(
    monkeypatch: pytest.MonkeyPatch, lexical_confidence: float, solves: list[bool]
) -> None:
    """The first solve never has the embedding tier; a second, dense one runs only below the
    abstain threshold (so a decisive question never loads the model)."""
    table = Table(text=[["", "2016"], ["Cargo", "700"], ["Other", "2,428"]])
    seen: list[bool] = []

    def fake_solve(question: str, graph: CellGraph, headers: object, retriever: Retriever) -> Plan:
        seen.append(retriever.dense)
        cell = graph.node_at(1, 1)
        return Plan(["700"], [cell.id], [], "lookup", lexical_confidence if len(seen) == 1 else 0.6)

    monkeypatch.setattr("celltrace.server.engine.offline_engine.solve", fake_solve)
    settings = Settings(dense_retrieval=True, offline_min_confidence=0.84, raise_errors=True)
    result = answer_question(table, "cargo in 2016?", engine="offline", settings=settings)
    assert seen == solves
    assert result.answer == ["700"] and result.confidence == (0.9 if solves == [False] else 0.6)


NONOPERATING = Table(
    text=[
        ["", "", "2017", "2016"],
        ["Nonoperating income (expense)", "Interest income", "100", "64"],
        ["", "Other income (expense), net", "(8)", "1"],
        ["Net income", "", "(364)", "2,197"],
    ],
    merges=[(1, 0, 2, 0), (3, 0, 3, 1), (0, 0, 0, 1)],
)


def test_a_label_the_question_quotes_whole_beats_one_holding_the_same_words() -> None:
    # `net` and `income` are both in `Other income (expense), net` (under an `income` parent), but
    # only `Net income` is quoted whole
    plan, g = run(NONOPERATING, "What was net income in 2017?")
    assert plan.answer == ["(364)"] and cells(g, plan.answer_nodes) == [(3, 2)]


def test_a_plural_question_listing_items_gets_one_value_per_item() -> None:
    plan, _ = run(SURVEY, "what were the percentages of men in ontario and quebec?")
    assert (plan.operation, plan.answer) == ("lookup_each", ["40.5", "30.2"])
    plan, _ = run(SURVEY, "what was the percentage of men in ontario?")
    assert plan.operation == "lookup"
    assert ops.asks_several("How many were in A and B?") and not ops.asks_several("what was A and B?")
    assert ops.asks_several("What was revenue in 2018 and 2019?")
    assert ops.asks_several("what was revenue for 2017, 2018 and 2019?")
    assert not ops.asks_several("in 2016 and 2017, which league did he play for?")  # a name, not amounts
    plan, _ = run(STATEMENT, "What was cargo revenue in 2016 and 2017?")
    assert (plan.operation, plan.answer) == ("lookup_each", ["1,100", "1,234"])


def test_an_or_inside_an_asked_amount_is_part_of_a_label_not_a_choice() -> None:
    table = Table(text=[
        ["stress on most days", "men", "women"],
        ["", "percent", "percent"],
        ["not at all or not very stressful", "30.1", "25.4"],
        ["a bit stressful", "48.0", "50.2"],
        ["quite a bit or extremely stressful", "21.9", "24.4"],
    ])
    plan, _ = run(table, "what percentage of men said their days were quite a bit or extremely stressful?")
    assert (plan.operation, plan.answer) == ("lookup", ["21.9"])
    assert ops.asks_amount_not_choice("what was the percentage of men, quite a bit or extremely stressed?")
    assert not ops.asks_amount_not_choice("was the percentage higher for men or women?")
    assert not ops.asks_amount_not_choice("who had more stress, men or women?")
    assert ops.asks_amount_not_choice("by what percentage would families in quebec skip or delay a payment?")
    assert not ops.asks_amount_not_choice("what percentage was higher, for men or for women?")


def test_an_other_line_is_not_the_answer_unless_the_question_says_other() -> None:
    table = Table(text=[
        ["offence", "2015"],
        ["total violent violations", "100"],
        ["assault", "40"],
        ["other violent violations", "60"],
    ])
    assert run(table, "how many violent violations were there in 2015?")[0].answer == ["100"]
    assert run(table, "how many other violent violations were there in 2015?")[0].answer == ["60"]


def test_a_totals_row_is_an_aggregate_line() -> None:
    table = Table(text=[
        ["year", "yds"], ["1990", "717"], ["1991", "968"], ["totals", "1,685"],
    ])
    assert run(table, "how many yds did he finish with?")[0].answer == ["1,685"]
    assert run(table, "which year had the most yds?")[0].answer == ["1991"]


CUSTODY = Table(
    text=[
        ["", "custody", ""],
        ["", "number", "rate"],
        ["manitoba", "2,417", "243"],
        ["nova scotia", "405", "54"],
    ],
    merges=[(0, 1, 0, 2)],
)


def test_a_count_per_a_base_asks_for_the_rate_not_the_number() -> None:
    plan, _ = run(CUSTODY, "how many adults per 100,000 adult population were in custody in manitoba?")
    assert plan.answer == ["243"]
    plan, _ = run(CUSTODY, "how many adults were in custody in manitoba?")
    assert plan.answer == ["2,417"]


CAREER = Table(
    text=[
        ["club", "season", "apps"],
        ["cruzeiro", "2001", "20"],
        ["", "2002", "24"],
        ["total", "", "44"],
        ["benfica", "2003-04", "15"],
        ["", "2004-05", "29"],
        ["total", "", "44"],
        ["career total", "", "88"],
    ],
    merges=[(1, 0, 2, 0), (4, 0, 5, 0), (3, 0, 3, 1), (6, 0, 6, 1), (7, 0, 7, 1)],
)


def test_a_total_row_under_a_merged_group_totals_that_group() -> None:
    plan, g = run(CAREER, "how many apps did he make for benfica in total?")
    assert cells(g, plan.answer_nodes) == [(6, 2)]
    plan, g = run(CAREER, "how many apps did he make for cruzeiro in total?")
    assert cells(g, plan.answer_nodes) == [(3, 2)]


PASSING = Table(
    text=[
        ["season", "team", "passing", ""],
        ["", "", "yds", "td"],
        ["2016", "temple", "2,794", "18"],
        ["2017", "temple", "3,122", "21"],
    ],
    merges=[(0, 2, 0, 3), (0, 0, 1, 0), (0, 1, 1, 1)],
)


def test_a_number_the_question_gives_identifies_the_row_and_is_not_the_answer() -> None:
    plan, _ = run(PASSING, "how many touchdowns did he throw with 2,794 passing yards?")
    assert plan.answer == ["18"]
    plan, _ = run(PASSING, "which season did he pass for 2,794 yards?")
    assert plan.answer == ["2016"]


YEARS = Table(text=[["", "2018", "2019", "2020"], ["men", "4", "6", "5"], ["women", "8", "7", "9"]])


@pytest.mark.parametrize(
    ("table", "question", "probs", "first", "operation"),
    [
        (YEARS, "what was the average of men?", [0.2, 0.45], "average", "lookup"),
        (YEARS, "what was the average of men?", [0.3, 0.45], "average", "average"),
        (STATEMENT, "what percent of the total was cargo in 2016?", [0.1, 0.9], "percent_of", "percent_of"),
    ],
)
def test_a_much_more_probable_candidate_answers_unless_the_question_names_the_operation(
    monkeypatch: pytest.MonkeyPatch,
    table: Table,
    question: str,
    probs: list[float],
    first: str,
    operation: str,
) -> None:
    """More probable by over 0.2: the lookup answers; by less, or when the question names the
    operation (a share), the detection order stands."""
    monkeypatch.setattr("celltrace.server.offline.confidence.probabilities", lambda rows: probs)
    plan, _ = run(table, question)
    assert [op for op, _, _ in plan.considered] == [first, "lookup"]
    assert (plan.operation, plan.confidence) == (operation, max(probs) if operation == "lookup" else probs[0])


def test_an_average_over_a_period_takes_every_year_in_it() -> None:
    plan, _ = run(YEARS, "what was the average of men from 2018 to 2020?")
    assert (plan.operation, plan.answer) == ("average", ["5"])  # (4 + 6 + 5) / 3, not the two ends
    plan, _ = run(YEARS, "what was the average of men in 2018 and 2020?")
    assert (plan.operation, plan.answer) == ("average", ["4.5"])


PREVALENCE = Table(
    text=[
        ["characteristic", "%", "95% confidence interval", ""],
        ["", "", "from", "to"],
        ["sex", "", "", ""],
        ["male", "2.7", "2.2", "3.2"],
        ["female", "3.1", "2.6", "3.6"],
        ["age group", "", "", ""],
        ["18 to 34", "4.0", "3.1", "5.0"],
        ["35 to 64", "2.5", "2.0", "3.0"],
    ],
    merges=[(0, 2, 0, 3), (0, 0, 1, 0), (0, 1, 1, 1)],
)


def test_which_noun_ranks_the_axis_whose_headers_name_it() -> None:
    plan, _ = run(PREVALENCE, "which age group had the highest prevalence?")
    assert (plan.operation, plan.answer) == ("argmax", ["18 to 34"])


def test_more_likely_compares_the_shares_not_the_counts() -> None:
    table = Table(text=[["", "number", "percent"], ["men", "900", "12.0"], ["women", "700", "15.5"]])
    plan, _ = run(table, "who were more likely to report it, men or women?")
    assert (plan.operation, plan.answer) == ("pair_max", ["women"])
    plan, _ = run(table, "who reported it more often in number, men or women?")
    assert plan.answer == ["men"]


def test_a_year_alone_reads_the_whole_year_column_not_the_quarter() -> None:
    table = Table(
        text=[
            ["", "Three months ended December 31", "", "Year ended December 31", ""],
            ["", "2017", "2016", "2017", "2016"],
            ["Net income", "(1,923)", "608", "(364)", "2,197"],
        ],
        merges=[(0, 1, 0, 2), (0, 3, 0, 4)],
    )
    plan, g = run(table, "What was net income in 2017?")
    assert plan.answer == ["(364)"] and cells(g, plan.answer_nodes) == [(2, 3)]
    plan, _ = run(table, "What was net income in the three months ended December 31, 2017?")
    assert plan.answer == ["(1,923)"]


def test_average_naming_a_line_of_the_table_is_a_lookup() -> None:
    table = Table(text=[["", "2019", "2020"], ["mean age", "41.2", "43.0"],
                        ["number of children", "0.93", "1.10"]])
    assert [p.operation for p in _candidates(table, "what is the average number of children?")] == ["lookup"]
    plain = Table(text=[["", "2019", "2020"], ["number of children", "0.93", "1.10"]])
    assert [p.operation for p in _candidates(plain, "what is the average number of children?")] == [
        "average", "lookup"]


def test_a_change_the_table_gives_is_read_not_recomputed() -> None:
    table = Table(text=[["", "2013/2014", "2014/2015", "percent change in cases 2013/2014 to 2014/2015"],
                        ["quebec", "102,000", "77,319", "-25"], ["ontario", "200,100", "190,000", "-5"]])
    question = "how many percent did the number of cases decrease in quebec from 2013/2014 to 2014/2015?"
    assert [(p.operation, p.answer) for p in _candidates(table, question)] == [("opposite", ["25"])]
    plan, _ = run(Table(text=[["", "2019", "2020"], ["men", "120", "135"], ["women", "100", "101"]]),
                  "what was the change in men from 2019 to 2020?")
    assert (plan.operation, plan.answer) == ("diff", ["15"])


def _candidates(table: Table, question: str) -> list[Plan]:
    graph = CellGraph(table)
    return candidates(Grounder(question, graph, infer_headers(graph), Retriever(graph, dense=False)))


def test_an_open_range_after_a_number_is_a_group_not_a_choice() -> None:
    assert ops.without_open_ranges("households of two or more people aged 65 or older") == (
        "households of two people aged 65")
    assert ops.without_open_ranges("were younger or older workers more likely?") == (
        "were younger or older workers more likely?")
    table = Table(text=[["", "number", "rate"], ["living in the dwelling", "", ""],
                        ["less than 3 years", "3,713", "299"], ["3 years or more", "6,558", "232"],
                        ["number of moves", "", ""], ["1 or 2", "2,875", "278"],
                        ["3 or more", "2,145", "321"]])
    question = "what was the victimization rate of households living in their dwelling 3 years or more?"
    assert [(p.operation, p.answer) for p in _candidates(table, question)] == [("lookup", ["232"])]


def test_a_change_line_answers_a_question_asking_a_change_and_only_then() -> None:
    table = Table(text=[["", "rate", "percent change in incarceration rate"],
                        ["federal", "81", "3"], ["provincial", "84", "-2"]])
    assert run(table, "what is the federal incarceration rate?")[0].answer == ["81"]
    assert run(table, "what did the federal incarceration rate increase to?")[0].answer == ["81"]
    assert run(table, "how many percent did the federal rate increase?")[0].answer == ["3"]


def test_an_average_over_every_member_needs_a_span() -> None:
    table = Table(text=[["", "2015", "2016", "2017"], ["men", "45,000", "46,000", "47,500"],
                        ["women", "38,000", "39,000", "40,500"]])
    plan, _ = run(table, "what was the average income of women in 2016?")
    assert (plan.operation, plan.answer) == ("lookup", ["39,000"])
    for question in ("what was the average income of women from 2015 to 2017?",
                     "what was the average income of women?"):  # every year the table shows
        plan, _ = run(table, question)
        assert (plan.operation, plan.answer) == ("average", ["39,166.7"])
    groups = Table(text=[["", "income"], ["men", "45,000"], ["women", "38,000"]])
    plan, _ = run(groups, "what was the average income of women?")
    assert (plan.operation, plan.answer) == ("lookup", ["38,000"])


def test_percentages_adding_up_to_more_than_100_are_not_a_sum() -> None:
    table = Table(text=[["", "satisfied", ""], ["", "number", "percent"], ["men", "1,200", "80.0"],
                        ["women", "1,500", "85.0"], ["total", "2,700", "82.6"]], merges=[(0, 1, 0, 2)])
    plan, _ = run(table, "how many men and women combined were satisfied?")
    assert (plan.operation, plan.answer) == ("sum", ["2,700"])
    plan, _ = run(table, "what percent of men and women combined were satisfied?")
    assert plan.operation == "lookup" and plan.answer[0] in {"80.0", "85.0", "82.6"}  # not 165.0


def test_amounts_asked_respectively_are_not_a_choice() -> None:
    table = Table(text=[["", "women", "", "men", ""], ["", "bottom 90%", "top 1%", "bottom 90%", "top 1%"],
                        ["married", "44.5", "68.3", "45.1", "80.2"],
                        ["married spouse or common-law partner", "59.5", "77.3", "59.9", "88.4"],
                        ["lone parent", "9.1", "8.0", "2.5", "2.6"]],
                  merges=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 0, 4)])
    question = ("what was the percentage of working women and men in the bottom 90% who were married or in "
                "a common-law relationship respectively?")
    assert "pair_min" not in [p.operation for p in _candidates(table, question)]


def test_a_quantile_group_is_not_a_direction() -> None:
    assert ops.direction("what percent of women in the top 1% were married?") is None
    assert ops.direction("what share of income went to the bottom 90 percent?") is None
    assert ops.direction("which province was in the top 3 for income?") == "max"
    table = Table(text=[["", "women", "", "men", ""], ["", "bottom 90%", "top 1%", "bottom 90%", "top 1%"],
                        ["married", "44.5", "68.3", "45.1", "80.2"],
                        ["single", "40.3", "14.4", "44.6", "8.3"]],
                  merges=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 0, 4)])
    plan, _ = run(table, "what was the percentage of men in the top 1% who were married or single?")
    assert (plan.operation, plan.answer) == ("sum", ["88.5"])  # either group, not a choice


def test_a_threshold_in_a_group_name_is_not_a_direction() -> None:
    assert ops.direction("what percent reported at least one sexual or physical assault?") is None
    assert ops.direction("what share had a diploma or equivalent or less?") is None
    assert ops.direction("how many firms had more than 10 employees?") is None
    assert ops.direction("which group was more likely to have three or more children?") == "max"
    assert ops.direction("which age group had the lowest rate among those 65 or older?") == "min"
    assert not ops.asks_comparison_amount("what percent of males had sex with more than one partner?")
    assert ops.asks_comparison_amount("how much was the rate of men higher than that of women?")
    table = Table(text=[["", "percent"], ["sexual assault", "2.1"], ["physical assault", "6.4"],
                        ["at least one assault", "7.8"]])
    plan, _ = run(table, "what was the percentage who experienced at least one sexual or physical assault?")
    assert not plan.operation.startswith("pair")


def test_two_items_named_before_which_are_a_choice() -> None:
    table = Table(text=[["age group", "prevalence of exposure"], ["12 to 17", "20.1"], ["18 to 34", "25.0"],
                        ["35 to 44", "15.2"], ["45 or older", "10.3"]])
    question = ("between 12 to 17 age group and 45 or older age group, which had a higher prevalence of "
                "exposure?")
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("pair_max", ["12 to 17"])
    assert ops.pair_options("between 2011 and 2015, which province grew faster?") is None  # a period


def test_a_signed_difference_keeps_its_sign_a_decline_is_a_magnitude() -> None:
    table = Table(text=[["", "residents", "non-residents", "difference: non-residents minus residents"],
                        ["toronto", "1,062,300", "1,042,800", "-19,500"]])
    question = "what was the difference in average value between non-residents and residents in toronto?"
    plan, _ = run(table, question)
    assert plan.answer == ["-19,500"]
    assert [op for op, _, _ in plan.considered] == ["lookup"]  # `average value` is what the column differs in
    change = Table(text=[["", "2017", "2018", "change"], ["admissions", "1,200", "1,150", "-50"]])
    plan, _ = run(change, "how much did admissions decline?")
    assert plan.answer == ["50"]


def test_a_percentage_question_prefers_a_part_to_the_whole() -> None:
    table = Table(text=[["occupation", "aboriginal women", ""], ["", "number", "percent"],
                        ["total, all occupations", "5,000", "100.0"],
                        ["management occupations", "365", "7.3"],
                        ["sales and service occupations", "1,450", "29.0"]],
                  merges=[(0, 0, 1, 0), (0, 1, 0, 2)])
    question = "in 2011, how many percent of aboriginal women reported having managerial positions?"
    plan, _ = run(table, question)
    assert plan.answer == ["7.3"]
    plan, _ = run(table, "how many aboriginal women were there in total?")
    assert plan.answer == ["5,000"]


def test_a_decline_worded_with_ing_is_asked_as_a_magnitude() -> None:
    table = Table(text=[["", "rate", "percent change in rate"], ["youth", "44", "-37"],
                        ["adults", "85", "-4"]])
    plan, _ = run(table, "how many percent was the rate for youth decreasing?")
    assert plan.answer == ["37"]


def test_a_rate_the_table_shows_only_as_a_percent_reads_the_percent_column() -> None:
    table = Table(text=[
        ["characteristic", "unemployed", ""],
        ["", "number", "percent of labor force"],
        ["men", "3,228", "3.7"],
        ["women", "2,768", "3.6"],
    ], merges=[(0, 1, 0, 2)])  # fmt: skip
    assert run(table, "What was the unemployment rate of women?")[0].answer == ["3.6"]
    assert run(table, "How many women were unemployed?")[0].answer == ["2,768"]
    crime = Table(text=[
        ["province", "youth crime severity index", "percent change 2015 to 2016"],
        ["prince edward island", "30.7", "-12"],
        ["manitoba", "113.1", "-5"],
    ])  # fmt: skip
    q = "how many of youth crime severity index per 100,000 population prince edward island has in 2016?"
    assert run(crime, q)[0].answer == ["30.7"]  # `per 100,000` implies a rate; no rate is named


def test_number_words_name_numbered_labels() -> None:
    table = Table(text=[
        ["number of products", "%"],
        ["1", "58.6"],
        ["2", "20.2"],
        ["3 or more", "21.2"],
    ])  # fmt: skip
    plan, _ = run(table, "what percent of consumers in q1 2019 reported using three or more products?")
    assert plan.answer == ["21.2"]


def test_a_quantity_the_question_implies_never_outweighs_a_word_it_says() -> None:
    """`how many` implies a count; the title repeats `employment`, halving that word's weight. The
    column the question names (`Employed`) still beats a count column under another group."""
    table = Table(text=[
        ["characteristic", "civilian labor force", "", "", ""],
        ["", "total", "employed", "unemployed", ""],
        ["", "", "", "number", "percent of labor force"],
        ["men", "88,002", "84,774", "3,228", "3.7"],
        ["women", "76,285", "73,517", "2,768", "3.6"],
    ], merges=[(0, 1, 0, 4), (1, 3, 1, 4)], title="employment status of the population by sex")  # fmt: skip
    assert run(table, "How many men were employed?")[0].answer == ["84,774"]
    assert run(table, "How many women were unemployed?")[0].answer == ["2,768"]
    assert run(table, "What percent of the women in the labor force were unemployed?")[0].answer == ["3.6"]


def test_a_number_word_is_not_the_end_of_a_year_range() -> None:
    """`in five seasons` counts seasons: `2004-05` ends in 2005, it is not the number 5."""
    table = Table(text=[
        ["season", "apps", "goals"],
        ["2004-05", "19", "0"],
        ["2005-06", "37", "1"],
        ["total", "56", "1"],
    ])  # fmt: skip
    assert run(table, "in five seasons, how many appearances did he make?")[0].answer == ["56"]
    assert run(table, "how many goals did he score in 2005-06?")[0].answer == ["1"]
    assert label_tokens("2004-05") == ["2004", "-05"] and label_tokens("05") == ["5"]


def test_a_percent_asked_of_a_count_is_the_share_of_its_whole() -> None:
    """The cell the question names holds a count (more than 100): the percent asked is its share of
    the total line. An unmarked percentage (at most 100) stays a lookup, and a part larger than its
    whole is no share."""
    table = Table(text=[
        ["", "2012"],
        ["all graduate students", "891,700"],
        ["women", "385,343"],
        ["men", "506,357"],
    ])  # fmt: skip
    plan, _ = run(table, "how many percent did women make up of all graduate students in 2012?")
    assert (plan.operation, plan.answer) == ("percent_of", ["43.2%"])
    shares = Table(text=[["income source", "2016"], ["all individuals", "100.0"], ["oas income", "42.8"]])
    assert run(shares, "what is the percentage of individuals with oas income?")[0].answer == ["42.8"]
    bigger = Table(text=[["", "2012"], ["total", "1,200"], ["women", "1,500"]])
    plan, _ = run(bigger, "how many percent did women make up of the total in 2012?")
    assert plan.operation != "percent_of"
    merged = Table(text=[["", "men", "total"], ["2012", "1,500", ""], ["2013", "1,000", "1,200"]],
                   merges=[(1, 1, 1, 2)])
    graph = CellGraph(merged)
    g = Grounder("x", graph, infer_headers(graph), None)
    assert compute_plan(g, "percent_of", "col", g.cols, g.rows[1]).answer == ["83.3%"]
    assert compute_plan(g, "percent_of", "col", g.cols, g.rows[0]) is None  # one merged cell twice


def test_what_and_the_header_over_the_row_names_asks_for_a_row_name() -> None:
    table = Table(text=[
        ["Employee group", "Approximate number of employees", "Union"],
        ["Pilots", "13,203", "ALPA"],
        ["Flight attendants", "1,307", "AFA"],
        ["Dispatchers", "60", "PAFCA"],
    ])  # fmt: skip
    plan, _ = run(table, "What employee group was represented by AFA?")
    assert (plan.operation, plan.answer) == ("lookup_label", ["Flight attendants"])
    assert run(table, "What number of pilots did the airline employ?")[0].answer == ["13,203"]
    career = Table(text=[
        ["club", "season", "division", "apps"],
        ["eastleigh", "2012-13", "conference south", "11"],
        ["wigan athletic", "1996-97", "second division", "46"],
    ])  # fmt: skip
    assert run(career, "What club did he play for in the 1996-97 season?")[0].answer == ["wigan athletic"]
    plan, _ = run(career, "What club did he join after appearing for eastleigh in 2012-13?")
    assert plan.operation != "lookup_label"  # the row it grounds is named: its club is not the answer


def test_a_footnote_letter_glued_to_a_label_word_does_not_hide_the_word() -> None:
    """Short words too (`statesf`; a long one reads through one typo, `companiesd`, and a prefix
    abbreviates, `otherc`)."""
    table = Table(text=[
        ["performer", "2015"],
        ["all performers", "1,200"],
        ["statesf", "60"],
        ["others", "1,140"],
    ])  # fmt: skip
    assert run(table, "what was the r&d spending of states in 2015?")[0].answer == ["60"]
    assert match_words("statesf", content_words("how many states?")) == {"state": 1.0}
    assert match_words("rated", content_words("what was the rate?")) == {"rate": 1.0}  # a stem, as before
    assert match_words("area", content_words("what are the figures?")) == {}


def test_how_many_times_is_asked_of_the_larger_of_two_figures() -> None:
    """Whatever order the question names them in, `how many times` is the larger over the smaller."""
    table = Table(text=[
        ["province", "men", "women"],
        ["new brunswick", "6.5", "3.0"],
        ["nova scotia", "5.0", "4.0"],
    ])  # fmt: skip
    plan, _ = run(table, "how many times is the rate among women than that among men for new brunswick?")
    assert (plan.operation, plan.answer) == ("ratio", ["2.17"])


def test_an_operand_is_named_by_words_of_its_own() -> None:
    """`living off reserve` shares every word the question gives it with `living on reserve`: the
    second operand is `non-aboriginal`, the label named by a word of its own."""
    table = Table(text=[
        ["cause", "first nations living on reserve", "first nations living off reserve",
         "non-aboriginal population"],
        ["all causes", "1,806", "1,131", "497"],
    ])  # fmt: skip
    q = ("how many times the hospitalization rate for first nations youth living on reserve was that for "
         "non-aboriginal youth?")
    plan, g = run(table, q)
    assert (plan.operation, plan.answer) == ("ratio", ["3.63"])
    assert cells(g, plan.answer_nodes) == [(1, 1), (1, 3)]


def test_two_named_lines_together_are_summed() -> None:
    table = Table(text=[["party", "seats won"], ["liberal", "112"], ["labour", "82"], ["green", "10"]])
    for q in ("how many seats did the liberal party and the labour party win together?",
              "how many seats did the liberal party and the labour party win totally?"):
        plan, _ = run(table, q)
        assert (plan.operation, plan.answer) == ("sum", ["194"])
    assert run(table, "how many seats did the green party win?")[0].answer == ["10"]


def test_a_line_adding_up_its_siblings_is_their_total() -> None:
    """`Canada` over four provinces whose figures it adds up is a total though its label does not say
    so: a share of it is computed (it had read Quebec's own figure). Small counts adding up by chance
    (`0`s, `1`s) and years are not totals."""
    from celltrace.server.offline.grounding import Grounder

    table = Table(text=[["province", "2019", "2020", "2021"], ["Canada", "1,000", "1,100", "1,210"],
                        ["Ontario", "400", "450", "500"], ["Quebec", "300", "320", "350"],
                        ["Alberta", "200", "210", "230"], ["Manitoba", "100", "120", "130"]])
    plan, _ = run(table, "What share of employment in 2021 was in Quebec?")
    assert (plan.operation, plan.answer) == ("percent_of", ["28.9%"])
    seasons = Table(text=[["season", "apps", "goals", "first", "last"], ["1996-97", "1", "0", "1996", "1997"],
                          ["1997-98", "0", "0", "1997", "1998"], ["1998-99", "0", "1", "1998", "1999"],
                          ["total", "1", "1", "1996", "1999"]])
    graph = CellGraph(seasons)
    g = Grounder("how many apps?", graph, infer_headers(graph), None)
    assert [ln.label.text for ln in g.rows + g.cols if ln.sums and ln.label] == []


def test_sum_lines_are_found_once_per_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every question on a table asks for its sum lines: they are computed once (a 3,000-row sheet
    spent 0.85 s per question on them)."""
    from celltrace.server.offline import lines

    table = Table(text=[["province", "2019", "2020"], ["Canada", "1,000", "1,100"], ["Ontario", "400", "450"],
                        ["Quebec", "300", "320"], ["Alberta", "200", "210"], ["Manitoba", "100", "120"]])
    graph, calls = CellGraph(table), []
    real = lines._sum_lines
    monkeypatch.setattr(lines, "_sum_lines", lambda *a: calls.append(1) or real(*a))
    for question in ("employment in Quebec in 2020?", "employment in Ontario in 2019?"):
        g = Grounder(question, graph, infer_headers(graph), None)
        assert [ln.label.text for ln in g.rows if ln.sums and ln.label] == ["Canada"]
    assert len(calls) == 2  # rows over columns and columns over rows, once each


def test_word_order_tells_apart_labels_of_the_same_words() -> None:
    """Two lines whose content words the question matches alike: the one the question says in its
    word order wins; a label it does not fully match gets no share."""
    table = Table(text=[
        ["children", "percent"],
        ["had children under 6 in 2006, not in 2016", "22.0"],
        ["did not have children under 6 in 2006 or 2016", "65.3"],
    ])
    plan, _ = run(table, "what percent did not have children under 6 in either 2006 or 2016?")
    assert plan.answer == ["65.3"]
    plan, _ = run(table, "what percent had children under 6 in 2006 but not in 2016?")
    assert plan.answer == ["22.0"]
    graph = CellGraph(table)
    g = Grounder("what percent did not have children under 6 in either 2006 or 2016?", graph,
                 infer_headers(graph), None)
    assert g.phrase_share(graph.node_at(2, 0)) == 7 / 10  # `did not have children under 6 in`
    assert g.phrase_share(graph.node_at(0, 0)) == 0.0  # one word
    assert Grounder("children born in 2016", graph, infer_headers(graph), None).phrase_share(
        graph.node_at(1, 0)) == 0.0  # `had`, `under`, `6` unsaid


def test_a_total_label_with_a_qualifier_after_a_comma_is_no_member() -> None:
    """`Total, 16 years and over` is the total line (its first word is `total` before a comma): a
    ranking leaves it out and a share takes it as the whole."""
    table = Table(text=[
        ["industry", "men", "women"],
        ["Total, 16 years and over", "84011", "76830"],
        ["Construction", "10840", "1320"],
        ["Health care and social assistance", "4900", "17100"],
        ["Retail trade", "7900", "7600"],
    ])
    plan, _ = run(table, "Which industry employed the most women?")
    assert plan.answer == ["Health care and social assistance"]
    plan, _ = run(table, "What share of employed women worked in health care and social assistance?")
    assert plan.answer == ["22.3%"]


INTERIM = Table(
    text=[
        ["", "Three Months Ended June 30,", "", "Six Months Ended June 30,", ""],
        ["", "2024", "2023", "2024", "2023"],
        ["Total revenue", "907.5", "802.9", "1,786.3", "1,575.5"],
        ["Net income", "62.2", "23.5", "110.9", "35.8"],
    ],
    merges=[(0, 1, 0, 2), (0, 3, 0, 4)],
)
"""An interim (10-Q) statement: a quarter and the half year to date, this year and last."""


@pytest.mark.parametrize(("question", "answer"), [
    ("What was net income in the second quarter of 2024?", "62.2"),
    ("What was Q2 2023 total revenue?", "802.9"),
    ("What was net income in the first half of 2023?", "35.8"),
    ("How much did total revenue grow year over year in the first six months?", "210.8"),
])
def test_a_quarter_or_half_named_in_words_reads_the_interim_column(question: str, answer: str) -> None:
    """`second quarter`/`Q2` is `Three Months Ended June 30`, `first half` is `Six Months Ended June
    30`; the question's period words count as explained (the answer is not left uncertain)."""
    plan, _ = run(INTERIM, question)
    assert plan.answer == [answer]
    graph = CellGraph(INTERIM)
    g = Grounder(question, graph, infer_headers(graph), None)
    said = {st for raw, st in g.qwords if raw in {"quarter", "half", "six", "months"}}
    assert said <= g.explained_words()


def test_interim_period_labels() -> None:
    assert [interim_period(t) for t in (
        "Three Months Ended June 30,", "Six Months Ended June 30", "Nine months ended September 30",
        "Three Months Ended December 31", "Three months ended January 31", "Six months ended December 31",
        "Year Ended December 31")] == ["q2", "h1", "9m", "q4", None, None, None]
    assert asked_periods("revenue in the second quarter, q3 and the first half") == {"q2", "q3", "h1"}
    assert asked_periods("revenue in 2024") == frozenset()


def test_a_year_asked_reads_the_whole_year_well_ahead_of_its_last_quarter() -> None:
    """`net income in 2017` beside `Three Months Ended December 31 | 2017`: the year's column, ahead
    by the whole-year bonus and the part-of-a-year penalty (not a near tie that lowers confidence);
    the quarter asked outright reads the quarter."""
    table = Table(text=[
        ["", "Year Ended December 31", "", "Three Months Ended December 31", ""],
        ["", "2017", "2016", "2017", "2016"],
        ["Net income", "(364)", "2,197", "(1,923)", "407"],
        ["Total revenue", "42,208", "39,180", "10,450", "9,700"],
    ], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])
    graph = CellGraph(table)
    g = Grounder("What was net income in 2017?", graph, infer_headers(graph), None)
    (best, _, col), (second, _, _) = ranked_cells(g)[:2]
    assert col.index == 1 and best - second >= 0.15 - 1e-9
    plan, _ = run(table, "What was net income in the fourth quarter of 2017?")
    assert plan.answer == ["(1,923)"]
    assert is_interim_label("Q4") and is_interim_label("Three months ended January 31")
    assert not is_interim_label("Year Ended December 31") and not is_interim_label("Twelve months ended")


def test_a_label_naming_a_word_only_as_excluded_does_not_match_it() -> None:
    """`Total, excluding Syria` does not name Syria (not even through the embedding model) unless
    the question excludes too."""
    table = Table(text=[
        ["source country", "Syria", "Iraq", "Total, excluding Syria", "Total"],
        ["refugees admitted in 2016 (%)", "71.3", "19.7", "26.6", "54.1"],
        ["government-assisted refugees (%)", "52.8", "62.0", "55.9", "54.0"],
    ])
    plan, _ = run(table, "what is the percentage of syrian refugees admitted in 2016?")
    assert plan.answer == ["71.3"]
    plan, _ = run(table, "what percent of refugees excluding syria were government-assisted?")
    assert plan.answer == ["55.9"]


def test_a_label_is_mentioned_whole_without_the_clause_it_leaves_out() -> None:
    """`Long-term debt, net of current portion` is the long-term debt line: the words it names only as
    left out neither match nor make it less completely mentioned than `Current portion of long-term
    debt`, which the question names only in part; asked in full, that line still answers."""
    table = Table(text=[
        ["", "2023", "2022"],
        ["Current portion of long-term debt", "20,000", "20,000"],
        ["Total current liabilities", "125,520", "117,360"],
        ["Long-term debt, net of current portion", "180,000", "200,000"],
    ])
    plan, _ = run(table, "How much long-term debt did the company have in 2023?")
    assert plan.answer == ["180,000"]
    plan, _ = run(table, "What was the current portion of long-term debt in 2022?")
    assert plan.answer == ["20,000"]


def test_a_figure_flagged_as_the_notes_define_is_still_a_number() -> None:
    """`12.8E` under a legend `E use with caution` is the figure 12.8: ranked, averaged and read with
    the confidence of any figure (the flag's meaning is a warning of the answer, `engine.terms`);
    without the legend the letter is no flag and the cell no figure."""
    text = [["province", "unemployment rate"], ["Quebec", "4.4"], ["Manitoba", "12.8E"], ["Alberta", "5.8r"]]
    table = Table(text=text, notes=["E use with caution", "r revised"])
    plan, _ = run(table, "Which province had the highest unemployment rate?")
    assert plan.answer == ["Manitoba"]
    plan, _ = run(table, "What was the average unemployment rate of Quebec and Alberta?")
    assert plan.answer == ["5.1"]
    plain, _ = run(table, "What was the unemployment rate in Quebec?")
    flagged_plan, _ = run(table, "What was the unemployment rate in Manitoba?")
    assert flagged_plan.answer == ["12.8E"]
    assert flagged_plan.confidence == pytest.approx(plain.confidence, abs=0.1)
    plan, _ = run(Table(text=text), "Which province had the highest unemployment rate?")
    assert plan.answer == ["Quebec"]  # the only figure
    counts = [["province", "2022", "2023"], ["Canada", "30.0", "32.0"], ["Quebec", "8.0", "8.5"],
              ["Manitoba", "6.0", "9.5E"], ["Alberta", "7.0", "7.5"], ["Ontario", "9.0", "6.5"]]
    flagged_counts = Table(text=counts, notes=["E use with caution"])
    plan, _ = run(flagged_counts, "Which province had the most cases in 2023?")
    assert plan.answer == ["Manitoba"]  # Canada adds up the provinces, the flagged one too: no member


def test_a_change_between_years_over_unit_columns_reads_the_years() -> None:
    """Years over `number | %` columns: `2019 > number` is the 2019 line (`line_year`), and a change
    from 2019 to 2021 is taken between the years even when the words also name two rows (`renter
    households`: `Renter` and `All households`, the title's word), not between those rows."""
    table = Table(
        title="Households by tenure, 2019 and 2021",
        text=[
            ["household type", "2019", "", "2021", ""],
            ["", "number", "%", "number", "%"],
            ["All households", "14,072,080", "100.0", "14,978,940", "100.0"],
            ["Owner", "9,523,480", "67.7", "9,979,485", "66.6"],
            ["  with mortgage", "5,560,110", "39.5", "5,750,720", "38.4"],
            ["Renter", "4,548,600", "32.3", "4,999,455", "33.4"],
            ["  subsidized housing", "590,265", "4.2", "628,710", "4.2"],
        ],
        merges=[(0, 1, 0, 2), (0, 3, 0, 4)],
    )
    plan, graph = run(table, "By how many did renter households increase from 2019 to 2021?")
    assert (plan.operation, plan.answer) == ("diff", ["450,855"])
    assert cells(graph, plan.answer_nodes) == [(5, 1), (5, 3)]
    g = Grounder("households from 2019 to 2021", graph, infer_headers(graph), None)
    assert [line_year(ln) for ln in g.cols] == ["2019", "2019", "2021", "2021"]


def test_a_segment_measure_reads_the_segment_lines_of_both_sections() -> None:
    """A segment note (`Revenue: > Consumer`, `Operating income: > Consumer`): `the Consumer segment's
    operating margin` divides the Consumer lines, not the totals, and its operand lookups ask the
    sections (`… Consumer segment's Operating income: in 2023`), so it is as sure as they are."""
    table = Table(text=[
        ["", "2023", "2022"],
        ["Revenue:", "", ""],
        ["  Consumer", "12,450", "11,890"],
        ["  Commercial", "8,760", "8,120"],
        ["    Total revenue", "21,210", "20,010"],
        ["Operating income:", "", ""],
        ["  Consumer", "2,105", "1,980"],
        ["  Commercial", "1,544", "1,390"],
        ["    Total operating income", "3,649", "3,370"],
    ])
    plan, graph = run(table, "What was the Consumer segment's operating margin in 2023?")
    assert (plan.operation, plan.answer) == ("measure", ["16.9%"])
    assert cells(graph, plan.answer_nodes) == [(2, 1), (6, 1)]
    assert plan.confidence > 0.5
    plan, graph = run(table, "What was the operating margin in 2023?")
    assert (plan.operation, plan.answer) == ("measure", ["17.2%"])


def test_own_is_a_content_word() -> None:
    """`own` (the verb) names the `Owned` column beside `Leased` and `Total`; it is no function word."""
    table = Table(text=[
        ["aircraft type", "Owned", "Leased", "Total"],
        ["Boeing 737-800", "112", "29", "141"],
        ["Airbus A320", "41", "16", "57"],
        ["Total", "153", "45", "198"],
    ])
    plan, _ = run(table, "How many aircraft does the company own in total?")
    assert plan.answer == ["153"]
    plan, _ = run(table, "How many Airbus A320 aircraft does the company own?")
    assert plan.answer == ["41"]


def test_a_change_line_over_other_years_does_not_give_the_change_asked() -> None:
    """`% change 2022 to 2023` gives no change from 2021 to 2022: that one is computed from the
    levels; `which … fell the most` ranks the change column by its most negative value."""
    table = Table(text=[
        ["component", "2021", "2022", "2023", "% change 2022 to 2023"],
        ["Food", "153.9", "166.8", "180.5", "8.2"],
        ["Gasoline", "181.0", "226.6", "217.7", "-3.9"],
        ["Energy", "163.2", "196.8", "196.1", "-0.4"],
    ])
    plan, _ = run(table, "By how much did the gasoline index change from 2021 to 2022?")
    assert (plan.operation, plan.answer) == ("diff", ["45.6"])
    plan, _ = run(table, "By how much did the gasoline index change from 2022 to 2023?")
    assert plan.answer == ["-3.9"]
    plan, _ = run(table, "Which component's prices fell the most from 2022 to 2023?")
    assert plan.answer == ["Gasoline"]
    assert ops.direction("which prices declined the most?") == "min"


def test_one_line_per_another_is_their_ratio_unless_a_label_says_per() -> None:
    """`revenue per employee` divides the Revenue line by the Employees line; a table with a
    `Revenue per employee` line reads it, and `per year` states a unit, not a line."""
    table = Table(text=[["Fiscal year", "Revenue", "Employees"], ["2023", "48,250", "88,400"],
                        ["2022", "45,110", "85,100"]])
    plan, _ = run(table, "What was revenue per employee in 2023?")
    assert (plan.operation, plan.answer) == ("ratio", ["0.546"])
    labelled = Table(text=[["Fiscal year", "Revenue", "Employees", "Revenue per employee"],
                           ["2023", "48,250", "88,400", "0.55"]])
    plan, _ = run(labelled, "What was revenue per employee in 2023?")
    assert plan.answer == ["0.55"]
    plan, _ = run(table, "How many employees were hired per year in 2023?")
    assert plan.operation != "ratio"


def test_short_fiscal_years_and_the_year_next_to_a_year_are_written_out() -> None:
    """`FY23` is FY2023, `the year before 2023` is 2022 (the label `2023` is not what is asked)."""
    assert spelled_years("What is the FY23 adjusted EBITDA?") == "What is the FY2023 adjusted EBITDA?"
    assert spelled_years("revenue in the year after 2019") == "revenue in 2020"
    assert spelled_years("sales in FY'99 and fy 05") == "sales in FY1999 and fy2005"
    assert spelled_years("from FY 2015 to FY 2016") == "from FY 2015 to FY 2016"
    table = Table(text=[["Year", "Revenue"], ["2023", "26.1"], ["2022", "23.8"], ["2021", "15.8"]])
    plan, _ = run(table, "What was revenue in the year before 2023?")
    assert plan.answer == ["23.8"]
    kpis = Table(text=[["Metric", "FY2022", "FY2023"], ["Adjusted EBITDA", "281.7", "312.4"]])
    plan, _ = run(kpis, "What is the FY23 adjusted EBITDA?")
    assert plan.answer == ["312.4"]


def test_initials_joined_by_an_ampersand_name_the_spelled_out_line() -> None:
    """`R&D` is `Research and development`, `SG&A` is `Selling, general and administrative` (and a
    label written `r&d` still matches `r&d`)."""
    table = Table(text=[
        ["", "2019", "2018"],
        ["Research and development", "3,120", "2,870"],
        ["Selling, general and administrative", "3,455", "3,263"],
        ["Total operating expenses", "6,575", "6,133"],
    ])
    plan, _ = run(table, "What were R&D expenses in 2019?")
    assert plan.answer == ["3,120"]
    plan, _ = run(table, "What were SG&A expenses in 2018?")
    assert plan.answer == ["3,263"]
    plan, _ = run(Table(text=[["", "fy 2019"], ["intramural r&d", "676,171"], ["total", "2,426,883"]]),
                  "how much intramural R&D was performed in fy 2019?")
    assert plan.answer == ["676,171"]


def test_a_total_over_every_period_shown_sums_the_periods() -> None:
    """`total revenue over the three years` sums the three year columns; a count the table does not
    show (`the last two years` of three) is not guessed."""
    table = Table(text=[["", "2019", "2018", "2017"], ["Revenue", "24,578", "22,310", "20,145"],
                        ["Net income", "2,979", "2,558", "1,633"]])
    plan, _ = run(table, "What was total revenue over the three years?")
    assert (plan.operation, plan.answer) == ("sum", ["67,033"])
    plan, _ = run(table, "What was total revenue across all years?")
    assert plan.answer == ["67,033"]
    plan, _ = run(table, "What was total revenue over the last two years?")
    assert plan.operation != "sum"


def test_which_age_group_ranks_the_age_ranges() -> None:
    """`which age group …` compares the lines labelled as age ranges (`50 to 69 years`, `70 and
    over`), not the provinces beside them, though no label says `age`."""
    table = Table(text=[["", "rate"], ["yukon", "9.9"], ["ontario", "4.1"], ["20 to 49 years", "2.2"],
                        ["50 to 69 years", "6.3"], ["70 years and over", "5.0"]])
    plan, _ = run(table, "which age group has the highest surgical rates?")
    assert plan.answer == ["50 to 69 years"]
    plan, _ = run(table, "which province has the highest surgical rates?")
    assert plan.answer == ["yukon"]


def test_which_quarter_ranks_the_quarters_not_the_whole_year() -> None:
    """`which quarter …` compares the quarter columns (`Q1 2023`, `Three Months Ended June 30`), not
    the fiscal year beside them; `which month` the month columns."""
    table = Table(text=[
        ["", "Q1 2023", "Three Months Ended June 30, 2023", "Q3 2023", "Fiscal 2023"],
        ["Operating income", "840", "1,025", "930", "4,005"],  # the year also holds Q4
    ])
    plan, _ = run(table, "Which quarter of 2023 had the highest operating income?")
    assert plan.answer == ["Three Months Ended June 30, 2023"]
    months = Table(text=[["", "Jan-23", "Feb-23", "Mar-23", "Q1 2023"], ["Sales", "12", "15", "11", "40"]])
    plan, _ = run(months, "In which month were sales highest?")
    assert plan.answer == ["Feb-23"]


def test_which_gender_within_a_named_group_compares_the_sexes_of_that_group() -> None:
    """Columns `age group > sex > percent`: `which gender aged 12 to 14 …` ranks females against
    males under `12 to 14 years` (the sexes vary, the named age group is fixed), not the age groups."""
    table = Table(text=[
        ["rating", "total - 12 to 17 years", "", "12 to 14 years", "", "15 to 17 years", ""],
        ["", "females", "males", "females", "males", "females", "males"],
        ["", "percent", "", "", "", "", ""],
        ["good", "27.3", "26.0", "27.8", "29.1", "26.8", "23.4"],
        ["fair or poor", "3.6", "4.7", "4.9", "4.2", "1.8", "5.0"],
    ], merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 5, 0, 6), (2, 1, 2, 6)])
    plan, g = run(table, 'which gender aged 12 to 14 were less likely to rate their health "fair or poor"?')
    assert plan.answer == ["males"] and cells(g, plan.answer_nodes) == [(1, 4)]


@pytest.mark.parametrize(("question", "answer"), [
    ("which year marks the lowest rate since 2001?", "2019"),
    ("which year had the lowest rate after 2019?", "2021"),
    ("which year had the lowest rate before 2010?", "1962"),
    ("which year had the highest rate from 2001 to 2019?", "2010"),
    ("which year had the lowest rate?", "1962"),
])
def test_a_ranking_of_years_keeps_to_the_span_the_question_bounds(question: str, answer: str) -> None:
    table = Table(text=[["year", "rate"], ["1962", "140"], ["2001", "186"], ["2010", "203"], ["2019", "179"],
                        ["2020", "183"], ["2021", "181"]])
    assert run(table, question)[0].answer == [answer]


def test_a_choice_compares_its_options_on_lines_alike() -> None:
    """`females or males` where females show thousands and a percentage and males thousands only:
    thousands against thousands (the percentage of 50.4 against 17,710 thousand men chose men)."""
    table = Table(text=[["year", "females", "", "males", "total"],
                        ["", "thousands", "as a percentage of the total population", "thousands", ""],
                        ["2013", "17,612.8", "50.4", "17,332.2", "34,945.0"],
                        ["2014", "17,824.3", "50.4", "17,710.2", "35,534.5"]],
                 merges=[(0, 1, 0, 2)])
    plan, _ = run(table, "which gender was more of the population in 2014, females or males?")
    assert plan.answer == ["females"]


def test_a_groups_own_total_is_a_part_of_the_grand_total() -> None:
    """A pivot table: `West Total` named as the part of 2023 sales is shared by the grand total."""
    table = Table(text=[["Region", "Product", "2022", "2023"],
                        ["East", "Laptops", "1200", "1500"], ["", "Phones", "800", "950"],
                        ["East Total", "", "2000", "2450"],
                        ["West", "Laptops", "1400", "1600"], ["", "Phones", "1100", "1000"],
                        ["West Total", "", "2500", "2600"],
                        ["Grand Total", "", "4500", "5050"]],
                 merges=[(1, 0, 2, 0), (4, 0, 5, 0), (3, 0, 3, 1), (6, 0, 6, 1), (7, 0, 7, 1)])
    plan, g = run(table, "What share of 2023 sales came from the West?")
    assert (plan.operation, plan.answer) == ("percent_of", ["51.5%"])
    assert cells(g, plan.answer_nodes) == [(6, 3), (7, 3)]


PAYROLLS = Table(text=[
    ["Industry", "Apr. 2024", "May 2024"],
    ["Total private", "135,257", "135,486"],
    ["  Goods-producing", "21,962", "21,999"],
    ["    Construction", "8,196", "8,217"],
    ["    Manufacturing", "13,125", "13,140"],
    ["  Service-providing", "113,295", "113,487"],
    ["    Information", "3,010", "3,006"],
    ["    Leisure and hospitality", "16,873", "16,915"],
])
"""Industries indented under the sectors they belong to; no sector is the sum of the lines shown under
it (as in payroll tables that list a few components)."""


def test_a_ranking_leaves_out_lines_other_lines_are_indented_under() -> None:
    """`which industry added the most jobs`: a sector heading indented industries is their aggregate
    (`Service-providing`, up 192), not one of the members ranked (`Leisure and hospitality`, 42)."""
    plan, _ = run(PAYROLLS, "Which industry had the most employees in May 2024?")
    assert plan.answer == ["Leisure and hospitality"]


def test_jobs_added_gained_or_lost_between_two_periods_are_a_change() -> None:
    """`add`, `gain`, `lose`, `shed` between two named periods ask a change; a loss is answered as its
    size."""
    plan, _ = run(PAYROLLS, "How many jobs did manufacturing add between April and May 2024?")
    assert (plan.operation, plan.answer) == ("diff", ["15"])
    plan, _ = run(PAYROLLS, "How many jobs did information lose from April 2024 to May 2024?")
    assert (plan.operation, plan.answer) == ("diff", ["4"])


def test_operands_repeated_under_each_group_are_compared_within_the_group_named() -> None:
    """`more women than men … in 2021` where `Males`/`Females` head columns under each year: the two
    are compared under 2021, the first named (through the vocabulary: `women` ~ `Females`) minus the
    second."""
    plan, g = run(CENSUS, "How many more women than men aged 65 and over were there in 2021?")
    assert (plan.operation, plan.answer) == ("diff", ["557"])
    assert sorted(cells(g, plan.answer_nodes)) == [(3, 3), (3, 4)]


def test_an_age_group_worded_with_other_numbers_finds_its_label() -> None:
    """`children under 15` is the label `0 to 14 years`, not `15 to 64 years`; `aged 65 or older`
    is `65 years and over`."""
    table = Table(text=[["Age group", "2011", "2021"], ["0 to 14 years", "5,607", "5,993"],
                        ["15 to 64 years", "23,123", "24,621"], ["65 years and over", "4,945", "7,021"]])
    plan, _ = run(table, "How many children under 15 were there in 2011?")
    assert plan.answer == ["5,607"]
    plan, _ = run(table, "How many people were aged 65 or older in 2021?")
    assert plan.answer == ["7,021"]


ENROLMENT = Table(text=[
    ["Program", "Women", "Men", "Total"],
    ["Engineering", "19,870", "61,240", "81,110"],
    ["Health", "73,450", "18,920", "92,370"],
    ["All programs", "93,320", "80,160", "173,480"],
])


def test_a_share_takes_its_part_outside_the_whole_it_names() -> None:
    """`percentage of engineering students were women`: Engineering is the whole's line, the part is
    `Women` of its `Total`; `percentage of women were in engineering` is the other way round."""
    plan, g = run(ENROLMENT, "What percentage of engineering students were women?")
    assert (plan.operation, plan.answer) == ("percent_of", ["24.5%"])
    assert sorted(cells(g, plan.answer_nodes)) == [(1, 1), (1, 3)]
    plan, g = run(ENROLMENT, "What percentage of women were in engineering?")
    assert (plan.operation, plan.answer) == ("percent_of", ["21.3%"])
    assert sorted(cells(g, plan.answer_nodes)) == [(1, 1), (3, 1)]


def test_both_sexes_is_the_total_over_the_sexes() -> None:
    """`Both sexes` is an aggregate label (`Both parents` is not): the `total population` is read
    from it, not from the first sex."""
    table = Table(text=[["Age group", "2021", "", ""], ["", "Males", "Females", "Both sexes"],
                        ["0 to 14 years", "3,140", "3,021", "6,161"],
                        ["65 years and over", "2,835", "3,392", "6,227"]], merges=[(0, 1, 0, 3)])
    plan, _ = run(table, "What was the total population aged 65 years and over in 2021?")
    assert plan.answer == ["6,227"]
    graph = CellGraph(Table(text=[["", "Both sexes", "Both parents", "Both genders"], ["a", "1", "2", "3"]]))
    assert [is_aggregate_label(graph.node_at(0, c)) for c in (1, 2, 3)] == [True, False, True]


CHARACTERISTICS = Table(text=[
    ["Characteristics", "Rate"],
    ["Arthritis", ""], ["No", "35.3"], ["Yes", "42.9"],
    ["Childhood maltreatment", ""], ["Yes", "357"], ["No", "134"],
])
"""Yes/no lines under each characteristic, in either order, as health and victimization surveys
publish them."""


def test_yes_and_no_lines_are_named_by_affirming_or_negating_their_characteristic() -> None:
    """`without arthritis` is the No line under Arthritis, `with arthritis` the Yes line; a
    comparison with `those who did not` takes Yes first, then No."""
    plan, _ = run(CHARACTERISTICS, "What was the rate among people without arthritis?")
    assert plan.answer == ["35.3"]
    plan, _ = run(CHARACTERISTICS, "What was the rate among people with arthritis?")
    assert plan.answer == ["42.9"]
    plan, _ = run(CHARACTERISTICS,
                  "What was the rate of those who had not experienced childhood maltreatment?")
    assert plan.answer == ["134"]
    plan, g = run(CHARACTERISTICS, "How many times was the rate of people who experienced childhood "
                                   "maltreatment more than that of people who did not?")
    assert (plan.operation, plan.answer) == ("ratio", ["2.66"])
    assert cells(g, plan.answer_nodes) == [(5, 1), (6, 1)]


SURVEY_ANSWERS = Table(
    text=[["", "n", "Yes", "No", "Don't know"], ["All respondents", "2,150", "58", "31", "11"],
          ["Men", "1,040", "55", "36", "9"], ["Women", "1,080", "61", "26", "13"],
          ["Urban", "1,210", "66", "24", "10"], ["Rural", "300", "41", "44", "15"]],
    title="Q12. Do you support the proposed transit expansion?\nPercent of respondents")


def test_a_survey_caption_asks_the_question_its_yes_and_no_answer() -> None:
    """`support` says the caption's question (`Do you support …?`): the Yes column; `said no` quotes
    the No column."""
    plan, _ = run(SURVEY_ANSWERS, "What share of women support the transit expansion?")
    assert plan.answer == ["61"]
    plan, _ = run(SURVEY_ANSWERS,
                  "How much higher was support among urban respondents than rural respondents?")
    assert (plan.operation, plan.answer) == ("diff", ["25"])
    plan, _ = run(SURVEY_ANSWERS, "How many men said no?")
    assert plan.answer == ["36"]
    # the caption says the answers are percentages already: no share of the `n` column is computed
    plan, _ = run(SURVEY_ANSWERS, "What percent of women said no?")
    assert (plan.operation, plan.answer) == ("lookup", ["26"])


def test_a_change_word_is_said_by_a_line_giving_a_change() -> None:
    """`the highest revenue growth` ranks on the `% change` column, not on a revenue column: a
    change line says the question's change word whatever its own."""
    table = Table(text=[["Region", "2023", "2022", "% change"], ["", "Revenue", "Revenue", ""],
                        ["United States", "14,250", "13,120", "8.6"], ["Europe", "7,310", "6,980", "4.7"],
                        ["Asia Pacific", "4,890", "4,410", "10.9"]], merges=[(0, 0, 1, 0), (0, 3, 1, 3)])
    plan, g = run(table, "Which region had the highest revenue growth?")
    assert plan.answer == ["Asia Pacific"]
    assert g.node(plan.header_nodes[0]).text == "% change"
    # a line that names what changes besides the change (`Real GDP growth`) does not say `rise`
    table = Table(text=[["Year", "Real GDP growth (%)", "Unemployment rate (%)"], ["2019", "2.5", "3.7"],
                        ["2020", "-2.2", "8.1"]])
    plan, _ = run(table, "By how many percentage points did unemployment rise from 2019 to 2020?")
    assert (plan.operation, plan.answer) == ("diff", ["4.4"])


def test_a_combined_figure_of_two_named_groups_sums_their_lines() -> None:
    """`the combined number … in Ontario and Quebec` where each province heads `number | rate`: the
    two provinces' number lines are summed (not every diagnosis under one of them)."""
    table = Table(text=[["Diagnosis", "Ontario", "", "Quebec", ""], ["", "number", "rate", "number", "rate"],
                        ["Circulatory diseases", "142,310", "951.2", "98,450", "1,121.4"],
                        ["Cancers", "87,450", "584.5", "60,110", "684.7"]],
                  merges=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 0, 4)])
    plan, g = run(table, "What was the combined number of cancer admissions in Ontario and Quebec?")
    assert (plan.operation, plan.answer) == ("sum", ["147,560"])
    assert sorted(cells(g, plan.answer_nodes)) == [(3, 1), (3, 3)]


MACRO = Table(text=[["Year", "Unemployment rate (%)", "CPI inflation (%)"], ["2019", "3.7", "1.8"],
                    ["2020", "8.1", "1.2"], ["2021", "5.4", "4.7"], ["2022", "3.6", "8.0"],
                    ["2023", "3.6", "4.1"]])


def test_the_highest_figure_is_the_top_ranked_members_value() -> None:
    """`what was the highest unemployment rate after 2020` ranks the years after 2020 and answers the
    figure (5.4), not the label; a question naming a member (`… reported in 2021`) stays a lookup."""
    plan, g = run(MACRO, "What was the highest unemployment rate after 2020?")
    assert (plan.operation, plan.answer) == ("max", ["5.4"])
    assert cells(g, plan.answer_nodes) == [(3, 1)]
    plan, _ = run(MACRO, "What was the lowest CPI inflation?")
    assert (plan.operation, plan.answer) == ("min", ["1.2"])
    plan, _ = run(MACRO, "What was the highest CPI inflation reported in 2021?")
    assert (plan.operation, plan.answer) == ("lookup", ["4.7"])


def test_an_average_over_the_years_named_is_computed_whatever_the_title_says() -> None:
    """A title saying the figures are `annual averages` does not make `the average rate … from 2021 to
    2023` a lookup: an average over the span of years the question names is computed."""
    table = Table(text=[["Province", "2021", "2022", "2023"], ["Ontario", "8.1", "5.6", "5.7"],
                        ["Quebec", "6.1", "4.3", "4.5"]],
                  title="Unemployment rate by province, annual averages")
    plan, g = run(table, "What was the average unemployment rate in Quebec from 2021 to 2023?")
    assert (plan.operation, plan.answer) == ("average", ["4.97"])
    assert sorted(cells(g, plan.answer_nodes)) == [(2, 1), (2, 2), (2, 3)]
    plan, _ = run(table, "What was the average unemployment rate in Quebec in 2022?")
    assert (plan.operation, plan.answer) == ("lookup", ["4.3"])


def test_a_grand_total_is_the_total_asked() -> None:
    """`total sales in 2023` on a pivot table reads `Grand Total`, not the first group's `East Total`
    (`grand` is no word the question left unsaid)."""
    table = Table(text=[["Row Labels", "2022", "2023"], ["East", "", ""], ["  Laptops", "120,500", "134,200"],
                        ["  Phones", "98,300", "101,900"], ["East Total", "218,800", "236,100"],
                        ["West", "", ""], ["  Laptops", "143,800", "151,600"],
                        ["  Phones", "110,400", "126,700"], ["West Total", "254,200", "278,300"],
                        ["Grand Total", "473,000", "514,400"]])
    plan, _ = run(table, "What were total sales in 2023?")
    assert plan.answer == ["514,400"]
    assert label_tokens("Grand Total") == label_tokens("Total")


def test_after_the_last_year_shown_is_the_thereafter_column() -> None:
    """A maturity schedule: `due after 2028` where the years end at 2028 is the `Thereafter` column;
    after an earlier year, or with no such column, the question is left as asked."""
    table = Table(text=[["", "Total", "2026", "2027", "2028", "Thereafter"],
                        ["Long-term debt", "8,750", "1,000", "1,250", "1,500", "3,750"],
                        ["Operating leases", "1,420", "240", "190", "150", "250"]])
    plan, _ = run(table, "How much long-term debt is due after 2028?")
    assert plan.answer == ["3,750"]
    labels = ["2027", "2028", "Thereafter"]
    assert spelled_later("due after 2028", labels) == "due Thereafter"
    assert spelled_later("due after 2027", labels) == "due after 2027"
    assert spelled_later("due after 2028", ["2027", "2028"]) == "due after 2028"
    # a schedule's periods can be spans: `2027-2028` ends at 2028
    schedule = ["2024", "2025-2026", "2027-2028", "Thereafter"]
    assert spelled_later("due after 2028", schedule) == "due Thereafter"


def test_a_year_over_its_currency_and_scale_is_a_year_column() -> None:
    """`2023 €m` heads a year's column in €m: a change between two years is computed, in € millions;
    a section stating `(cents)` gives its lines their own unit."""
    table = Table(text=[["", "Notes", "2023\n€m", "2022\n€m"], ["Revenue", "4", "12,840", "11,920"],
                        ["Operating profit", "", "2,280", "1,960"],
                        ["Earnings per share (cents)", "", "", ""], ["Diluted", "9", "77.5", "65.1"]])
    plan, g = run(table, "How much did operating profit increase from 2022 to 2023?")
    assert (plan.operation, plan.answer) == ("diff", ["320"])
    headers = infer_headers(g)
    assert headers.unit_for(g.node_at(2, 2)) == "€ millions"
    assert headers.unit_for(g.node_at(4, 2)) == "cents"


def test_a_rate_of_an_expense_or_liabilities_shown_negative_is_of_its_size() -> None:
    """IFRS statements show expenses negative: the effective tax rate of `Income tax expense (494)`
    on a profit of 2,055 is 24.0 %, and `cost of sales` is 60.0 % of revenue; a loss shown negative
    keeps its sign (a negative margin)."""
    table = Table(text=[["", "2023"], ["Revenue", "12,840"], ["Cost of sales", "(7,710)"],
                        ["Gross profit", "5,130"], ["Profit before tax", "2,055"],
                        ["Income tax expense", "(494)"], ["Net income", "(150)"]])
    plan, _ = run(table, "What was the effective tax rate in 2023?")
    assert plan.answer == ["24.0%"]
    plan, _ = run(table, "What percentage of revenue was cost of sales in 2023?")
    assert plan.answer == ["60.0%"]
    plan, _ = run(table, "What was the net margin in 2023?")
    assert plan.answer == ["-1.2%"]
    # liabilities shown negative (a UK statement of financial position): the current ratio is positive
    table = Table(text=[["", "31 December 2023\n£'000"], ["Total current assets", "123,860"],
                        ["Total current liabilities", "(64,870)"]])
    plan, g = run(table, "What was the current ratio in 2023?")
    assert plan.answer == ["1.91"]
    assert infer_headers(g).unit_for(g.node_at(1, 1)) == "£ thousands"


@pytest.mark.parametrize("question", [
    "What was the current ratio at the end of 2023 (total current assets / total current liabilities)?",
    "What was the current ratio in 2023, i.e. total current assets divided by total current liabilities?",
    "What was the current ratio in 2023, defined as total current assets over total current liabilities?",
])
def test_a_measure_the_question_defines_asks_each_operand_without_the_definition(question: str) -> None:
    """The operand lookups leave out the clause that defines the measure by both sides' words: kept,
    the liabilities' lookup would read the assets there, and the measure would compose to 0."""
    table = Table(text=[["", "2023", "2022"], ["Total current assets", "6,442", "5,980"],
                        ["Total current liabilities", "3,600", "3,410"],
                        ["Total assets", "18,200", "17,050"]])
    graph = CellGraph(table)
    headers = infer_headers(graph)
    plan = solve(question, graph, headers, None)
    assert plan.answer == ["1.79"]
    assert [p.endswith(" in 2023?") or p.endswith(" at the end of 2023?") for p in plan.parts] == [True, True]
    operands = [solve(q, graph, headers, None) for q in plan.parts]
    assert [o.answer_nodes for o in operands] == [[n] for n in plan.answer_nodes]
    assert plan.confidence == pytest.approx(min(o.confidence for o in operands), abs=1e-4)
    assert plan.confidence > 0.5


def test_operands_repeated_over_each_unit_are_compared_in_the_unit_asked() -> None:
    """`Owner | Renter` over `number` and again over `percent`: `how many more owner households than
    renter households` compares them in the number group (`how many`), on the all-households line;
    the `more` of the comparison names no label (`Two-or-more-person households`)."""
    table = Table(text=[["Household type", "Total households", "Owner", "Renter", "Owner", "Renter"],
                        ["", "number", "number", "", "percent", ""],
                        ["All households", "14,978,940", "9,987,495", "4,991,445", "66.7", "33.3"],
                        ["One-person households", "4,390,475", "2,156,220", "2,234,255", "49.1", "50.9"],
                        ["Two-or-more-person households", "696,075", "272,955", "423,120", "39.2", "60.8"]],
                  merges=[(1, 2, 1, 3), (1, 4, 1, 5)])
    plan, g = run(table, "How many more owner households than renter households were there?")
    assert (plan.operation, plan.answer) == ("diff", ["4,996,050"])
    assert sorted(cells(g, plan.answer_nodes)) == [(2, 2), (2, 3)]


@pytest.mark.parametrize(("question", "way"), [
    ("Which province had the largest employment decline?", "min"),
    ("Which region saw the sharpest drop?", "min"),
    ("Which segment had the largest loss?", "min"),
    ("Which company had the largest net loss?", "max"),  # the biggest loss line, not a change
    ("Which sector declined the fastest?", "min"),
    ("Which province had the fastest population growth?", "max"),
    ("Which city is the fastest-growing?", "max"),
    ("Which region had the slowest growth?", "min"),
    ("Which region grew the fastest?", "max"),
    ("Which segment grew slowest in 2023?", "min"),
    ("List the fastest time he set in 2016", None),  # a time: the lowest, not the highest
])
def test_the_largest_decline_is_the_most_negative_change(question: str, way: str | None) -> None:
    assert ops.direction(question) == way


def test_soft_matching_leaves_out_words_the_title_says() -> None:
    table = Table(text=[["Employment size", "Number"], ["1 to 4 employees", "600"], ["Total", "1,000"]],
                  title="Employer businesses by employment size")
    graph = CellGraph(table)
    g = Grounder("How many employer businesses were there?", graph, infer_headers(graph), None)
    assert not any("employer" in gram for gram in g._unexplained_grams())


AGREEMENT = Table(text=[
    ["", "Strongly agree", "Agree", "Disagree", "Strongly disagree", "n"],
    ["18 to 29", "5", "17", "31", "31", "402"],
    ["30 to 44", "7", "19", "32", "25", "511"],
    ["45 to 64", "9", "22", "29", "21", "689"],
], title="Percent of respondents")


def test_a_ranking_of_age_groups_answers_a_group_not_another_column() -> None:
    plan, _ = run(AGREEMENT, "Which age group was most likely to strongly disagree?")
    assert plan.answer == ["18 to 29"]  # `18 to 29` is a member, not a measure label like `from`/`to`


@pytest.mark.parametrize(("question", "answer"), [
    ("What percentage of respondents aged 45 to 64 disagreed or strongly disagreed?", "50"),
    ("What percentage of 18 to 29 year olds agreed or strongly agreed?", "22"),
])
def test_alternatives_one_inside_the_other_are_both_summed(question: str, answer: str) -> None:
    plan, _ = run(AGREEMENT, question)
    assert (plan.operation, plan.answer) == ("sum", [answer])


SEGMENT_CHANGES = Table(text=[
    ["", "2023", "2022", "% Change"],
    ["", "", "", "2023 vs 2022"],
    ["Cloud", "12,450", "10,230", "22%"],
    ["Hardware", "5,210", "5,890", "(12)%"],
], merges=[(0, 1, 1, 1), (0, 2, 1, 2)])


@pytest.mark.parametrize(("question", "answer"), [
    ("By how much did Hardware revenue decline from 2022 to 2023?", "680"),
    ("By how much did Cloud revenue grow from 2022 to 2023?", "2,220"),
    ("What was the percentage change in Hardware revenue?", "(12)%"),  # asked in percent: read
])
def test_a_percent_change_column_answers_only_a_change_asked_in_percent(question: str, answer: str) -> None:
    plan, _ = run(SEGMENT_CHANGES, question)
    assert plan.answer == [answer]


def test_the_years_of_two_lines_order_their_change() -> None:
    table = Table(text=[["", "Population, 2021", "Population, 2016"],
                        ["Ontario", "14,223,942", "13,448,494"]])
    plan, _ = run(table, "By how many people did Ontario's population grow from 2016 to 2021?")
    assert (plan.operation, plan.answer) == ("diff", ["775,448"])


MONTH_ROWS = Table(text=[
    ["Month", "2023", "2024"], ["January", "55,120", "56,980"], ["February", "53,010", "55,230"],
    ["March", "61,230", "62,870"], ["April", "60,110", "63,340"], ["November", "63,410", "65,120"],
    ["December", "73,450", "75,890"],
])


def test_a_quarter_no_line_shows_is_the_sum_of_its_months() -> None:
    plan, _ = run(MONTH_ROWS, "What were sales in the first quarter of 2024?")
    assert (plan.operation, plan.answer) == ("sum", ["175,080"]) and len(plan.parts) == 3


def test_a_change_between_months_under_a_year_column_asks_each_month_in_that_year() -> None:
    plan, _ = run(MONTH_ROWS, "How much did sales change from November to December 2024?")
    assert plan.answer == ["10,770"] and plan.confidence > 0.5  # each part is asked in 2024
    assert all("2024" in part for part in plan.parts)


INDICATORS = Table(text=[
    ["Indicator", "2019", "2020", "2021", "2022", "2023"],
    ["Inflation (annual %)", "1.9", "0.7", "3.4", "6.8", "3.9"],
    ["GDP growth (annual %)", "1.9", "-5.0", "5.3", "3.8", "1.2"],
])
ATTAINMENT = Table(text=[
    ["", "Tertiary", "Below upper secondary"], ["Canada", "62", "8"], ["France", "42", "18"],
    ["Italy", "21", "37"], ["Mexico", "19", "57"], ["OECD average", "40", "19"],
])
EMPLOYMENT = Table(text=[
    ["", "October", "November", "Change"], ["Quebec", "4,516.2", "4,527.5", "11.3"],
    ["Manitoba", "704.3", "703.0", "-1.3"], ["New Brunswick", "398.7", "397.1", "-1.6"],
    ["Alberta", "2,488.9", "2,499.1", "10.2"],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    (INDICATORS, "In how many years was inflation above 2 percent?", "3"),
    (INDICATORS, "In how many years did GDP growth fall below 2 percent?", "3"),
    (ATTAINMENT, "How many countries had a tertiary share above the OECD average?", "2"),
    (EMPLOYMENT, "How many provinces saw employment fall?", "2"),
])
def test_a_count_of_members_meeting_a_condition(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("count", [answer])


@pytest.mark.parametrize("question", [
    "How many jobs did Manitoba lose?",  # one member named: its change
    "How many people were employed in Quebec in October?",  # no condition
    "How many percent did employment fall in Manitoba?",  # a unit: a figure asked
])
def test_a_question_of_one_member_or_of_a_unit_is_no_count(question: str) -> None:
    plan, _ = run(EMPLOYMENT, question)
    assert plan.operation != "count"


def test_a_rate_or_the_size_of_a_change_asked_is_no_count() -> None:
    assert ops.count_condition("how many homicides per 100,000 people were there above 2 in 2015?") is None
    assert ops.count_condition("how many jobs did quebec add, after employment increased by 2%?") is None
    assert ops.count_condition("how many provinces saw employment increase?") is not None


def test_a_count_of_what_the_other_side_measures_is_no_count() -> None:
    table = Table(text=[["Season", "Games", "Goals"], ["2001", "40", "12"], ["2002", "38", "9"],
                        ["2003", "41", "15"]])
    plan, _ = run(table, "How many goals had he accumulated over 10 years?")
    assert plan.operation != "count"


@pytest.mark.parametrize(("question", "answer"), [
    ("How many respondents aged 45 to 64 were surveyed?", "689"),  # the sample size, `n`
    ("What percentage of respondents aged 45 to 64 strongly agreed?", "9"),
])
def test_respondents_surveyed_name_the_sample_size(question: str, answer: str) -> None:
    plan, _ = run(AGREEMENT, question)
    assert plan.answer == [answer]


BANK = Table(text=[
    ["", "Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY 2024"],
    ["Net interest income", "2,410", "2,455", "2,502", "2,560", "9,927"],
    ["Non-interest income", "1,380", "1,420", "1,395", "1,460", "5,655"],
    ["Total revenue", "3,790", "3,875", "3,897", "4,020", "15,582"],
    ["Net income", "980", "1,040", "1,010", "1,060", "4,090"],
])


def test_a_half_no_line_shows_is_the_sum_of_its_quarters() -> None:
    plan, _ = run(BANK, "What was non-interest income in the first half of 2024?")
    assert (plan.operation, plan.answer) == ("sum", ["2,800"])


def test_a_label_said_only_inside_a_longer_one_is_no_operand() -> None:
    """`net interest income` holds the words of `Net income`, which the question never says."""
    plan, _ = run(BANK, "What percentage of total revenue in 2024 was net interest income?")
    assert (plan.operation, plan.answer) == ("percent_of", ["63.7%"])


CROPS = Table(text=[
    ["Crop", "2022", "2023"], ["Corn for grain", "79,207", "86,513"], ["Soybeans", "86,164", "82,356"],
    ["Wheat, winter", "25,120", "26,010"], ["Wheat, spring", "10,371", "11,070"],
    ["Total, all crops", "200,862", "205,949"],
])


def test_a_label_named_by_its_head_alone_is_an_operand() -> None:
    plan, _ = run(CROPS, "What was the total area of corn and soybeans in 2023?")
    assert (plan.operation, plan.answer) == ("sum", ["168,869"])


def test_a_head_two_labels_share_names_neither() -> None:
    plan, _ = run(CROPS, "What was the total area of wheat and soybeans in 2023?")
    assert plan.answer != ["108,366"]  # `wheat` is winter or spring wheat: not one line


OBLIGATIONS = Table(
    text=[["", "Total", "2024", "2025-2026", "2027-2028", "Thereafter"],
          ["Long-term debt", "5,200", "400", "1,100", "1,500", "2,200"],
          ["Operating leases", "960", "180", "320", "230", "230"],
          ["Purchase obligations", "2,140", "1,620", "430", "90", "0"],
          ["Total", "8,300", "2,200", "1,850", "1,820", "2,430"]],
    title="Contractual obligations as of December 31, 2023")


def test_all_of_what_the_title_names_is_the_whole_table() -> None:
    """`all contractual obligations` under that title is the total line, not `Purchase obligations`
    (which shares a word); a label holding the words keeps them (`All state agencies`)."""
    plan, _ = run(OBLIGATIONS, "What is the total of all contractual obligations?")
    assert plan.answer == ["8,300"]
    labels = [row[0] for row in OBLIGATIONS.text] + OBLIGATIONS.text[0]
    assert whole_table_words("the total of all contractual obligations", OBLIGATIONS.title or "", labels)
    assert not whole_table_words("the total of all obligations due in 2024", "Debt maturities", labels)
    agencies = Table(text=[["", "FY 2019"], ["All state agencies", "2,767"], ["Health agencies", "676"]],
                     title="R&D expenditures by state agencies")
    plan, _ = run(agencies, "What were R&D expenditures by all state agencies in FY 2019?")
    assert plan.answer == ["2,767"]


def test_a_period_span_ends_a_schedule_before_its_thereafter_column() -> None:
    plan, _ = run(OBLIGATIONS, "How much of the purchase obligations are due after 2028?")
    assert plan.answer == ["0"]


OPERATING_STATS = Table(text=[
    ["", "2023", "2022", "Increase/(Decrease)"],
    ["Revenue passenger miles (millions)", "241,200", "206,800", "16.6 %"],
    ["Available seat miles (millions)", "291,300", "262,100", "11.1 %"],
    ["Average fuel price per gallon", "3.01", "3.63", "(17.1) %"],
    ["Fuel gallons consumed (millions)", "4,212", "3,870", "8.8 %"],
])


def test_a_change_column_gives_the_change_of_the_latest_year() -> None:
    """Beside `2023 | 2022`, an `Increase/(Decrease)` column with no year of its own is 2023's change
    (in percent); the amount of the change is computed from the two years."""
    plan, _ = run(OPERATING_STATS, "By what percentage did revenue passenger miles increase in 2023?")
    assert plan.answer == ["16.6 %"]
    plan, _ = run(OPERATING_STATS, "How much did revenue passenger miles increase in 2023?")
    assert (plan.operation, plan.answer) == ("diff", ["34,400"])
    plan, _ = run(OPERATING_STATS, "What were available seat miles in 2023?")
    assert plan.answer == ["291,300"]


def test_consumption_is_read_in_a_label_saying_consumed() -> None:
    assert match_words("Fuel gallons consumed (millions)", content_words("fuel consumption")) == {
        "fuel": 1.0, "consumpt": 0.8}
    plan, _ = run(OPERATING_STATS, "How much did fuel consumption increase in 2023 compared with 2022?")
    assert plan.answer == ["342"]


def test_how_many_percentage_points_higher_compares_two_operands() -> None:
    prevalence = Table(text=[["Age group", "Males", "Females"], ["Total, 12 and older", "8.9", "7.1"],
                             ["65 and older", "22.1", "16.3"]], title="Prevalence of diabetes (percent)")
    plan, _ = run(prevalence, "How many percentage points higher was the prevalence among males than "
                              "females aged 65 and older?")
    assert (plan.operation, plan.answer) == ("diff", ["5.8"])
    compared = ops.COMPARED_BY.match("how many percentage points higher was it")
    assert compared is not None and compared.group(1) == "higher"
    assert not ops.asks_comparison_amount("what share was 5 percent higher than in 2010 or 2011?")


CASH_FLOWS = Table(text=[
    ["", "2023", "2022", "2021"],
    ["Net cash provided by operating activities", "60,710", "53,350", "47,550"],
    ["Net cash used in investing activities", "(40,500)", "(15,200)", "(18,500)"],
])


def test_cash_used_shown_negative_ranks_by_its_size() -> None:
    plan, _ = run(CASH_FLOWS, "In which year was net cash used in investing activities the highest?")
    assert plan.answer == ["2023"]
    plan, _ = run(CASH_FLOWS, "In which year was net cash used in investing activities the lowest?")
    assert plan.answer == ["2022"]


COMBINED_RATIO = Table(text=[["", "2023", "2022"], ["Loss ratio", "69.0", "71.4"],
                             ["Expense ratio", "28.0", "28.1"], ["Combined ratio", "97.0", "99.5"]])


def test_a_word_a_label_holds_asks_no_sum_and_improved_asks_the_size_of_the_change() -> None:
    """`combined` names `Combined ratio` (no sum of lines); a ratio that `improved` fell, and the
    improvement asked is the size of the change."""
    plan, _ = run(COMBINED_RATIO, "What was the combined ratio in 2022?")
    assert (plan.operation, plan.answer) == ("lookup", ["99.5"])
    plan, _ = run(COMBINED_RATIO, "By how many points did the combined ratio improve in 2023?")
    assert (plan.operation, plan.answer) == ("diff", ["2.5"])
    assert not ops.UNSIGNED_CHANGE.search("how many percent did improvements to research space comprise")


def test_which_province_ranks_provinces_only() -> None:
    """`which province` leaves out the country and the territories; `province or territory` keeps
    the territories."""
    rates = Table(text=[["", "rate"], ["Canada", "1.8"], ["Ontario", "1.2"], ["Manitoba", "4.1"],
                        ["Saskatchewan", "3.8"], ["Yukon", "6.0"], ["Nunavut", "9.5"]])
    plan, _ = run(rates, "Which province had the highest rate?")
    assert plan.answer == ["Manitoba"]
    plan, _ = run(rates, "Which province or territory had the highest rate?")
    assert plan.answer == ["Nunavut"]


QUARTERS_FY = Table(text=[
    ["", "Q1 FY24", "Q2 FY24", "Q3 FY24", "Q4 FY24", "Q4 FY23", "YoY %"],
    ["Revenue", "1,210", "1,265", "1,302", "1,388", "1,190", "16.6%"],
    ["Operating income", "162", "189", "209", "249", "150", "66.0%"],
    ["Gross margin", "58.0%", "58.6%", "59.1%", "59.7%", "57.1%", "2.6 pts"],
])


def test_a_short_fiscal_year_in_a_label_is_its_year() -> None:
    assert label_tokens("Q4 FY23") == ["q", "4", "fiscal", "2023"]
    assert label_tokens("FY'24") == ["fiscal", "2024"]
    plan, _ = run(QUARTERS_FY, "What was revenue in the fourth quarter of fiscal 2023?")
    assert plan.answer == ["1,190"]


def test_a_yoy_column_gives_the_change_year_over_year() -> None:
    plan, _ = run(QUARTERS_FY, "By what percentage did operating income grow year over year in Q4?")
    assert plan.answer == ["66.0%"]


def test_a_year_no_line_shows_is_the_sum_of_its_quarters() -> None:
    """`total revenue for fiscal 2024` over `Q1 FY24` … `Q4 FY24` (no FY24 column, Q4 FY23 left
    out); a margin is no sum."""
    plan, _ = run(QUARTERS_FY, "What was total revenue for fiscal 2024?")
    assert (plan.operation, plan.answer) == ("sum", ["5,165"])
    plan, _ = run(QUARTERS_FY, "What was revenue in FY2024?")
    assert (plan.operation, plan.answer) == ("sum", ["5,165"])
    plan, _ = run(QUARTERS_FY, "Which quarter of FY24 had the highest revenue?")
    assert plan.answer == ["Q4 FY24"]
    plan, _ = run(QUARTERS_FY, "What was the gross margin for fiscal 2024?")
    assert plan.operation != "sum"


def test_a_province_abbreviation_that_is_no_initials_is_read_as_the_province() -> None:
    wages = Table(text=[["Occupation", "Canada", "Que.", "Alta.", "Y.T."],
                        ["Trades and transport", "30.00", "29.00", "36.00", "34.50"]])
    plan, _ = run(wages, "What was the median wage in trades and transport in Alberta?")
    assert plan.answer == ["36.00"]
    plan, _ = run(wages, "What was the median wage in trades and transport in Yukon?")
    assert plan.answer == ["34.50"]


def test_a_subtotal_line_is_named_by_its_group() -> None:
    sales = Table(text=[["Region", "Country", "Total"], ["Americas", "United States", "92,800"],
                        ["", "Canada", "12,600"], ["Subtotal Americas", "", "105,400"],
                        ["Europe", "Germany", "21,600"], ["", "France", "15,500"],
                        ["Subtotal Europe", "", "37,100"], ["Grand total", "", "142,500"]],
                  merges=[(1, 0, 2, 0), (4, 0, 5, 0), (3, 0, 3, 1), (6, 0, 6, 1), (7, 0, 7, 1)])
    plan, _ = run(sales, "What were total sales in Europe?")
    assert plan.answer == ["37,100"]
    plan, _ = run(sales, "What percentage of grand total sales came from the Americas?")
    assert (plan.operation, plan.answer) == ("percent_of", ["74.0%"])


def test_an_and_inside_a_quoted_label_lists_nothing_to_sum() -> None:
    enrolment = Table(text=[["Field of study", "Full-time", "Part-time", "Total"],
                            ["Health and related fields", "181,000", "51,200", "232,200"],
                            ["Engineering", "115,100", "12,900", "128,000"],
                            ["Total, all fields", "547,500", "167,100", "714,600"]])
    plan, _ = run(enrolment, "What was total enrolment in health and related fields?")
    assert (plan.operation, plan.answer) == ("lookup", ["232,200"])
    plan, _ = run(enrolment,
                  "What was full-time enrolment in health and related fields and engineering combined?")
    assert (plan.operation, plan.answer) == ("sum", ["296,100"])


CPI_CHANGES = Table(text=[
    ["", "Nov. 2024", "Dec. 2024", "% change", ""],
    ["", "", "", "Nov. 2024 to Dec. 2024", "Dec. 2023 to Dec. 2024"],
    ["Canada", "161.8", "161.2", "-0.4", "1.8"],
    ["Quebec", "158.2", "157.9", "-0.2", "2.0"],
    ["Ontario", "160.6", "160.0", "-0.4", "1.7"],
    ["Alberta", "173.1", "172.4", "-0.4", "2.1"],
    ["Manitoba", "159.0", "158.5", "-0.3", "0.9"],
], merges=[(0, 3, 0, 4), (0, 1, 1, 1), (0, 2, 1, 2)])


def test_a_change_column_is_named_by_the_span_the_question_says() -> None:
    """`12-month`, `year-over-year`, `annual` name `Dec. 2023 to Dec. 2024`; `monthly` the month's."""
    assert month_span("Dec. 2023 to Dec. 2024") == 12 and month_span("Nov. 2024 to Dec. 2024") == 1
    plan, _ = run(CPI_CHANGES, "What was the 12-month change in the CPI for Canada in December 2024?")
    assert plan.answer == ["1.8"]
    plan, _ = run(CPI_CHANGES, "What was the monthly change in the CPI for Quebec in December 2024?")
    assert plan.answer == ["-0.2"]
    plan, _ = run(CPI_CHANGES, "Which province had the largest year-over-year increase in prices?")
    assert plan.answer == ["Alberta"]


def test_a_count_of_provinces_leaves_the_country_out() -> None:
    plan, _ = run(CPI_CHANGES, "How many provinces had annual inflation above 1.5 percent?")
    assert (plan.operation, plan.answer) == ("count", ["3"])


def test_a_ratio_the_cells_own_label_names_asks_no_division() -> None:
    table = Table(text=[["", "Q1 2024", "Q2 2024"], ["Net income", "980", "1,040"],
                        ["Common Equity Tier 1 ratio (%)", "12.9", "13.1"]])
    plan, _ = run(table, "What was the Common Equity Tier 1 ratio in Q2 2024?")
    assert (plan.operation, plan.answer) == ("lookup", ["13.1"])
    plan, _ = run(table, "What was the ratio of net income in Q2 2024 to that in Q1 2024?")
    assert plan.operation == "ratio"


def test_a_total_line_among_the_periods_is_the_years_total() -> None:
    """Quarters beside their own `Total` (and a line that is no quarter): `total … in 2023` reads
    the total line, not the sum of the quarters."""
    programs = Table(text=[["", "Units", "Cost"], ["First quarter 2023 program", "120", "900"],
                           ["Second quarter 2023 program", "95", "700"],
                           ["Third quarter 2023 program", "110", "800"],
                           ["Fourth quarter 2023 program", "100", "750"], ["Other purchases", "15", "100"],
                           ["Total", "440", "3,250"]])
    plan, _ = run(programs, "What was the total number of units purchased in 2023?")
    assert (plan.operation, plan.answer) == ("lookup", ["440"])


TEACHERS = Table(text=[
    ["", "", "2021/2022", "", "2022/2023", ""],
    ["Rank", "Sex", "number", "median salary ($)", "number", "median salary ($)"],
    ["Full professor", "Men", "11,420", "168,250", "11,380", "172,400"],
    ["", "Women", "5,630", "163,900", "5,910", "168,100"],
    ["Assistant professor", "Men", "4,380", "112,400", "4,420", "115,300"],
    ["", "Women", "4,510", "110,900", "4,690", "113,800"],
    ["All ranks", "Both sexes", "25,940", "...", "26,400", "..."],
], title="Full-time university teachers by rank and sex, 2021/2022 and 2022/2023")


def test_a_change_between_two_academic_years_heading_groups() -> None:
    assert period_end("2021/2022") == "2022" and period_end("2015-16") == "2016"
    assert period_end("2015-2020") is None
    plan, _ = run(TEACHERS, "By how much did the median salary of female assistant professors increase "
                            "from 2021/2022 to 2022/2023?")
    assert (plan.operation, plan.answer) == ("diff", ["2,900"])


def test_a_question_naming_only_the_titles_subject_asks_the_whole_table() -> None:
    plan, _ = run(TEACHERS, "How many full-time university teachers were there in 2022/2023?")
    assert plan.answer == ["26,400"]
    labels = [row[0] for row in TEACHERS.text] + TEACHERS.text[1]
    assert whole_table_words("how many full-time university teachers were there in 2022/2023?",
                             TEACHERS.title or "", labels) == {"full", "time", "universiti", "teacher"}
    assert not whole_table_words("how many cases were completed in adult criminal court?",
                                 "Charges and cases completed in adult criminal court", ["Total cases"])


def test_a_share_reads_the_part_the_question_names_whole() -> None:
    """`current assets` is the `Current assets` section (its own total line is no longer label that
    hides it), not `Intangible assets`, whose `assets` the question says in `total assets`."""
    sheet = Table(text=[
        ["", "31 Dec 2023"], ["Non-current assets", ""], ["Property, plant and equipment", "8,420"],
        ["Intangible assets", "3,310"], ["Total non-current assets", "11,730"], ["Current assets", ""],
        ["Inventories", "2,140"], ["Cash and cash equivalents", "1,260"], ["Total current assets", "3,400"],
        ["Total assets", "15,130"],
    ])
    plan, _ = run(sheet, "What percentage of total assets were current assets at the end of 2023?")
    assert (plan.operation, plan.answer) == ("percent_of", ["22.5%"])


def test_a_bound_of_a_confidence_interval_is_its_first_or_second_line() -> None:
    """`upper bound` names `to` under `95% confidence interval`, `lower bound` names `from`."""
    prevalence = Table(text=[
        ["age group", "males", "", "", "females", "", ""],
        ["", "percent", "95% confidence interval", "", "percent", "95% confidence interval", ""],
        ["", "", "from", "to", "", "from", "to"],
        ["35 to 49", "5.6", "4.8", "6.5", "4.1", "3.4", "4.9"],
        ["50 to 64", "13.4", "12.3", "14.6", "9.8", "8.9", "10.8"],
    ], merges=[(0, 1, 0, 3), (0, 4, 0, 6), (1, 2, 1, 3), (1, 5, 1, 6)])
    plan, _ = run(prevalence, "What was the upper bound of the 95% confidence interval for males aged 35 "
                              "to 49?")
    assert plan.answer == ["6.5"]
    plan, _ = run(prevalence, "What was the lower limit of the confidence interval for females aged 50 "
                              "to 64?")
    assert plan.answer == ["8.9"]


INSURANCE_SEGMENTS = Table(text=[
    ["", "personal lines", "", "commercial lines", ""],
    ["", "2023", "2022", "2023", "2022"],
    ["Gross premiums written", "8,420", "7,960", "11,250", "10,480"],
    ["Combined ratio", "97.0", "99.5", "92.5", "94.4"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)], title="Segment results\n(US$ millions, except ratios)")


def test_a_total_no_group_shows_is_the_sum_over_every_group() -> None:
    """`total gross premiums written in 2023` with no total column: 2023 of every segment; a ratio is
    never summed, and a segment the question names is looked up."""
    plan, _ = run(INSURANCE_SEGMENTS, "What were total gross premiums written in 2023?")
    assert (plan.operation, plan.answer) == ("sum", ["19,670"])
    plan, _ = run(INSURANCE_SEGMENTS, "What was the total combined ratio in 2023?")
    assert plan.operation != "sum"
    plan, _ = run(INSURANCE_SEGMENTS, "What were total gross premiums written in commercial lines in 2023?")
    assert plan.answer == ["11,250"]
    assert without_exemptions("(US$ millions, except ratios)") == "(us$ millions)"


MEDIAN_INCOME = Table(text=[
    ["", "2018", "2021", "2022", "% change 2021 to 2022"],
    ["", "2022 constant dollars", "2022 constant dollars", "2022 constant dollars", "percent"],
    ["Economic families, two persons or more", "", "", "", ""],
    ["  Senior families", "71,800", "76,100", "75,200", "-1.2"],
    ["Persons not in an economic family", "33,200", "35,900", "35,300", "-1.7"],
])


def test_the_year_of_a_price_base_is_no_period() -> None:
    """`2022 constant dollars` under each year names no year: the change from 2018 to 2022 is
    computed from the two years' lines, not read from the `% change 2021 to 2022` column; the open
    class `two persons or more` asks no comparison."""
    assert price_base("2022 constant dollars") and not price_base("2022")
    plan, _ = run(MEDIAN_INCOME, "What was the percent change in median income for persons not in an "
                                 "economic family between 2018 and 2022?")
    assert (plan.operation, plan.answer) == ("growth", ["6.3%"])
    plan, _ = run(MEDIAN_INCOME, "By how many dollars did the median income of senior families change "
                                 "from 2018 to 2022?")
    assert (plan.operation, plan.answer) == ("diff", ["3,400"])
    plan, _ = run(MEDIAN_INCOME, "What was the median income of senior families in 2022?")
    assert plan.answer == ["75,200"]


SURVEY_RESPONSES = Table(text=[
    ["Question", "Strongly agree", "Agree", "Neutral", "Disagree", "Strongly disagree"],
    ["I was served promptly", "31%", "38%", "17%", "10%", "4%"],
    ["Prices were good value for money", "18%", "29%", "26%", "17%", "10%"],
])


def test_alternatives_end_where_their_clause_begins() -> None:
    """`agreed or strongly agreed that prices were …`: the second alternative ends before `that`."""
    assert ops.pair_options("What percentage agreed or strongly agreed that prices were good value "
                            "for money?") == ("percentage agreed", "strongly agreed")
    plan, _ = run(SURVEY_RESPONSES, "What percentage agreed or strongly agreed that prices were good value "
                                    "for money?")
    assert (plan.operation, plan.answer) == ("sum", ["47%"])


def test_an_aside_excluding_a_word_names_no_label_by_it() -> None:
    """`Disagree (not strongly)` is not `Strongly disagree`; `(excluding Quebec)` quotes a label."""
    plan, _ = run(SURVEY_RESPONSES, "What percentage answered Disagree (not strongly) to 'I was served "
                                    "promptly'?")
    assert plan.answer == ["10%"]
    rates = Table(text=[["", "2022", "2023"], ["Canada", "5.3", "5.4"],
                        ["Canada (excluding Quebec)", "5.6", "5.8"], ["Quebec", "4.3", "4.5"]])
    plan, _ = run(rates, "What was the unemployment rate in Canada (excluding Quebec) in 2023?")
    assert plan.answer == ["5.8"]


def test_what_rate_was_asks_a_figure_not_a_name() -> None:
    assert ops.asks_label("What country had the highest rate?")
    assert not ops.asks_label("What rate was paid on time deposits in 2023?")


PROPERTIES = Table(text=[
    ["Property", "Market", "Year acquired", "Percent leased", ""],
    ["", "", "", "Dec. 31, 2023", "Dec. 31, 2022"],
    ["Riverside Commons", "Dallas, TX", "2016", "97.1%", "99.2%"],
    ["Gulf Coast Distribution Center", "Houston, TX", "2015", "88.7%", "93.0%"],
    ["Saguaro Industrial Campus", "Phoenix, AZ", "2019", "91.5%", "87.8%"],
    ["Meadowlands Logistics Hub", "Secaucus, NJ", "2022", "99.6%", "98.9%"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 1, 2), (0, 3, 0, 4)])


def test_a_ranking_answers_the_label_under_the_asked_noun() -> None:
    """Row labels side by side (`Property | Market | Year acquired`): `which property` answers the
    property, not the year it was acquired."""
    plan, _ = run(PROPERTIES, "Which property had the lowest percent leased at December 31, 2023?")
    assert plan.answer == ["Gulf Coast Distribution Center"]
    plan, _ = run(PROPERTIES, "Which market had the highest percent leased at December 31, 2023?")
    assert plan.answer == ["Secaucus, NJ"]


def test_the_years_a_column_axis_heads_name_no_row_label() -> None:
    """`from 2022 to 2023` are the columns' periods: the `2022` a property was acquired in does not
    name its row."""
    question = ("By how many percentage points did the percent leased of Saguaro Industrial Campus change "
                "from 2022 to 2023?")
    plan, graph = run(PROPERTIES, question)
    assert (plan.operation, plan.answer) == ("diff", ["3.7%"])
    g = Grounder(question, graph, infer_headers(graph), None)
    assert not g.matched(graph.node_at(5, 2))  # acquired in 2022
    assert g.matched(graph.node_at(1, 4))  # Dec. 31, 2022


STANDINGS = Table(text=[
    ["Pos", "Team", "P", "W", "D", "L", "GF", "GA", "Pts"],
    ["1", "Riverside United", "22", "16", "3", "3", "48", "18", "51"],
    ["2", "Northgate Rovers", "22", "14", "3", "5", "35", "12", "45"],
    ["3", "Oakwood Wanderers", "22", "9", "6", "7", "30", "27", "33"],
    ["4", "Valley Rangers", "22", "4", "8", "10", "21", "33", "20"],
])


def test_the_letters_heading_a_standings_table_name_its_columns() -> None:
    plan, _ = run(STANDINGS, "How many games did Oakwood Wanderers win?")
    assert plan.answer == ["9"]
    plan, _ = run(STANDINGS, "Which team conceded the fewest goals?")
    assert plan.answer == ["Northgate Rovers"]
    plan, _ = run(STANDINGS, "Which team lost the most games?")
    assert plan.answer == ["Valley Rangers"]


EMPLOYMENT = Table(text=[
    ["Country", "2021", "2022"],
    ["Canada", "73.2", "75.0"],
    ["Japan", "77.9", "78.4"],
    ["OECD average", "67.9", "69.7"],
])


def test_a_gap_in_points_is_worded_above_below_or_exceeded() -> None:
    plan, _ = run(EMPLOYMENT, "How many percentage points was Canada above the OECD average in 2022?")
    assert (plan.operation, plan.answer) == ("diff", ["5.3"])
    plan, _ = run(EMPLOYMENT, "By how many percentage points did Japan's employment rate exceed the OECD "
                              "average in 2021?")
    assert (plan.operation, plan.answer) == ("diff", ["10.0"])
    plan, _ = run(EMPLOYMENT, "How many percentage points was the OECD average below Canada in 2022?")
    assert (plan.operation, plan.answer) == ("diff", ["5.3"])


def test_an_average_per_member_the_question_names_is_computed() -> None:
    """`the average budget per department` over rows under `Department` is their mean (the `Total`
    line left out); `average income` over groups stays a statistic to read."""
    budget = Table(text=[["Department", "Budget", "Actual"], ["Marketing", "250,000", "262,400"],
                         ["Sales", "420,000", "407,300"], ["IT", "365,000", "402,300"],
                         ["Total", "1,035,000", "1,072,000"]])
    plan, _ = run(budget, "What is the average budget per department?")
    assert (plan.operation, plan.answer) == ("average", ["345,000"])
    plan, _ = run(budget, "What was the average actual spending across all departments?")
    assert (plan.operation, plan.answer) == ("average", ["357,333.3"])


def test_how_many_members_a_named_section_holds() -> None:
    """`how many properties are in the Northeast region`: the properties under that section, its
    total line left out; a table measuring the noun (`Number of properties`) is looked up instead."""
    portfolio = Table(text=[
        ["Property", "Square feet"], ["Sun Belt Region", ""], ["  Riverside Commons", "412"],
        ["  Gulf Coast Distribution Center", "655"], ["  Total Sun Belt", "1,067"], ["Northeast Region", ""],
        ["  Lakeshore Distribution Center", "702"], ["  Meadowlands Logistics Hub", "388"],
        ["  Lehigh Valley Gateway", "1,086"], ["  Total Northeast", "2,176"],
    ])
    plan, _ = run(portfolio, "How many properties are in the Northeast region?")
    assert (plan.operation, plan.answer) == ("count", ["3"])
    counts = Table(text=[["Region", "Number of properties"], ["Sun Belt", "4"], ["Northeast", "3"]])
    plan, _ = run(counts, "How many properties are in the Northeast region?")
    assert plan.answer == ["3"] and plan.operation == "lookup"


EDUCATION = Table(text=[
    ["", "Total", "No certificate, diploma or degree", "High school diploma", "Bachelor's degree or higher"],
    ["", "percent", "percent", "percent", "percent"],
    ["Men", "", "", "", ""],
    ["25 to 64 years", "100.0", "12.0", "30.1", "28.3"],
    ["25 to 34 years", "100.0", "9.9", "29.0", "35.0"],
    ["35 to 44 years", "100.0", "9.5", "26.2", "32.4"],
    ["45 to 54 years", "100.0", "11.6", "31.9", "25.1"],
    ["55 to 64 years", "100.0", "16.9", "33.0", "19.2"],
])


def test_a_ranking_of_classes_leaves_out_their_whole_and_a_constant_line() -> None:
    """`25 to 64 years` holds the other age groups: it is no member; the `Total` column of 100 % ranks
    nothing; the `or` of `Bachelor's degree or higher` is a label's, no choice."""
    assert whole_classes([(1, "25 to 44 years"), (2, "25 to 34 years"), (3, "35 to 44 years")]) == {1}
    assert not whole_classes([(1, "less than $40,000"), (2, "20 to 39"), (3, "40 to 59")])
    plan, _ = run(EDUCATION, "Which age group of men had the highest share with no certificate, diploma or "
                             "degree?")
    assert plan.answer == ["55 to 64 years"]
    plan, _ = run(EDUCATION, "Which age group of men had the lowest share with a bachelor's degree or "
                             "higher?")
    assert plan.answer == ["55 to 64 years"]


FISCAL_QUARTERS = Table(text=[
    ["", "Fiscal 2023", "", "", "", "Fiscal 2022", "", "", ""],
    ["", "First Quarter", "Second Quarter", "Third Quarter", "Fourth Quarter",
     "First Quarter", "Second Quarter", "Third Quarter", "Fourth Quarter"],
    ["Net sales", "402,110", "451,870", "476,930", "537,450", "391,470", "428,030", "437,950", "494,420"],
    ["Net income (loss)", "21,540", "36,810", "38,870", "48,940", "18,120", "33,240", "35,330", "(21,360)"],
], merges=[(0, 1, 0, 4), (0, 5, 0, 8)])


def test_a_years_total_sums_the_quarters_under_that_year() -> None:
    """`total net income for fiscal 2022` sums the quarters under `Fiscal 2022`, each asked with its
    year; `how many quarters … had a net loss` sums nothing."""
    plan = solve("What was total net income for fiscal 2022?", CellGraph(FISCAL_QUARTERS),
                 infer_headers(CellGraph(FISCAL_QUARTERS)), None)
    assert (plan.operation, plan.answer) == ("sum", ["65,330"]) and plan.confidence > 0.5
    plan, _ = run(FISCAL_QUARTERS, "How many quarters of fiscal 2022 had a net loss?")
    assert plan.operation != "sum"


PROJECTS = Table(text=[
    ["Project ID", "Project", "Owner", "Status", "Budget", "% Complete"],
    ["PRJ-101", "CRM migration", "Priya Shah", "In progress", "$185,000", "55%"],
    ["PRJ-102", "Website redesign", "Tom Becker", "Complete", "$72,000", "100%"],
    ["PRJ-103", "Data warehouse", "Priya Shah", "In progress", "$310,000", "40%"],
    ["PRJ-105", "Payroll upgrade", "Marcus Lee", "Complete", "$41,500", "100%"],
])


def test_a_list_of_records_answers_its_text_columns() -> None:
    """A project tracker: `who owns` reads the `Owner` column of the row named, `which project` answers
    under `Project` (not `Project ID`), `how many projects are complete` counts the rows whose
    `Status` says so and `the total budget of the projects that are in progress` sums theirs; the
    `complete` of `average % complete` names the column, no status."""
    plan, _ = run(PROJECTS, "Who owns the CRM migration project?")
    assert plan.answer == ["Priya Shah"]
    plan, _ = run(PROJECTS, "Which project has the largest budget?")
    assert plan.answer == ["Data warehouse"]
    plan, graph = run(PROJECTS, "How many projects are complete?")
    assert (plan.operation, plan.answer) == ("count", ["2"])
    assert [graph.node(i).text for i in plan.answer_nodes] == ["Website redesign", "Payroll upgrade"]
    plan, _ = run(PROJECTS, "What is the total budget of the projects that are in progress?")
    assert (plan.operation, plan.answer) == ("sum", ["$495,000"])
    plan, _ = run(PROJECTS, "What is the average % complete across all projects?")
    assert plan.operation == "average" and plan.computed is not None and plan.computed.value == 0.7375


def test_all_of_a_category_sums_the_rows_showing_it() -> None:
    """`the value of all Tools stock` sums the rows whose `Category` says `Tools`; labels repeated
    under different sections or a run followed by its own total line are no category."""
    stock = Table(text=[
        ["SKU", "Item", "Category", "Qty on hand", "Extended value"],
        ["HW-1001", "Hex bolt M8 x 40", "Fasteners", "4,800", "$432.00"],
        ["TL-4001", "Cordless drill 18V", "Tools", "24", "$2,136.00"],
        ["HW-1003", "Wall plug 8mm", "Fasteners", "6,150", "$492.00"],
        ["TL-4002", "Claw hammer 16oz", "Tools", "41", "$512.50"],
        ["Total", "", "", "11,015", "$3,572.50"],
    ])
    plan, _ = run(stock, "What is the value of all Tools stock?")
    assert (plan.operation, plan.answer) == ("sum", ["$2,648.50"])
    plan, _ = run(stock, "What is the total quantity on hand of Fasteners?")
    assert (plan.operation, plan.answer) == ("sum", ["10,950"])
    plan, _ = run(stock, "What is the extended value of the claw hammer?")
    assert plan.answer == ["$512.50"]


def test_a_category_with_another_row_named_is_no_sum_over_the_category() -> None:
    """`Q1 total sales of Widgets in the North` reads North's Widgets line, not every region's."""
    sales = Table(text=[
        ["Region", "Product", "Q1 Total"], ["North", "Widgets", "38,170"], ["", "Gadgets", "44,210"],
        ["South", "Widgets", "36,020"], ["", "Gadgets", "29,870"], ["Total", "", "148,270"],
    ], merges=[(1, 0, 2, 0), (3, 0, 4, 0)])
    plan, _ = run(sales, "What were Q1 total sales of Widgets in the North?")
    assert plan.answer == ["38,170"]


def test_which_asked_of_a_column_reads_the_rows_cell_there() -> None:
    """`Which note discloses inventories?`: the asked noun heads a column (`Notes`) holding the row's
    reference, so the answer is that cell, not a label of the row (its section `Current assets`)."""
    table = Table(text=[["", "Notes", "31 Dec 2023", "31 Dec 2022"], ["Current assets", "", "", ""],
                        ["  Inventories", "16", "118,540", "126,930"],
                        ["  Trade and other receivables", "17", "142,370", "131,060"]])
    plan, g = run(table, "Which note discloses inventories?")
    assert plan.answer == ["16"] and cells(g, plan.answer_nodes) == [(2, 1)]


def test_a_class_told_apart_by_its_number_is_not_named_by_its_noun_alone() -> None:
    """`how many housing units … in the West` names the count's noun, not the `1 unit` class under
    `West`: the region's total is read; a question saying the number reads the class."""
    table = Table(text=[["", "West", "", "South", ""], ["", "Total", "1 unit", "Total", "1 unit"],
                        ["2018", "325.5", "211.5", "640.6", "466.1"],
                        ["2019", "338.3", "214.3", "676.4", "487.0"]],
                  merges=[(0, 1, 0, 2), (0, 3, 0, 4)])
    for question, answer in (("How many housing units were started in the West in 2018?", "325.5"),
                             ("How many housing units in 1 unit structures were started in the West in 2018?",
                              "211.5")):
        assert run(table, question)[0].answer == [answer]


def test_x_as_a_percentage_of_y_needs_no_total_line() -> None:
    """Both operands are named: the whole is the line named after `as a percentage of`."""
    table = Table(text=[["", "2024", "2023"], ["Net income", "91,200", "84,300"],
                        ["Depreciation and amortization", "38,450", "35,100"],
                        ["Net cash provided by operating activities", "136,060", "121,900"]])
    plan, _ = run(table, "What was depreciation and amortization as a percentage of net cash provided by "
                         "operating activities in 2024?")
    assert (plan.operation, plan.answer) == ("percent_of", ["28.3%"])


ROLL_FORWARD = Table(text=[
    ["", "Retained Earnings", "Accumulated Other Comprehensive Income (Loss)", "Total"],
    ["Balance at December 31, 2022", "2,420,180", "(41,220)", "2,870,400"],
    ["  Net income", "318,450", "", "318,450"],
    ["  Other comprehensive income (loss), net of tax", "", "5,860", "5,860"],
    ["Balance at December 31, 2023", "2,620,745", "(35,360)", "3,253,309"],
    ["  Net income", "352,190", "", "352,190"],
    ["  Other comprehensive income (loss), net of tax", "", "(21,460)", "(21,460)"],
    ["Balance at December 31, 2024", "2,901,420", "(56,820)", "3,372,271"],
])


@pytest.mark.parametrize(("question", "answer"), [
    ("What was net income in 2023?", "318,450"),
    ("What was net income in 2024?", "352,190"),
    ("What was accumulated other comprehensive income (loss) at December 31, 2023?", "(35,360)"),
])
def test_a_roll_forwards_movements_are_of_the_year_their_closing_balance_ends(question: str,
                                                                               answer: str) -> None:
    """Between the balances at December 31, 2022 and 2023 lie 2023's movements (not the 2022
    balance's parts); a balance asked at a date is that balance line."""
    plan, _ = run(ROLL_FORWARD, question)
    assert plan.answer == [answer]


def test_what_a_label_says_is_excluded_from_does_not_name_it() -> None:
    """`Anti-dilutive securities excluded from diluted EPS` counts securities: `diluted EPS` is the
    `Diluted` line under `Net income per share`."""
    table = Table(text=[["", "2024", "2023"], ["Net income per share:", "", ""],
                        ["  Basic", "$3.49", "$3.06"], ["  Diluted", "$3.43", "$3.01"],
                        ["Anti-dilutive securities excluded from diluted EPS", "1.8", "3.4"]])
    plan, g = run(table, "What was diluted EPS in 2024?")
    assert plan.answer == ["$3.43"] and cells(g, plan.answer_nodes) == [(3, 1)]


def test_a_share_is_computed_when_the_percent_line_is_a_rate_of_another_measure() -> None:
    """`share of Canada's employment … in British Columbia`: the `Unemployment rate > Percent` column
    names nothing the question asks but the year and percent, beside `Employment`: the share is
    British Columbia's employment over Canada's, read on the counts."""
    table = Table(text=[["", "2023", "", ""], ["", "Labour force", "Employment", "Unemployment rate"],
                        ["", "Persons in thousands", "Persons in thousands", "Percent"],
                        ["Canada", "21,390.6", "20,172.2", "5.7"], ["Ontario", "8,453.0", "7,907.9", "6.4"],
                        ["British Columbia", "2,946.9", "2,790.7", "5.3"]],
                  merges=[(0, 1, 0, 3)])
    plan, _ = run(table, "What share of Canada's employment in 2023 was in British Columbia, in percent?")
    assert (plan.operation, plan.answer) == ("percent_of", ["13.8%"])


def test_what_was_names_no_noun_of_the_row_labels() -> None:
    """`What was Grade 3 enrolment …` asks the figure; `was grade` is no noun naming the `Grade`
    column of labels (its section `Elementary (K-5)` is no answer)."""
    table = Table(text=[["Grade", "2021-22", "2022-23"], ["Elementary (K-5)", "", ""],
                        ["   Grade 2", "987", "1,012"], ["   Grade 3", "1,020", "1,003"],
                        ["Middle (6-8)", "", ""], ["   Grade 6", "1,101", "1,088"]])
    plan, _ = run(table, "What was Grade 3 enrolment in 2022-23?")
    assert plan.answer == ["1,003"]


def test_a_rows_own_name_column_is_no_section_of_the_asked_noun() -> None:
    """`which ward`: `Ward 2 - General Surgery` names its own row (beside its specialty), so the
    wards not labelled `Ward …` (`Paediatrics`) are ranked too."""
    table = Table(text=[["Ward", "Specialty", "Jan", "Feb"],
                        ["Ward 1 - General Medicine", "Medicine", "88.0", "82.9"],
                        ["Ward 2 - General Surgery", "Surgery", "86.1", "90.3"],
                        ["Intensive Care Unit", "Critical Care", "78.5", "81.0"],
                        ["Paediatrics", "Children's", "92.4", "96.3"],
                        ["Hospital total", "", "86.0", "87.9"]])
    plan, _ = run(table, "Which ward had the highest occupancy in February?")
    assert plan.answer == ["Paediatrics"]


def test_a_ranking_answers_a_rows_name_not_its_code() -> None:
    """Side-by-side row labels `SKU | Description`: `which item` answers the description (the asked
    noun heads neither column); `which SKU` the code."""
    table = Table(text=[["SKU", "Description", "Stock Value ($)"], ["W-1001", "Hex bolt M8 x 40", "96.00"],
                        ["W-1024", "Twin & earth cable 2.5mm (100m)", "1,240.00"],
                        ["W-1031", "Electrical tape 19mm", "54.60"]])
    for question, answer in (("Which item has the highest stock value?", "Twin & earth cable 2.5mm (100m)"),
                             ("Which SKU has the highest stock value?", "W-1024")):
        assert run(table, question)[0].answer == [answer]


def test_a_change_between_two_dated_balances_is_the_later_less_the_earlier() -> None:
    """`change during 2024` between `At 1 January 2024` and `At 31 December 2024`: closing less
    opening, whichever the question or the table names first."""
    table = Table(text=[["", "Land", "Machinery and equipment"], ["Net book value", "", ""],
                        ["  At 1 January 2024", "412.0", "1,885.3"],
                        ["  At 31 December 2024", "418.5", "2,108.3"]])
    plan, _ = run(table, "How much did the net book value of machinery and equipment change during 2024?")
    assert (plan.operation, plan.answer) == ("diff", ["223.0"])


def test_a_percent_line_is_looked_up_when_only_another_groups_line_names_the_question() -> None:
    """`aged 45 and over` names `median age`, a line of another group than `distribution >
    percentage`: the percentage shown is the one asked, no share to compute."""
    table = Table(text=[["", "distribution", "", "median age"], ["", "number", "percentage", "years"],
                        ["total grandparents in shared homes", "584,350", "100.0", "66.2"],
                        ["in a multigenerational household", "511,685", "87.6", "66.2"],
                        ["in a skip-generation household", "72,665", "12.4", "66.0"]],
                  merges=[(0, 1, 0, 2)])
    plan, _ = run(table, "what percentage of grandparents aged 45 and over in a shared home were in a "
                         "skip-generation household in 2011?")
    assert plan.answer == ["12.4"]
