"""Management reporting packs as finance teams keep them: months beside half-year and full-year
columns, actual beside budget, plan and prior year, year-to-date columns, KPI dashboards whose
sections (`Growth`) are no change lines, and a percentage column that already answers."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.shared.table import Table

SPEND = Table(text=[
    ["Cost centre", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "H1 Actual", "H1 Budget",
     "Over/(under) budget"],
    ["Marketing", "211,450", "246,830", "198,770", "232,410", "287,960", "305,120", "1,482,540", "1,395,000",
     "87,540"],
    ["IT Infrastructure", "176,320", "169,880", "181,450", "174,960", "188,730", "171,240", "1,062,580",
     "1,080,000", "(17,420)"],
    ["Facilities", "96,540", "94,310", "102,875", "99,460", "101,220", "118,630", "613,035", "600,000",
     "13,035"],
    ["Total operating cost centres", "484,310", "511,020", "483,095", "506,830", "577,910", "594,990",
     "3,158,155", "3,075,000", "83,155"],
], title="Cost Centre Spend Report, H1 FY2025")  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("What was Marketing's total spend for Jul through Sep?", "657,050"),
    ("Total Oct–Dec spend across all operating cost centres?", "1,679,730"),
    ("What was IT Infrastructure's average monthly spend over the six months?", "177,096.7"),
])
def test_months_named_as_a_range_or_counted_beside_half_year_columns(question: str, answer: str) -> None:
    """`Jul through Sep` is the months between; `over the six months` the six month columns, not
    `H1 Actual` or `H1 Budget` beside them."""
    plan, _ = run(SPEND, question)
    assert plan.answer == [answer]


def test_members_beyond_their_named_budget_are_counted_on_the_actual_column() -> None:
    """`spent more than their H1 budget`: `H1 Actual` against `H1 Budget` (not the variance column)."""
    plan, _ = run(SPEND, "How many cost centres spent more than their H1 budget?")
    assert (plan.operation, plan.answer) == ("count", ["2"])


FORECAST = Table(text=[
    ["", "Actual", "", "Forecast", "", "", "FY2024 Fcst", "FY2024 Budget", "Fcst vs Budget"],
    ["", "Jan-24", "Feb-24", "Jun-24", "Jul-24", "Dec-24", "", "", "$"],
    ["Marketing programs", "148", "162", "188", "121", "176", "1,992", "2,050", "(58)"],
    ["Operating profit", "473", "425", "471", "503", "616", "6,051", "6,130", "(79)"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 5)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("Average monthly marketing programs spend forecast for July to December 2024?", "148.5"),
    ("How far is the full-year forecast operating profit above or below budget? (forecast minus budget)",
     "-79"),
])
def test_month_ends_beside_full_year_columns_and_the_full_year_forecast(question: str, answer: str) -> None:
    """`Jul–Dec 2024` beside `FY2024 Fcst`: the months between its ends; `the full-year forecast`
    is `FY2024 Fcst`, not the `Forecast` heading over the months, and `Fcst vs Budget` is no
    operand."""
    plan, _ = run(FORECAST, question)
    assert plan.answer == [answer]


PNL = Table(text=[
    ["Line item", "March 2024", "", "", "Year-to-Date (Jan–Mar)", "", ""],
    ["", "Actual", "Fav/(Unfav) $", "Prior Year", "Actual", "Fav/(Unfav) $", "Prior Year"],
    ["Total revenue", "8,435", "(85)", "7,359", "24,452", "(463)", "21,458"],
    ["Gross profit", "4,494", "(60)", "3,901", "12,980", "(240)", "11,240"],
    ["General & administrative", "1,120", "(13)", "1,050", "3,390", "(84)", "3,150"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 3), (0, 4, 0, 6)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("What's the YTD fav/(unfav) dollar variance on G&A?", "(84)"),
    ("What was the gross margin for March 2024 actuals, i.e. gross profit as a percentage of total revenue?",
     "53.3%"),
    ("By what percent did total revenue in March 2024 grow over the prior year month?", "14.6%"),
])
def test_year_to_date_initials_a_month_and_the_prior_years_column(question: str, answer: str) -> None:
    """`YTD` names `Year-to-Date (Jan–Mar)`; its `Mar` is March, no `margin`; a growth over the
    prior year's column is the actual figure against it."""
    plan, _ = run(PNL, question)
    assert plan.answer == [answer]


