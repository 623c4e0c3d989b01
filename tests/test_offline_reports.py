"""Reports people keep: changes between terms, months and years heading groups of columns or rows, a
fall asked as a percentage, averages per member, shares whose whole the question names, budgets."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.server.offline.grounding import Grounder, label_year
from celltrace.server.offline.lexicon import label_tokens
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table

ENROLMENT = Table(text=[
    ["", "Fall 2022", "", "", "Fall 2023", "", ""],
    ["", "Full-time", "Part-time", "Total", "Full-time", "Part-time", "Total"],
    ["Undergraduate", "18,200", "3,100", "21,300", "18,650", "3,050", "21,700"],
    ["Graduate", "4,900", "1,112", "6,012", "5,210", "1,685", "6,895"],
    ["All students", "23,100", "4,212", "27,312", "23,860", "4,735", "28,595"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 6)])
CALLS = Table(text=[
    ["Team", "July 2025", "", "August 2025", ""],
    ["", "Calls Handled", "FCR %", "Calls Handled", "FCR %"],
    ["Billing", "8,420", "71.2", "8,915", "72.0"],
    ["Technical Support", "12,310", "64.5", "13,020", "66.1"],
    ["Sales", "5,120", "80.3", "5,480", "79.4"],
    ["Total", "25,850", "70.1", "27,415", "71.0"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])
QUARTERS = Table(text=[
    ["", "First Quarter", "Second Quarter", "Full Year"],
    ["2024", "", "", ""],
    ["  Net sales", "2,410.2", "2,530.8", "4,941.0"],
    ["  Operating income", "402.5", "431.0", "833.5"],
    ["2023", "", "", ""],
    ["  Net sales", "2,250.6", "2,398.1", "4,648.7"],
    ["  Operating income", "361.1", "388.4", "749.5"],
])
EXCEEDANCES = Table(text=[
    ["City", "2019", "2020", "2021", "2022", "2023"],
    ["Granton", "39", "24", "28", "31", "25"],
    ["Lowell Falls", "17", "10", "12", "15", "13"],
    ["Marston", "22", "15", "18", "21", "19"],
])


def test_a_term_names_its_year() -> None:
    assert (label_year("Fall 2022"), label_year("Spring term 2024")) == ("2022", "2024")


@pytest.mark.parametrize(("table", "question", "answer"), [
    # `Fall` of `Fall 2022` is the term, not a fall that would make the cell a change to read
    (ENROLMENT, "By what percentage did enrolment of all students change from fall 2022 to fall 2023?",
     "4.7%"),
    # months heading groups of columns, no year said: the later month's line first
    (CALLS, "What was the percent change in total calls handled from July to August?", "6.1%"),
    (CALLS, "By how many calls did Billing's volume change from July to August?", "495"),
    # years heading sections of rows, compared with `versus`
    (QUARTERS, "By what percentage did first-quarter operating income grow in 2024 versus 2023?", "11.5%"),
    # a percentage decrease is the size of the fall
    (EXCEEDANCES, "What was the percentage decrease in exceedance days in Granton from 2019 to 2023?",
     "35.9%"),
])
def test_a_change_between_periods_heading_groups(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert plan.answer == [answer]


HEADCOUNT = Table(text=[
    ["", "Office location", "", "", "Total", ""],
    ["Department", "New York", "Remote", "Other", "Dec 2024", "Dec 2023"],
    ["Engineering", "120", "51", "40", "211", "198"],
    ["Sales", "60", "12", "30", "102", "110"],
    ["Finance", "25", "4", "11", "40", "41"],
    ["Legal", "10", "–", "6", "16", "15"],
    ["Total headcount", "215", "67", "87", "369", "364"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 5)])


def test_an_average_per_member_runs_over_the_members_the_noun_names() -> None:
    """`per department in December 2024`: over the department rows on `Total > Dec 2024`, though
    `headcount` grounds the `Total headcount` row best."""
    plan, _ = run(HEADCOUNT, "What is the average headcount per department in December 2024?")
    assert (plan.operation, plan.answer) == ("average", ["92.3"])


UNIONS = Table(text=[
    ["", "2023", "", ""],
    ["", "Total employed", "Members of unions", ""],
    ["", "", "Total", "Percent of employed"],
    ["Total, 16 years and over", "161,000", "14,385", "8.9"],
    ["Men", "84,000", "7,545", "9.0"],
    ["Women", "77,000", "6,840", "8.8"],
], merges=[(0, 1, 0, 3), (1, 2, 1, 3), (1, 1, 2, 1)])
DISTRICTS = Table(text=[
    ["District", "Primary", "", "Secondary", ""],
    ["", "Enrolment", "Teachers", "Enrolment", "Teachers"],
    ["Northern Region", "", "", "", ""],
    ["  Ashwell", "8,420", "410", "6,100", "380"],
    ["  Brookfield", "12,655", "590", "9,800", "610"],
    ["  Carden", "4,310", "215", "3,300", "200"],
    ["  Total, Northern Region", "25,385", "1,215", "19,200", "1,190"],
    ["Southern Region", "", "", "", ""],
    ["  Glenwood", "30,100", "1,400", "22,000", "1,380"],
    ["  Harrowgate", "35,127", "1,650", "26,300", "1,600"],
    ["  Total, Southern Region", "65,227", "3,050", "48,300", "2,980"],
    ["All districts", "90,612", "4,265", "67,500", "4,170"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # the whole the question names (`all union members`) is not the base its `Percent of employed`
    # label names: the share is computed, of the members' total; `2023` over the columns is no part
    (UNIONS, "What percentage of all union members in 2023 were women?", "47.5%"),
    # a group's own total is a part of the total above it, not of another group's
    (DISTRICTS, "What share of all primary enrolment was in the Northern Region?", "28.0%"),
])
def test_a_share_of_the_whole_the_question_names(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("percent_of", [answer])


PROJECTS = Table(text=[
    ["Project", "Approved Budget", "Spent to Date", "Status"],
    ["ERP Migration", "$4,200,000", "$3,150,000", "On Track"],
    ["E-commerce Replatform", "$2,375,000", "$2,498,150", "Over Budget"],
    ["Data Warehouse", "$1,100,000", "$640,000", "On Track"],
])


def test_over_its_approved_budget_is_spending_less_the_budget() -> None:
    plan, _ = run(PROJECTS, "By how much is the E-commerce Replatform over its approved budget?")
    assert (plan.operation, plan.answer) == ("measure", ["$123,150"])


WATER = Table(title="Freshwater withdrawals by use and region, 2018 and 2023\nMillion cubic metres", text=[
    ["Water use", "Northern", "", "Southern", "", "Western", "", "All regions", ""],
    ["", "2018", "2023", "2018", "2023", "2018", "2023", "2018", "2023"],
    ["Public water supply", "412.5", "431.8", "724.6", "768.3", "305.1", "318.4", "1,442.2", "1,518.5"],
    ["Agriculture (irrigation)", "1,874.3", "1,712.6", "3,108.2", "2,896.5", "956.4", "1,003.2", "5,938.9",
     "5,612.3"],
    ["Industry", "310.2", "298.7", "520.4", "505.1", "210.8", "199.3", "1,041.4", "1,003.1"],
    ["Total withdrawals", "2,597.0", "2,443.1", "4,353.2", "4,169.9", "1,472.3", "1,520.9", "8,422.5",
     "8,133.9"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 0, 4), (0, 5, 0, 6), (0, 7, 0, 8)])


@pytest.mark.parametrize(("question", "answer"), [
    # `withdrawn` restates the title's `withdrawals`: it weighs as a title word, so `Total withdrawals`
    # does not outrank the irrigation line the question names
    ("How much water was withdrawn for irrigation in the Southern region in 2023?", "2,896.5"),
    # the regions are ranked, not the years under `All regions` (the whole the noun names)
    ("Which region withdrew the most water for irrigation in 2023?", "Southern"),
    ("Which region had the lowest total withdrawals in 2023?", "Western"),
])
def test_words_of_the_title_and_the_whole_of_a_category(question: str, answer: str) -> None:
    plan, _ = run(WATER, question)
    assert plan.answer == [answer]


FUEL_MIX = Table(title="Northgate Power & Light: generation fuel mix\nPercent of net generation", text=[
    ["Fuel", "2022", "2023", "2024"],
    ["Coal", "18.2", "15.1", "12.4"],
    ["Natural gas", "40.3", "41.8", "43.0"],
    ["Nuclear", "22.1", "21.7", "21.0"],
    ["Wind", "12.9", "14.6", "16.1"],
    ["Solar", "6.5", "6.8", "7.5"],
    ["Total", "100.0", "100.0", "100.0"],
    ["Net generation (GWh)", "50,148", "51,020", "51,287"],
])


@pytest.mark.parametrize(("question", "answer"), [
    # the question's words are the title's, but a line says them all too, its unit aside
    ("What was net generation in 2022?", "50,148"),
    # the shares are ranked, not the line stating another unit (GWh)
    ("Which fuel source had the largest share in 2024?", "Natural gas"),
])
def test_a_line_in_another_unit_below_shares(question: str, answer: str) -> None:
    plan, _ = run(FUEL_MIX, question)
    assert plan.answer == [answer]



RECEIVABLES = Table(text=[
    ["Customer", "Terms", "Current", "1-30 days past due", "Total balance", "Credit limit"],
    ["Apex Fabrication LLC", "Net 30", "42,110.00", "12,385.50", "61,095.50", "$100,000"],
    ["Bluewater Marine Services", "Net 45", "25,400.15", "8,236.00", "37,836.15", "$50,000"],
    ["Cascade Builders Co.", "Net 30", "18,920.40", "0.00", "18,920.40", "$40,000"],
    ["Total", "", "86,430.55", "20,621.50", "117,852.05", ""],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # the noun asked of a named row heads a label column beside the row's name: that label
    (RECEIVABLES, "What are the payment terms for Bluewater Marine Services?", "Net 45"),
    (RECEIVABLES, "What is the credit limit for Bluewater Marine Services?", "$50,000"),
])
def test_labels_side_by_side(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert plan.answer == [answer]


CAPITAL = Table(text=[
    ["", "2024", "2023", "", "", ""],
    ["", "Q1", "Q4", "Q3", "Q2", "Q1"],
    ["Average receivables", "101.2", "99.8", "97.5", "96.0", "95.1"],
    ["Tier 1 capital ratio", "13.9%", "13.9%", "12.4%", "12.3%", "12.4%"],
], merges=[(0, 2, 0, 5)])
VACANCIES = Table(text=[
    ["Industry", "Q1 2023", "Q2 2023", "Q3 2023", "Q4 2023"],
    ["Construction", "78,450", "74,210", "70,985", "65,110"],
    ["Manufacturing", "60,300", "58,900", "55,200", "51,700"],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # the quarters under the year named, though a label elsewhere holds `average`: the span is said
    (CAPITAL, "What was the average Tier 1 capital ratio over the four quarters of 2023?", "12.75%"),
    # quarters labelled with their year
    (VACANCIES, "What was the average quarterly number of vacancies in construction in 2023?", "72,188.8"),
])
def test_an_average_over_the_parts_of_a_named_year(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("average", [answer])


EMISSIONS = Table(text=[
    ["Sector", "2019", "2020", "2021"],
    ["Energy", "412,300", "381,050", "390,420"],
    ["Agriculture", "61,200", "60,800", "61,050"],
    ["Total emissions excluding LULUCF", "473,500", "441,850", "451,470"],
    ["Land use, land-use change and forestry (LULUCF)", "(12,400)", "(14,980)", "(13,700)"],
    ["Net emissions including LULUCF", "461,100", "426,870", "437,770"],
])


def test_an_acronym_names_the_label_it_abbreviates() -> None:
    """`LULUCF` names the line it abbreviates (its `and` has no initial) as fully as its words would;
    its `change` is the line's own name, not a change to read instead of a level."""
    plan, _ = run(EMISSIONS, "What was the LULUCF value in 2020?")
    assert plan.answer == ["(14,980)"]


