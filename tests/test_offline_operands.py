"""Operands a question names for a share, a difference or a ratio: a noun read as its verb
(`acquittal`), a named group under the section the question names (`personal travel payments`), the
whole a share's own line makes with its siblings (no total), a line the whole's phrase names (`the
Capital Region's nights`), a negated label said apart (`non-resident to resident`), changes between
quarters or dates of one year, a period's status (`(prelim.)`), points (a difference, not a ratio), a
share said of a figure averaged over years, a negated word (`nonfederally`) as the whole less its
line, `A minus B`, and the opposite a sign may show, which names nothing (`Net income (loss)`)."""

from __future__ import annotations

import pytest
from tables import run

from celltrace.shared.stemming import stem
from celltrace.shared.table import Table


def test_a_noun_in_al_stems_as_its_verb() -> None:
    assert stem("acquittal") == stem("acquitted") == "acquit"
    assert stem("withdrawal") == stem("withdraw")
    assert stem("total") == "total"  # no doubled consonant: unchanged


COURTS = Table(text=[
    ["Offence", "Total cases", "Type of decision", "", ""],
    ["", "", "Guilty", "Acquitted", "Stayed or withdrawn"],
    ["Homicide", "236", "85", "19", "132"],
    ["Robbery", "3,512", "2,002", "105", "1,405"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 4)])  # fmt: skip


def test_an_acquittal_is_the_acquitted_column() -> None:
    """`ended in acquittal` names `Acquitted`: its share of the total cases."""
    plan, _ = run(COURTS, "What share of homicide cases ended in acquittal, in percent?")
    assert plan.answer == ["8.1%"]


TRAVEL = Table(text=[
    ["", "2023", ""],
    ["", "Q3", "Q4"],
    ["Receipts (credits)", "", ""],
    ["  Business travel", "1,105", "1,230"],
    ["  Personal travel", "", ""],
    ["    Health-related", "99", "104"],
    ["    Other personal travel", "6,312", "4,128"],
    ["  Total receipts", "7,516", "5,462"],
    ["Payments (debits)", "", ""],
    ["  Business travel", "1,388", "1,462"],
    ["  Personal travel", "", ""],
    ["    Health-related", "147", "155"],
    ["    Other personal travel", "9,055", "6,385"],
    ["  Total payments", "10,590", "8,002"],
], merges=[(0, 1, 0, 2)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("What were total personal travel payments in Q4 2023?", "6,540"),
    ("What was net business travel (receipts minus payments) in Q3 2023?", "-283"),
])
def test_a_group_under_the_named_section_and_a_named_difference(question: str, answer: str) -> None:
    """`personal travel payments`: the `Personal travel` rows under `Payments`, summed (the section's
    `Total payments` is no answer, nor the receipts' group); `receipts minus payments` is asked
    outright."""
    plan, _ = run(TRAVEL, question)
    assert plan.answer == [answer]


DOCTORATES = Table(text=[
    ["Broad field", "Detailed field", "2023", ""],
    ["", "", "Male", "Female"],
    ["Physical sciences", "Chemistry", "1,602", "1,088"],
    ["", "Physics and astronomy", "1,498", "437"],
], merges=[(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 3), (2, 0, 3, 0)])  # fmt: skip


def test_a_share_of_its_own_line_without_a_total_is_of_its_siblings_together() -> None:
    """No total column: the women's share of physics doctorates is Female over Male + Female on
    that row, not a share of another row."""
    plan, _ = run(DOCTORATES,
                  "What percentage of 2023 physics and astronomy doctorate recipients were women?")
    assert plan.answer == ["22.6%"]


