"""Yes/no lines: where a question affirms or negates a characteristic, and the answers it quotes."""

from __future__ import annotations

import pytest

from celltrace.server.offline.polarity import answered, asks_yes_or_no, polar_label, polar_positions

LABELS = ["arthritis", "yes", "no", "non-victims", "hungry but could not afford food"]


@pytest.mark.parametrize(("question", "found"), [
    ("what was the rate among people with arthritis?", {"yes": 0}),
    ("what was the rate among people without arthritis?", {"no": 31}),
    ("how many times was the rate of people who had arthritis more than that of people who did not?",
     {"yes": 0, "no": 89}),
    ("which group was more likely, those who didn't or those who did?", {"no": 39, "yes": 46}),
    # a negation a label words itself is that label's
    ("what share of non-victims lived in a welcoming community?", {"yes": 0}),
    ("how many were hungry because they could not afford food?", {"yes": 0}),
])
def test_a_question_affirms_or_negates_each_side(question: str, found: dict[str, int]) -> None:
    assert polar_positions(question, LABELS) == found


def test_an_answer_is_quoted_after_a_verb_of_saying() -> None:
    assert answered("What percent of women said no?") == {"no"}
    assert answered("How many answered Yes or said no?") == {"yes", "no"}
    assert answered("no money to buy food") == set()


def test_a_survey_caption_asks_a_yes_or_no_question() -> None:
    assert asks_yes_or_no("Q12. Do you support the proposed transit expansion?")
    assert asks_yes_or_no("Have you used transit in the past month?")
    assert not asks_yes_or_no("Percent of respondents, by demographic group")
    assert not asks_yes_or_no("What is your age?")


def test_a_polar_label_is_yes_or_no_alone() -> None:
    labels = ("Yes", " no.", "None", "No problems at all")
    assert [polar_label(t) for t in labels] == ["yes", "no", None, None]
