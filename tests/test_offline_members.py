"""Counts and rankings over the members of one side: what the question leaves out (`excluding the
total`, `(not the OECD or EU27 aggregates)`), what the counted noun names (`provinces and
territories`, `months`, `the top 15 institutions`), the line read (not one the counted noun or `how
many` names), quarters written `3Q24`, `busiest`, a change ranked between years that head their
lines, the members' own lines over a breakdown repeated under each, and a group named by an
acronym (`HHS`) or by the members before `which had`."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.shared.table import Table

RATIOS = Table(text=[
    ["", "Q3 2024", "", "", "Q3 2023", "", ""],
    ["", "Commercial", "Personal", "Total", "Commercial", "Personal", "Total"],
    ["Loss ratio", "63.8", "71.9", "65.7", "65.1", "76.4", "67.7"],
    ["Combined ratio", "94.3", "96.5", "94.2", "96.4", "101.7", "97.0"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 6)])  # fmt: skip


def test_a_line_the_question_leaves_out_is_neither_ranked_nor_ranked_on() -> None:
    """`Excluding the total`: the `Total` column is no line to rank the rows on; the segments are
    ranked on `Combined ratio`."""
    plan, _ = run(RATIOS, "Excluding the total, which segment ran the highest combined ratio in Q3 2024?")
    assert plan.answer == ["Personal"]


LINES = Table(text=[
    ["Line of business", "2023", ""],
    ["", "Loss ratio", "Combined ratio"],
    ["Auto", "74.5%", "99.2%"],
    ["Homeowners", "76.8%", "105.2%"],
    ["Umbrella", "56.6%", "88.8%"],
    ["Total personal lines", "74.8%", "100.8%"],
    ["Commercial auto", "77.9%", "108.0%"],
    ["Property", "70.5%", "101.3%"],
    ["Total commercial lines", "65.8%", "96.5%"],
], merges=[(0, 1, 0, 2)])  # fmt: skip


def test_what_a_parenthesis_leaves_out_ends_with_it() -> None:
    """`(not counting subtotals) ran a combined ratio …`: only `subtotals` is left out; the
    `Combined ratio` column is read."""
    plan, _ = run(LINES, "How many lines of business (not counting subtotals) ran a combined ratio above "
                         "100% in 2023?")
    assert plan.answer == ["3"]


CRIME = Table(text=[
    ["Region", "Province or territory", "2022", "2023", "Percent change 2022 to 2023"],
    ["Atlantic", "Nova Scotia", "6,623", "7,028", "6.1%"],
    ["", "New Brunswick", "5,172", "5,203", "0.6%"],
    ["Central", "Quebec", "2,996", "2,929", "-2.2%"],
    ["", "Ontario", "3,806", "3,946", "3.7%"],
    ["Territories", "Yukon", "22,653", "22,139", "-2.3%"],
    ["", "Northwest Territories", "45,095", "42,501", "-5.8%"],
    ["", "Nunavut", "39,173", "38,575", "-1.5%"],
    ["Canada", "", "5,905", "6,105", "3.4%"],
], merges=[(1, 0, 2, 0), (3, 0, 4, 0), (5, 0, 7, 0), (8, 0, 8, 1)])  # fmt: skip


def test_provinces_and_territories_are_every_member_and_going_down_is_a_fall() -> None:
    """`how many provinces and territories` names every member under `Province or territory`, not
    only those under `Territories`; `go down` asks members whose figure fell."""
    plan, _ = run(CRIME, "How many provinces and territories saw their crime rate go down from 2022 to 2023?")
    assert plan.answer == ["4"]


VIOLATIONS = Table(text=[
    ["Type of violation", "Number of incidents", "", "Rate per 100,000 population", ""],
    ["", "2022", "2023", "2022", "2023"],
    ["Homicide", "882", "778", "2.3", "1.9"],
    ["Robbery", "22,741", "23,096", "58.4", "57.6"],
    ["Uttering threats", "80,572", "84,911", "207.0", "211.8"],
    ["Fraud", "160,830", "171,904", "413.1", "428.7"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])  # fmt: skip


def test_how_many_counts_members_and_names_no_number_line() -> None:
    """`How many … had a lower rate in 2023 than in 2022`: the rates are compared, not the `Number of
    incidents` that `how many` would name."""
    plan, _ = run(VIOLATIONS, "How many of the violations had a lower rate in 2023 than in 2022?")
    assert plan.answer == ["2"]


ARRIVALS = Table(text=[
    ["Period", "Original", "", "Trend"],
    ["", "Month", "Year-to-date", ""],
    ["Jan", "412.5", "412.5", "497.9"],
    ["Feb", "398.2", "810.7", "530.6"],
    ["Mar", "455.8", "1,266.5", "533.3"],
    ["Apr", "528.1", "1,794.6", "505.8"],
], merges=[(0, 1, 0, 2), (0, 3, 1, 3)], title="Visitor arrivals (thousands)")  # fmt: skip


def test_a_count_reads_the_line_named_by_more_than_the_counted_noun() -> None:
    """`how many months had a trend estimate above 520 thousand`: the months are counted on `Trend`,
    not on the `Month` column the counted noun names, in the table's thousands."""
    plan, _ = run(ARRIVALS, "How many months had a trend estimate above 520 thousand?")
    assert plan.answer == ["2"]