NIGHTS = Table(text=[
    ["Tourism region", "2024", "", ""],
    ["", "Residents", "Non-residents", "Total"],
    ["Capital Region", "4,388.0", "6,312.9", "10,700.9"],
    ["Alpine Valleys", "1,802.3", "2,498.0", "4,300.3"],
    ["All regions", "6,190.3", "8,810.9", "15,001.2"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 3)])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("What share of the Capital Region's 2024 hotel nights were spent by non-residents (percent)?", "59.0%"),
    ("In Alpine Valleys, what was the ratio of non-resident to resident nights in 2024?", "1.39"),
])
def test_the_whole_a_share_names_and_a_negated_label_said_apart(question: str, answer: str) -> None:
    """`of the Capital Region's nights` names the whole's line: non-residents over that region's
    total; `non-resident to resident` names both columns, in that order."""
    plan, _ = run(NIGHTS, question)
    assert plan.answer == [answer]


UNDERWRITING = Table(text=[
    ["", "Q3 2024", "", "Q3 2023", ""],
    ["", "Personal", "Total", "Personal", "Total"],
    ["Combined ratio", "96.5", "94.2", "101.7", "97.0"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4)])  # fmt: skip

CAPITAL = Table(text=[
    ["", "September 30, 2024 (p)", "June 30, 2024", "December 31, 2023"],
    ["Common equity tier 1 capital ratio", "11.9%", "11.8%", "11.6%"],
])  # fmt: skip


def test_changes_between_quarters_or_dates_of_named_years() -> None:
    """`from Q3 2023 to Q3 2024` names the quarters over their groups; `between December 31, 2023 and
    September 30, 2024` names those dates, not `June 30, 2024` of the same year."""
    plan, _ = run(UNDERWRITING,
                  "By how many points did the total combined ratio improve from Q3 2023 to Q3 2024?")
    assert plan.answer == ["2.8"]
    plan, _ = run(CAPITAL, "By how many percentage points did the CET1 capital ratio change between "
                           "December 31, 2023 and September 30, 2024?")
    assert plan.answer == ["0.3%"]


RESEARCH = Table(text=[
    ["Agency", "FY 2021", "FY 2022", "FY 2023 (prelim.)"],
    ["All agencies", "79,571.6", "83,080.2", "85,856.9"],
    ["Department of Energy", "8,729.1", "9,133.0", "9,537.5"],
    ["National Science Foundation", "6,930.6", "7,272.8", "7,630.0"],
])  # fmt: skip


def test_a_years_status_in_parentheses_keeps_it_a_year() -> None:
    """`FY 2023 (prelim.)` is 2023: a percentage rise from FY 2021 to FY 2023 is computed."""
    plan, _ = run(RESEARCH, "By what percentage did research obligations across all agencies rise from "
                            "FY 2021 to FY 2023?")
    assert plan.answer == ["7.9%"]


COUNTRIES = Table(text=[
    ["Country", "2018", "2019", "2020", "2021", "2022"],
    ["Germany", "3.11", "3.17", "3.13", "3.13", "3.13"],
    ["Israel", "4.83", "5.14", "5.44", "5.56", "6.02"],
    ["United States", "3.01", "3.15", "3.42", "3.48", "3.59"],
], title="GERD as a percentage of GDP")  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("By how many percentage points did Israel's GERD-to-GDP ratio exceed that of the United States in 2022?",
     "2.43"),
    ("What was Germany's average GERD as a share of GDP over 2018–2020?", "3.137"),
])
def test_points_ask_a_difference_and_a_share_phrase_names_no_years(question: str, answer: str) -> None:
    """`by how many percentage points … ratio` asks a difference of the ratios shown; `GERD as a share
    of GDP over 2018–2020` names a measure averaged over years, no share of one year in another."""
    plan, _ = run(COUNTRIES, question)
    assert plan.answer == [answer]


FUNDING = Table(text=[
    ["Institution", "FY 2023", ""],
    ["", "All R&D expenditures", "Federally financed"],
    ["Johns Hopkins U.", "3,395,016", "2,710,834"],
    ["U. Michigan", "1,932,015", "930,517"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 2)])  # fmt: skip


