"""Groups, spans and counts worded as analysts word them: a heading with no figure of its own is
asked as its members' sum, the parts listed under a group line are averaged, the major members are
the outermost ones, a range said with its noun again (`week 48 through week 51`), a change line over
other years than those asked, one label under two periods in the order the question says them, a
line the question sets aside, and count bounds (`at or above`, `84 years or more`, `reached the 0.7%
target`, `more than USD 150 million`, `rise by 0.3 percent or more`, `fall short of`)."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.server.offline import operations as ops
from celltrace.server.offline.lexicon import same_word
from celltrace.shared.stemming import stem
from celltrace.shared.table import Table

DISEASES = Table(text=[
    ["Disease group", "Disease", "2022", "", "2023", "", "Percent change in rate, 2021 to 2022"],
    ["", "", "Cases", "Rate", "Cases", "Rate", ""],
    ["Enteric diseases", "Campylobacteriosis", "2,397", "46.2", "2,512", "47.7", "3.2"],
    ["", "Salmonellosis", "1,123", "21.7", "1,208", "23.0", "6.0"],
    ["", "Shigellosis", "229", "4.4", "317", "6.0", "36.4"],
    ["Sexually transmitted infections", "Chlamydia", "21,436", "413.3", "20,983", "398.7", "-3.5"],
    ["", "Gonorrhea", "7,044", "135.8", "6,571", "124.9", "-8.0"],
    ["", "Infectious syphilis", "1,687", "32.5", "1,893", "36.0", "10.8"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 3), (0, 4, 0, 5), (0, 6, 1, 6), (2, 0, 4, 0),
           (5, 0, 7, 0)], title="Reported cases and incidence rates of notifiable diseases")  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    # the title's `incidence rates` describe the `Rate` columns: the cases still add up
    ("Total number of enteric disease cases reported in 2023?", "4,037"),
    # one label (`Cases`) under two years: the years in the order said
    ("Gonorrhea: how many more cases were there in 2023 than in 2022?", "-473"),
    # the change column spans other years than those asked: computed from the counts
    ("Percent change in infectious syphilis case counts between 2022 and 2023?", "12.2%"),
])
def test_disease_groups_years_and_spans(question: str, answer: str) -> None:
    plan, _ = run(DISEASES, question)
    assert plan.answer == [answer]


DEATHS = Table(text=[
    ["Cause of death", "2020", "2021"],
    ["All causes", "37,585", "39,219"],
    ["Chronic diseases", "", ""],
    ["  Malignant neoplasms", "10,537", "10,688"],
    ["  Diseases of heart", "7,012", "7,239"],
    ["External causes", "", ""],
    ["  Accidents", "2,892", "3,347"],
    ["  Intentional self-harm", "598", "611"],
    ["All other causes", "17,546", "17,334"],
])  # fmt: skip


def test_a_heading_without_a_figure_is_its_members_sum() -> None:
    """`External causes` shows no figure of its own: its deaths are those of the causes under it."""
    plan, _ = run(DEATHS, "How many deaths from external causes were recorded in 2020?")
    assert plan.operation == "sum" and plan.answer == ["3,490"]


PRICES = Table(text=[
    ["", "Index", "", "12-month % change"],
    ["", "October 2023", "October 2024", ""],
    ["All-items", "158.3", "161.8", "2.2"],
    ["Food", "190.2", "195.7", "2.9"],
    ["  Food purchased from stores", "196.5", "201.0", "2.3"],
    ["  Food purchased from restaurants", "177.9", "185.1", "4.0"],
    ["Shelter", "181.0", "189.4", "4.6"],
    ["  Rented accommodation", "158.4", "171.6", "8.3"],
    ["  Owned accommodation", "172.9", "178.9", "3.5"],
    ["  Water, fuel and electricity", "219.8", "226.0", "2.8"],
    ["Transportation", "174.4", "174.3", "-0.1"],
    ["Alcoholic beverages and tobacco", "194.0", "203.6", "4.9"],
], merges=[(0, 1, 0, 2), (0, 3, 1, 3)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    # `All-items` is the total; `major` asks the outermost lines, not `Rented accommodation`
    ("Among the major components, which posted the largest 12-month change?",
     "Alcoholic beverages and tobacco"),
    ("Of the four major components, which posted the largest 12-month change?",
     "Alcoholic beverages and tobacco"),
    # the parts listed under a line of its own are averaged, not the line read
    ("What is the average 12-month percent change across the shelter sub-components listed under shelter?",
     "4.87"),
])
def test_major_components_and_parts_listed_under_a_line(question: str, answer: str) -> None:
    plan, _ = run(PRICES, question)
    assert plan.answer == [answer]


WEEKS = Table(text=[
    ["Epi week", "Influenza A", "Influenza B"],
    ["46", "622", "19"],
    ["47", "861", "23"],
    ["48", "1,104", "31"],
    ["49", "1,329", "38"],
    ["50", "1,497", "44"],
    ["Season to date", "5,413", "155"],
])  # fmt: skip


def test_a_range_said_with_its_noun_again() -> None:
    plan, _ = run(WEEKS, "How many influenza B detections were there in total from week 47 through week 49?")
    assert plan.answer == ["92"]


METROS = Table(text=[
    ["Metropolitan area", "2024 Q1"],
    ["Midwest", ""],
    ["Chicago", "188.9"],
    ["Detroit", "172.6"],
    ["West", ""],
    ["Denver", "315.8"],
    ["Phoenix", "315.4"],
    ["Seattle", "381.2"],
])  # fmt: skip


def test_a_region_adjective_names_its_group() -> None:
    assert same_word(stem("west"), stem("western"))
    plan, _ = run(METROS, "Which Western metro had the lowest index in 2024 Q1?")
    assert plan.answer == ["Phoenix"]


SEGMENTS = Table(text=[
    ["", "Six Months Ended June 30, 2024"],
    ["Segment operating income (loss):", ""],
    ["  Motion Control", "440"],
    ["  Climate Technologies", "512"],
    ["  Corporate and unallocated costs", "(181)"],
    ["Total operating income", "771"],
])  # fmt: skip


def test_a_line_the_question_sets_aside_is_no_sure_answer() -> None:
    """Reading the very line the question puts `before` (or `net of`) is never answered confidently."""
    plan, _ = run(SEGMENTS, "What was the combined operating income of the segments, before corporate and "
                            "unallocated costs, for the six months ended June 30, 2024?")
    assert plan.answer == ["952"] or plan.confidence <= 0.5


@pytest.mark.parametrize(("question", "way", "bound", "inclusive"), [
    ("In how many health regions was rotavirus coverage at or above 85%?", "above", 85.0, True),
    ("How many of the five regions had a life expectancy of 84 years or more?", "above", 84.0, True),
    ("How many of the listed donors reached the 0.7% of GNI target in 2022?", "above", 0.7, True),
    ("How many recipients received more than USD 150 million in 2020?", "above", 150.0, False),
    ("In how many months of 2024 did core prices rise by 0.3 percent or more?", "above", 0.3, True),
])
def test_count_bounds_as_analysts_word_them(question: str, way: str, bound: float, inclusive: bool) -> None:
    count = ops.count_condition(question)
    assert count is not None and (count.way, count.bound, count.against, count.inclusive) == (
        way, bound, "stated", inclusive)


def test_the_counted_noun_is_the_first_plural_and_falling_short_is_against_a_line() -> None:
    assert ops.counted_noun("in how many health regions was rotavirus coverage above 85%?") == "regions"
    count = ops.count_condition("In how many years did contributions fall short of the required amount?")
    assert count is not None and (count.way, count.against) == ("below", "line")


QUARTERS = Table(text=[
    ["Series", "2023", "", "2024", ""],
    ["", "Q1", "Q2", "Q1", "Q2"],
    ["CPI-U inflation", "5.0%", "3.6%", "3.5%", "3.0%"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])  # fmt: skip


def test_quarters_under_years_are_each_counted() -> None:
    plan, _ = run(QUARTERS, "In how many of the four quarters shown was CPI-U inflation 3.5% or higher?")
    assert plan.operation == "count" and plan.answer == ["3"]


CITIES = Table(text=[
    ["Country", "City", "December 2024", ""],
    ["", "", "Index", "Average price (£)"],
    ["England", "London", "99.6", "518,268"],
    ["", "Manchester", "107.4", "246,131"],
    ["", "Leeds", "104.9", "248,430"],
    ["Scotland", "Edinburgh", "103.8", "326,781"],
    ["", "Glasgow", "108.5", "184,262"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 3), (2, 0, 4, 0), (5, 0, 6, 0)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    # `English` names `England`; the question's own `mean` averages the group, whatever the labels say
    ("What was the mean December 2024 average price across the English cities listed?", "337,609.7"),
    ("Which Scottish city had the lowest index in December 2024?", "Edinburgh"),
])
def test_a_place_adjective_names_its_group_and_a_mean_runs_over_it(question: str, answer: str) -> None:
    plan, _ = run(CITIES, question)
    assert plan.answer == [answer]


REGIONS = Table(text=[
    ["Health region", "2020–2022", ""],
    ["", "Males", "Females"],
    ["Province", "79.0", "83.4"],
    ["  Northern", "74.8", "80.1"],
    ["  Central", "80.0", "84.1"],
    ["  Eastern", "78.6", "83.1"],
    ["  Western", "78.1", "82.6"],
    ["  Metro", "80.5", "84.6"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 2)])  # fmt: skip


def test_a_line_over_the_members_averaged_is_no_member() -> None:
    """`Province` over its indented regions is their whole: the regions' average leaves it out."""
    plan, _ = run(REGIONS, "Average male life expectancy across the five health regions in 2020–2022?")
    assert plan.answer == ["78.4"]


