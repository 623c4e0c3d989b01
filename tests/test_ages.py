"""Age groups read as intervals: a label's ages, and a question's wording rewritten as the label."""

from __future__ import annotations

import pytest

from celltrace.server.offline.ages import interval, spelled_ages


@pytest.mark.parametrize(("label", "ages"), [
    ("0 to 14 years", (0, 14)), ("15-24", (15, 24)), ("ages 5 to 11", (5, 11)), ("aged 25 to 54", (25, 54)),
    ("65 years and over", (65, None)), ("75 years or older", (75, None)), ("65+", (65, None)),
    ("Under 15", (0, 14)), ("Total", None), ("2011", None), ("2015-16", None), ("10 to 19 employees", None),
])
def test_an_age_label_names_its_interval(label: str, ages: tuple[int, int | None] | None) -> None:
    assert interval(label) == ages


LABELS = ["0 to 14 years", "15 to 64 years", "65 years and over", "Total"]


@pytest.mark.parametrize(("question", "spelled"), [
    ("How many children under 15 were there in 2011?", "How many children 0 to 14 years were there in 2011?"),
    ("Those younger than 15 years old", "Those 0 to 14 years"),
    ("people aged 65 or older from 2011 to 2021", "people aged 65 or older from 2011 to 2021"),  # its numbers
    ("people aged 66 and over", "people aged 66 and over"),  # no label has those ages
    ("the 65+ population in 2015-16", "the 65+ population in 2015-16"),
])
def test_a_question_names_an_age_group_as_the_table_labels_it(question: str, spelled: str) -> None:
    assert spelled_ages(question, LABELS) == spelled


def test_an_age_group_two_labels_name_is_left_as_worded() -> None:
    assert spelled_ages("under 15", ["0 to 14", "0-14 years"]) == "under 15"