def test_a_negated_word_asks_the_whole_less_the_line_it_negates() -> None:
    """`nonfederally financed`, with no such line: all expenditures less the federally financed."""
    plan, _ = run(FUNDING,
                  "How much of Johns Hopkins' FY 2023 R&D expenditures was nonfederally financed?")
    assert plan.answer == ["684,182"]


INCOME = Table(text=[
    ["Year ended December 31,", "2022", "2023"],
    ["Operating revenue:", "", ""],
    ["  Freight revenue", "2,512.3", "2,398.7"],
    ["  Fuel surcharge revenue", "471.9", "389.2"],
    ["  Total operating revenue", "3,097.0", "2,906.4"],
    ["Operating income", "380.9", "225.7"],
])  # fmt: skip


def test_a_measure_the_question_defines_is_computed_as_defined() -> None:
    """`operating margin, i.e. operating income as a percentage of total operating revenue`: over the
    total, not `Freight revenue` (the first revenue line); each operand is asked without the
    definition, so the margin is as sure as its operands."""
    plan, _ = run(INCOME, "What was the 2023 operating margin, i.e. operating income as a percentage of "
                          "total operating revenue?")
    assert plan.answer == ["7.8%"] and plan.confidence > 0.5


HIGHLIGHTS = Table(text=[
    ["", "Q3 2024", "Q2 2024", "Q3 2023", "% Change Q3 2024 vs.", "", "Nine months", "", ""],
    ["", "", "", "", "Q2 2024", "Q3 2023", "2024", "2023", "% Change"],
    ["Provision for credit losses", "845", "790", "617", "7.0%", "36.9%", "2,410", "1,697", "42.0%"],
], merges=[(0, 1, 1, 1), (0, 2, 1, 2), (0, 3, 1, 3), (0, 4, 0, 5), (0, 6, 0, 8)])  # fmt: skip


def test_the_same_quarter_a_year_earlier_is_that_quarter_of_the_year_before() -> None:
    """`Q3 2024 compared with the same quarter a year earlier` names Q3 2023: its change column."""
    plan, _ = run(HIGHLIGHTS, "By what percent did the provision for credit losses rise in Q3 2024 compared "
                              "with the same quarter a year earlier?")
    assert plan.answer == ["36.9%"]


VICTIMS = Table(text=[
    ["Age group of victim", "2019", ""],
    ["", "Men", "Women"],
    ["15 to 24 years", "139", "171"],
    ["25 to 34 years", "112", "176"],
    ["35 to 44 years", "68", "97"],
    ["45 to 54 years", "58", "57"],
], merges=[(0, 0, 1, 0), (0, 1, 0, 2)])  # fmt: skip


def test_classes_named_by_their_intervals_are_averaged() -> None:
    """`the 15 to 24, 25 to 34 and 35 to 44 age groups` names those three classes (their `years`
    unsaid): their average."""
    plan, _ = run(VICTIMS, "Averaged over the 15 to 24, 25 to 34 and 35 to 44 age groups, what was the 2019 "
                           "victimization rate for men?")
    assert plan.answer == ["106.3"]


SEGMENTS = Table(text=[
    ["", "Consumer", "Wealth & Asset Management", "Total"],
    ["Net interest income", "6,105", "942", "11,220"],
    ["Income (loss) before income taxes", "2,808", "990", "6,879"],
    ["Net income (loss)", "2,120", "747", "5,242"],
])  # fmt: skip


@pytest.mark.parametrize(("question", "answer"), [
    ("What was Wealth & Asset Management's net income?", "747"),
    ("What was Wealth & Asset Management's net interest income?", "942"),
])
def test_the_opposite_a_sign_may_show_is_no_word_to_say(question: str, answer: str) -> None:
    """`Net income (loss)` is named whole by `net income` (the `(loss)` only says what a negative
    figure means), so it beats `Net interest income`, which the question names in part."""
    plan, _ = run(SEGMENTS, question)
    assert plan.answer == [answer]
