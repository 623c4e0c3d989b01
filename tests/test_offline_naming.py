"""How labels are named: a name in capitals a label gives itself (`(CASM)`), initials made plural
(`ASMs`), a footnote number in superscript, a unit such as `(1,000 head)`, a short title word that
truncates no label (`net`, not `Netherlands`), a survey's sample sizes and a table's residual lines,
and lines that give no change of their own (`Changes in operating assets and liabilities:`)."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.shared.table import Table

AIRLINE = Table(text=[
    ["Statistic", "2022", "2023"],
    ["Available seat miles (ASMs)", "69,830", "76,415"],
    ["Total revenue per ASM (TRASM)", "16.64", "16.18"],
    ["Operating cost per ASM (CASM)", "15.87", "15.02"],
    ["CASM excluding fuel", "10.92", "10.87"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("How many available seat miles were flown in 2022?", "69,830"),
    ("In 2023, how many cents per ASM were attributable to fuel, i.e. CASM minus CASM excluding fuel?",
     "4.15"),
])
def test_a_name_in_capitals_and_initials_spelled_out(question: str, answer: str) -> None:
    """`available seat miles` names `(ASMs)`, not every label with `ASM` in it; `CASM` names
    `Operating cost per ASM (CASM)`, and the two operands are those said around `minus`."""
    plan, _ = run(AIRLINE, question)
    assert plan.answer == [answer]


PEERS = Table(text=[
    ["Carrier", "RPMs", "ASMs"],
    ["Meridian Air Lines", "231,470", "269,805"],
    ["Frontera Airlines", "30,860", "37,140"],
])  # fmt: skip


def test_initials_made_plural_are_named_by_their_words() -> None:
    plan, _ = run(PEERS, "How many available seat miles did Frontera Airlines fly?")
    assert plan.answer == ["37,140"]


MILK = Table(text=[
    ["State", "2022", "", "2023¹", ""],
    ["", "Q2", "Q3", "Q2", "Q3"],
    ["Idaho", "4,257", "4,092", "4,386", "4,216"],
    ["Wisconsin", "8,019", "7,911", "8,102", "8,010"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])  # fmt: skip


def test_a_footnote_number_in_superscript_is_no_part_of_a_year() -> None:
    plan, _ = run(MILK, "How much milk did Wisconsin produce in the third quarter of 2023?")
    assert plan.answer == ["8,010"]


COWS = Table(text=[
    ["State", "Milk cows (1,000 head)", "", "Milk per cow (pounds)", ""],
    ["", "2022", "2023", "2022", "2023"],
    ["Idaho", "665", "680", "24,812", "25,000"],
    ["Texas", "635", "655", "25,669", "25,802"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])  # fmt: skip


def test_a_unit_in_parentheses_does_not_make_a_label_less_named() -> None:
    plan, _ = run(COWS, "What was the average number of milk cows in Idaho in 2022?")
    assert plan.answer == ["665"]


ODA = Table(text=[
    ["Donor", "2022", "2023"],
    ["DAC EU members", "", ""],
    ["  Germany", "35,624", "37,906"],
    ["  Netherlands", "6,680", "7,361"],
    ["  Subtotal, DAC EU members", "42,304", "45,267"],
    ["Other DAC members", "", ""],
    ["  Japan", "17,500", "19,600"],
    ["  United States", "55,277", "66,040"],
    ["  Subtotal, Other DAC members", "72,777", "85,640"],
    ["Total DAC", "115,081", "130,907"],
], title="A. Net ODA, USD million")  # fmt: skip


def test_a_short_word_of_the_title_truncates_no_label() -> None:
    """`net` is the title's `Net`, not the start of `Netherlands`."""
    plan, _ = run(ODA, "Which donor provided the most net ODA in 2023?")
    assert plan.answer == ["United States"]


