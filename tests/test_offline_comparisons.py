"""Comparisons between lines and the members they range over: counts of members beyond their own
figure on another line (`more digital than print`, `over budget in February`, `below the prior
year`, `ARPU decline from FY2023 to FY2024`), rankings among a group the question names (`among the
fixed income funds`, `which of the four regions`), sums and averages over such a group (`the fixed
income funds combined`, `across the equity funds`), the side a ranking ranges over (segments beside
a named line), arithmetic the question spells out (`A minus B`, `beat B by`, `leaving out X`),
spans of marketing years, a count's bound in another scale than the table's, and a lookup read where
members are counted."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.server.offline.operations import asked_category, stated_members
from celltrace.shared.table import Table

PAY = Table(text=[
    ["", "Women", "", "Men", ""],
    ["Job family", "Headcount", "Median base", "Headcount", "Median base"],
    ["Engineering", "177", "165,000", "184", "158,500"],
    ["Analytics", "195", "88,500", "297", "99,500"],
    ["Design", "68", "126,500", "211", "130,000"],
    ["Marketing", "81", "144,500", "308", "142,500"],
    ["Finance", "215", "133,000", "273", "139,000"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])  # fmt: skip


def test_a_count_against_another_line_compares_the_lines_the_question_orders() -> None:
    """`women … higher than the men's`: the lines differ by their group (`Women`, `Men`), not by
    their own label (`Median base` under each); `men` is no word of `women`."""
    plan, _ = run(PAY, "In how many job families is the women's median base higher than the men's?")
    assert plan.operation == "count" and plan.answer == ["2"]


BUDGET = Table(text=[
    ["", "January", "", "February", "", "Q1 Total", ""],
    ["Category", "Budget", "Actual", "Budget", "Actual", "Budget", "Actual"],
    ["Groceries", "800", "845", "800", "790", "2,400", "2,480"],
    ["Dining out", "250", "230", "250", "310", "750", "790"],
    ["Fuel", "220", "240", "220", "250", "660", "700"],
    ["Clothing", "150", "120", "150", "95", "450", "300"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 5, 0, 6)])  # fmt: skip


def test_a_count_over_budget_reads_the_month_the_question_names() -> None:
    plan, _ = run(BUDGET, "How many expense items were over budget in February?")
    assert plan.operation == "count" and plan.answer == ["2"]


SALES = Table(text=[
    ["", "Total", "", "Prior year", ""],
    ["Location", "Covers", "Sales", "Covers", "Sales"],
    ["Midtown", "8,989", "325,696", "8,223", "312,679"],
    ["Harbor Point", "10,613", "458,920", "10,788", "492,667"],
    ["Old Town", "9,792", "411,245", "9,913", "378,801"],
    ["Lakeview", "10,380", "291,543", "10,859", "314,868"],
    ["Riverside", "9,579", "201,280", "9,279", "178,967"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])  # fmt: skip


def test_a_count_below_the_prior_year_reads_the_prior_year_line() -> None:
    plan, _ = run(SALES, "How many locations had total sales below the prior year?")
    assert plan.operation == "count" and plan.answer == ["2"]


ARPU = Table(text=[
    ["", "Subscribers (000)", "", "", "ARPU ($/month)", "", ""],
    ["Plan", "FY2023", "FY2024", "% chg", "FY2023", "FY2024", "% chg"],
    ["Unlimited Plus", "3,412.6", "3,890.2", "14.0%", "78.40", "80.15", "2.2%"],
    ["Unlimited", "5,120.4", "5,302.7", "3.6%", "64.20", "63.85", "-0.5%"],
    ["Shared 20GB", "2,210.9", "1,874.3", "-15.2%", "48.75", "47.90", "-1.7%"],
    ["Prepaid 5GB", "2,045.7", "1,768.1", "-13.6%", "25.50", "24.80", "-2.7%"],
    ["Pay-as-you-go", "980.3", "842.6", "-14.0%", "12.40", "12.95", "4.4%"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 6)])  # fmt: skip


def test_a_count_of_declines_reads_the_change_line_the_question_names() -> None:
    """`% chg` is a change line; the one under `ARPU` is read, not the subscribers' one."""
    plan, _ = run(ARPU, "How many plans saw ARPU decline from FY2023 to FY2024?")
    assert plan.operation == "count" and plan.answer == ["3"]


