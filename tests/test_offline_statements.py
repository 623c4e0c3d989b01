"""Statement lines as filings word them: money asked of a repurchase table (`Amount paid for
repurchases`, not `Shares repurchased`), outflows ranked and summed by their size (`Purchases of
property and equipment`, cash `returned to shareholders`), a line named by its head (`dividends` for
`Dividends paid`), `A minus B` said after the operands, `by what percent is A higher than B`, a period
named by its length (`the nine months ended`), a fiscal year written with both years, and a weighted
average that is no total."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.shared.table import Table

REPURCHASES = Table(text=[
    ["", "First Quarter", "Second Quarter"],
    ["Shares repurchased", "9.8", "11.6"],
    ["Average price paid per share", "118.42", "126.75"],
    ["Amount paid for repurchases", "1,161", "1,470"],
], title="Share repurchases (shares and dollars in millions)")  # fmt: skip


def test_money_spent_reads_the_amount_paid_not_the_shares() -> None:
    plan, _ = run(REPURCHASES, "How much did the company spend repurchasing shares in the second quarter?")
    assert plan.answer == ["1,470"]


CASH_FLOWS = Table(text=[
    ["", "Year Ended December 31,", "", ""],
    ["", "2024", "2023", "2022"],
    ["Cash flows from investing activities:", "", "", ""],
    ["  Purchases of property, plant and equipment", "(88,412)", "(97,305)", "(71,950)"],
    ["  Acquisitions, net of cash acquired", "(212,540)", "—", "(58,114)"],
    ["Cash flows from financing activities:", "", "", ""],
    ["  Repurchases of common stock", "(120,318)", "(165,204)", "(98,776)"],
    ["  Dividends paid", "(104,126)", "(98,412)", "(91,537)"],
], merges=[(0, 1, 0, 3)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    # an outflow's largest is its most negative figure
    ("In which year were purchases of property, plant and equipment the largest?", "2023"),
    # `dividends` and `share repurchases` name `Dividends paid` and `Repurchases of common stock`;
    # cash returned is the size of the outflow
    ("How much cash in total did the company return to shareholders through dividends and share "
     "repurchases in 2023?", "263,616"),
])
def test_outflows_by_their_size_and_lines_by_their_head(question: str, answer: str) -> None:
    plan, _ = run(CASH_FLOWS, question)
    assert plan.answer == [answer]


REVENUES = Table(text=[
    ["Revenue source", "FY 2023", "FY 2024", "", "FY 2025"],
    ["", "Actual", "Adopted", "Revised", "Adopted"],
    ["Property tax", "148,212", "152,900", "154,350", "161,480"],
    ["Intergovernmental revenue", "27,400", "28,000", "31,800", "30,100"],
    ["Total revenues", "175,612", "180,900", "186,150", "191,580"],
], merges=[(0, 0, 1, 0), (0, 2, 0, 3)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("How much did the FY 2024 revision change intergovernmental revenue relative to the adopted "
     "budget (revised minus adopted)?", "3,800"),
    ("By what percent are total revenues in the FY 2025 adopted budget higher than FY 2023 actuals?", "9.1%"),
])
def test_a_minus_said_after_the_operands_and_a_percent_higher_than(question: str, answer: str) -> None:
    plan, _ = run(REVENUES, question)
    assert plan.answer == [answer]


SHARES = Table(text=[
    ["", "Three Months Ended", "", "Nine Months Ended", ""],
    ["", "October 27, 2024", "October 29, 2023", "October 27, 2024", "October 29, 2023"],
    ["Net income", "1,874", "1,652", "5,318", "4,781"],
    ["Weighted-average shares outstanding — basic", "1,302.4", "1,327.8", "1,309.6", "1,334.1"],
    ["  Stock options", "3.2", "4.1", "3.5", "4.4"],
    ["  Restricted stock units", "8.7", "7.9", "8.3", "7.6"],
    ["  Employee stock purchase plan", "0.6", "0.5", "0.6", "0.4"],
    ["Weighted-average shares outstanding — diluted", "1,314.9", "1,340.3", "1,322.0", "1,346.5"],
    ["Basic", "1.42", "1.23", "4.01", "3.54"],
    ["Diluted", "1.41", "1.22", "3.97", "3.51"],
    ["Anti-dilutive shares excluded", "2.1", "3.6", "2.4", "3.3"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])  # fmt: skip


def test_the_nine_months_ended_names_a_period_not_nine_months_averaged() -> None:
    plan, _ = run(SHARES, "What were basic weighted-average shares outstanding for the nine months ended "
                          "October 29, 2023?")
    assert (plan.operation, plan.answer) == ("lookup", ["1,334.1"])


RATES = Table(text=[
    ["Jurisdiction", "Custody", "", "Total", ""],
    ["", "rate", "percent change in rate from 2017/2018", "rate", "percent change in rate from 2017/2018"],
    ["Manitoba", "201", "-14", "805", "-12"],
    ["Yukon", "206", "10", "1,068", "5"],
    ["Nunavut", "667", "4", "4,051", "10"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 0, 4)])  # fmt: skip


def test_a_fiscal_year_written_with_both_years_is_no_other_span() -> None:
    """`from 2017/2018` is the change to 2018/2019 asked, not a span of other years."""
    plan, _ = run(RATES, "How much did the custody rate increase in Yukon in 2018/2019?")
    assert plan.answer == ["10"]


CPI = Table(text=[
    ["", "Index", "", "Percent change"],
    ["", "October 2023", "October 2024", "October 2023 to October 2024"],
    ["All-items", "158.3", "161.8", "2.2"],
    ["Food purchased from restaurants", "177.9", "185.1", "4.0"],
], merges=[(0, 1, 0, 2)])  # fmt: skip


def test_index_points_are_computed_between_the_levels_not_read_as_a_percent_change() -> None:
    plan, _ = run(CPI, "By how many index points did the restaurant food index rise from October 2023 to "
                       "October 2024?")
    assert plan.answer == ["7.2"]


RESULTS = Table(text=[
    ["", "Three Months Ended", "", "", ""],
    ["", "September 28, 2024", "", "September 30, 2023", ""],
    ["", "Amount", "% of Net Revenue", "Amount", "% of Net Revenue"],
    ["Net revenue", "13,284", "100.0%", "14,158", "100.0%"],
    ["Marketing, general and administrative", "1,496", "11.3%", "1,681", "11.9%"],
], merges=[(0, 1, 0, 4), (1, 1, 1, 2), (1, 3, 1, 4)])  # fmt: skip


def test_a_year_over_year_change_between_dated_columns_of_amounts() -> None:
    plan, _ = run(RESULTS, "What was the year-over-year percentage change in marketing, general and "
                           "administrative expense for the quarter ended September 28, 2024?")
    assert plan.answer == ["-11.0%"]


DEPARTMENTS = Table(text=[
    ["Department", "FY 2024-25", "Budgeted positions (FTE)"],
    ["", "Recommended", "FY 2024-25"],
    ["Sheriff-Coroner", "201,366,450", "1,058.5"],
    ["District Attorney", "51,287,900", "266.0"],
], merges=[(0, 0, 1, 0)])  # fmt: skip


def test_the_operand_named_after_per_divides() -> None:
    plan, _ = run(DEPARTMENTS, "What is the Sheriff-Coroner's FY 2024-25 recommended appropriation per "
                               "budgeted FTE position?")
    assert (plan.operation, plan.answer) == ("ratio", ["190,237.6"])


CORE = Table(text=[
    ["Year", "Month", "All items", "", "All items less food and energy", ""],
    ["", "", "Not seasonally adjusted", "Seasonally adjusted", "Not seasonally adjusted",
     "Seasonally adjusted"],
    ["2023", "July", "305.691", "304.628", "309.780", "309.934"],
    ["", "August", "307.026", "306.187", "310.484", "310.615"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 3), (0, 4, 0, 5), (2, 0, 3, 0)])  # fmt: skip


def test_a_label_quoted_in_parentheses_is_no_subtraction() -> None:
    """`(all items less food and energy)` names a line: no `A less B` is asked."""
    plan, _ = run(CORE, "What was the unadjusted core index (all items less food and energy) in August 2023?")
    assert (plan.operation, plan.answer) == ("lookup", ["310.484"]) and plan.confidence > 0.5  # not an
    # unmet subtraction


QUARTERLY = Table(text=[
    ["", "Fiscal 2024", ""],
    ["", "Q1", "Q2"],
    ["Net revenue", "3,695", "3,842"],
    ["Research and development", "668", "684"],
    ["Selling, general and administrative", "735", "748"],
], merges=[(0, 1, 0, 2)])  # fmt: skip


def test_an_acronym_in_capitals_names_its_line_whole() -> None:
    """`SG&A` names `Selling, general and administrative` as an operand of a share."""
    plan, _ = run(QUARTERLY, "SG&A as a percentage of net revenue in Q1 fiscal 2024?")
    assert (plan.operation, plan.answer) == ("percent_of", ["19.9%"])


EXPORTS = Table(text=[
    ["End-use category", "2024", "", ""],
    ["", "Jul.", "Aug.", "Dec. (p)"],
    ["All commodities", "154.6", "153.0", "153.9"],
    ["Agricultural commodities", "182.3", "178.6", "182.9"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 3)])  # fmt: skip


def test_months_under_the_year_the_question_names_span_a_change() -> None:
    plan, _ = run(EXPORTS, "Percent change in agricultural export prices from July to December 2024?")
    assert (plan.operation, plan.answer) == ("growth", ["0.33%"])
