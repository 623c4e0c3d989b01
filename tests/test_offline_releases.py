"""Tables of statistical releases and filings: a month against the one a year or a month earlier, a
roll-forward with dashes for nil, footnote marks, counts and rankings that name or leave out members,
sums over the lines a phrase or a group names, measures repeated under each member, sample sizes
beside arm names."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.shared.detect import locate
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table

SPENDING = Table(text=[
    ["Type of construction", "Dec 2023 (p)", "Nov 2023 (r)", "Oct 2023 (r)", "Dec 2022",
     "Dec 2023 percent change from —", ""],
    ["", "", "", "", "", "Nov 2023", "Dec 2022"],
    ["Total construction", "2,004,120", "1,987,300", "1,970,450", "1,820,960", "0.8", "10.1"],
    ["  Residential", "912,400", "905,770", "899,010", "861,350", "0.7", "5.9"],
    ["  Nonresidential", "1,091,720", "1,081,530", "1,071,440", "959,610", "0.9", "13.8"],
    ["  Highway and street", "141,380", "139,020", "137,250", "126,400", "1.7", "11.9"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 1, 2), (0, 3, 1, 3), (0, 4, 1, 4), (0, 5, 0, 6)])


@pytest.mark.parametrize(("question", "answer"), [
    # a month said relative to the one named: `a year earlier` is Dec 2022, month-over-month Nov 2023;
    # `Dec 2022` is not named by the December of `December 2023`
    ("How much did nonresidential spending change in Dec 2023 compared with a year earlier, in percent?",
     "13.8"),
    ("What was the month-over-month percent change in residential spending in December 2023?", "0.7"),
    # months under a status mark (`(r)`) are months: from October to December is December less October
    ("By how much did highway and street spending increase from October 2023 to December 2023?", "4,130"),
])
def test_months_against_earlier_months(question: str, answer: str) -> None:
    plan, _ = run(SPENDING, question)
    assert plan.answer == [answer]


EQUITY = Table(text=[
    ["", "Common Stock", "", "Additional Paid-in Capital", "Retained Earnings", "Total Equity"],
    ["", "Shares", "Amount", "", "", ""],
    ["Balance at December 31, 2022", "301.4", "3.0", "5,102.6", "11,406.2", "16,511.8"],
    ["Net income", "—", "—", "—", "1,804.5", "1,804.5"],
    ["Other comprehensive loss", "—", "—", "—", "—", "(214.3)"],
    ["Cash dividends declared", "—", "—", "—", "(612.0)", "(612.0)"],
    ["Stock-based compensation", "—", "—", "131.7", "—", "131.7"],
    ["Balance at December 31, 2023", "298.9", "3.0", "5,234.3", "13,210.7", "18,448.0"],
], merges=[(0, 1, 0, 2)], title="Consolidated Statements of Shareholders' Equity (in millions)")


def test_dashes_for_nil_are_figures_not_labels() -> None:
    """Columns holding mostly `—` are figure columns: only the row labels head the rows."""
    assert infer_headers(CellGraph(EQUITY)).header_cols == 1


@pytest.mark.parametrize(("question", "answer"), [
    ("What were retained earnings at December 31, 2022?", "11,406.2"),
    # the end of a year is its December 31 balance
    ("What was total equity at the end of 2023?", "18,448.0"),
])
def test_a_roll_forward_with_dashes(question: str, answer: str) -> None:
    plan, _ = run(EQUITY, question)
    assert plan.answer == [answer]


RECONCILIATION = Table(text=[
    ["", "Q4 2023", "Q4 2022"],
    ["Net income (loss)", "91.3", "(12.4)"],
    ["Interest expense, net", "40.1", "38.8"],
    ["Adjustments:", "", ""],
    ["    Restructuring charges⁽¹⁾", "5.2", "33.7"],
    ["    Stock-based compensation", "19.6", "17.0"],
    ["    Other (income) expense, net⁽⁴⁾", "(2.2)", "3.1"],
    ["Adjusted EBITDA", "248.9", "172.4"],
    ["", "", ""],
    ["(1) Severance and facility costs.", "", ""],
    ["(4) Foreign currency gains and losses.", "", ""],
])


@pytest.mark.parametrize(("question", "answer"), [
    # `⁽⁴⁾` is the mark of note (4): no `4` of `Q4`; the indented items stay under `Adjustments:`
    ("What was net income in Q4 2022?", "(12.4)"),
    ("Excluding stock-based compensation, which adjustment was the largest in Q4 2022?",
     "Restructuring charges"),
])
def test_footnote_marks_in_parentheses(question: str, answer: str) -> None:
    plan, _ = run(locate(RECONCILIATION, question), question)
    assert plan.answer == [answer]


TENURE = Table(text=[
    ["Area", "", "Own outright", "Mortgage", "Private renters"],
    ["North", "North East", "402", "296", "210"],
    ["", "North West", "1,041", "852", "611"],
    ["South", "London", "779", "911", "1,102"],
    ["", "South East", "1,460", "1,139", "795"],
    ["", "South West", "917", "598", "466"],
    ["England", "", "4,599", "3,796", "3,184"],
], merges=[(1, 0, 2, 0), (3, 0, 5, 0), (6, 0, 6, 1), (0, 0, 0, 1)])


@pytest.mark.parametrize(("question", "answer"), [
    # `England` adds up the regions grouped under `North` and `South`: no member; a region is the
    # row's own label, not the group merged over it
    ("Which region has the largest number of households that own outright?", "South East"),
    ("Which region has the fewest private renters?", "North East"),
])
def test_a_total_below_grouped_regions(question: str, answer: str) -> None:
    plan, _ = run(TENURE, question)
    assert plan.answer == [answer]


EXPENSES = Table(text=[
    ["Expense category", "2022", "2023"],
    ["Feed", "71.2", "74.9"],
    ["Seed", "23.1", "25.4"],
    ["Hired labor", "43.0", "45.8"],
    ["Other expenses", "110.4", "118.3"],
    ["Total production expenses", "247.7", "264.4"],
])


def test_a_ranking_leaves_out_what_the_question_excludes() -> None:
    plan, _ = run(EXPENSES, "Which expense category was the largest in 2023, not counting other expenses?")
    assert plan.answer == ["Feed"]


CHARGE_OFFS = Table(text=[
    ["", "Nonaccrual loans", "", "Net charge-offs", ""],
    ["", "2023", "2022", "2023", "2022"],
    ["Commercial and industrial", "205", "181", "92", "70"],
    ["Residential mortgage", "171", "196", "3", "1"],
    ["Credit card", "0", "0", "187", "119"],
    ["Automobile", "44", "39", "81", "50"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])


def test_the_period_a_ranking_names_is_fixed() -> None:
    """`in 2023` fixes the column: the segments are ranked, not the years."""
    plan, _ = run(CHARGE_OFFS, "Which loan segment had the largest net charge-offs in 2023?")
    assert plan.answer == ["Credit card"]


RESULTS = Table(text=[
    ["Constituency", "Electorate", "Labour", "", "Conservative", "", "Green", ""],
    ["", "", "Votes", "Share", "Votes", "Share", "Votes", "Share"],
    ["Ashford North", "73,412", "18,904", "42.1%", "11,237", "25.0%", "2,410", "5.4%"],
    ["Carrow Valley", "76,105", "12,045", "24.8%", "19,876", "41.0%", "3,119", "6.4%"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 3), (0, 4, 0, 5), (0, 6, 0, 7)])


def test_a_measure_repeated_under_each_member() -> None:
    """`votes` names the `Votes` column under each party: the parties are ranked on them."""
    plan, _ = run(RESULTS, "Which party won the most votes in Carrow Valley?")
    assert plan.answer == ["Conservative"]


EVENTS = Table(text=[
    ["Preferred term", "Placebo\n(N=150)", "", "Drug 10 mg\n(N=151)", "", "Drug 20 mg\n(N=148)", ""],
    ["", "n", "%", "n", "%", "n", "%"],
    ["Nausea", "11", "7.3", "23", "15.2", "34", "23.0"],
    ["Headache", "20", "13.3", "21", "13.9", "24", "16.2"],
    ["Fatigue", "12", "8.0", "17", "11.3", "13", "8.8"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 0, 4), (0, 5, 0, 6)])


@pytest.mark.parametrize(("question", "answer"), [
    # a sample size beside an arm's name is no word of it
    ("By how many percentage points does the nausea rate on 20 mg exceed placebo?", "15.7"),
    # the bound (`10%`) names no `10 mg` arm
    ("How many preferred terms had an incidence above 10% in the Drug 20 mg group?", "2"),
    ("Difference in the headache rate between Drug 10 mg and placebo?", "0.6"),
])
def test_arms_with_sample_sizes(question: str, answer: str) -> None:
    plan, _ = run(EVENTS, question)
    assert plan.answer == [answer]


DEBT = Table(text=[
    ["", "Maturity", "2023", "2022"],
    ["Term loan A", "2026", "700", "750"],
    ["3.250% Senior notes due 2025", "2025", "600", "600"],
    ["4.125% Senior notes due 2028", "2028", "750", "750"],
    ["5.750% Senior notes due 2030", "2030", "500", "0"],
    ["Finance lease obligations", "Various", "90", "97"],
    ["Total debt", "", "2,640", "2,197"],
])

LEVY = Table(text=[
    ["District type", "Taxing district", "Tax levy"],
    ["Cities", "City of Riverside", "149,472.5"],
    ["", "City of Lakewood", "92,057.2"],
    ["", "City of Fairview", "44,385.2"],
    ["Special districts", "North Fire District", "33,261.2"],
    ["", "South Road District", "24,407.2"],
], merges=[(1, 0, 3, 0), (4, 0, 5, 0)])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # the lines whose labels say the phrase, or those under the group the plural names
    (DEBT, "What was the combined principal of all senior notes outstanding in 2023?", "1,850"),
    (LEVY, "What is the combined tax levy of the three cities?", "285,914.9"),
])
def test_sums_over_the_lines_a_phrase_names(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert plan.answer == [answer]


PRICES = Table(text=[
    ["Metro area", "2022", "2023"],
    ["Boston", "$648,900", "$626,400"],
    ["Denver", "$601,300", "$588,000"],
    ["Miami", "$512,000", "$561,500"],
    ["Seattle", "$779,000", "$770,100"],
])

JOBS = Table(text=[
    ["Industry", "Sep. 2023", "Sep. 2024", "Change"],
    ["Mining and logging", "642.1", "635.2", "(6.9)"],
    ["Construction", "8,004.3", "8,270.6", "266.3"],
    ["Manufacturing", "12,997.8", "12,927.5", "(70.3)"],
    ["Retail trade", "15,611.0", "15,643.9", "32.9"],
])

COHORTS = Table(text=[
    ["Entry cohort", "Entrants", "Within 2 years", "Within 3 years"],
    ["2016", "12,840", "48.2%", "74.1%"],
    ["2017", "13,215", "49.7%", "75.2%"],
    ["2018", "13,690", "51.1%", "75.8%"],
    ["2019", "14,022", "50.3%", "74.9%"],
])

OCCUPATIONS = Table(text=[
    ["Occupation group", "Men", "Women"],
    ["Management and professional", "$1,702", "$1,259"],
    ["Service", "$812", "$690"],
    ["Sales and office", "$1,034", "$845"],
    ["Construction and maintenance", "$1,050", "$902"],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # a fall between the two years named, with no change column: each member's later figure
    # against its earlier one
    (PRICES, "How many metro areas saw their median sale price fall from 2022 to 2023?", "3"),
    # fewer than a year earlier: read on the change column
    (JOBS, "How many of the industries had fewer jobs in September 2024 than a year earlier?", "2"),
    # words between the comparison and `than`
    (PRICES, "How many metro areas had a higher price in 2023 than in 2022?", "1"),
    # a possessive modifier; the members named before `how many`
    (COHORTS, "How many master's entry cohorts had a 2-year completion rate above 50%?", "2"),
    (OCCUPATIONS, "Of the four occupation groups, how many had women's earnings above $800?", "3"),
])
def test_counts_of_members(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("count", [answer])


EXPORTS = Table(text=[
    ["HS code", "Description", "2023", "2024"],
    ["10", "Cereals", "1,512.7", "1,430.9"],
    ["12", "Oil seeds", "944.1", "987.5"],
    ["30", "Pharmaceuticals", "3,980.2", "4,412.7"],
    ["72", "Iron and steel", "2,101.4", "1,988.0"],
    ["", "TOTAL EXPORTS", "8,538.4", "8,819.1"],
])
STAFF = Table(text=[
    ["", "2022", "2023", "Increase (Decrease)"],
    ["Revenue passengers (thousands)", "158,121", "165,904", "4.9%"],
    ["Full-time equivalent employees", "99,850", "104,300", "4.5%"],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # a count of members, not arithmetic on a total that its wording also fits
    (EXPORTS, "How many of the chapters listed saw exports decline in 2024 compared with 2023?", "2"),
    # the counted noun names one line: its figure is asked
    (STAFF, "How many employees were added between 2022 and 2023?", "4,450"),
    (EXPORTS, "Total exports grew by what percent between 2023 and 2024?", "3.3%"),
])
def test_counted_members_and_figures(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert plan.answer == [answer]


POLL = Table(text=[
    ["", "Total", "Men", "Women", "London", "North"],
    ["Strongly agree", "6", "7", "5", "9", "4"],
    ["Neither agree nor disagree", "27", "25", "29", "26", "27"],
    ["Strongly disagree", "14", "16", "12", "10", "17"],
    ["NET: Agree", "30", "32", "28", "35", "26"],
    ["NET: Disagree", "36", "38", "34", "29", "41"],
], title="Q14. Does your council provide good value for money?\nUnits: column percentages")


@pytest.mark.parametrize(("question", "answer"), [
    # column percentages: a percentage is read, not computed from them
    ("What percentage of women strongly disagree?", "12"),
    # `disagreement` is `Disagree`; `North` is no `nor`
    ("How many points higher is net disagreement in the North than in London?", "12"),
])
def test_a_poll_in_column_percentages(question: str, answer: str) -> None:
    plan, _ = run(POLL, question)
    assert plan.answer == [answer]


TEACHERS = Table(text=[
    ["School year", "Men", "Women", "Total", "Women (% of total)"],
    ["2019/20", "41,208", "118,934", "160,142", "74.3%"],
    ["2020/21", "40,876", "120,412", "161,288", "74.7%"],
    ["2023/24", "39,517", "124,658", "164,175", "75.9%"],
])


def test_a_growth_percent_names_no_share_column() -> None:
    """`by what percentage did the number of women … increase`: the percent is the growth's."""
    plan, _ = run(TEACHERS, "By what percentage did the number of women teachers increase from 2019/20 "
                            "to 2023/24?")
    assert plan.answer == ["4.8%"]