BUDGET = Table(text=[
    ["Function", "Program", "FY2024"],
    ["Education", "K-12 school aid", "10,341.0"],
    ["", "Higher education", "2,466.7"],
    ["", "Subtotal", "12,807.7"],
    ["Transportation", "Highways", "3,415.8"],
    ["", "Public transit", "1,087.9"],
    ["", "Subtotal", "4,503.7"],
    ["Debt service", "", "1,952.4"],
    ["Total expenditures", "", "19,263.8"],
], merges=[(1, 0, 3, 0), (4, 0, 6, 0), (7, 0, 7, 1), (8, 0, 8, 1)])  # fmt: skip


def test_a_share_of_the_total_reads_the_outer_total() -> None:
    """`share of total … spending`: a group's subtotal over the table's one outer total."""
    plan, _ = run(BUDGET, "What share of total budgeted FY2024 spending goes to education?")
    assert plan.answer == ["66.5%"]


YEARS = Table(text=[
    ["Fiscal year", "Revenue bonds", "Total debt service"],
    ["2032", "5,400,200", "15,820,200"],
    ["2033", "5,399,000", "15,815,750"],
    ["2034", "5,401,600", "15,818,350"],
    ["2035–2039", "15,198,350", "54,526,850"],
])  # fmt: skip