SEGMENTS = Table(text=[
    ["", "2023", "2022"],
    ["Operating income (loss):", "", ""],
    ["  Industrial Automation", "1,210", "1,104"],
    ["  Consumer Products", "85", "(42)"],
    ["  Total operating income", "1,295", "1,062"],
], title="Segment information\nNet revenue and operating income (loss) by reportable segment")


def test_a_which_question_keeps_the_words_the_title_also_holds() -> None:
    """Words the title holds all of name the whole table for an amount (`how much operating loss did
    the segments report`), but a `which` question's words say what its members are measured by."""
    graph = CellGraph(SEGMENTS)
    which = Grounder("Which segment reported an operating loss in 2022?", graph, infer_headers(graph), None)
    asked = set(label_tokens("operating loss"))
    assert asked <= which.qtoks
    amount = Grounder("How much operating loss did the segments report?", graph, infer_headers(graph), None)
    assert not asked & amount.qtoks


LOANS = Table(text=[
    ["Sector", "NPL ratio 2023", "NPL ratio 2024"],
    ["Commercial lending", "", ""],
    ["  Agriculture", "4.6%", "5.4%"],
    ["  Manufacturing", "2.5%", "2.8%"],
    ["  Construction", "9.8%", "11.1%"],
    ["  Commercial real estate", "5.2%", "6.1%"],
    ["  Transportation", "3.1%", "3.5%"],
    ["Consumer lending", "", ""],
    ["  Credit cards", "6.0%", "6.4%"],
    ["  Auto loans", "1.2%", "1.3%"],
])
DEPOSITS = Table(text=[
    ["Region", "Savings", "Total deposits"],
    ["Northeast", "2,104,300", "7,912,400"],
    ["Southeast", "1,220,900", "5,403,100"],
    ["Midwest", "1,530,000", "6,250,800"],
    ["West", "2,880,400", "9,120,300"],
    ["Southwest", "800,200", "4,847,900"],
], title="Deposits by Type and Region\n(in thousands of dollars)")
UNEMPLOYMENT = Table(text=[
    ["Month", "Seasonally adjusted rate"],
    ["January 2023", "3.4"], ["February 2023", "3.6"], ["March 2023", "3.5"], ["April 2023", "3.4"],
    ["May 2023", "3.7"], ["June 2023", "3.6"], ["July 2023", "3.5"], ["August 2023", "3.8"],
    ["September 2023", "3.8"], ["October 2023", "3.9"], ["November 2023", "3.7"], ["December 2023", "3.7"],
])