CPI = Table(text=[
    ["Code", "Component", "Jan 2024", "Feb 2024", "Mar 2024", "Apr 2024"],
    ["00", "All items", "4.0", "3.4", "3.2", "2.3"],
    ["01", "Food", "7.0", "5.0", "4.0", "2.9"],
    ["07", "Transport", "0.6", "1.3", "2.1", "1.6"],
    ["12", "Miscellaneous goods", "4.6", "4.4", "4.2", "3.9"],
], title="CPI: 12-month percentage change by division")


def test_a_number_joined_to_a_unit_of_time_names_no_code() -> None:
    """`12-month` is a duration: no `12` code line."""
    plan, _ = run(CPI, "In how many months of 2024 was the all-items 12-month rate above 3%?")
    assert (plan.operation, plan.answer) == ("count", ["3"])


SNAPSHOT = Table(text=[
    ["Metro", "Avg. asking rent", "", "Vacancy rate", ""],
    ["", "Q4 2022", "Q4 2023", "Q4 2022", "Q4 2023"],
    ["Atlanta", "$1,642", "$1,608", "7.2%", "9.4%"],
    ["Chicago", "$1,842", "$1,919", "5.1%", "5.6%"],
    ["Phoenix", "$1,536", "$1,472", "7.0%", "9.3%"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 0, 4)])


