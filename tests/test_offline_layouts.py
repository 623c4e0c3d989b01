"""Layouts people publish: counts of members meeting a condition, share-of-total and formula labels,
rankings past a total line, unit rows under periods, sections of one category, periods averaged."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.server.offline import operations as ops
from celltrace.server.offline.grounding import Plan
from celltrace.server.offline.lines import Line, under_aggregate
from celltrace.shared.graph import Node
from celltrace.shared.table import Table


def plan_of(table: Table, question: str) -> Plan:
    return run(table, question)[0]


CAMPAIGNS = Table(text=[
    ["Campaign", "Channel", "Clicks", "CTR"],
    ["Spring Sale - Search", "Paid Search", "12,360", "3.0%"],
    ["Brand Awareness Video", "Social", "15,050", "0.7%"],
    ["Webinar Promo", "Email", "2,030", "3.5%"],
    ["Newsletter Upsell", "Email", "2,880", "4.5%"],
    ["Competitor Keywords", "Paid Search", "3,900", "2.5%"],
    ["Partner Co-marketing", "Display", "2,400", "0.5%"],
])
WARDS = Table(text=[
    ["Ward", "Beds", "Occupancy"],
    ["Ward 1 - General Medicine", "32", "79.0%"], ["Ward 2 - General Surgery", "28", "90.6%"],
    ["Ward 3 - Orthopaedics", "24", "80.9%"], ["Maternity", "20", "91.7%"],
    ["Paediatrics", "18", "94.4%"],
])
HOSPITALS = Table(text=[
    ["Hospital", "Discharges", "Average length of stay (days)", "Patients rating hospital 9-10 (%)"],
    ["Riverside General Hospital", "28,415", "4.6", "71"],
    ["St. Mary's Medical Center", "35,120", "5.1", "68"],
    ["Lakeside Community Hospital", "9,870", "3.9", "76"],
    ["Northgate University Hospital", "46,302", "5.6", "65"],
    ["Pine Valley Regional", "12,544", "4.2", "74"],
    ["National benchmark", "..", "4.5", "72"],
])


@pytest.mark.parametrize(("table", "question", "answer"), [
    # the rows beside each campaign's name (`Channel`) head no group of their own; `CTR` is its own
    # label, not the contraction of `Competitor`
    (CAMPAIGNS, "How many campaigns had a CTR above 2%?", "4"),
    # the counted noun names the members (`Ward 2 - …`) without naming any one of them
    (WARDS, "How many wards had occupancy above 90%?", "3"),
    # a reference line named by its own word (`benchmark`), itself no member; `hospital` in a
    # measured column's label does not make the count one of what that column measures
    (HOSPITALS, "How many hospitals had an average length of stay above the national benchmark?", "3"),
])
def test_a_count_of_the_members_the_counted_noun_names(table: Table, question: str, answer: str) -> None:
    plan = plan_of(table, question)
    assert (plan.operation, plan.answer) == ("count", [answer])


def test_of_two_plurals_the_second_is_the_counted_noun() -> None:
    assert ops.counted_noun("how many sales reps had h1 sales above $330,000?") == "reps"
    assert ops.counted_noun("in how many years was inflation above 2 percent?") == "years"
    assert ops.counted_noun("how many years was inflation above 2 percent?") == "years"  # `was` no noun


TRADE = Table(text=[
    ["Partner", "Exports", "", "Imports", "", "Trade balance"],
    ["", "Value", "Share of total (%)", "Value", "Share of total (%)", "(exports − imports)"],
    ["United States", "48,215.6", "37.4", "39,872.4", "29.2", "8,343.2"],
    ["China", "21,430.9", "16.6", "34,518.7", "25.3", "-13,087.8"],
    ["Germany", "9,873.2", "7.7", "12,045.8", "8.8", "-2,172.6"],
    ["All other countries", "49,353.4", "38.3", "50,034.2", "36.7", "-680.8"],
    ["World", "128,873.1", "100.0", "136,471.1", "100.0", "-7,598.0"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 0, 1, 0)])


@pytest.mark.parametrize(("question", "answer"), [
    ("What were total exports to the world?", "128,873.1"),  # `total` names the share's base
    ("What share of total exports went to China?", "16.6"),  # said by the question too: matched
    ("How much was imported from China?", "34,518.7"),  # a bracketed formula names its operands
])
def test_a_share_of_total_and_a_formula_label_name_no_line(question: str, answer: str) -> None:
    assert plan_of(TRADE, question).answer == [answer]


def test_a_share_of_total_is_no_default_line() -> None:
    def line(*labels: str) -> Line:
        return Line("col", 1, [Node(i, 0, 1, 0, 1, text, None) for i, text in enumerate(labels)])
    assert not under_aggregate(line("Exports", "Share of total (%)"))
    assert under_aggregate(line("Exports", "Total"))


DEBT = Table(text=[
    ["", "2024", "2023"],
    ["4.500% Senior Notes", "1,000", "1,000"], ["5.125% Senior Notes", "800", "—"],
    ["3.250% Senior Notes", "750", "750"], ["Commercial paper", "185", "320"],
    ["Total debt", "2,735", "2,070"],
    ["Less: current portion of long-term debt", "935", "108"],
    ["Long-term debt, net of current portion", "1,800", "1,962"],
])


def test_a_ranking_leaves_out_the_lines_reconciling_a_total() -> None:
    plan = plan_of(DEBT, "Which debt instrument had the largest balance in 2024?")
    assert plan.answer == ["4.500% Senior Notes"]


PERMITS = Table(text=[
    ["", "Total", "", "", "Non-residential", "", ""],
    ["", "November 2024", "December 2024r", "November to December 2024", "November 2024",
     "December 2024r", "November to December 2024"],
    ["", "$ thousands", "$ thousands", "% change", "$ thousands", "$ thousands", "% change"],
    ["Toronto", "2,094,760", "2,214,400", "5.7", "612,450", "588,920", "-3.8"],
    ["Edmonton", "543,930", "566,380", "4.1", "142,780", "129,560", "-9.3"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 6)])


def test_an_amount_asked_in_money_is_computed_under_a_unit_row() -> None:
    # the change column names the span, but a percentage answers no `how many thousand dollars`; the
    # months sit over a unit row and one carries a revision flag (`December 2024r`)
    plan = plan_of(PERMITS, "By how many thousand dollars did the value of non-residential permits in "
                        "Edmonton fall from November to December 2024?")
    assert (plan.operation, plan.answer) == ("diff", ["13,220"])
    assert ops.asks_money("by how many thousand dollars did it fall?")
    assert not ops.asks_money("how many percent did it fall?")


ACCESS = Table(text=[
    ["Household characteristics", "2022"],
    ["All households", "95.1"],
    ["Household income quartile", ""],
    ["Lowest quartile", "87.9"], ["Highest quartile", "99.4"],
    ["Household type", ""],
    ["One-person household", "89.2"], ["Couple with children", "99.3"], ["Lone-parent family", "97.2"],
])


def test_a_which_question_ranks_the_section_its_two_words_name() -> None:
    plan = plan_of(ACCESS, "Which household type had the lowest rate of home internet access in 2022?")
    assert plan.answer == ["One-person household"]


SALES = Table(text=[
    ["Sales rep", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul"],
    ["Priya Shah", "42,500", "39,000", "41,500", "40,000", "43,000", "42,500", "44,000"],
    ["Tom Becker", "61,000", "60,500", "62,000", "63,500", "61,500", "62,000", "60,000"],
])


def test_an_average_over_the_months_of_a_period() -> None:
    plan = plan_of(SALES, "What were Priya Shah's average monthly sales in the first half?")
    assert (plan.operation, plan.answer) == ("average", ["41,416.7"])
    assert plan_of(SALES, "What were Priya Shah's sales in the first half?").answer == ["248,500"]


KPI = Table(text=[
    ["", "Q1 FY2023", "Q2 FY2023"],
    ["New and expansion ARR", "9,840", "10,210"],
    ["Churned and contraction ARR", "(6,120)", "(5,870)"],
])


def test_a_decrease_word_of_the_label_asks_no_magnitude() -> None:
    assert plan_of(KPI, "What was churned and contraction ARR in Q1 FY2023?").answer == ["(6,120)"]
    fall = plan_of(KPI, "By how much did ARR fall from churn and contraction in Q1 FY2023?")
    assert fall.answer == ["6,120"]


STATS = Table(text=[
    ["Year", "Passing", "", "Rushing", ""],
    ["", "att", "yards", "att", "yds"],
    ["1948", "12", "210", "129", "562"],
    ["1949", "8", "0", "208", "1,052"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 0, 1, 0)])


def test_a_label_shortening_a_word_another_label_spells_out_still_matches_it() -> None:
    # `yards` is a whole label under Passing; `yds` under Rushing still names the question's `yards`
    assert plan_of(STATS, "How many rushing yards did he get in 1949?").answer == ["1,052"]


@pytest.mark.parametrize(("question", "noun"), [
    ("How many of the listed partner countries had a trade surplus?", "countries"),
    ("In how many of these years did wind generation exceed 400,000?", "years"),
    ("How many major components had a 12-month change above 4 percent?", "components"),
    ("How many of them were women?", None),
])
def test_the_counted_noun_after_of_the_listed(question: str, noun: str | None) -> None:
    assert ops.counted_noun(question) == noun


def test_a_count_of_members_with_a_surplus_or_a_loss_is_against_zero() -> None:
    assert plan_of(TRADE, "How many of the listed partner countries had a trade surplus?").answer == ["1"]
    # neither `World` nor `All other countries` is a partner
    assert plan_of(TRADE, "How many partner countries had a trade deficit?").answer == ["2"]
    assert ops.count_condition("how many adults have unperceived hearing loss?") is None  # no result


def test_a_total_across_all_the_members_a_plural_names() -> None:
    # every hospital, not the `National benchmark` line (a reference), though a caption says `rates`
    table = Table(text=[row[:2] for row in HOSPITALS.text], title="Selected hospitals, risk-adjusted rates")
    plan = plan_of(table, "What were the total discharges across all five hospitals?")
    assert (plan.operation, plan.answer) == ("sum", ["132,251"])
    assert plan_of(table, "What were the total discharges across all six hospitals?").operation != "sum"
