"""Workbooks with sections and subtotals: the whole of a share, the members a ranking compares, the
lines a sum or an average runs over, and labels that carry a code, a unit or a sign legend."""

from __future__ import annotations

import pytest
from tables import run
from test_offline_reports import HEADCOUNT

from celltrace.server.offline import operations as ops
from celltrace.server.offline.grounding import month_range
from celltrace.server.offline.solver import UNMET_CAP
from celltrace.shared.table import Table
from celltrace.shared.units import parse_unit

FATALITIES = Table(text=[
    ["Person type", "2021", "2022"],
    ["Occupants", "", ""],
    ["  Passenger car", "13,800", "13,500"],
    ["  Light truck", "11,900", "11,700"],
    ["  Total occupants", "25,700", "25,200"],
    ["Nonoccupants", "", ""],
    ["  Pedestrian", "7,400", "7,500"],
    ["  Pedalcyclist", "970", "1,100"],
    ["  Total nonoccupants", "8,370", "8,600"],
    ["Total fatalities", "34,070", "33,800"],
])
TONNAGE = Table(text=[
    ["Mode", "2022", "2023"],
    ["Truck", "11,100", "11,300"],
    ["Water", "760.0", "741.6"],
    ["  Inland waterways", "500.1", "489.6"],
    ["  Coastwise", "160.2", "152.0"],
    ["  Great Lakes", "99.7", "100.0"],
    ["Pipeline", "1,900", "1,950"],
    ["Total, all modes", "13,760", "13,992"],
])
DEATHS = Table(text=[
    ["Cause", "ICD-10", "Male", "Female"],
    ["All causes", "A00-Y89", "21,897", "20,400"],
    ["  Diseases of heart", "I00-I51", "5,120", "4,310"],
    ["  Malignant neoplasms", "C00-C97", "4,731", "4,200"],
    ["  Unintentional injuries", "V01-X59", "2,400", "1,300"],
])
PLANT = Table(text=[
    ["Line", "Units produced", "Defects"],
    ["Line A - Stamping", "23,500", "120"],
    ["Line B - Welding", "20,100", "95"],
    ["Line C - Painting", "15,000", "80"],
    ["Line E - Packaging", "27,690", "60"],
    ["Plant total", "86,290", "355"],
])
PERMITS = Table(text=[
    ["Type", "Jan", "Feb", "Mar", "Jan–Mar Total"],
    ["Additions", "40", "35", "45", "120"],
    ["Roofing", "64", "70", "76", "210"],
    ["Solar", "30", "25", "25", "80"],
    ["Total permits issued", "134", "130", "146", "410"],
])
LEVY = Table(text=[
    ["District", "2024 Levy"],
    ["County", ""],
    ["  County General", "60,000"],
    ["  Library District", "10,000"],
    ["  Total County", "70,000"],
    ["School Districts", ""],
    ["  Fairhaven Unified School District", "44,000"],
    ["  Brookside Schools", "20,000"],
    ["  Total School Districts", "64,000"],
    ["Total All Districts", "134,000"],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # no line of its own totals the locations: `Total > Dec 2024` adds them up, `Dec 2023` does not
    (HEADCOUNT, "What percentage of total headcount works remotely?", "18.2%"),
    # `all traffic fatalities` names `Total fatalities` in part, not the pedestrians' own group total
    (FATALITIES, "What share of all traffic fatalities in 2022 were pedestrians?", "22.2%"),
    # `water tonnage` names the line heading the kinds of water transport
    (TONNAGE, "What percentage of 2023 water tonnage moved on inland waterways?", "66.0%"),
    # `All causes | A00-Y89`: the line's name beside its code says it is the total
    (DEATHS, "What percentage of all male deaths were due to malignant neoplasms?", "21.6%"),
    # `Line E` names `Line E - Packaging` more than the other lines `line` names
    (PLANT, "What percentage of total plant output came from Line E?", "32.1%"),
    # `issued January–March` names the `Jan–Mar Total` column, not January and March
    (PERMITS, "What share of all permits issued January–March were roofing permits?", "51.2%"),
    # the school district's own group is not named (its words are the district's): the grand total
    (LEVY, "What share of the total 2024 levy goes to Fairhaven Unified School District?", "32.8%"),
])
def test_the_whole_of_a_share(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("percent_of", [answer])


def test_the_whole_a_share_names_ends_before_its_verb() -> None:
    assert ops.share_whole("what percentage of total headcount works remotely?") == "headcount"
    assert ops.share_whole("what share of total revenue came from cargo?") == "revenue"
    assert ops.share_whole("what percentage of work hours were lost?") == "work hours"


def test_a_month_range() -> None:
    assert month_range("Jan–Jun Total") == month_range("permits issued January–June") == (1, 6)
    assert month_range("April through September") == (4, 9)
    assert month_range("Jan-24") is None


FACILITIES = Table(text=[
    ["Facility", "RN vacancy rate", "Agency share of hours"],
    ["Cascade Health System", "", ""],
    ["  Cascade Medical Center", "9.4%", "6.1%"],
    ["  Elk Valley Hospital", "16.8%", "9.0%"],
    ["Summit Regional Health", "", ""],
    ["  Summit Regional Hospital", "7.8%", "2.5%"],
    ["  Bear Creek Critical Access Hospital", "20.5%", "12.4%"],
    ["Independent facilities", "", ""],
    ["  Mercy Community Hospital", "11.2%", "8.3%"],
    ["  Westside Behavioral Health", "13.9%", "11.6%"],
])
SURVEY = Table(text=[
    ["Characteristic", "Obesity (%)"],
    ["Age group (years)", ""],
    ["  18-24", "19.0"],
    ["  25-44", "32.4"],
    ["  45-64", "37.8"],
    ["Race and Hispanic origin", ""],
    ["  Hispanic", "35.1"],
    ["  Non-Hispanic White", "33.2"],
    ["  Non-Hispanic Asian", "10.9"],
])
COVERAGE = Table(text=[
    ["Age group", "North", "", "West", "", "Central", ""],
    ["", "2022-23", "2023-24", "2022-23", "2023-24", "2022-23", "2023-24"],
    ["18 to 49 years", "30.1", "28.4", "27.9", "26.0", "29.5", "28.8"],
    ["65 years and over", "70.2", "69.8", "66.1", "65.0", "68.3", "67.7"],
    ["All ages", "48.0", "47.1", "44.2", "43.0", "46.9", "46.5"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 5, 0, 6)])
SEGMENTS = Table(text=[
    ["", "2024", "2023", "2022"],
    ["Revenue", "", "", ""],
    ["  Beauty", "13,500", "13,000", "12,400"],
    ["  Foods", "10,276", "10,300", "10,650"],
    ["Consolidated revenue", "23,776", "23,300", "23,050"],
    ["Operating profit", "", "", ""],
    ["  Beauty", "2,500", "2,398", "2,210"],
    ["  Foods", "1,580", "1,610", "1,705"],
    ["Consolidated operating profit", "4,080", "4,008", "3,915"],
])
BUDGET = Table(text=[
    ["Department", "Budgeted amounts", "", "Actual", "Variance with revised budget"],
    ["", "Adopted", "Revised", "", "Positive (Negative)"],
    ["City Attorney", "1,380", "1,410", "1,457", "(47)"],
    ["Police", "40,100", "41,200", "41,764", "(564)"],
    ["Streets and Traffic", "7,800", "7,840", "7,475", "365"],
    ["Library", "3,900", "3,950", "3,870", "80"],
], merges=[(0, 1, 0, 2)])
WARDS = Table(text=[
    ["Ward", "Jan", "Feb"],
    ["Medical", "", ""],
    ["  Cardiology", "91.2%", "90.4%"],
    ["  Respiratory", "97.8%", "96.0%"],
    ["Critical care", "", ""],
    ["  Intensive Care Unit", "93.8%", "92.5%"],
    ["  High Dependency Unit", "88.0%", "90.1%"],
])
REVENUE = Table(text=[
    ["Tax source", "FY2020", "FY2021", "FY2022", "FY2023"],
    ["Estate tax", "60.1", "66.0", "75.3", "70.2"],
    ["Real estate transfer tax", "150.2", "190.4", "211.6", "170.9"],
])
DRUGS = Table(text=[
    ["Drug", "Claims, 2023 (000s)", "Beneficiaries, 2023 (000s)", "Spending per beneficiary, 2023 ($)"],
    ["Eliquis", "21,300", "3,900", "4,760"],
    ["Revlimid", "120", "25", "230,100"],
    ["Ozempic", "7,400", "1,200", "7,340"],
])
RIDERSHIP = Table(text=[
    ["Line", "Weekday", "Saturday"],
    ["Light rail", "", ""],
    ["  Green Line B branch", "18,200", "10,100"],
    ["  Green Line D branch", "24,900", "12,000"],
    ["  Mattapan Line", "2,140", "900"],
    ["Heavy rail", "", ""],
    ["  Red Line", "150,300", "60,200"],
])


RANKINGS = [
    # a section the noun alone names (`Independent facilities`) is a part of what is ranked
    (FACILITIES, "Which facility has the highest RN vacancy rate?", "Bear Creek Critical Access Hospital"),
    (FACILITIES, "Which facility relies least on agency nursing hours?", "Summit Regional Hospital"),
    # a section heading the asked category (and more) still sets the members
    (SURVEY, "Which race and ethnicity group had the lowest obesity prevalence?", "Non-Hispanic Asian"),
    # the season ties under every region: the regions are ranked, on the all-ages row
    (COVERAGE, "Which region had the lowest all-ages coverage in 2023-24?", "West"),
    # `Consolidated …` totals the segments
    (SEGMENTS, "Which segment had the highest operating profit in 2023?", "Beauty"),
    # the largest negative variance is the least figure
    (BUDGET, "Which department had the largest negative variance against the revised budget?", "Police"),
    # `highest` is no abbreviation of `High Dependency Unit`
    (WARDS, "Which ward had the highest occupancy rate in January?", "Respiratory"),
    # `peak`: the largest
    (REVENUE, "In which fiscal year did real estate transfer tax revenue peak?", "FY2022"),
    # a closing unit `(000s)` does not make `Beneficiaries` less named than `Spending per beneficiary`
    (DRUGS, "Which drug had the most beneficiaries in 2023?", "Eliquis"),
    # lines tied by the same words of their own labels are what is ranked
    (RIDERSHIP, "Which Green Line branch carried the most weekday riders?", "Green Line D branch"),
]
"""(table, question, answer)"""


CLAIMS = Table(text=[
    ["Service", "Paid FY2022", "Paid FY2023", "Change ($)"],
    ["Laboratory", "9,217", "8,846", "(371)"],
    ["Radiology", "12,400", "12,950", "550"],
])


SIGNS = [
    # a sign legend leaves its parent the label: the variance, not the revised budget
    (BUDGET, "What is the variance with the revised budget for the City Attorney?", "(47)"),
    # `paid` names the claims; a change asked keeps its sign
    (CLAIMS, "How much did laboratory paid claims change?", "(371)"),
]
"""(table, question, answer)"""


SALES = Table(text=[
    ["Metro", "Number of Sales", "", "", "", "Median Sales Price", "", "", ""],
    ["", "2023 Q3", "2023 Q4", "2024 Q1", "2024 Q2", "2023 Q3", "2023 Q4", "2024 Q1", "2024 Q2"],
    ["Kansas City", "6,890", "5,720", "5,400", "7,500", "$268,000", "$265,500", "$270,000", "$281,000"],
    ["Nashville", "7,150", "6,080", "5,660", "7,300", "$442,700", "$435,000", "$440,100", "$455,000"],
], merges=[(0, 1, 0, 4), (0, 5, 0, 8)])
TAXES = Table(text=[
    ["Source", "FY2020", "FY2021"],
    ["Income taxes", "", ""],
    ["  Personal income tax", "9,842.6", "10,100.0"],
    ["  Corporate income tax", "1,184.7", "1,300.2"],
    ["  Subtotal, income taxes", "11,027.3", "11,400.2"],
    ["Sales tax", "6,000.0", "6,200.0"],
    ["Total tax revenue", "17,027.3", "17,600.2"],
])
AIRPORTS = Table(text=[
    ["Airport", "2023 Domestic", "2023 International"],
    ["Atlanta Hartsfield-Jackson (ATL)", "93,540", "11,200"],
    ["Charlotte Douglas (CLT)", "51,260", "3,100"],
    ["Miami International (MIA)", "25,100", "27,000"],
])


SPANS = [
    # `the four quarters shown` are those beside the best line, not the prices' quarters too
    (SALES, "What was the total number of sales in Nashville over the four quarters shown?", "26,190"),
    (SALES, "What was the average number of quarterly sales in Kansas City?", "6,377.5"),
    # a subtotal beside its own parts is no part of the sum
    (TAXES, "What were combined income tax collections (personal plus corporate) in FY2020?", "11,027.3"),
    # a name said by its first word, which no other label holds
    (AIRPORTS, "What was the combined domestic traffic of Atlanta and Charlotte in 2023?", "144,800"),
]
"""(table, question, answer)"""


def test_a_count_in_a_scale_is_a_unit() -> None:
    assert parse_unit("(thousands of enplaned and deplaned passengers)") == "thousands"
    assert parse_unit("Thousands of jobs lost in 2020") is None
    table = Table(text=[
        ["(thousands of passengers)", "", ""],
        ["Airport", "2022", "2023"],
        ["JFK", "55,300", "62,400"],
        ["EWR", "43,600", "48,785"],
        ["ATL", "93,700", "104,650"],
        ["BOS", "36,000", "40,715"],
        ["DFW", "73,400", "81,750"],
    ])
    plan, _ = run(table, "How many airports handled more than 50 million passengers in 2023?")
    assert plan.answer == ["3"]


BOM = Table(text=[
    ["Level", "Part number", "Description", "Qty per", "UoM", "Unit cost", "Extended cost"],
    ["1", "100-400", "Battery pack", "1", "EA", "$18.20", "$18.20"],
    ["2", "100-410", "  Li-ion cell", "5", "EA", "$2.90", "$14.50"],
    ["1", "100-500", "Housing and controls", "1", "EA", "$8.42", "$8.42"],
    ["2", "100-520", "  Variable-speed trigger switch", "1", "EA", "$2.45", "$2.45"],
    ["2", "100-540", "  Machine screw M3x12", "14", "EA", "$0.03", "$0.42"],
])


BILL_OF_MATERIALS = [
    # a label beside the row's name under a section is what `the part number of` asks
    (BOM, "What is the part number of the variable-speed trigger switch?", "100-520"),
    # `how many` asks the quantity (`Qty`)
    (BOM, "How many machine screws does each drill take?", "14"),
]
"""(table, question, answer)"""


VICTIMS = Table(text=[
    ["Characteristic", "2022", "", "2023", ""],
    ["", "Percent", "Standard error", "Percent", "Standard error"],
    ["Total", "1.18", "0.04", "1.27", "0.05"],
    ["Male", "1.20", "0.06", "1.31", "0.07"],
    ["Female", "1.16", "0.05", "1.23", "0.06"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])
PRISONS = Table(text=[
    ["Facility", "Total population", "Rated capacity"],
    ["Northfield Correctional Institution", "1,512", "1,380"],
    ["Eastgate Correctional Center", "890", "855"],
    ["Lakeview Women's Facility", "410", "450"],
])
TAX_NOTE = Table(text=[
    ["", "2024", "2023"],
    ["Income before income taxes:", "", ""],
    ["  Domestic", "4,219", "3,980"],
    ["  Foreign", "2,641", "2,410"],
    ["Total income before income taxes", "6,860", "6,390"],
    ["Provision for income taxes:", "", ""],
    ["  Federal", "610", "590"],
    ["  Foreign", "540", "515"],
    ["Provision for income taxes", "1,150", "1,105"],
])
LUNCHES = Table(text=[
    ["District", "Lunches served (thousands)", "", "Free and reduced-price share of lunches"],
    ["", "Free and reduced", "Total", ""],
    ["Ashford Unified", "2,046", "4,076", "50.2%"],
    ["Bellmont Schools", "1,510", "6,210", "24.3%"],
    ["Cedar Grove ISD", "3,100", "7,300", "42.5%"],
    ["Region total", "6,656", "17,586", "37.8%"],
], merges=[(0, 1, 0, 2)])


@pytest.mark.parametrize(("table", "question", "operation", "answer"), [
    # a change in points is a difference, not a relative change
    (VICTIMS, "By how many percentage points did the total victimization percentage change from 2022 to "
     "2023?", "diff", "0.09"),
    # the provision's `Foreign` line is no part of income before income taxes
    (TAX_NOTE, "What percentage of 2024 income before income taxes was earned in foreign "
     "jurisdictions?", "percent_of", "38.5%"),
    # the share column names another part (`Free and reduced-price`): the district's share is computed
    (LUNCHES, "What share of all lunches in the region were served by Ashford Unified?", "percent_of",
     "23.2%"),
])
def test_the_operation_the_wording_asks(table: Table, question: str, operation: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == (operation, [answer])


def test_a_gap_to_a_reference_read_as_the_reference_abstains() -> None:
    """`By how many inmates did Northfield exceed its rated capacity`: the capacity itself is read (the
    population is not named) and is no answer to trust; the gap, once computed, may be."""
    question = "By how many inmates did Northfield Correctional Institution exceed its rated capacity?"
    plan, _ = run(PRISONS, question)
    assert plan.answer == ["132"] or plan.confidence <= UNMET_CAP


ENDOWMENT = Table(text=[
    ["Asset class", "Annualized returns", "", ""],
    ["", "1-Year", "3-Year", "5-Year"],
    ["Growth", "", "", ""],
    ["  Global public equity", "18.7%", "5.2%", "9.8%"],
    ["  Private equity", "6.4%", "12.1%", "14.0%"],
    ["Diversifying", "", "", ""],
    ["  Absolute return / hedge funds", "9.3%", "6.0%", "5.5%"],
    ["Fixed income", "", "", ""],
    ["  Core bonds", "3.6%", "-2.1%", "0.9%"],
], merges=[(0, 1, 0, 3)])
FOOD_CPI = Table(text=[
    ["Food group", "January", "February", "March"],
    ["Meats, poultry, fish, and eggs", "0.4", "0.2", "0.3"],
    ["Dairy and related products", "-0.1", "0.5", "0.2"],
    ["Sugar and sweets", "1.0", "0.6", "1.1"],
    ["Fruits and vegetables", "0.3", "0.4", "-0.2"],
])
FUNDS = Table(text=[
    ["Object", "General Fund", "Debt Service Fund", "Food Service Fund", "Total, all funds"],
    ["Salaries", "120,400", "0", "6,100", "126,500"],
    ["Benefits", "41,200", "0", "2,050", "43,250"],
    ["Debt service", "0", "24,855", "0", "24,855"],
    ["Total expenditures", "161,600", "24,855", "8,150", "194,605"],
])


SIDES = [
    # one line of its own section (`Absolute return`, named by `return`) is no group to rank within
    (ENDOWMENT, "Which asset class had the highest 1-year return?", "Global public equity"),
    # `in March` fixes the month columns: the food groups are ranked
    (FOOD_CPI, "Which food group rose the most in March?", "Sugar and sweets"),
    # members whose own labels hold the noun (`General Fund`, `Debt Service Fund`): `which fund` ranks them
    (FUNDS, "Which fund has the largest total budget?", "General Fund"),
]
"""(table, question, answer)"""


def test_a_sum_over_a_span_of_months_runs_over_every_month_in_it() -> None:
    question = "What was the sum of the monthly changes for sugar and sweets over January to March?"
    plan, _ = run(FOOD_CPI, question)
    assert (plan.operation, plan.answer) == ("sum", ["2.7"])


def test_an_average_over_the_months_said_outright_is_computed_and_money_stays_in_cents() -> None:
    """`across the three months`: an average even where the title spells the label's `ADR` as
    `average daily rate`; dollars and cents average to cents."""
    table = Table(text=[
        ["Market", "ADR", "", ""],
        ["", "Apr 2024", "May 2024", "Jun 2024"],
        ["San Francisco", "$183.91", "$195.63", "$192.19"],
        ["Seattle", "$171.20", "$180.05", "$199.48"],
    ], merges=[(0, 1, 0, 3)], title="Hotel performance: average daily rate (ADR, US dollars)")
    plan, _ = run(table, "What was the average ADR across the three months for San Francisco?")
    assert (plan.operation, plan.answer) == ("average", ["$190.58"])


@pytest.mark.parametrize(("table", "question", "answer"),
                         [*RANKINGS, *SIDES, *SIGNS, *SPANS, *BILL_OF_MATERIALS])
def test_the_answer(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert plan.answer == [answer]


TAX_SOURCES = Table(text=[
    ["Tax source", "FY2022", "FY2023", "FY2024"],
    ["Personal income tax", "11,900.2", "12,311.8", "12,604.5"],
    ["Corporate income tax", "1,700.4", "1,812.3", "1,491.4"],
    ["General sales and use tax", "8,600.0", "8,897.3", "9,500.0"],
    ["Estate tax", "75.3", "66.7", "78.0"],
])


@pytest.mark.parametrize(("question", "answer"), [
    # no line gives the change: it is computed for every member between the two years named
    ("Which tax source had the largest dollar decline between FY2023 and FY2024?", "Corporate income tax"),
    ("Which tax source grew the most from FY2022 to FY2024?", "General sales and use tax"),
    # no direction: the one member that moved the way asked
    ("Which tax source declined between FY2022 and FY2024?", "Corporate income tax"),
])
def test_a_ranking_by_the_change_between_two_named_years(question: str, answer: str) -> None:
    plan, _ = run(TAX_SOURCES, question)
    assert plan.answer == [answer]


def test_a_change_asked_between_two_named_years_ranks_on_the_change_line() -> None:
    """`Change ($)` gives it: the ranking runs on it, not on `Paid FY2022` that the years name."""
    table = Table(text=[
        ["Service", "Paid FY2022", "Paid FY2023", "Change ($)"],
        ["Laboratory", "9,217", "8,846", "(371)"],
        ["Radiology", "12,400", "12,950", "550"],
        ["Specialist visits", "40,000", "39,000", "(1,000)"],
    ])
    question = "Which service had the largest dollar increase in paid claims from FY2022 to FY2023?"
    plan, _ = run(table, question)
    assert plan.answer == ["Radiology"]


CPI = Table(text=[
    ["Expenditure group", "Jan", "Jun"],
    ["All items", "130.2", "132.9"],
    ["  Food and non-alcoholic beverages", "144.1", "146.4"],
    ["    Bread and cereals", "150.3", "151.0"],
    ["    Milk, cheese and eggs", "152.8", "153.1"],
    ["  Clothing and footwear", "101.5", "103.0"],
    ["  Housing, water, electricity, gas and other fuels", "138.0", "141.3"],
    ["  Transport", "128.4", "131.0"],
    ["  Restaurants and hotels", "140.2", "144.0"],
])


def test_a_ranking_compares_the_main_groups_not_a_few_sub_items() -> None:
    """Two sub-items under `Food` beside five groups: `Food` stands for them (one level compared)."""
    plan, _ = run(CPI, "Which expenditure group had the highest index value in Jun?")
    assert plan.answer == ["Food and non-alcoholic beverages"]


def test_a_part_netted_of_its_allowance_is_ranked_an_adjustment_below_a_total_is_not() -> None:
    table = Table(text=[
        ["", "2023"],
        ["Current assets:", ""],
        ["  Cash and cash equivalents", "2,847"],
        ["  Accounts receivable, net of allowance of $41", "3,316"],
        ["  Inventories", "2,689"],
        ["    Total current assets", "8,852"],
        ["Long-term debt, net of current portion", "4,055"],
    ])
    plan, _ = run(table, "Which current asset was the largest in 2023?")
    assert plan.answer == ["Accounts receivable, net of allowance of $41"]


def test_which_item_answers_the_name_not_the_code_beside_it() -> None:
    """`Cost Code` holds `cost`, not `item`: the name is the item asked."""
    table = Table(text=[
        ["Cost Code", "Description", "Original Budget", "Approved Change Orders"],
        ["01-100", "Demolition & clearing", "412,000", "18,500"],
        ["03-100", "Mechanical / HVAC", "5,420,000", "312,000"],
        ["03-200", "Plumbing", "1,780,000", "46,000"],
    ])
    plan, _ = run(table, "Which cost item has the largest approved change orders?")
    assert plan.answer == ["Mechanical / HVAC"]


PRETAX = Table(text=[
    ["", "2023", "2022", "2021"],
    ["  United States", "1,284.6", "1,210.0", "1,052.8"],
    ["  Foreign", "742.9", "795.7", "690.1"],
    ["Income before income taxes", "2,027.5", "2,005.7", "1,742.9"],
])


@pytest.mark.parametrize(("question", "answer"), [
    ("What was foreign income before income taxes in 2023?", "742.9"),  # a component named with its total
    ("What was income before income taxes in 2022?", "2,005.7"),
])
def test_a_component_named_with_its_statement_total(question: str, answer: str) -> None:
    plan, _ = run(PRETAX, question)
    assert plan.answer == [answer]


PROGRAMS = Table(text=[
    ["Program", "FY 2024 Enacted", "", "FY 2025 Request", ""],
    ["", "Qty", "$M", "Qty", "$M"],
    ["PAC-3 MSE", "230", "1,204.6", "230", "1,232.8"],
    ["Javelin", "1,251", "312.7", "1,000", "179.8"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])


@pytest.mark.parametrize(("question", "answer"), [
    ("How much was enacted for PAC-3 MSE in FY 2024?", "1,204.6"),
    ("What is the FY 2025 request for Javelin?", "179.8"),
    ("How many Javelins were enacted in FY 2024?", "1,251"),
])
def test_a_count_and_an_amount_side_by_side_answer_the_kind_asked(question: str, answer: str) -> None:
    plan, _ = run(PROGRAMS, question)
    assert plan.answer == [answer]


FREIGHT = Table(text=[
    ["Mode", "2022", "2023"],
    ["Weight (millions of tons)", "", ""],
    ["  Truck", "12,388", "12,512"],
    ["  Rail", "1,526", "1,497"],
    ["  Pipeline", "3,347", "3,402"],
    ["  Total, all modes", "17,261", "17,411"],
    ["Ton-miles (billions)", "", ""],
    ["  Truck", "2,274", "2,301"],
    ["  Rail", "1,647", "1,612"],
    ["  Pipeline", "1,039", "1,058"],
    ["  Total, all modes", "4,960", "4,971"],
])


@pytest.mark.parametrize(("question", "answer"), [
    ("How many tons of freight moved by rail in 2022?", "1,526"),  # the section's unit names it
    ("How many ton-miles did pipelines account for in 2023?", "1,058"),
    ("Which mode carried the second-largest tonnage in 2023?", "Pipeline"),
])
def test_a_section_named_by_its_unit(question: str, answer: str) -> None:
    plan, _ = run(FREIGHT, question)
    assert plan.answer == [answer]


def test_a_reconciling_line_is_no_member_of_a_ranking() -> None:
    table = Table(text=[
        ["", "2021"],
        ["Net revenue:", ""],
        ["  Industrial Automation", "4,120.5"],
        ["  Energy Systems", "2,250.1"],
        ["  Emerging Technologies", "310.4"],
        ["    Total segment net revenue", "6,681.0"],
        ["  Intersegment eliminations", "(95.2)"],
        ["Consolidated net revenue", "6,585.8"],
    ])
    plan, _ = run(table, "Which segment had the lowest net revenue in 2021?")
    assert plan.answer == ["Emerging Technologies"]


_SITE_ROWS = [
    ["Site No.", "Principal Investigator", "City", "Country", "Activation date", "Screened",
     "Screen failures"],
    ["Asia-Pacific", "", "", "", "", "", ""],
    ["3002", "Dr. Ji-ho Park", "Seoul", "South Korea", "30-May-2023", "52", "14"],
    ["3007", "Dr. Kenji Sato", "Osaka", "Japan", "24-Jul-2023", "40", "9"],
    ["3013", "Dr. Emily Chen", "Melbourne", "Australia", "03-Oct-2023", "45", "11"],
    ["Subtotal, Asia-Pacific", "", "", "", "", "137", "34"],
    ["All sites", "", "", "", "", "475", "133"],
]
SITES = Table(text=_SITE_ROWS, values=[[int(c) if c.isdigit() else c for c in row] for row in _SITE_ROWS])


def test_a_record_is_named_by_the_label_the_question_says() -> None:
    """`Seoul` names its record, whose last label is a date: not `All sites` for its `site`."""
    plan, _ = run(SITES, "How many screen failures did the Seoul site have?")
    assert plan.answer == ["14"]


def test_a_number_in_the_lines_name_is_no_figure_the_question_gives() -> None:
    """`MD-5 widening`: its 5 names the line; the bidders' 5 on it is still the answer."""
    table = Table(text=[
        ["Contract No.", "Project", "County", "No. of Bidders", "Award Amount"],
        ["C-24-0189", "MD-5 widening, Phase 1", "Prince George's", "5", "$27,600,000"],
        ["C-24-0203", "Salt storage facility", "Prince George's", "3", "$3,712,850"],
        ["C-24-0215", "US-50 drainage improvements", "Anne Arundel", "6", "$9,100,000"],
    ])
    plan, _ = run(table, "How many bidders were there on the MD-5 widening, Phase 1 contract?")
    assert plan.answer == ["5"]


VOTES = Table(text=[
    ["Candidate", "2019", "", "2023", ""],
    ["", "Votes", "% of vote", "Votes", "% of vote"],
    ["Conservative Union", "1,196,402", "31.8", "1,402,118", "35.2"],
    ["National Alliance", "331,940", "8.8", "546,200", "13.7"],
    ["Total valid votes", "3,762,270", "100.0", "3,983,410", "100.0"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])


@pytest.mark.parametrize(("question", "answer"), [
    ("What was the Conservative Union's share of the vote in 2019?", "31.8"),  # a share is a percentage
    ("What was the National Alliance's vote share in 2023?", "13.7"),
    ("How many votes did the National Alliance get in 2023?", "546,200"),
])
def test_a_share_reads_the_percent_column_beside_the_counts(question: str, answer: str) -> None:
    plan, _ = run(VOTES, question)
    assert plan.answer == [answer]


def test_a_code_quoted_as_one_word_names_its_line_not_the_same_letters_apart() -> None:
    """`4f` is the compound; `4-F` is another compound's substituent."""
    table = Table(text=[
        ["Compound", "R", "MCF-7 IC50", "WI-38 IC50"],
        ["4b", "4-F", "9.86", "74.20"],
        ["4e", "4-CH3", "15.78", "88.10"],
        ["4f", "4-OCH3", "12.44", "102.60"],
    ])
    plan, _ = run(table, "What is the IC50 of 4f on the WI-38 cells?")
    assert plan.answer == ["102.60"]


def test_a_class_other_than_the_interval_asked_is_not_named_by_its_number() -> None:
    """`aged 15 and over` names `Total, 15 and over`, not `15–24` for its 15."""
    table = Table(text=[
        ["Age group", "Unemployment rate"],
        ["15–24", "15.0"],
        ["25–54", "4.4"],
        ["55 and over", "4.1"],
        ["Total, 15 and over", "5.4"],
    ])
    plan, _ = run(table, "What was the unemployment rate for those aged 15 and over?")
    assert plan.answer == ["5.4"]


def test_a_word_before_a_number_names_the_row_key_not_a_column() -> None:
    """`payment number 12` says which row (`Pmt No.`): the `Payment` column is not asked."""
    table = Table(text=[
        ["Pmt No.", "Payment Date", "Payment", "Principal", "Interest"],
        ["11", "Dec 2024", "758.73", "618.15", "140.58"],
        ["12", "Jan 2025", "758.73", "621.46", "137.27"],
        ["13", "Feb 2025", "758.73", "624.80", "133.93"],
    ])
    plan, _ = run(table, "How much interest was paid in payment number 12?")
    assert plan.answer == ["137.27"]


def test_a_share_of_a_named_whole_is_computed_not_read_from_a_share_of_another_base() -> None:
    """`the share of all households`: `Owner > percent` is a share of each type's households."""
    table = Table(text=[
        ["", "Total households", "Owner", "", "Renter", ""],
        ["", "number", "number", "percent", "number", "percent"],
        ["All households", "14,978,940", "9,995,460", "66.7", "4,983,480", "33.3"],
        ["One-census-family households", "9,562,515", "7,322,365", "76.6", "2,240,150", "23.4"],
        ["One-person households", "4,390,475", "2,155,840", "49.1", "2,234,635", "50.9"],
        ["Other households", "1,025,950", "517,255", "50.4", "508,695", "49.6"],
    ], merges=[(0, 2, 0, 3), (0, 4, 0, 5)])
    plan, _ = run(table, "What share of all households were one-person households?")
    assert (plan.operation, plan.answer) == ("percent_of", ["29.3%"])


TICKETS = Table(text=[
    ["Priority", "Tickets opened", "Tickets resolved", "CSAT (1–5)"],
    ["H2 2024", "", "", ""],
    ["P1 – Urgent", "118", "117", "4.25"],
    ["P2 – High", "1,243", "1,219", "4.33"],
    ["P3 – Normal", "4,862", "4,711", "4.44"],
    ["P4 – Low", "2,054", "1,997", "4.52"],
    ["All priorities", "8,277", "8,044", "4.44"],
])


@pytest.mark.parametrize(("question", "answer"), [
    # `priority` is the category's noun: it names `All priorities` only half, not over `Low`
    ("What was the CSAT for low priority in H2 2024?", "4.52"),
    ("What was the CSAT for all priorities in H2 2024?", "4.44"),
])
def test_the_category_noun_alone_does_not_name_its_total(question: str, answer: str) -> None:
    plan, _ = run(TICKETS, question)
    assert plan.answer == [answer]


def test_the_largest_outflow_on_signed_net_figures_is_the_most_negative() -> None:
    table = Table(text=[
        ["Subregion", "Internal migration", "", ""],
        ["", "Arrivals", "Departures", "Net"],
        ["Central Valley", "12,410", "9,682", "2,728"],
        ["Capital City", "18,220", "20,695", "-2,475"],
        ["Northland", "4,100", "4,512", "-412"],
    ], merges=[(0, 1, 0, 3)])
    plan, _ = run(table, "Which subregion had the largest net internal outflow?")
    assert plan.answer == ["Capital City"]