REVIEW = Table(text=[
    ["", "Q1 (A)", "Q2 (A)", "Q3 (A)", "Q4 (F)", "YTD Q3"],
    ["Net sales", "612.4", "648.9", "671.3", "702.8", "1,932.6"],
    ["Restructuring charges", "0.0", "12.6", "3.4", "1.5", "16.0"],
])  # fmt: skip


def test_initials_among_other_words_are_named_by_the_words_spelled_out() -> None:
    plan, _ = run(REVIEW, "What were restructuring charges year to date through Q3?")
    assert plan.answer == ["16.0"]


KPIS = Table(text=[
    ["KPI", "Unit", "FY2023", "", "FY2024", "", "FY2024 Target"],
    ["", "", "Q1", "Q4", "Q1", "Q4 (p)", ""],
    ["Growth", "", "", "", "", "", ""],
    ["  ARR (end of period)", "$m", "48.6", "59.8", "63.1", "77.5", "78.0"],
    ["  Net revenue retention", "%", "111.2%", "112.1%", "111.7%", "113.1%", "112.0%"],
    ["Efficiency", "", "", "", "", "", ""],
    ["  Gross margin", "%", "74.2%", "75.5%", "75.8%", "76.3%", "76.0%"],
    ["  Net Promoter Score", "score", "38", "43", "44", "49", "45"],
], merges=[(0, 2, 0, 3), (0, 4, 0, 5)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("By how much did ARR increase from Q4 FY2023 to Q4 FY2024, in $m?", "17.7"),
    ("What was year-over-year ARR growth at Q4 2024, in percent?", "29.6%"),
    ("Which FY2024 quarter had the highest gross margin?", "Q4 (p)"),
    ("In how many FY2024 quarters did NPS meet or beat its FY2024 target?", "1"),
])
def test_a_dashboards_sections_are_no_change_lines_and_its_quarters_carry_a_status(
        question: str, answer: str) -> None:
    """`Growth` heads KPIs, it gives no change; `Q4 (p)` is Q4 under FY2024; `which FY2024 quarter`
    asks a quarter; `Gross margin` beside a unit column is a line of its own, not a measure to compute;
    the quarters are counted against the target column beside them."""
    plan, _ = run(KPIS, question)
    assert plan.answer == [answer]


RIDERSHIP = Table(text=[
    ["Mode / line", "FY2022", "FY2023"],
    ["Heavy rail", "", ""],
    ["  Red Line", "103,880", "121,540"],
    ["  Blue Line", "34,105", "39,870"],
    ["  Subtotal, heavy rail", "137,985", "161,410"],
    ["Light rail", "", ""],
    ["  Green Line B branch", "14,360", "16,925"],
    ["  Green Line C branch", "6,870", "8,115"],
    ["  Mattapan Trolley", "1,870", "2,245"],
    ["  Subtotal, light rail", "23,100", "27,285"],
], title="Average Weekday Boardings by Rail Line")  # fmt: skip


def test_an_average_over_each_member_of_a_named_group_leaves_its_subtotal_out() -> None:
    plan, _ = run(RIDERSHIP, "On average, how many weekday boardings did each of the light rail lines have "
                             "in FY2023?")
    assert (plan.operation, plan.answer) == ("average", ["9,095"])


OPEX = Table(text=[
    ["Department / expense category", "YTD Actual", "Full-year Plan", "Remaining FY plan",
     "% of FY plan used"],
    ["Marketing", "", "", "", ""],
    ["  Salaries & benefits", "2,918,440", "3,990,000", "1,071,560", "73.1%"],
    ["  Travel & entertainment", "118,930", "180,000", "61,070", "66.1%"],
    ["  Total Marketing", "3,037,370", "4,170,000", "1,132,630", "72.8%"],
    ["Sales", "", "", "", ""],
    ["  Salaries & benefits", "6,842,310", "9,020,000", "2,177,690", "75.9%"],
    ["  Total Sales", "6,842,310", "9,020,000", "2,177,690", "75.9%"],
    ["Total departmental opex", "9,879,680", "13,190,000", "3,310,320", "74.9%"],
])  # fmt: skip


def test_a_percentage_column_the_question_names_is_read_not_computed() -> None:
    plan, _ = run(OPEX, "What percentage of its full-year plan has the Marketing department used so far?")
    assert plan.answer == ["72.8%"]