METRICS = Table(text=[
    ["", "Quarter ended", "", "", "Year ended", ""],
    ["", "3Q24", "2Q24", "1Q24", "2023", "2022"],
    ["Return on average common equity", "11.4%", "11.9%", "11.1%", "11.6%", "12.9%"],
    ["Efficiency ratio", "58.6%", "57.9%", "61.2%", "59.4%", "57.1%"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 5)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("In how many of the three quarters did return on average common equity exceed 11.5%?", "1"),
    ("In which quarter was the efficiency ratio lowest?", "2Q24"),
])
def test_quarters_written_after_their_number_are_quarters(question: str, answer: str) -> None:
    """`3Q24` is a quarter: counts and rankings of quarters leave the full years out."""
    plan, _ = run(METRICS, question)
    assert plan.answer == [answer]


INSTITUTIONS = Table(text=[
    ["Rank", "Institution", "FY 2022", "FY 2023", ""],
    ["", "", "All R&D expenditures", "All R&D expenditures", "Federally financed"],
    ["", "All institutions", "9,784,223", "10,878,056", "5,960,132"],
    ["1", "Johns Hopkins U.", "3,357,429", "3,395,016", "2,710,834"],
    ["2", "U. Michigan", "1,860,231", "1,932,015", "930,517"],
    ["3", "U. Pennsylvania", "1,757,380", "1,864,420", "1,060,873"],
    ["4", "Duke U.", "1,402,113", "1,470,019", "802,404"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1)], title="R&D expenditures (dollars in thousands)")  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("How many of the top 4 institutions spent more than $1.5 billion on R&D in FY 2023?", "3"),
    ("Among the top 4 institutions, which had the largest dollar increase in R&D expenditures "
     "between FY 2022 and FY 2023?", "U. Pennsylvania"),
    ("What was Duke's rank by FY 2023 R&D expenditures?", "4"),
])
def test_institutions_ranked_counted_and_their_rank_read(question: str, answer: str) -> None:
    """`the top 4 institutions` are counted (a bound in billions over figures in thousands); the
    members named before `which had` are ranked by their change between the years over their lines;
    `Duke's rank` reads the row's label under `Rank`, not a figure."""
    plan, _ = run(INSTITUTIONS, question)
    assert plan.answer == [answer]


GERD = Table(text=[
    ["Country", "2021", "2022"],
    ["OECD total", "2.71", "2.73"],
    ["EU27", "2.23", "2.22"],
    ["Germany", "3.13", "3.13"],
    ["Israel", "5.56", "6.02"],
    ["Canada", "1.69", "1.70"],
    ["Korea", "4.91", "5.21"],
], title="GERD as a percentage of GDP")  # fmt: skip