STARTS = Table(text=[
    ["Region and division", "Q3", "Q4"],
    ["United States", "333.7", "271.1"],
    ["Northeast", "28.1", "24.9"],
    ["Midwest", "39.8", "25.1"],
    ["South", "190.5", "162.3"],
    ["  South Atlantic", "104.6", "90.3"],
    ["  East South Central", "19.6", "16.1"],
    ["  West South Central", "66.3", "55.9"],
    ["West", "75.3", "58.8"],
    ["  Mountain", "39.9", "31.2"],
    ["  Pacific", "35.4", "27.6"],
])  # fmt: skip


def test_a_ranking_of_as_many_members_as_the_question_says_takes_that_level() -> None:
    plan, _ = run(STARTS, "Which of the four regions had the fewest housing starts in Q4?")
    assert plan.answer == ["Northeast"]


FUNDS = Table(text=[
    ["Category", "Fund", "Ticker", "Net assets ($M)", "5 years"],
    ["Equity", "Large Cap Growth Fund", "ALGIX", "6,842.7", "16.12%"],
    ["", "Equity Income Fund", "AEQIX", "3,215.4", "10.45%"],
    ["", "Small Cap Value Fund", "ASVIX", "942.8", "11.26%"],
    ["Fixed Income", "Core Bond Fund", "ACBIX", "8,104.6", "0.71%"],
    ["", "Short Duration Fund", "ASDIX", "2,433.0", "2.14%"],
    ["", "High Yield Fund", "AHYIX", "1,120.5", "4.38%"],
], merges=[(1, 0, 3, 0), (4, 0, 6, 0)])  # fmt: skip


def test_a_ranking_among_a_named_group_of_records() -> None:
    """The rows' own `Fund | Ticker` labels head one row each: no group; `Fixed Income` is one."""
    plan, _ = run(FUNDS, "Among the fixed income funds, which had the best 5-year return?")
    assert plan.answer == ["High Yield Fund"]


def test_a_sum_over_the_funds_of_a_named_group() -> None:
    plan, _ = run(FUNDS, "Total net assets of the fixed income funds combined ($M)?")
    assert plan.operation == "sum" and plan.answer == ["11,658.1"]


LINEUP = Table(text=[
    ["Category", "Fund", "Net assets ($M)", "Average annual total return", ""],
    ["", "", "", "1 year", "5 years"],
    ["Equity", "Growth Fund", "6,842.7", "28.94%", "16.12%"],
    ["", "Income Fund", "3,215.4", "13.87%", "10.45%"],
    ["", "Value Fund", "942.8", "7.68%", "11.26%"],
    ["Fixed Income", "Bond Fund", "8,104.6", "6.12%", "0.71%"],
    ["", "High Yield Fund", "1,120.5", "10.46%", "4.38%"],
], merges=[(0, 3, 0, 4), (2, 0, 4, 0), (5, 0, 6, 0)])  # fmt: skip


def test_an_average_across_named_members_where_a_label_says_average() -> None:
    """`Average annual total return` is a label, but `average … across the equity funds` asks the
    mean of the funds under `Equity`."""
    plan, _ = run(LINEUP, "What was the simple average 1-year return across the equity funds?")
    assert plan.operation == "average" and plan.answer == ["16.83%"]


RATES = Table(text=[
    ["Type of violation", "Atlantic", "", "Prairie provinces", "", "", "Canada"],
    ["", "N.S.", "N.B.", "Man.", "Sask.", "Alta.", ""],
    ["Violent violations", "1,587", "1,690", "2,950", "2,688", "1,742", "1,368"],
    ["Property violations", "3,402", "3,895", "6,411", "7,012", "5,384", "3,310"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 5)])  # fmt: skip


def test_a_count_bound_in_millions_on_a_table_in_thousand_metric_tonnes() -> None:
    ports = Table(text=[
        ["Port", "Inward", "Outward"],
        ["Halifax", "18,204", "9,870"],
        ["Saint John", "24,511", "6,112"],
        ["Montreal", "21,930", "14,006"],
        ["Quebec", "15,870", "11,240"],
    ], title="Seaborne cargo handled at selected ports\nThousand metric tonnes")  # fmt: skip
    plan, _ = run(ports, "How many ports discharged more than 20 million tonnes of inward cargo?")
    assert plan.operation == "count" and plan.answer == ["2"]


def test_a_count_of_provinces_keeps_the_abbreviations_it_cannot_read() -> None:
    """`Man.` is Manitoba (the word `man` reads as `male`): counted with the other Prairie provinces."""
    plan, _ = run(RATES, "How many of the Prairie provinces had a violent crime rate above 2,000?")
    assert plan.operation == "count" and plan.answer == ["2"]


