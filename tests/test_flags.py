"""Quality flags of statistics tables: the legend in the notes, flagged figures, the answer and warning."""

from __future__ import annotations

import pytest

from celltrace.server.engine.api import answer_question
from celltrace.shared.flags import Flagged, abbreviations, flagged, footnote_marks, legend, unmarked
from celltrace.shared.table import Table

NOTES = [
    "E use with caution",
    "F too unreliable to be published",
    "x: suppressed to meet the confidentiality requirements of the Statistics Act",
    "1. Preliminary estimates.",
    "Source: Statistics Canada, Labour Force Survey.",
    "Note: figures may not add up to totals because of rounding.",
]


def test_the_legend_is_the_notes_that_define_a_flag() -> None:
    assert legend(NOTES) == {
        "E": "use with caution",
        "F": "too unreliable to be published",
        "x": "suppressed to meet the confidentiality requirements of the Statistics Act",
    }
    more = ["r - revised", "* significantly different from the reference category", ".. not available"]
    assert legend(more) == {"r": "revised", "*": "significantly different from the reference category",
                            "..": "not available"}


@pytest.mark.parametrize(("text", "found"), [
    ("16.5E", Flagged("16.5", "E", "use with caution")),
    ("1,234 E", Flagged("1,234", "E", "use with caution")),
    ("(12.0)F", Flagged("(12.0)", "F", "too unreliable to be published")),
    ("16.5", None),
    ("E", None),  # a flag alone is no figure
    ("18.4 t", None),  # a unit the notes do not define
    ("5th", None),
    ("16.5e", None),  # flags are case-sensitive
])
def test_a_figure_is_flagged_only_by_a_flag_the_notes_define(text: str, found: Flagged | None) -> None:
    assert flagged(text, legend(NOTES)) == found


RATES = Table(
    text=[["", "2019", "2020"], ["", "percent", ""], ["Ontario", "5.8", "9.9"],
          ["Prince Edward Island", "9.7", "11.2E"], ["Yukon", "F", "5.6"]],
    merges=[(1, 1, 1, 2)],
    notes=NOTES,
)


def test_a_flagged_answer_is_its_figure_and_the_flag_a_warning() -> None:
    r = answer_question(RATES, "What was the rate in Prince Edward Island in 2020?", engine="offline")
    assert (r.answer, r.value, r.unit) == (["11.2"], 11.2, "percent")
    assert "C4 is flagged E: use with caution" in r.warnings
    r = answer_question(RATES, "What was the rate in Yukon in 2019?", engine="offline")
    assert r.answer == ["F"] and "B5 shows F: too unreliable to be published" in r.warnings
    r = answer_question(RATES, "What was the rate in Ontario in 2020?", engine="offline")
    assert (r.answer, r.warnings) == (["9.9"], [])


def test_footnote_marks_are_the_numbers_notes_start_with() -> None:
    notes = ["1. Excludes the territories.", "(2) Includes Ottawa.", "³ Revised.", "4 Preliminary.",
             "Source: 2021 Census.", "E use with caution", "5 in 6 respondents answered online."]
    assert footnote_marks(notes) == {"1", "2", "3", "4"}


@pytest.mark.parametrize(("text", "bare"), [
    ("Canada¹", "Canada"), ("Ontario 2", "Ontario"), ("Total (1,3)", "Total"), ("Canada1", "Canada"),
    ("Quebec", "Quebec"), ("Ontario 4", "Ontario 4"),  # no note 4
    ("Grade 2", "Grade 2"), ("aged 15 to 2", "aged 15 to 2"), ("2019", "2019"),  # the label's own number
    ("2021 (1)", "2021"), ("2021¹", "2021"), ("20211", "20211"),  # a year's mark is set apart
    ("Other expense, net⁽²⁾", "Other expense, net"), ("2023⁽¹⁾", "2023"),  # superscript parentheses
    ("    Restructuring⁽³⁾", "    Restructuring"),  # an indented item stays indented
])
def test_a_label_loses_only_a_mark_a_note_defines(text: str, bare: str) -> None:
    assert unmarked(text, frozenset({"1", "2", "3"})) == bare


def test_abbreviations_are_the_short_labels_a_note_spells_out() -> None:
    notes = ["GP = games played; G = goals; Pts = goals + assists; G/90 = goals per 90 minutes.",
             "Note: FTE = full-time equivalent.", "ADR = average daily rate, RevPAR = revenue per room",
             "Source: League office - statistics department.", *NOTES,
             "PTR = enrolment divided by teachers (FTE). Excludes special schools.",
             "Note: Variance = Actual - Budget; RN = registered nurse. Vacancy rate = vacant / budgeted."]
    assert abbreviations(notes) == {"GP": "games played", "G": "goals", "G/90": "goals per 90 minutes",
                                    "FTE": "full-time equivalent", "ADR": "average daily rate",
                                    "RevPAR": "revenue per room", "RN": "registered nurse"}
    # a formula (`Pts`, `PTR`, `Variance`), a word (`Variance`) or a source names none


STANDINGS = Table(text=[
    ["Team", "GP", "W", "GF", "GA"],
    ["Harbor City FC", "34", "18", "61", "35"],
    ["Pacific Tide", "34", "9", "40", "52"],
    ["Granite Falls", "34", "15", "55", "41"],
], notes=["GP = games played; W = wins; GF = goals for; GA = goals against."])


@pytest.mark.parametrize(("question", "answer"), [
    ("How many goals against did Pacific Tide have?", "52"),
    ("How many games did Granite Falls play?", "34"),
    ("How many wins did Harbor City FC have?", "18"),
    ("Which team had the most goals for?", "Harbor City FC"),
])
def test_a_label_the_notes_spell_out_is_named_by_what_it_stands_for(question: str, answer: str) -> None:
    """`GP` is not `goals Pacific` by its letters: the legend says what each short label means."""
    assert answer_question(STANDINGS, question, engine="offline").answer == [answer]


def test_a_short_label_said_outright_stays_named_beside_what_it_stands_for() -> None:
    """`RN` spelled out as `registered nurse` is still named by `RN`."""
    table = Table(text=[
        ["Facility", "Nursing FTEs", "", "RN share of nursing FTEs"],
        ["", "RN", "LPN", ""],
        ["Summit Regional Hospital", "471.2", "98.6", "72.9%"],
        ["Cascade Medical Center", "512.0", "120.4", "70.1%"],
    ], merges=[(0, 1, 0, 2)], notes=["RN = registered nurse; LPN = licensed practical nurse."])
    result = answer_question(table, "How many RN FTEs does Summit Regional Hospital have?", engine="offline")
    assert result.answer == ["471.2"]