def test_members_set_apart_in_parentheses_are_left_out_of_a_count() -> None:
    """`(not the OECD or EU27 aggregates)` names members only to leave them out: still a count."""
    plan, _ = run(GERD, "How many of the individual countries listed (not the OECD or EU27 aggregates) spent "
                        "more than 3% of GDP on R&D in 2021?")
    assert plan.answer == ["3"]


AIRPORTS = Table(text=[
    ["Month", "Northgate", "Lakeside"],
    ["January", "912", "205"],
    ["February", "870", "198"],
    ["March", "1,005", "231"],
    ["Total", "2,787", "634"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("In which month was Northgate busiest?", "March"),
    ("What was the average monthly passenger count at Lakeside in 2024?", "211.3"),
])
def test_months_are_ranked_and_averaged_without_their_total(question: str, answer: str) -> None:
    """`busiest` ranks the months (not the `Total` row); a monthly average runs over the months."""
    plan, _ = run(AIRPORTS, question)
    assert plan.answer == [answer]


AGENCIES = Table(text=[
    ["Agency and performer", "FY 2022", "FY 2023"],
    ["All agencies", "163,388", "167,131"],
    ["  Intramural", "33,438", "34,449"],
    ["  Extramural", "129,950", "132,682"],
    ["Department of Energy", "18,422", "18,214"],
    ["  Intramural", "2,318", "2,402"],
    ["  Extramural", "16,104", "15,812"],
    ["National Aeronautics and Space Administration", "11,875", "11,935"],
    ["  Intramural", "3,660", "3,598"],
    ["  Extramural", "8,215", "8,337"],
    ["National Science Foundation", "7,005", "6,759"],
    ["  Intramural", "101", "104"],
    ["  Extramural", "6,904", "6,655"],
], title="Federal obligations for research and development, by agency and performer")  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("Which agency's total R&D obligations fell the most from FY 2022 to FY 2023?",
     "National Science Foundation"),
    ("What share of all federal R&D obligations in FY 2023 was intramural, in percent?", "20.6%"),
])
def test_an_agency_is_ranked_on_its_own_line_over_its_breakdown(question: str, answer: str) -> None:
    """Each agency shows its own total over `Intramural | Extramural`: the agencies are ranked on
    their own lines; `all federal R&D obligations` (every word the title's) is `All agencies`, whose
    `Intramural` line is the part."""
    plan, _ = run(AGENCIES, question)
    assert plan.answer == [answer]


OBLIGATIONS = Table(text=[
    ["Agency", "FY 2022"],
    ["Department of Energy", "9,133"],
    ["Department of Health and Human Services", "43,220"],
    ["  National Institutes of Health", "39,529"],
    ["  Food and Drug Administration", "551"],
    ["  Other HHS", "1,921"],
    ["National Science Foundation", "7,273"],
])  # fmt: skip


def test_a_group_named_by_its_acronym_restricts_a_ranking() -> None:
    """`Among the HHS components`: the capitals name `Health and Human Services`, whose rows are
    ranked, not every agency."""
    plan, _ = run(OBLIGATIONS, "Among the HHS components, which had the smallest obligations in FY 2022?")
    assert plan.answer == ["Food and Drug Administration"]


AIRPORT_RANKS = Table(text=[
    ["Rank", "Airport", "2017", "2018"],
    ["1", "Heathrow", "78,012", "80,124"],
    ["2", "Gatwick", "45,556", "46,086"],
    ["3", "Manchester", "27,826", "28,292"],
    ["4", "Stansted", "25,904", "27,996"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("In 2017, which airport was the 3rd busiest?", "Manchester"),
    ("Which airport was the busiest in 2018?", "Heathrow"),
])
def test_busiest_ranks_and_an_ordinal_picks_a_place(question: str, answer: str) -> None:
    plan, _ = run(AIRPORT_RANKS, question)
    assert plan.answer == [answer]