POLL = Table(text=[
    ["", "Total", "London", "Scotland"],
    ["Weighted base", "1,720", "238", "147"],
    ["Unweighted base", "1,751", "221", "159"],
    ["Con", "18%", "14%", "12%"],
    ["Lab", "33%", "41%", "27%"],
    ["SNP", "2%", "-", "29%"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("Which party had the highest vote share in Scotland?", "SNP"),
    ("How large was Labour's lead over the Conservatives in London, in points?", "27%"),
])
def test_sample_sizes_are_no_members_and_a_lead_is_a_difference(question: str, answer: str) -> None:
    """The bases are no party; `Lab` and `Con` are named by `Labour` and `Conservatives`."""
    plan, _ = run(POLL, question)
    assert plan.answer == [answer]


CATTLE = Table(text=[
    ["Class", "2023", "2024", "2024 as % of 2023"],
    ["All cattle and calves", "89,708", "88,228", "98.4%"],
    ["Beef cows", "28,918", "28,223", "97.6%"],
    ["Milk cows", "9,400", "9,345", "99.4%"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("What percent of all cattle and calves in 2024 were beef cows?", "32.0%"),
    ("Milk cows: what was the 2024 inventory as a percent of 2023?", "99.4%"),
])
def test_a_percentage_of_another_year_is_no_share_of_a_whole(question: str, answer: str) -> None:
    plan, _ = run(CATTLE, question)
    assert plan.answer == [answer]


WHEAT = Table(text=[
    ["Class", "State", "2023", "2024"],
    ["Soft red winter", "Illinois", "55,200", "52,000"],
    ["", "Ohio", "50,300", "41,800"],
    ["", "Other States", "275,900", "180,400"],
    ["", "Total", "381,400", "274,200"],
    ["Hard red winter", "Kansas", "201,250", "267,900"],
    ["", "Nebraska", "42,300", "37,900"],
    ["", "Montana", "72,000", "56,400"],
    ["", "Other States", "81,000", "82,500"],
    ["", "Total", "396,550", "444,700"],
], merges=[(1, 0, 4, 0), (5, 0, 9, 0)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("Among the soft red winter states listed individually, which produced the most in 2023?", "Illinois"),
    ("How many of the individually listed hard red winter states produced less in 2024 than in 2023?", "2"),
])
def test_members_listed_by_name_leave_the_residual_line_out(question: str, answer: str) -> None:
    plan, _ = run(WHEAT, question)
    assert plan.answer == [answer]


CASH = Table(text=[
    ["", "Year Ended December 31,", ""],
    ["", "2024", "2023"],
    ["Cash flows from operating activities:", "", ""],
    ["  Net income", "318,452", "276,918"],
    ["  Changes in operating assets and liabilities:", "", ""],
    ["    Accounts receivable", "(38,711)", "21,456"],
    ["    Inventories", "(27,509)", "18,832"],
    ["Net cash provided by operating activities", "455,999", "473,211"],
    ["Effect of exchange rate changes on cash", "(2,140)", "1,320"],
    ["Net increase (decrease) in cash and cash equivalents", "40,112", "(15,908)"],
], merges=[(0, 1, 0, 2)])  # fmt: skip


def test_a_section_of_changes_and_an_item_named_by_a_change_give_no_change() -> None:
    """`operating cash flow` (another name of `Net cash provided by operating activities`) changes
    between the two years; neither the working-capital section nor the cash line is that change."""
    plan, _ = run(CASH, "What was the percentage change in operating cash flow from 2023 to 2024?")
    assert plan.answer == ["-3.6%"]


SEGMENTS = Table(text=[
    ["", "2024", "2023", "2022"],
    ["Infrastructure Solutions Group (ISG):", "", "", ""],
    ["  Servers and networking", "19,872", "17,624", "20,714"],
    ["  Storage", "16,438", "16,981", "17,352"],
    ["Total Infrastructure Solutions", "36,310", "34,605", "38,066"],
    ["Client Solutions Group (CSG):", "", "", ""],
    ["  Commercial", "42,311", "41,205", "48,575"],
    ["  Consumer", "6,853", "7,886", "10,341"],
    ["Total Client Solutions", "49,164", "49,091", "58,916"],
])  # fmt: skip


def test_a_heading_with_no_figures_is_its_total_line_below() -> None:
    plan, _ = run(SEGMENTS, "By how much did Client Solutions Group revenue exceed Infrastructure Solutions "
                            "Group revenue in 2022?")
    assert plan.answer == ["20,850"]


DEBT = Table(text=[
    ["", "March 29, 2025", "December 28, 2024"],
    ["Current liabilities:", "", ""],
    ["  Accounts payable", "1,908", "2,136"],
    ["  Current portion of long-term debt", "500", "750"],
    ["  Total current liabilities", "2,408", "2,886"],
    ["Long-term debt", "4,985", "4,481"],
])  # fmt: skip


def test_a_label_said_by_its_head_beside_a_shorter_one_it_holds() -> None:
    """`the current portion and long-term debt`: `Long-term debt` is said on its own too."""
    plan, _ = run(DEBT, "What was total debt, counting both the current portion and long-term debt, at "
                        "March 29, 2025?")
    assert (plan.operation, plan.answer) == ("sum", ["5,485"])


FARM = Table(text=[
    ["Component", "2019", "2022", "2023"],
    ["Operating expenses", "", "", ""],
    ["  Fertilizer and lime", "5,300", "10,100", "9,300"],
    ["  Interest", "3,300", "4,500", "6,400"],
    ["  Rent and other expenses", "12,800", "15,500", "16,200"],
    ["Value of inventory change", "-700", "1,200", "-1,800"],
], title="Net farm income, Canada (millions of dollars)")  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("Which operating expense item increased the most in dollar terms between 2019 and 2023?",
     "Fertilizer and lime"),
    ("Which operating expense item expanded the most from 2022 to 2023?", "Interest"),
])
def test_a_member_named_by_a_change_is_no_change_line_and_category_words_name_no_member(
        question: str, answer: str) -> None:
    """`Value of inventory change` is a member, not the change asked; `expense` of `which operating
    expense item` names no member (`Rent and other expenses`); `expanded` asks a change."""
    plan, _ = run(FARM, question)
    assert plan.answer == [answer]


