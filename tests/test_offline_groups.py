"""Figures under groups: a year over its quarters or measures, a group label merged down the rows, a
label repeated under each group, the members a count ranges over; and words that pick a figure's
kind: money or a count, a surplus or deficit, money spent."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table

CAPITAL = Table(text=[
    ["", "2023", "", "", "", "2024", "", "", ""],
    ["", "Q1", "Q2", "Q3", "Q4", "Q1", "Q2", "Q3", "Q4"],
    ["Common equity tier 1 capital", "14,215", "14,488", "14,702", "14,931", "15,260", "15,544", "15,819",
     "16,107"],
    ["Total risk-weighted assets", "118,400", "119,250", "120,880", "121,510", "122,930", "124,100",
     "125,470", "126,380"],
], merges=[(0, 1, 0, 4), (0, 5, 0, 8)])


@pytest.mark.parametrize(("question", "answer"), [
    # `Q4` under each year: each is named with its own year; `tier 1` names no `Q1`
    ("How much did common equity tier 1 capital increase from Q4 2023 to Q4 2024?", "1,176"),
    ("Percent change in total risk-weighted assets from Q1 2023 to Q4 2024?", "6.7%"),
])
def test_quarters_under_years_are_named_with_their_year(question: str, answer: str) -> None:
    plan, _ = run(CAPITAL, question)
    assert plan.answer == [answer]


DEPOSITS = Table(text=[
    ["Year", "Quarter", "Time deposits ($ millions)", "Net interest income ($ millions)",
     "Net interest margin"],
    ["2022", "Q1", "1,912", "201.4", "3.01%"],
    ["", "Q2", "1,875", "214.8", "3.18%"],
    ["", "Q3", "1,904", "236.9", "3.44%"],
    ["", "Q4", "2,288", "251.2", "3.62%"],
    ["2023", "Q1", "2,940", "248.6", "3.58%"],
    ["", "Q2", "3,512", "239.1", "3.42%"],
    ["", "Q3", "3,690", "228.7", "3.28%"],
    ["", "Q4", "3,940", "235.6", "3.31%"],
], merges=[(1, 0, 4, 0), (5, 0, 8, 0)], title="Quarterly Net Interest Margin and Average Deposits")


@pytest.mark.parametrize(("question", "answer"), [
    # the year merged down the left: a full year is the sum of its quarters; a title naming relative
    # measures (`Margin`, `Average`) says nothing of an amount of money
    ("Total net interest income for full-year 2023?", "952.0"),
    ("How much did time deposits change between Q1 2022 and Q4 2023?", "2,028"),
])
def test_quarters_under_a_year_down_the_rows(question: str, answer: str) -> None:
    plan, _ = run(DEPOSITS, question)
    assert plan.answer == [answer]


STORES = Table(text=[
    ["Banner", "FY2022", "", "", "FY2023", "", "", "FY2024", "", ""],
    ["", "Opened", "Closed", "Ending", "Opened", "Closed", "Ending", "Opened", "Closed", "Ending"],
    ["GearUp Sports", "5", "2", "140", "7", "3", "144", "5", "4", "145"],
    ["Pennywise Outlet", "12", "25", "610", "9", "28", "591", "10", "31", "570"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 6), (0, 7, 0, 9)])


@pytest.mark.parametrize(("question", "answer"), [
    ("Across FY2022–FY2024 combined, how many GearUp Sports stores opened?", "17"),  # `Opened` each year
    ("Pennywise Outlet closures in fiscal 2024?", "31"),  # `closures` names `Closed`
])
def test_a_measure_repeated_under_each_year(question: str, answer: str) -> None:
    plan, _ = run(STORES, question)
    assert plan.answer == [answer]


CIRCULATION = Table(text=[
    ["Location", "FY2023", "", "", "FY2024", "", ""],
    ["", "Print & AV", "Digital", "Total", "Print & AV", "Digital", "Total"],
    ["Central Library", "612,408", "288,915", "901,323", "598,117", "331,460", "929,577"],
    ["Eastgate Branch", "184,230", "61,877", "246,107", "190,874", "72,519", "263,393"],
    ["System total", "796,638", "350,792", "1,147,430", "788,991", "403,979", "1,192,970"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 6)])


def test_a_part_repeated_under_each_year_is_the_named_years() -> None:
    plan, _ = run(CIRCULATION, "What percent of system-wide FY2024 circulation was digital?")
    assert (plan.operation, plan.answer) == ("percent_of", ["33.9%"])


SALES = Table(text=[
    ["Brand / owners", "2022", "2023", "2024", "% chg 2024/2023"],
    ["Burger Summit", "", "", "", ""],
    ["    Company-operated", "$1,322.1", "$1,358.9", "$1,371.4", "0.9%"],
    ["    Franchised", "$9,487.5", "$10,122.8", "$10,604.2", "4.8%"],
    ["    Total system sales", "$10,809.6", "$11,481.7", "$11,975.6", "4.3%"],
    ["Taco Norte", "", "", "", ""],
    ["    Company-operated", "$655.4", "$701.2", "$733.9", "4.7%"],
    ["    Franchised", "$3,422.9", "$3,786.1", "$4,051.6", "7.0%"],
    ["    Total system sales", "$4,078.3", "$4,487.3", "$4,785.5", "6.6%"],
])


def test_a_change_column_is_no_share() -> None:
    """`% chg` gives a change: the share asked is computed, not read off it."""
    question = "In 2024, what share of Burger Summit's system sales came from franchised restaurants (%)?"
    plan, _ = run(SALES, question)
    assert (plan.operation, plan.answer) == ("percent_of", ["88.5%"])


RATIOS = Table(text=[
    ["Segment", "Line of business", "2023", "", "2024", ""],
    ["", "", "Loss ratio", "Combined ratio", "Loss ratio", "Combined ratio"],
    ["Personal lines", "Private passenger auto", "74.5%", "99.2%", "68.8%", "93.1%"],
    ["", "Homeowners", "76.8%", "105.2%", "65.2%", "94.3%"],
    ["", "Total personal lines", "74.8%", "100.8%", "67.6%", "93.5%"],
    ["Commercial lines", "Commercial auto", "77.9%", "108.0%", "80.1%", "109.9%"],
    ["", "General liability", "61.8%", "96.9%", "64.0%", "97.3%"],
    ["", "Commercial property", "71.3%", "104.6%", "58.2%", "90.1%"],
    ["", "All lines", "72.4%", "101.3%", "68.5%", "96.0%"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 3), (0, 4, 0, 5), (2, 0, 3, 0), (5, 0, 7, 0)])


def test_a_total_below_a_merged_group_is_not_the_groups() -> None:
    """`Commercial lines` is merged over its own rows: `All lines` below it is the table's total."""
    g = CellGraph(RATIOS)
    h = infer_headers(g)
    assert [n.text for n in h.row_path(g.node_at(8, 3))] == ["All lines"]
    assert [n.text for n in h.row_path(g.node_at(4, 3))] == ["Personal lines", "Total personal lines"]