def test_a_span_of_years_outside_the_asked_years_is_not_ranked() -> None:
    plan, _ = run(YEARS, "Between fiscal 2032 and 2034, which year has the heaviest revenue bonds figure?")
    assert plan.answer == ["2034"]


COVERAGE = Table(text=[
    ["Health region", "Measles, 1 dose", "Rotavirus"],
    ["Central", "93.4%", "88.2%"],
    ["Northern", "86.7%", "80.6%"],
    ["Metro", "92.1%", "86.0%"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("How many percentage points short of the 95% target was Northern's measles coverage?", "8.3%"),
    ("How far above 85% was Central's rotavirus coverage?", "3.2%"),
])
def test_a_gap_to_a_stated_figure(question: str, answer: str) -> None:
    plan, _ = run(COVERAGE, question)
    assert (plan.operation, plan.answer) == ("diff", [answer])


def test_members_counted_against_a_stated_figure_are_no_gap() -> None:
    plan, _ = run(COVERAGE, "How many health regions had rotavirus coverage below 85%?")
    assert (plan.operation, plan.answer) == ("count", ["1"])


def test_a_year_after_over_is_no_stated_figure() -> None:
    plan, _ = run(COVERAGE, "How much was Central's measles coverage over the 2012-to-2015 period?")
    assert (plan.operation, plan.answer) == ("lookup", ["93.4%"])


def test_the_spread_between_the_highest_and_lowest_members() -> None:
    plan, _ = run(COVERAGE, "What is the spread, in percentage points, between the highest and lowest "
                            "regional rotavirus coverage?")
    assert (plan.operation, plan.answer) == ("diff", ["7.6%"])


ADMISSIONS = Table(text=[
    ["Age group (years)", "2022", "", "", "", "2023", ""],
    ["", "Q1", "Q2", "Q3", "Q4", "Q1", "Q2"],
    ["65–79", "3,518", "1,873", "1,944", "2,261", "1,652", "921"],
    ["80 and over", "3,207", "1,649", "1,712", "2,046", "1,538", "874"],
    ["Total, all ages", "11,519", "5,797", "6,194", "7,164", "5,127", "2,846"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 4), (0, 5, 0, 6)])  # fmt: skip


def test_a_class_the_question_names_is_counted_over_its_periods() -> None:
    """`those 80 and over` names the class `80 and over` (no range of classes to add up)."""
    plan, _ = run(ADMISSIONS, "In how many quarters of 2022 did admissions among those 80 and over exceed "
                              "1,700?")
    assert (plan.operation, plan.answer) == ("count", ["3"])


def test_members_rising_faster_than_the_all_items_line_are_counted() -> None:
    plan, _ = run(PRICES, "How many of the major components rose faster than the all-items CPI over the 12 "
                          "months?")
    assert (plan.operation, plan.answer) == ("count", ["3"])
