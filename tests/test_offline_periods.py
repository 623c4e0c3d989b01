"""Periods read off labels: spans of months, marked months, fiscal years ended, quarters a year
apart, averages over as many periods as the question counts."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.server.engine.api import answer_question
from celltrace.server.offline.grounding import label_year, month_span
from celltrace.shared.flags import footnote_marks, unmarked
from celltrace.shared.table import Table


@pytest.mark.parametrize(("text", "months"), [
    ("Dec. 2023 to Dec. 2024", 12), ("Jun 2024 / Jun 2023", 12), ("Jun 2024 / May 2024", 1),
    ("2023/24", None),
])
def test_month_span(text: str, months: int | None) -> None:
    assert month_span(text) == months


@pytest.mark.parametrize(("text", "year"), [
    ("Year ended December 31, 2023", "2023"), ("Fiscal year ended June 30, 2024", "2024"),
    ("Twelve months ended Dec 31, 2023", "2023"), ("Three months ended March 31, 2024", None),
])
def test_a_year_ended_names_its_year(text: str, year: str | None) -> None:
    assert label_year(text) == year


def test_a_letter_the_notes_define_in_parentheses_is_a_mark() -> None:
    marks = footnote_marks(["(p) provisional", "Source: National Statistics Office."])
    assert marks == {"p"}
    assert unmarked("Jun(p)", marks) == "Jun"
    assert unmarked("2024 (p)", marks) == "2024"
    assert unmarked("Class (E)", marks) == "Class (E)"


CPI = Table(text=[
    ["Group", "Index, 2024", "", "", "Percent change", ""],
    ["", "Jan", "May", "Jun", "Jun 2024 / May 2024", "Jun 2024 / Jun 2023"],
    ["All items", "130.2", "132.3", "132.9", "0.4", "2.6"],
    ["Food", "144.1", "145.7", "146.4", "0.5", "4.8"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 5)])


@pytest.mark.parametrize(("question", "answer"), [
    ("What was the annual percent change in the index for Food in June 2024?", "4.8"),  # 12 months
    ("What was the monthly percent change in the Food index in June 2024?", "0.5"),
    ("What was the percent change in the All items index from January 2024 to June 2024?", "2.1%"),
])
def test_a_change_column_answers_only_the_span_it_gives(question: str, answer: str) -> None:
    assert answer_question(CPI, question, engine="offline").answer == [answer]


SALES = Table(text=[
    ["", "Year ended December 31, 2023", "", "2022"],
    ["", "U.S.", "Total", "Total"],
    ["Oncology", "4,100", "7,200", "6,600"],
    ["Total net product sales", "8,300", "15,071", "13,919"],
], merges=[(0, 1, 0, 2)])


def test_a_years_total_is_dated_by_the_year_above_it() -> None:
    plan, _ = run(SALES, "How much did total net product sales increase from 2022 to 2023?")
    assert (plan.operation, plan.answer) == ("diff", ["1,152"])


MEMBERS = Table(text=[
    ["", "2022", "", "", "", "2023", "", "", ""],
    ["", "Q1", "Q2", "Q3", "Q4", "Q1", "Q2", "Q3", "Q4"],
    ["Paid memberships at end of period", "", "", "", "", "", "", "", ""],
    ["  Latin America", "39,610", "39,620", "41,910", "41,700", "41,250", "42,470", "43,650", "46,000"],
    ["  Asia-Pacific", "37,480", "38,090", "36,330", "38,020", "39,480", "40,550", "41,190", "45,340"],
    ["Average monthly revenue per paying membership", "", "", "", "", "", "", "", ""],
    ["  Latin America", "$8.20", "$8.46", "$8.63", "$8.44", "$8.52", "$8.66", "$8.66", "$8.60"],
], merges=[(0, 1, 0, 4), (0, 5, 0, 8)])


@pytest.mark.parametrize(("question", "operation", "answer"), [
    # `average` asks the operation over the quarters, not the `Average monthly revenue` line
    ("What was Latin America's average paid membership count across the four quarters of 2022?",
     "average", "40,710"),
    # a quarter compares with the same quarter a year before
    ("What was the year-over-year percentage growth in Asia-Pacific paid memberships in Q4 2023?",
     "growth", "19.3%"),
])
def test_quarters(question: str, operation: str, answer: str) -> None:
    plan, _ = run(MEMBERS, question)
    assert (plan.operation, plan.answer) == (operation, [answer])


def test_an_average_over_as_many_periods_as_the_question_counts() -> None:
    """`across the four weekends`: four weekend columns, whatever their labels say."""
    table = Table(text=[
        ["Film", "Weekend gross", "", "", "", "Theaters"],
        ["", "Oct 6–8", "Oct 13–15", "Oct 20–22", "Oct 27–29", ""],
        ["Starfall Protocol", "$42,180", "$18,950", "$10,240", "$5,775", "3,410"],
        ["Gravity's Child", "$8,120", "$6,300", "$4,010", "$2,220", "2,050"],
    ], merges=[(0, 1, 0, 4)])
    plan, _ = run(table, "What was Starfall Protocol's average weekend gross across the four weekends?")
    assert (plan.operation, plan.answer) == ("average", ["$19,286.3"])


GOLD = Table(text=[
    ["Month", "Gold ($/troy oz)", "Silver ($/troy oz)"],
    ["Jan-23", "1,897.8", "23.6"],
    ["Feb-23", "1,855.0", "22.0"],
    ["Mar-23", "1,911.8", "22.4"],
    ["May-23", "1,991.2", "24.1"],
    ["Jun-23", "1,942.9", "23.3"],
    ["2023 annual average", "1,942.7", "23.4"],
])


@pytest.mark.parametrize(("question", "operation", "answer"), [
    # the quarter has no line: the mean of its months, beside an `annual average` line
    ("What was the average gold price in the first quarter of 2023?", "average", "1,888.2"),
    # from May to June: June less May, the months ordered as the question says them
    ("How much did the gold price change from May to June 2023?", "diff", "-48.3"),
])
def test_months(question: str, operation: str, answer: str) -> None:
    plan, _ = run(GOLD, question)
    assert (plan.operation, plan.answer) == (operation, [answer])


def test_a_change_during_a_year_between_its_year_end_balances() -> None:
    table = Table(text=[
        ["", "Number of Options (in thousands)"],
        ["Outstanding at December 31, 2022", "8,462"],
        ["Granted", "1,240"],
        ["Exercised", "(1,905)"],
        ["Forfeited or expired", "(370)"],
        ["Outstanding at December 31, 2023", "7,427"],
    ])
    plan, _ = run(table, "By how many options did the number of options outstanding decrease during 2023?")
    assert (plan.operation, plan.answer) == ("diff", ["1,035"])


def test_an_amount_per_share_adds_up_over_a_years_quarters() -> None:
    table = Table(text=[
        ["", "Fiscal 2023", "", "", ""],
        ["", "First Quarter", "Second Quarter", "Third Quarter", "Fourth Quarter"],
        ["Net sales", "$412,300", "$455,120", "$471,208", "$523,595"],
        ["Cash dividends declared per share", "$0.24", "$0.24", "$0.26", "$0.26"],
    ], merges=[(0, 1, 0, 4)])
    plan, _ = run(table, "What were total cash dividends declared per share in fiscal 2023?")
    assert (plan.operation, plan.answer) == ("sum", ["$1.00"])


DEBT = Table(text=[
    ["", "Mortgage", "Credit Card", "Total"],
    ["22:Q4", "11.92", "0.99", "16.90"],
    ["23:Q1", "12.04", "0.99", "17.05"],
    ["23:Q4", "12.25", "1.13", "17.50"],
    ["24:Q1", "12.44", "1.12", "17.69"],
])


@pytest.mark.parametrize(("question", "answer"), [
    ("What was the credit card balance in the fourth quarter of 2023?", "1.13"),  # `23:Q4`, not `22:Q4`
    ("What was the credit card balance in 2023 Q4?", "1.13"),
    ("How much did total household debt increase from 2023 Q4 to 2024 Q1?", "0.19"),  # not `23:Q1`
])
def test_quarters_written_with_a_two_digit_year(question: str, answer: str) -> None:
    plan, _ = run(DEBT, question)
    assert plan.answer == [answer]


def test_quarters_share_the_one_year_the_question_names() -> None:
    """`in Q2 than in Q1 2023`: Q2 is of 2023 too."""
    table = Table(text=[
        ["Industry", "Q1 2023", "Q2 2023", "Q3 2023"],
        ["Accommodation and food services", "90,690", "101,560", "95,200"],
        ["Retail trade", "70,110", "74,300", "69,800"],
    ])
    question = "How many more vacancies did accommodation and food services have in Q2 than in Q1 2023?"
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("diff", ["10,870"])
