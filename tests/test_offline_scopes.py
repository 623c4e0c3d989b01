"""What a question scopes an operation to: a range of lines by its ends (`G6 through G10`), every
period said (`across all four quarters`), the rows a category column names (`among the percent-off
promotions`), the months of one year, a section named whole (`Go-to-Market`, not its `Marketing`),
the parts added (not the parent line over them, `plus`), the pace of a turnover (`most slowly`),
figures shown as multiples (`5.11x`), signed figures counted (`a trade surplus`, `a decline`),
labels of initials spelled out (`year to date` for `YTD`), the extreme figure within the years said,
a row named by its own name (not its section's heading nor its code), a measure repeated under each
section, the column a phrase names (`Unit Cost`, not the row's `Unit`; `Dec 2024` for the end of
2024) and unit symbols named by their words (`per ounce` for `$/oz`)."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.shared.numbers import parse_number
from celltrace.shared.table import Table

GRADES = Table(text=[
    ["Grade", "Title", "Minimum", "Midpoint", "Employees"],
    ["Professional (G6–G10)", "", "", "", ""],
    ["  G6", "Analyst", "$62,000", "$75,000", "89"],
    ["  G7", "Engineer I", "$70,000", "$85,000", "112"],
    ["  G8", "Engineer II", "$80,000", "$97,000", "104"],
    ["  G9", "Senior Engineer", "$92,000", "$112,000", "86"],
    ["  G10", "Staff Engineer", "$106,000", "$129,000", "58"],
    ["Executive (G15–G18)", "", "", "", ""],
    ["  G15", "Senior Director", "$170,000", "$208,000", "14"],
    ["  G16", "Vice President", "$195,000", "$238,000", "9"],
    ["  G17", "Senior Vice President", "$225,000", "$275,000", "4"],
    ["  G18", "Executive Vice President", "$230,000", "$280,000", "2"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("How many employees are in the professional grades G6 through G10?", "449"),
    ("What is the average midpoint across the executive grades G15 to G18?", "$250,250"),
])
def test_a_range_of_lines_named_by_its_ends(question: str, answer: str) -> None:
    plan, _ = run(GRADES, question)
    assert plan.operation in ("sum", "average")
    assert plan.answer == [answer]


def test_two_lines_named_with_to_are_no_range_when_a_change_is_asked() -> None:
    plan, _ = run(GRADES, "How much did the midpoint increase from G15 to G18?")
    assert plan.operation != "sum" and plan.answer != ["$1,001,000"]


HIRES = Table(text=[
    ["", "", "Hires 2024", "", "", "", "Exits 2024", "", "", ""],
    ["Department", "Avg headcount", "Q1", "Q2", "Q3", "Q4", "Q1", "Q2", "Q3", "Q4"],
    ["Engineering", "612", "32", "13", "21", "15", "19", "17", "16", "24"],
    ["Sales", "344", "26", "23", "9", "25", "13", "17", "12", "16"],
    ["Marketing", "96", "4", "6", "5", "7", "2", "4", "6", "2"],
], merges=[(0, 2, 0, 5), (0, 6, 0, 9)])


def test_an_amount_over_every_period_said_adds_them_up() -> None:
    plan, _ = run(HIRES, "How many people did Engineering hire across all four quarters of 2024?")
    assert plan.operation == "sum" and plan.answer == ["81"]


PROMOTIONS = Table(text=[
    ["Promotion", "Category", "Mechanic", "Start", "Weeks", "Baseline units", "Lift %"],
    ["BOGO Sunscreen", "Beauty", "Buy one, get one", "Mar 04", "1", "20,922", "105.2%"],
    ["Spring Denim Event", "Apparel", "Percent off", "Mar 11", "2", "7,534", "27.1%"],
    ["Patio Bundle", "Home", "Bundle", "Mar 18", "1", "11,891", "30.7%"],
    ["Grill Accessories Week", "Home", "Percent off", "Apr 15", "3", "11,768", "55.1%"],
    ["Sandal Flash Sale", "Footwear", "Percent off", "Apr 29", "2", "6,933", "77.7%"],
    ["Skincare Loyalty 3x Points", "Beauty", "Points multiplier", "Apr 08", "4", "21,450", "103.6%"],
])  # fmt: skip


def test_a_ranking_among_the_rows_a_category_column_names() -> None:
    plan, _ = run(PROMOTIONS, "Among the percent-off promotions, which had the highest unit lift?")
    assert plan.answer == ["Sandal Flash Sale"]


SUPPORT = Table(text=[
    ["Month", "Tickets opened", "First response (hrs)"],
    ["Nov 2023", "6,181", "5.9"],
    ["Dec 2023", "7,330", "6.1"],
    ["FY2023 total / average", "73,881", "3.9"],
    ["Jan 2024", "6,354", "1.9"],
    ["Feb 2024", "5,291", "2.3"],
    ["Mar 2024", "7,132", "4.3"],
    ["FY2024 total / average", "18,777", "2.8"],
])  # fmt: skip


def test_a_ranking_of_months_within_the_year_asked() -> None:
    plan, _ = run(SUPPORT, "Which month of 2024 had the slowest first response time?")
    assert plan.answer == ["Mar 2024"]


HEADCOUNT = Table(text=[
    ["Division / Department", "IC1", "Total"],
    ["Go-to-Market", "", ""],
    ["    Enterprise Sales", "19", "105"],
    ["    Sales Development", "13", "55"],
    ["    Marketing", "4", "18"],
    ["    Customer Success", "11", "65"],
    ["Total Go-to-Market", "47", "243"],
])  # fmt: skip


def test_a_section_named_whole_is_not_its_line_of_the_same_word() -> None:
    plan, _ = run(HEADCOUNT, "What is total headcount in Go-to-Market?")
    assert plan.answer == ["243"]


PAYMENTS = Table(text=[
    ["Components", "2021", "2022"],
    ["Primary income", "160,321", "204,728"],
    ["  Investment income", "154,995", "198,610"],
    ["    Direct investment", "73,145", "86,440"],
    ["    Portfolio investment", "71,980", "82,055"],
    ["    Other investment", "9,870", "30,115"],
    ["Fixed broadband", "", ""],
    ["    Fiber 1 Gig", "845.9", "1,010.2"],
    ["    Fiber 500", "1,002.3", "921.8"],
    ["    Unlimited Plus", "3,412.6", "3,890.2"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    # the parent line the words also name is no part of the sum
    ("What were combined direct and portfolio investment income payments in 2021?", "145,125"),
    # `plus` adds, though another label holds the word
    ("How many fiber subscribers (Fiber 1 Gig plus Fiber 500) were there in 2022?", "1,932.0"),
])
def test_sums_of_the_parts_named(question: str, answer: str) -> None:
    plan, _ = run(PAYMENTS, question)
    assert plan.operation == "sum" and plan.answer == [answer]


TURNS = Table(text=[
    ["Category", "Inventory turns", ""],
    ["", "FY23", "FY24"],
    ["Apparel", "5.11x", "2.51x"],
    ["Footwear", "5.02x", "4.25x"],
    ["Outdoor gear", "4.61x", "3.21x"],
    ["Total", "5.00x", "4.26x"],
], merges=[(0, 1, 0, 2)])


def test_a_turnover_ranked_by_its_pace_over_multiples() -> None:
    assert parse_number("5.11x") == 5.11 and parse_number("2.5×") == 2.5 and parse_number("x") is None
    plan, _ = run(TURNS, "Which category turned its inventory most slowly in FY23?")
    assert plan.answer == ["Outdoor gear"]


GDP = Table(text=[
    ["Industry (NAICS)", "Levels", "", "Percent change"],
    ["", "October 2024", "November 2024", "October to November 2024"],
    ["All industries", "2,186,894", "2,189,512", "0.1"],
    ["  Agriculture, forestry, fishing and hunting", "38,410", "38,065", "-0.9"],
    ["  Utilities", "45,120", "45,345", "0.5"],
    ["  Construction", "154,870", "154,405", "-0.3"],
    ["  Information and cultural industries", "67,305", "67,238", "-0.1"],
    ["  Finance and insurance", "161,880", "162,365", "0.3"],
], merges=[(0, 1, 0, 2)])


TRADE = Table(text=[
    ["Partner", "Exports", "Imports", "Trade balance"],
    ["All countries", "768,541", "766,043", "2,498"],
    ["United States", "594,220", "466,310", "127,910"],
    ["China", "28,960", "62,010", "-33,050"],
    ["United Kingdom", "19,870", "9,460", "10,410"],
    ["Japan", "14,150", "11,930", "2,220"],
    ["Mexico", "9,880", "39,450", "-29,570"],
])  # fmt: skip


@pytest.mark.parametrize(("table", "question", "answer"), [
    # one member's label holds the counted noun, which names them all (`Industry (NAICS)`)
    (GDP, "How many industries recorded a decline between October and November 2024?", "3"),
    # `with how many of the individual countries`, `a merchandise trade surplus`: above zero
    (TRADE, "With how many of the individual countries listed did Canada run a merchandise trade surplus?",
     "3"),
])
def test_counts_of_signed_figures(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert plan.operation == "count" and plan.answer == [answer]


HOTELS = Table(text=[
    ["Property", "Jan", "Feb", "YTD", "YoY"],
    ["Harbor", "120.5", "131.2", "125.9", "3.1%"],
    ["Summit", "98.1", "102.4", "100.3", "2.2%"],
    ["Portfolio", "110.2", "118.0", "114.1", "1.0%"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("What was portfolio RevPAR year to date?", "114.1"),
    ("What was the year-over-year change for Summit?", "2.2%"),
])
def test_a_label_of_initials_spelled_out(question: str, answer: str) -> None:
    plan, _ = run(HOTELS, question)
    assert plan.answer == [answer]


FUEL = Table(text=[
    ["Year", "Gallons Consumed (in millions)", "Fuel Expense (in millions)", "Average Price Per Gallon"],
    ["2017", "3,978", "$6,913", "$1.74"],
    ["2016", "3,904", "$5,813", "$1.49"],
    ["2015", "3,886", "$7,522", "$1.94"],
    ["2014", "3,800", "$7,000", "$2.10"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "operation", "answer"), [
    # the cheapest of an average figure over the years said: a ranking, not an average of the years
    ("What was the cheapest average price per gallon between 2015 and 2017?", "min", "$1.49"),
    ("What was the highest fuel expense between 2015 and 2017?", "max", "$7,522"),
    ("What was the average fuel expense between 2015 and 2017?", "average", "$6,749.3"),
])
def test_the_extreme_figure_within_the_years_said(question: str, operation: str, answer: str) -> None:
    plan, _ = run(FUEL, question)
    assert (plan.operation, plan.answer) == (operation, [answer])


STATIONS = Table(text=[
    ["Station number", "Station name", "Jul", "Peak daily flow"],
    ["Atlantic", "", "", ""],
    ["  01AD002", "Saint John River at Fort Kent", "17.8", "1,210"],
    ["  01BJ007", "Restigouche River", "13.8", "880"],
    ["Prairies", "", "", ""],
    ["  05HG001", "South Saskatchewan River at Saskatoon", "23.2", "699"],
    ["  05OC001", "Red River at Emerson", "21.8", "676"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    # a weather superlative ranks; the row's own name answers, not its section's heading nor its
    # code (`05HG001` is no abbreviation of `highest`)
    ("Which station had the warmest July?", "South Saskatchewan River at Saskatoon"),
    ("Which station had the highest peak daily flow?", "Saint John River at Fort Kent"),
])
def test_the_row_named_by_its_name_under_sections(question: str, answer: str) -> None:
    plan, _ = run(STATIONS, question)
    assert plan.answer == [answer]


MINES = Table(text=[
    ["", "Q3 2024", "Q3 2023"],
    ["Lupin Creek", "", ""],
    ["   Ore mined (kt)", "1,450", "1,380"],
    ["   Ore milled (kt)", "1,392", "1,355"],
    ["Harrow Pit", "", ""],
    ["   Ore mined (kt)", "2,310", "2,405"],
    ["   Ore milled (kt)", "2,248", "2,290"],
    ["Mt. Ardent", "", ""],
    ["   Ore mined (kt)", "612", "570"],
    ["   Ore milled (kt)", "598", "561"],
])  # fmt: skip


def test_a_measure_repeated_under_each_section_ranks_the_sections() -> None:
    """`milled` names `Ore milled` (the noun `mine` names the sections, not `Ore mined`); `Mt.` is
    no abbreviation of `most`."""
    plan, _ = run(MINES, "Which mine milled the most ore in Q3 2024?")
    assert plan.answer == ["Harrow Pit"]


COUNT_SHEET = Table(text=[
    ["Category", "SKU", "Description", "Unit", "Qty Counted", "Unit Cost"],
    ["Hand Tools", "HT-5514", "Cordless Drill 20V Kit", "EA", "12", "$83.65"],
    ["Hand Tools", "HT-5520", "Hammer, 16 oz", "EA", "30", "$14.20"],
    ["Plumbing", "PL-2225", "Kitchen Faucet, Single Handle", "EA", "8", "$61.40"],
])  # fmt: skip

FOLLOWERS = Table(text=[
    ["Platform", "Dec 2023", "Jun 2024", "Dec 2024"],
    ["LinkedIn", "84,120", "97,800", "108,260"],
    ["Instagram", "212,400", "230,150", "241,900"],
])  # fmt: skip


@pytest.mark.parametrize(("table", "question", "answer"), [
    # `unit cost` names the column `Unit Cost`: its figure, not the row's `Unit`
    (COUNT_SHEET, "What is the unit cost of the cordless drill kit?", "$83.65"),
    # the end of a year is its December
    (FOLLOWERS, "How many followers did LinkedIn have at the end of 2024?", "108,260"),
])
def test_the_column_a_phrase_names(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert plan.answer == [answer]


AISC = Table(text=[
    ["", "Three months ended June 30", "", "", ""],
    ["", "2024", "", "2023", ""],
    ["", "$000s", "$/oz", "$000s", "$/oz"],
    ["Total cash costs", "227,300", "1,246", "199,840", "1,151"],
    ["Sustaining capital expenditures", "48,600", "266", "41,260", "241"],
    ["All-in sustaining costs", "289,400", "1,586", "253,110", "1,458"],
], merges=[(0, 1, 0, 4), (1, 1, 1, 2), (1, 3, 1, 4)])


def test_a_unit_symbol_is_named_by_its_word() -> None:
    """`per ounce` names the `$/oz` column beside `$000s`."""
    plan, _ = run(AISC, "What was all-in sustaining cost per ounce for the three months ended June 30, 2024?")
    assert plan.answer == ["1,586"]