@pytest.mark.parametrize(("question", "answer"), [
    # the quarter a year before under the same measure, not another measure's
    ("How many percentage points did Phoenix's vacancy rate rise over the year to Q4 2023?", "2.3%"),
    # year over year with no year named: the latest quarter's year against the one before
    ("What was year-over-year asking rent growth in Chicago, in percent?", "4.2%"),
])
def test_a_quarter_against_the_same_quarter_a_year_before(question: str, answer: str) -> None:
    plan, _ = run(SNAPSHOT, question)
    assert plan.answer == [answer]


SALES = Table(text=[
    ["Customer class", "Average customers (thousands)", "", "", "Retail sales (GWh)", "", ""],
    ["", "2021", "2022", "2023", "2021", "2022", "2023"],
    ["Residential", "1,284.6", "1,302.9", "1,321.4", "14,812", "15,377", "15,906"],
    ["Commercial", "168.2", "170.4", "172.9", "12,405", "12,960", "13,288"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 3), (0, 4, 0, 6)])
WHEAT = Table(text=[
    ["", "2019/20", "2020/21", "2021/22", "2022/23", "2023/24"],
    ["Production", "1,932", "1,828", "1,646", "1,650", "1,804"],
    ["Exports", "969", "992", "796", "759", "707"],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # `average` over a span of years, though another label holds the word (`Average customers`)
    (SALES, "What was the average annual residential retail sales volume over 2021–2023, in GWh?", "15,365"),
    # marketing years through marketing years: every year between
    (WHEAT, "Average wheat production over the five marketing years 2019/20 through 2023/24?", "1,772"),
])
def test_an_average_over_a_span_of_years(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("average", [answer])


ACCRUED = Table(text=[
    ["", "September 28, 2024", "September 30, 2023"],
    ["Accrued compensation and benefits", "58,417", "61,902"],
    ["Customer rebates and allowances", "18,944", "16,308"],
    ["Income taxes payable", "9,316", "12,048"],
    ["Accrued interest", "3,268", "3,540"],
    ["Other", "11,839", "10,624"],
    ["Total accrued liabilities", "101,784", "104,422"],
], title="Accrued liabilities consisted of the following (in thousands):")
RATES = Table(text=[
    ["Year", "Birth rate", "Death rate"],
    ["2019", "10.1", "7.6"],
    ["2020", "9.8", "8.2"],
    ["2021", "9.9", "8.5"],
    ["2022", "9.6", "8.1"],
    ["2023", "9.4", "7.9"],
], title="Crude rates per 1,000 population")
OPENINGS = Table(text=[
    ["Film", "Opening weekend (£)", "Total to date (£)"],
    ["Small Hours", "2,217,839", "6,402,110"],
    ["Iron Tide", "3,042,716", "8,911,204"],
    ["The Glass Orchard", "1,204,990", "3,300,870"],
    ["Northern Line", "3,517,002", "7,004,330"],
])
REVENUE = Table(text=[
    ["Month", "Revenue budget", "Revenue actual"],
    ["Jan", "410", "402"],
    ["Feb", "415", "431"],
    ["Mar", "430", "446"],
    ["Apr", "440", "437"],
], title="Monthly P&L, budget vs actual ($000)")


@pytest.mark.parametrize(("table", "question", "answer"), [
    # three words before the counted noun; the bound in millions of a table in thousands
    (ACCRUED, "How many accrued liability line items (excluding the total) exceeded $10 million at "
              "September 28, 2024?", "3"),
    # a rate's `per 1,000` after the bound is the bound's, no rate asked
    (RATES, "In how many years was the crude death rate above 8.0 per 1,000?", "3"),
    (OPENINGS, "How many films opened with more than £3m?", "2"),
    # `beat budget`: each month's actual against its budget
    (REVENUE, "In how many months did actual revenue beat budget?", "2"),
])
def test_counts_of_members_against_bounds_and_lines(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert (plan.operation, plan.answer) == ("count", [answer])


VARIANCE = Table(text=[
    ["Department", "March", "", ""],
    ["", "Budget", "Actual", "Variance"],
    ["Operations", "", "", ""],
    ["  Production", "1,300", "1,341", "(41)"],
    ["  Quality Assurance", "190", "184", "6"],
    ["  Total Operations", "1,490", "1,525", "(35)"],
    ["Commercial", "", "", ""],
    ["  Sales", "640", "661", "(21)"],
    ["  Marketing", "380", "372", "8"],
    ["  Total Commercial", "1,020", "1,033", "(13)"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 3)])
SUPPORT = Table(text=[
    ["Week", "Week starting", "Tickets opened", "First response time (hrs)"],
    ["Week 14", "1-Apr-24", "1,184", "2.4"],
    ["Week 15", "8-Apr-24", "1,326", "3.1"],
    ["Week 16", "15-Apr-24", "1,207", "2.7"],
    ["Week 17", "22-Apr-24", "1,142", "2.2"],
    ["Week 22", "27-May-24", "1,301", "2.9"],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # an unfavourable variance is the most negative, over every section's members
    (VARIANCE, "Which department had the largest unfavourable variance in March?", "Production"),
    # `week 22` names `Week 22`, not the day of `22-Apr-24`
    (SUPPORT, "How many tickets were opened in week 22?", "1,301"),
])
def test_variances_and_week_numbers(table: Table, question: str, answer: str) -> None:
    plan, _ = run(table, question)
    assert [a.strip() for a in plan.answer] == [answer]