def test_a_count_ranges_over_the_members_its_noun_names() -> None:
    """`lines of business` are the labels under `Line of business`, in every segment, less totals."""
    plan, _ = run(RATIOS, "How many individual lines of business ran a combined ratio above 100% in 2023?")
    assert (plan.operation, plan.answer) == ("count", ["3"])


PREMIUMS = Table(text=[
    ["Product", "2024 first-year premiums ($ millions)"],
    ["Individual life", ""],
    ["   Term life", "412.0"],
    ["   Whole life", "1,046.3"],
    ["Annuities", ""],
    ["   Fixed deferred annuities", "2,310.5"],
    ["   Variable annuities", "1,388.0"],
    ["   Single premium immediate annuities", "640.2"],
    ["Total all products", "5,797.0"],
])


def test_a_member_named_in_part_sets_no_group() -> None:
    """`premiums` names `Single premium … annuities` in part: no group is asked, every product counts."""
    plan, _ = run(PREMIUMS, "How many products had first-year premiums over $1,000 million in 2024?")
    assert (plan.operation, plan.answer) == ("count", ["3"])


RECYCLING = Table(text=[
    ["Area", "Waste generated (tonnes)", "Recycled or composted (tonnes)", "Recycling rate"],
    ["Ashdown", "82,950", "34,870", "42.0%"],
    ["Bramley", "21,130", "8,410", "39.8%"],
    ["Fenwick", "60,820", "28,190", "46.3%"],
    ["Greyfield", "38,590", "14,170", "36.7%"],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    (RECYCLING, "How many municipalities recycled more than 40% of their waste?", "2"),  # percentages
    (RECYCLING, "In 2023, how many areas generated more than 50,000 tonnes of waste?", "2"),
    (Table(text=[["Banner", "Q1 2024", "Q2 2024"], ["Northway", "2.1%", "(1.4%)"],
                 ["Trailhead", "0.8%", "2.7%"], ["Pennywise", "(0.6%)", "(2.2%)"],
                 ["Harbor", "1.5%", "(0.3%)"]]),
     "How many banners had negative comparable sales in Q2 2024?", "3"),
])
def test_count_conditions(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("count", [answer])


AWARDS = Table(text=[
    ["Program", "Number of Awards", "Amount Awarded", "Expended to Date", "Percent Expended"],
    ["Community Development Block Grant", "3", "$4,812,000", "$2,906,450", "60.4%"],
    ["HOME Investment Partnerships", "2", "$1,935,500", "$611,220", "31.6%"],
    ["Total", "5", "$6,747,500", "$3,517,670", "52.1%"],
])


@pytest.mark.parametrize(("question", "answer"), [
    ("How much was awarded under the Community Development Block Grant?", "$4,812,000"),
    ("How many awards were made under HOME Investment Partnerships?", "2"),
    ("What percent of the HOME Investment Partnerships award has been spent?", "31.6%"),  # no money asked
])
def test_how_much_reads_the_amount_how_many_the_number(question: str, answer: str) -> None:
    plan, _ = run(AWARDS, question)
    assert plan.answer == [answer]


LOANS = Table(text=[
    ["Loan type", "December 31, 2024", "", ""],
    ["", "Loans", "ACL", "ACL to loans"],
    ["Credit card", "126,774", "8,240", "6.50%"],
    ["Automobile", "402,118", "6,555", "1.63%"],
], merges=[(0, 1, 0, 3)])


@pytest.mark.parametrize(("question", "answer"), [
    # `loans` is the rows' noun (`Loan type`), and the second term of a ratio not asked
    ("What was the allowance for credit losses on credit card loans at December 31, 2024?", "8,240"),
    ("What was ACL to loans for automobile at December 31, 2024?", "1.63%"),
])
def test_the_rows_noun_names_no_column(question: str, answer: str) -> None:
    plan, _ = run(LOANS, question)
    assert plan.answer == [answer]


PLANTS = Table(text=[
    ["Region", "Plant", "Mar 2024", "Apr 2024"],
    ["North America", "Dayton, OH", "431.7", "425.0"],
    ["", "Monterrey, MX", "538.6", "547.1"],
    ["", "Subtotal North America", "970.3", "972.1"],
    ["Europe", "Brno, CZ", "211.9", "187.4"],
    ["", "Łódź, PL", "168.5", "176.3"],
    ["", "Subtotal Europe", "380.4", "363.7"],
    ["Asia", "Penang, MY", "372.8", "365.1"],
    ["", "Subtotal Asia", "372.8", "365.1"],
], merges=[(1, 0, 3, 0), (4, 0, 6, 0), (7, 0, 8, 0)])


@pytest.mark.parametrize(("question", "answer"), [
    # a closing state or country code is not said (`MY` abbreviates no `Monterrey`, `PL` no `plant`)
    ("How many units did the Monterrey plant produce in March 2024?", "538.6"),
    ("How many units did the European plants produce in April 2024 in total?", "363.7"),  # `Europe`
])
def test_place_codes_and_peoples_names(question: str, answer: str) -> None:
    plan, _ = run(PLANTS, question)
    assert plan.answer == [answer]


EMISSIONS = Table(text=[
    ["Party", "Total excluding LULUCF", "LULUCF net emissions/removals", "Total including LULUCF"],
    ["Finland", "46,680", "3,640", "50,320"],
    ["France", "403,860", "(16,450)", "387,410"],
])


@pytest.mark.parametrize(("question", "answer"), [
    ("What was Finland's LULUCF figure?", "3,640"),  # not the total that takes it in
    ("What were Finland's total emissions including LULUCF?", "50,320"),
])
def test_a_total_named_by_what_it_takes_in(question: str, answer: str) -> None:
    plan, _ = run(EMISSIONS, question)
    assert plan.answer == [answer]


AIR = Table(text=[
    ["Station", "Pollutant", "", ""],
    ["", "PM10", "NO2", "O3"],
    ["Central Library", "4", "0", "3"],
    ["Harbour Road", "11", "6", "7"],
    ["Westhill Reservoir", "0", "0", "15"],
], merges=[(0, 1, 0, 3)])


@pytest.mark.parametrize(("question", "answer"), [
    ("How many ozone exceedance days did Westhill Reservoir record?", "15"),  # `O3` (vocabulary)
    ("How many stations had more than 5 days above the ozone standard?", "2"),
])
def test_a_gas_named_by_its_formula(question: str, answer: str) -> None:
    plan, _ = run(AIR, question)
    assert plan.answer == [answer]


TRIANGLE = Table(text=[
    ["Accident", "Development months", "", "", ""],
    ["year", "12", "24", "36", "48"],
    ["2019", "22,722", "43,202", "60,368", "71,689"],
    ["2020", "23,898", "45,343", "61,781", ""],
    ["2021", "24,310", "46,018", "", ""],
], merges=[(0, 1, 0, 4)])


def test_numbers_counting_the_columns_under_a_merged_label_are_headers() -> None:
    """`12 | 24 | 36 | 48` under `Development months`: a header row, not the first data row."""
    assert infer_headers(CellGraph(TRIANGLE)).header_rows == 2
    plan, _ = run(TRIANGLE, "What were cumulative losses for accident year 2019 at 36 months?")
    assert plan.answer == ["60,368"]


TAXES = Table(text=[
    ["Tax type", "FY2021", "FY2022", "FY2023", "FY2024", "Change, FY2023 to FY2024"],
    ["Individual income tax", "11,482.6", "13,905.3", "13,212.8", "13,774.1", "561.3"],
    ["Corporate income tax", "1,604.2", "2,311.7", "2,198.4", "2,046.9", "(151.5)"],
    ["General sales tax", "9,317.5", "10,428.9", "10,866.2", "11,103.7", "237.5"],
    ["Estate tax", "118.4", "131.9", "130.2", "121.6", "(8.6)"],
])


@pytest.mark.parametrize(("question", "answer"), [
    # a change column over other years is no answer to a change between FY2022 and FY2023
    ("Which tax had the largest dollar decline between FY2022 and FY2023?", "Individual income tax"),
    ("What was the average annual estate tax revenue over FY2021–FY2024?", "125.53"),  # every year
])
def test_spans_of_fiscal_years(question: str, answer: str) -> None:
    plan, _ = run(TAXES, question)
    assert plan.answer == [answer]


def test_the_slowest_time_is_the_longest() -> None:
    table = Table(text=[["District", "2023 average response time (minutes)"], ["Central", "6.1"],
                        ["Harbor", "9.7"], ["Northgate", "7.4"]])
    plan, _ = run(table, "Which district had the slowest average response time in 2023?")
    assert plan.answer == ["Harbor"]


WASTE = Table(text=[
    ["Area", "2021/22", "", "2022/23", ""],
    ["", "Waste generated", "Recycling rate", "Waste generated", "Recycling rate"],
    ["Fenwick County", "99,810", "40.9%", "99,410", "42.6%"],
    ["Midwest County", "61,370", "44.8%", "60,820", "46.3%"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])


@pytest.mark.parametrize(("question", "answer"), [
    # academic years as written; the same measure under each
    ("By how many tonnes did waste generated in Fenwick County change between 2021/22 and 2022/23?", "-400"),
    ("Total waste generated in Fenwick County across 2021/22 and 2022/23", "199,220"),
])
def test_a_measure_under_two_named_years(question: str, answer: str) -> None:
    plan, _ = run(WASTE, question)
    assert plan.answer == [answer]


def test_a_unit_symbol_abbreviates_no_label() -> None:
    """`MW` is no `Midwest`."""
    table = Table(text=[["Region", "State", "Battery storage (MW)"], ["West", "California", "5,210"],
                        ["Midwest", "Illinois", "15"], ["", "Total Midwest", "15"]],
                  merges=[(2, 0, 3, 0)])
    plan, _ = run(table, "Total battery storage MW added in California?")
    assert plan.answer == ["5,210"]


def test_a_rate_the_title_names_is_read_not_computed() -> None:
    """`sales per sq ft` under a title giving net sales per selling square foot: a change of the
    figures shown, no ratio of two lines."""
    table = Table(text=[["Banner", "2021", "2024"], ["Trailhead Outfitters", "$341", "$309"],
                        ["CasaLinda", "$372", "$359"]],
                  title="Net sales per average selling square foot (dollars)")
    plan, _ = run(table, "How much did Trailhead Outfitters' sales per sq ft fall between 2021 and 2024?")
    assert (plan.operation, plan.answer) == ("diff", ["$32"])


def test_an_average_over_the_members_of_a_named_section() -> None:
    """`across the four major utilities`: the four rows under `Major utilities (…)`."""
    table = Table(text=[
        ["Utility", "Non-revenue water (%)"],
        ["Major utilities (100,000+ connections)", ""],
        ["   Harbour City Water", "11.8%"],
        ["   Northfield Water", "14.7%"],
        ["   Riverbend Utilities", "9.3%"],
        ["   Coastal Regional Water", "16.2%"],
        ["Medium utilities (10,000–100,000 connections)", ""],
        ["   Eastvale Shire Council", "12.4%"],
        ["   Granite Plains Water", "21.4%"],
    ])
    plan, _ = run(table, "What is the average non-revenue water (%) across the four major utilities?")
    assert (plan.operation, plan.answer) == ("average", ["13%"])


TRADE = Table(text=[
    ["Month", "Exports", "Imports", "Balance"],
    ["Jan", "5,205", "5,877", "(672)"],
    ["Feb", "5,410", "5,122", "288"],
    ["Mar", "5,688", "6,894", "(1,206)"],
    ["Apr", "5,902", "5,651", "251"],
    ["May", "5,511", "5,840", "(329)"],
])


@pytest.mark.parametrize(("question", "answer"), [
    ("How many months recorded a trade surplus?", "2"),  # a surplus or deficit is a balance's sign
    ("Which month had the largest trade deficit?", "Mar"),
    ("In how many months were exports at least 5,500?", "3"),  # the bound is met too
])
def test_surpluses_deficits_and_bounds_met(question: str, answer: str) -> None:
    plan, _ = run(TRADE, question)
    assert plan.answer == [answer]


@pytest.mark.parametrize(("table", "question", "answer"), [
    (Table(text=[["Fiscal Year", "Shares Repurchased", "Amount Repurchased"],
                 ["2023", "24.8", "$4,268"], ["2024", "27.3", "$4,985"]]),
     "How much did the company spend repurchasing shares in fiscal 2023?", "$4,268"),  # money, not shares
    (Table(text=[["", "2024", "2023", "2022"],
                 ["Acquisitions, net of cash acquired", "(420)", "(2,150)", "(380)"],
                 ["Purchases of property and equipment", "(1,310)", "(1,205)", "(1,120)"]]),
     "In which year did the company spend the most on acquisitions, net of cash acquired?", "2023"),
])
def test_money_spent(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert plan.answer == [answer]


LIFE = Table(text=[
    ["Geography", "2018–2020", "", "2019–2021", "", "2020–2022", ""],
    ["", "Males", "Females", "Males", "Females", "Males", "Females"],
    ["Canada", "79.8", "84.1", "79.5", "84.0", "79.3", "83.8"],
    ["Saskatchewan", "77.5", "82.1", "76.9", "81.8", "76.4", "81.4"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 5, 0, 6)])


def test_spans_of_several_years_are_periods() -> None:
    plan, _ = run(LIFE, "By how many years did male life expectancy at birth in Saskatchewan fall between "
                        "2018–2020 and 2020–2022?")
    assert (plan.operation, plan.answer) == ("diff", ["1.1"])


VISITS = Table(text=[
    ["Triage level", "2022–23", "", "", "", ""],
    ["", "Q1", "Q2", "Q3", "Q4", "Year"],
    ["Level 1 – Resuscitation", "6.1", "6.3", "6.0", "6.4", "24.8"],
    ["Level 3 – Urgent", "712.5", "730.1", "748.2", "713.0", "2,903.8"],
], merges=[(0, 1, 0, 5)])


@pytest.mark.parametrize(("question", "answer"), [
    ("What was the total number of urgent (Level 3) ED visits for fiscal 2022–23?", "2,903.8"),  # no `Q3`
    ("Add up Level 3 visits over all four quarters of 2022–23.", "2,903.8"),
])
def test_a_quarter_is_named_as_a_quarter(question: str, answer: str) -> None:
    plan, _ = run(VISITS, question)
    assert plan.answer == [answer]


def test_seasons_name_years_not_falls() -> None:
    table = Table(text=[["Broad field", "Fall 2019", "Fall 2023"], ["Education", "76.3%", "77.1%"],
                        ["Engineering", "24.1%", "26.2%"]])
    plan, _ = run(table, "By how many percentage points did the share of women in engineering change "
                         "between fall 2019 and fall 2023?")
    assert plan.answer == ["2.1%"]


def test_the_largest_decline_with_words_between() -> None:
    table = Table(text=[["HS chapter", "Year to date 2024", "Year to date 2023", "Change, %"],
                        ["27 – Mineral fuels", "2,290,598", "2,541,002", "-9.9%"],
                        ["84 – Machinery", "4,310,550", "4,102,870", "5.1%"],
                        ["87 – Vehicles", "3,020,110", "3,101,500", "-2.6%"]])
    plan, _ = run(table, "Which HS chapter recorded the largest year-to-date percentage decline versus 2023?")
    assert plan.answer == ["27 – Mineral fuels"]


@pytest.mark.parametrize(("table", "question", "answer"), [
    (Table(text=[["Age group", "Males", "Females"], ["0–14", "3.1", "2.9"], ["15–44", "4.2", "4.6"],
                 ["45–64", "5.8", "6.1"], ["65+", "8.4", "9.0"], ["All ages", "5.5", "5.9"]]),
     "In how many age groups was the female average length of stay longer than the male one?", "3"),
    (Table(text=[["Country", "2019", "2022", "2023"], ["United Kingdom", "398,120", "361,044", "422,240"],
                 ["Germany", "471,905", "455,310", "494,489"], ["Japan", "212,400", "98,120", "180,300"]]),
     "How many countries had surpassed their 2019 arrivals level in 2023?", "2"),
])
def test_a_count_against_each_members_own_figure_on_another_line(table: Table, question: str,
                                                                 answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("count", [answer])


def test_a_line_out_of_the_items_a_total_adds_up_is_no_member() -> None:
    table = Table(text=[["", "2023", "2022"], ["  Cost of revenue", "131", "112"],
                        ["  Research and development", "1,108", "942"],
                        ["  Sales and marketing", "540", "486"],
                        ["Total stock-based compensation", "$1,779", "$1,540"],
                        ["Income tax benefit", "(441)", "(383)"],
                        ["Stock-based compensation expense, net of tax", "$1,338", "$1,157"]])
    question = "Which functional line item had the lowest stock-based compensation expense in 2022?"
    plan, _ = run(table, question)
    assert plan.answer == ["Cost of revenue"]


def test_a_which_question_names_its_column_by_the_noun_after_an_adjective() -> None:
    """`which detailed field`: the labels under `Field of study`, not the merged broad fields."""
    table = Table(text=[
        ["Broad field (ISCED-F 2013)", "Field of study", "Full-time women"],
        ["Education", "Teacher training", "9,874"],
        ["", "Education science", "2,763"],
        ["Business, administration and law", "Business and administration", "23,915"],
        ["", "Law", "6,120"],
    ], merges=[(1, 0, 2, 0), (3, 0, 4, 0)])
    plan, _ = run(table, "Which detailed field of study had the largest number of full-time women?")
    assert plan.answer == ["Business and administration"]


def test_how_many_units_more_than_another_line_is_a_difference() -> None:
    table = Table(text=[["", "Men (minutes)", "Women (minutes)"], ["Paid work", "398", "343"],
                        ["Outdoor cleaning", "166", "99"], ["Shopping", "82", "87"]])
    plan, _ = run(table, "How many minutes do men spend more than women on outdoor cleaning?")
    assert (plan.operation, plan.answer) == ("diff", ["67"])


def test_a_section_after_another_sections_total_is_a_member() -> None:
    """Brands heading their own indented lines and totals: the next brand is no line past a total."""
    table = Table(text=[
        ["Brand / ownership", "2023", "2024"],
        ["Burger Summit", "", ""], ["    Company-operated", "691", "684"],
        ["    Franchised", "6,402", "6,531"],
        ["    Total restaurants", "7,093", "7,215"],
        ["Taco Norte", "", ""], ["    Company-operated", "312", "318"], ["    Franchised", "2,203", "2,248"],
        ["    Total restaurants", "2,515", "2,566"],
        ["Daybreak Café", "", ""], ["    Company-operated", "95", "97"], ["    Franchised", "402", "418"],
        ["    Total restaurants", "497", "515"],
    ])
    plan, _ = run(table, "Which brand had the smallest total restaurant count at the end of 2024?")
    assert plan.answer == ["Daybreak Café"]