WIND = Table(text=[
    ["Energy source", "2019", "2020", "2021", "2022", "2023"],
    ["Coal", "965,000", "773,000", "898,000", "832,000", "675,000"],
    ["Wind", "295,882", "337,938", "378,197", "434,297", "425,235"],
], title="Net generation by energy source\n(thousand megawatt-hours)")


@pytest.mark.parametrize(("table", "question", "answer"), [
    # the words before the counted noun say which members (`Commercial real estate` is not named)
    (LOANS, "How many commercial lending sectors had an NPL ratio above 5% in 2024?", "3"),
    # a bound said in billions, figures in thousands of dollars; said in the table's own unit
    (DEPOSITS, "How many regions had total deposits above $6 billion?", "3"),
    (WIND, "In how many of these years did wind generation exceed 400,000 thousand megawatt-hours?", "2"),
    # a bound the members may equal; the question's year names no month
    (UNEMPLOYMENT, "In how many months of 2023 was the seasonally adjusted rate 3.8 percent or higher?", "3"),
])
def test_counts_against_a_stated_bound(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("count", [answer])


LIFE = Table(text=[
    ["Country", "Men 2000", "Men 2021", "Women 2000", "Women 2021"],
    ["Canada", "76.7", "79.5", "81.7", "84.0"],
    ["Japan", "77.7", "81.5", "84.6", "87.6"],
    ["United States", "74.1", "73.5", "79.3", "79.3"],
    ["OECD average", "74.0", "77.6", "80.2", "82.9"],
])


def test_a_change_asked_either_way_keeps_its_sign_and_a_people_names_its_country() -> None:
    """`rise or fall … and by how much`: the later figure less the earlier, signed; `American` names
    the `United States` line (vocabulary `[other_names]`)."""
    question = "Did life expectancy for American men rise or fall from 2000 to 2021, and by how much?"
    plan, _ = run(LIFE, question)
    assert (plan.operation, plan.answer) == ("diff", ["-0.6"])