HEALTH = Table(text=[
    ["Age group", "2019", "", "", "2023", "", ""],
    ["", "Men", "Women", "Total", "Men", "Women", "Total"],
    ["18–29", "7.2", "9.1", "8.1", "8.4", "11.6", "10.0"],
    ["30–44", "9.8", "11.4", "10.6", "10.9", "13.2", "12.0"],
    ["45–64", "16.3", "17.0", "16.7", "17.1", "17.8", "17.5"],
    ["65–74", "22.4", "21.1", "21.7", "21.0", "20.6", "20.8"],
    ["All adults 18+", "13.9", "15.2", "14.6", "14.8", "16.3", "15.6"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 3), (0, 4, 0, 6)],
    title="Adults reporting fair or poor health, by age group and sex (percent)")  # fmt: skip


def test_averaging_the_members_a_question_opens_with() -> None:
    plan, _ = run(HEALTH, "Averaging the four age groups, what was the fair/poor health rate among women in "
                          "2023?")
    assert (plan.operation, plan.answer) == ("average", ["15.8"])


STAFF = Table(text=[
    ["Theme / statement", "2023", "2024", "Civil service benchmark (% favourable)"],
    ["", "% Favourable", "% Favourable", ""],
    ["LEADERSHIP", "", "", ""],
    ["Senior leaders communicate a clear vision", "44%", "49%", "52%"],
    ["I have confidence in senior leaders", "38%", "41%", "47%"],
    ["My manager gives me useful feedback", "69%", "71%", "70%"],
    ["PAY AND BENEFITS", "", "", ""],
    ["I feel fairly paid", "31%", "29%", "38%"],
], merges=[(0, 0, 1, 0), (0, 3, 1, 3)])  # fmt: skip


def test_members_are_counted_against_a_benchmark_column_beside_them() -> None:
    plan, _ = run(STAFF, "How many of the Leadership statements scored below the civil service benchmark in "
                         "2024?")
    assert (plan.operation, plan.answer) == ("count", ["2"])


OUTLOOK = Table(text=[
    ["Expected situation", "2021", "2022", "2023", "2024"],
    ["Net: better off", "36.5", "26.5", "30.6", "34.1"],
    ["Net: worse off", "22.1", "34.5", "29.1", "24.1"],
    ["Total, all adults", "100.0", "100.0", "100.0", "100.0"],
], title="Expected change in household financial situation over the next 12 months (percent)")  # fmt: skip


def test_a_change_in_points_between_two_years_whatever_the_title_says() -> None:
    """The title's `change` is the survey's subject; a change in points between two year columns is
    their difference."""
    plan, _ = run(OUTLOOK, "By how many percentage points did the Net: worse off share change between 2022 "
                           "and 2024?")
    assert plan.answer == ["-10.4"]


WAVES = Table(text=[
    ["Survey wave", "Total approve", "Total disapprove"],
    ["Jan 2023", "44", "51"],
    ["Apr 2023", "42", "53"],
    ["Jan 2024", "41", "54"],
    ["Oct 2024 (p)", "40", "55"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("By how many points did total approval change from the Jan 2023 wave to the Oct 2024 wave?", "-4"),
    ("Average total approve across the two 2023 waves?", "43"),
])
def test_a_month_named_with_its_year_and_waves_counted_in_a_year(question: str, answer: str) -> None:
    """`Jan 2023 … Oct 2024` names no `Jan 2024`; `the two 2023 waves` are the waves of 2023."""
    plan, _ = run(WAVES, question)
    assert plan.answer == [answer]


CPI = Table(text=[
    ["Component", "Jan 2024", "Feb 2024", "Mar 2024", "Jun 2024"],
    ["Food", "158.1", "158.4", "158.9", "159.3"],
    ["Clothing and footwear", "95.1", "96.0", "97.2", "97.9"],
])  # fmt: skip


def test_a_month_said_without_its_year_takes_the_year_said_with_another() -> None:
    """`between January and June 2024` names `Jan 2024`: only months each said with a year are paired."""
    plan, _ = run(CPI, "By how many index points did the food index rise between January and June 2024?")
    assert plan.answer == ["1.2"]