VOTES = Table(text=[
    ["Region", "Electoral district", "Liberal", "Conservative", "Total valid votes"],
    ["Northern", "Algoma", "6,412", "9,870", "29,820"],
    ["", "Nipissing", "7,790", "14,220", "30,583"],
    ["", "Timmins", "2,874", "8,031", "17,933"],
    ["", "Total, Northern region", "17,076", "32,121", "78,336"],
    ["Central", "Barrie", "9,015", "19,876", "40,263"],
    ["", "Simcoe North", "10,433", "20,511", "43,986"],
    ["", "Total, Central region", "19,448", "40,387", "84,249"],
], merges=[(1, 0, 4, 0), (5, 0, 7, 0)])  # fmt: skip


def test_which_one_among_the_districts_of_a_named_region() -> None:
    plan, _ = run(VOTES, "Among the Northern region districts, which one had the most total valid votes?")
    assert plan.answer == ["Nipissing"]


def test_by_how_many_votes_one_beat_the_other() -> None:
    plan, _ = run(VOTES, "By how many votes did the Conservative candidate beat the Liberal in Barrie?")
    assert plan.operation == "diff" and plan.answer == ["10,861"]


SEGMENTS = Table(text=[
    ["", "Powertrain", "", "Automation", "", "Consolidated", ""],
    ["", "FY2024", "FY2023", "FY2024", "FY2023", "FY2024", "FY2023"],
    ["Net sales", "4,812.6", "4,655.3", "2,934.1", "3,102.8", "7,746.7", "7,758.1"],
    ["Cost of sales", "4,018.9", "3,842.7", "2,011.5", "2,140.2", "6,030.4", "5,982.9"],
    ["Operating income", "311.4", "335.6", "392.0", "454.1", "703.4", "789.7"],
    ["Net income", "201.8", "220.4", "260.3", "301.7", "462.1", "522.1"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 5, 0, 6)])  # fmt: skip


def test_which_segment_ranks_the_groups_over_the_named_year() -> None:
    """The year heads a line under each segment and the question names a row whole: the segments
    are ranked on that row, not the rows on one segment's column."""
    plan, _ = run(SEGMENTS, "Which segment earned the highest operating income in FY2024?")
    assert plan.answer == ["Automation"]


PROPERTY = Table(text=[
    ["", "2024", "", "", ""],
    ["", "Office", "Retail", "Multifamily", "Total"],
    ["Rental revenue", "184,326", "96,415", "121,558", "402,299"],
    ["Property expenses:", "", "", "", ""],
    ["  Operating expenses", "52,466", "21,804", "38,917", "113,187"],
    ["  Real estate taxes", "27,815", "14,209", "15,376", "57,400"],
    ["  Insurance", "4,382", "2,506", "4,891", "11,779"],
    ["Total property expenses", "84,663", "38,519", "59,184", "182,366"],
], merges=[(0, 1, 0, 4)])  # fmt: skip


def test_a_total_named_whole_is_compared_not_ranked() -> None:
    plan, _ = run(PROPERTY, "Which segment had the smallest total property expenses in 2024?")
    assert plan.answer == ["Retail"]


def test_leaving_out_a_line_is_the_total_less_it() -> None:
    plan, _ = run(PROPERTY, "Leaving out insurance, what were Office's total property expenses in 2024?")
    assert plan.answer == ["80,281"]


PLAN_ASSETS = Table(text=[
    ["", "2024", "2023"],
    ["Change in benefit obligation", "", ""],
    ["  Service cost", "62", "71"],
    ["  Interest cost", "211", "198"],
    ["Change in plan assets", "", ""],
    ["  Actual return on plan assets", "198", "245"],
    ["  Employer contributions", "75", "80"],
])  # fmt: skip


def test_a_minus_b_is_computed_even_under_a_change_label() -> None:
    """`Change in plan assets` names a change, but `minus` asks the difference of two lines."""
    plan, _ = run(PLAN_ASSETS, "2024: actual return on plan assets minus interest cost?")
    assert plan.operation == "diff" and plan.answer == ["-13"]


EXPENSES = Table(text=[
    ["", "FY 2021", "FY 2022", "FY 2023", "FY 2024 (unaudited)"],
    ["Benefit payments", "184,913", "195,067", "206,390", "219,845"],
    ["Administrative expenses", "4,512", "4,688", "4,901", "5,194"],
])  # fmt: skip


def test_an_average_over_a_span_whose_end_carries_a_status() -> None:
    """`FY 2024 (unaudited)` is a year: the span's middle years are averaged too."""
    plan, _ = run(EXPENSES, "Average annual administrative expenses over FY 2021–FY 2024?")
    assert plan.operation == "average" and plan.answer == ["4,823.8"]


