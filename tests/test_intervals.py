"""Numeric classes read as intervals: a label's interval, a question's wording rewritten as the label,
and the sibling classes that together make a range the question words."""

from __future__ import annotations

import pytest

from celltrace.server.offline.intervals import asked, interval, is_age_label, spelled_classes, tiling
from celltrace.server.offline.solver import solve
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table
from celltrace.shared.units import RELATIVE_WORDS


@pytest.mark.parametrize(("label", "found"), [
    ("0 to 14 years", (0, 14)), ("15-24", (15, 24)), ("ages 5 to 11", (5, 11)), ("aged 25 to 54", (25, 54)),
    ("65 years and over", (65, None)), ("75 years or older", (75, None)), ("65+", (65, None)),
    ("Under 15", (0, 14)), ("Total", None), ("2011", None), ("2015-16", None), ("2015 to 2019", None),
    ("10 to 19 employees", (10, 19)), ("500 employees and over", (500, None)),
    ("Under $25,000", (0, 24999)), ("$25,000 to $49,999", (25000, 49999)), ("More than 100", (101, None)),
    ("1.5 to 2.5", None), ("Employees in firms of 1 to 4 persons and more", None),
])
def test_a_class_label_names_its_interval(label: str, found: tuple[int, int | None] | None) -> None:
    assert interval(label) == found


@pytest.mark.parametrize(("label", "ages"), [
    ("15 to 24", True), ("65 years and over", True), ("Under 15", True), ("aged 25 to 54", True),
    ("1 to 4 employees", False), ("Under $25,000", False), ("Total", False),
])
def test_an_age_label_is_a_class_of_no_other_unit(label: str, ages: bool) -> None:
    assert is_age_label(label) is ages


@pytest.mark.parametrize(("question", "found"), [
    ("What percentage of businesses had fewer than 10 employees?", (0, 9)),
    ("How many businesses had between 10 and 49 employees?", (10, 49)),
    ("firms with 100 or more employees", (100, None)),
    ("firms with 500 employees or more", (500, None)),
    ("people aged 35 to 64 in 2021", (35, 64)),
    ("households with at least 3 children", (3, None)),
    ("more than 499 employees", (500, None)),
    ("from 2015 to 2019", None),
    ("aged 15 to 24 and 25 to 34", None),  # two intervals: not one range
])
def test_a_question_words_one_interval(question: str, found: tuple[int, int | None] | None) -> None:
    got = asked(question)
    assert (got[0] if got else None) == found


LABELS = ["0 to 14 years", "15 to 64 years", "65 years and over", "Total"]


@pytest.mark.parametrize(("question", "spelled"), [
    ("How many children under 15 were there in 2011?", "How many children 0 to 14 years were there in 2011?"),
    ("Those younger than 15 years old", "Those 0 to 14 years"),
    ("people aged 65 or older from 2011 to 2021", "people aged 65 or older from 2011 to 2021"),  # its numbers
    ("people aged 66 and over", "people aged 66 and over"),  # no label has those ages
    ("the 65+ population in 2015-16", "the 65+ population in 2015-16"),
    ("people older than 64", "people 65 years and over"),
])
def test_a_question_names_a_class_as_the_table_labels_it(question: str, spelled: str) -> None:
    assert spelled_classes(question, LABELS) == spelled


def test_a_class_two_labels_name_is_left_as_worded() -> None:
    assert spelled_classes("under 15", ["0 to 14", "0-14 years"]) == "under 15"


SIZES = [((1, 4), "a"), ((5, 9), "b"), ((10, 19), "c"), ((20, 49), "d"), ((50, None), "e"), ((1, 9), "ab")]


@pytest.mark.parametrize(("wanted", "tiles"), [
    ((0, 9), ["ab"]),  # one class makes it
    ((0, 19), ["ab", "c"]),  # the fewest classes
    ((10, 49), ["c", "d"]),
    ((20, None), ["d", "e"]),
    ((10, 29), None),  # ends inside a class
    ((6, 19), None),  # starts inside a class
])
def test_sibling_classes_tile_a_range(wanted: tuple[int, int | None], tiles: list[str] | None) -> None:
    assert tiling(wanted, SIZES) == tiles


def test_classes_meeting_at_a_bound_tile_a_range() -> None:
    brackets = [((0, 24999), "low"), ((25000, 50000), "mid"), ((50000, None), "high")]
    assert tiling((0, 49999), brackets) == ["low", "mid"]


def _sizes(column: str, figures: list[str]) -> CellGraph:
    labels = ["1 to 4 employees", "5 to 9 employees", "10 to 49 employees", "50 employees and over", "Total"]
    return CellGraph(Table(text=[["Employment size", column], *map(list, zip(labels, figures, strict=True))],
                           merges=[]))


COUNTS = ["600", "200", "150", "50", "1,000"]
SHARES = ["60.0", "20.0", "15.0", "5.0", "100.0"]


@pytest.mark.parametrize(("question", "answer"), [
    ("How many businesses had fewer than 10 employees?", "800"),
    ("How many businesses had 5 or more employees?", "400"),
    ("How many businesses had between 5 and 49 employees?", "350"),
])
def test_a_range_of_classes_sums_the_classes_that_make_it(question: str, answer: str) -> None:
    graph = _sizes("Number of businesses", COUNTS)
    plan = solve(question, graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("sum", [answer])
    assert len(plan.answer_nodes) == len(plan.parts) >= 2  # each class is asked as a lookup


def test_percentages_of_one_whole_add_up_over_classes() -> None:
    graph = _sizes("Percent of businesses", SHARES)
    plan = solve("What percent of businesses had fewer than 10 employees?", graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("sum", ["80.0"])


def test_percentages_of_different_wholes_never_add_up() -> None:
    graph = _sizes("Percent exporting", ["10.0", "20.0", "35.0", "60.0", "14.0"])
    plan = solve("What percent of businesses with fewer than 10 employees were exporting?", graph,
                 infer_headers(graph), None)
    assert plan.operation != "sum"


@pytest.mark.parametrize("word", sorted(RELATIVE_WORDS))
def test_figures_a_non_additive_word_names_never_add_up(word: str) -> None:
    graph = _sizes(f"Payroll {word} employee", COUNTS)
    plan = solve("What was the payroll of businesses with fewer than 10 employees?", graph,
                 infer_headers(graph), None)
    assert plan.operation != "sum"


def test_a_range_the_title_words_is_the_whole_table_not_a_sum_of_classes() -> None:
    cells = [["", "Number"], ["Total", "1,000"], ["15 to 34 years", "300"], ["35 to 64 years", "700"]]
    graph = CellGraph(Table(text=cells, merges=[], title="Employed people aged 15 to 64"))
    plan = solve("How many people aged 15 to 64 were employed?", graph, infer_headers(graph), None)
    assert plan.operation == "lookup"