REVENUE = Table(text=[
    ["Year ended December 31,", "2022", "2023"],
    ["Operating revenue:", "", ""],
    ["  Freight revenue", "2,512.3", "2,398.7"],
    ["  Fuel surcharge revenue", "471.9", "389.2"],
    ["  Accessorial and other", "112.8", "118.5"],
    ["Total operating revenue", "3,097.0", "2,906.4"],
])  # fmt: skip


def test_excluding_a_line_named_by_its_own_words() -> None:
    """`excluding fuel surcharge` names `Fuel surcharge revenue` (its other word is the total's)."""
    plan, _ = run(REVENUE, "What was 2023 operating revenue excluding fuel surcharge?")
    assert plan.answer == ["2,517.2"]


CORN = Table(text=[
    ["Item (million bushels)", "2019/20", "2020/21", "2021/22", "2022/23"],
    ["Production", "13,620", "14,111", "15,074", "13,651"],
    ["Exports", "1,777", "2,747", "2,471", "1,661"],
    ["Average market-year price received by farmers ($/bushel)", "3.56", "4.53", "6.00", "6.54"],
])  # fmt: skip


def test_an_average_over_a_span_of_marketing_years() -> None:
    """`2019/20 through 2021/22` names two period lines whole: the three are averaged, whatever the
    `Average … price` label says."""
    plan, _ = run(CORN, "What was the average farm price of corn over 2019/20 through 2021/22?")
    assert plan.operation == "average" and plan.answer == ["4.697"]


def test_which_marketing_year_asks_a_year() -> None:
    """`marketing` qualifies the year asked: the years are ranked, not the items."""
    supply = Table(text=CORN.text[:3])
    plan, _ = run(supply, "Which marketing year had the smallest corn exports?")
    assert plan.answer == ["2022/23"]


SCORECARD = Table(text=[
    ["Metric", "Unit", "Reno DC", "", "Joliet DC", "", "Savannah DC", ""],
    ["", "", "FY2022", "FY2023", "FY2022", "FY2023", "FY2022", "FY2023"],
    ["Orders shipped", "orders", "412,350", "436,910", "688,720", "671,045", "295,480", "341,220"],
    ["Dock-to-stock time", "hours", "22.6", "19.8", "18.4", "17.9", "31.2", "26.5"],
    ["Cost per order", "$", "10.21", "10.53", "8.80", "8.95", "12.40", "11.96"],
], merges=[(0, 2, 0, 3), (0, 4, 0, 5), (0, 6, 0, 7)])  # fmt: skip


def test_which_group_ranks_on_a_line_named_beside_its_unit() -> None:
    """The line's own label is its unit (`hours`); the metric named whole beside it fixes the line
    and the distribution centres over each year are ranked."""
    plan, _ = run(SCORECARD, "Which distribution center had the shortest dock-to-stock time in FY2023?")
    assert plan.answer == ["Joliet DC"]


MAYOR = Table(text=[
    ["Ward", "Anderson", "Bishop", "Dubois", "Total votes"],
    ["Ward 1", "5,120", "7,432", "2,981", "15,533"],
    ["Ward 2", "6,244", "5,870", "7,377", "19,491"],
    ["Ward 3", "4,015", "6,981", "7,214", "18,210"],
    ["Ward 4", "7,120", "4,388", "2,410", "13,918"],
])  # fmt: skip


def test_a_figure_read_where_members_are_counted_is_not_trusted() -> None:
    """`in how many wards`: no count is found, so whatever cell is read (`first` names `Ward 1`) is
    some other figure, held below the answer threshold."""
    plan, _ = run(MAYOR, "In how many wards did Dubois finish first?")
    assert plan.operation != "count"
    assert plan.confidence <= 0.5


@pytest.mark.parametrize(("question", "stated"), [
    ("Which of the four regions had the fewest starts?", 4),
    ("Among the 3 treatment arms, which had the most responders?", 3),
    ("Which region had the fewest starts?", None),
])
def test_members_the_question_says_there_are(question: str, stated: int | None) -> None:
    assert stated_members(question) == stated


@pytest.mark.parametrize(("question", "noun"), [
    ("Which marketing year ended with the smallest corn ending stocks?", "year"),
    ("Which fiscal quarter had the most revenue?", "quarter"),
    ("Among the Northern region districts, which one had the most votes?", "districts"),
    ("Which one had the most votes?", None),
    ("Which province had the most votes?", "province"),
])
def test_the_noun_a_which_question_asks(question: str, noun: str | None) -> None:
    assert asked_category(question) == noun
