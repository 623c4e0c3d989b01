"""Engine-neutral actions, the restore record format and text safety helpers (no workbook)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from celltrace.shared.a1 import sheet_address
from celltrace.shared.actions import (
    NOTE_MAX_CHARS,
    ActionList,
    Clear,
    Colours,
    Fill,
    LogEntry,
    Note,
    Select,
    SetValue,
    actions_for_answer,
    answer_text,
    answer_value,
    evidence_text,
    log_entry,
    plan_actions,
)
from celltrace.shared.restore import (
    HEADER,
    FillEntry,
    FillState,
    NoteEntry,
    RecordError,
    RestoreRecord,
    split_chunks,
)
from celltrace.shared.safe_text import MAX_QUESTION_CHARS, clean_question, clean_text, needs_guard
from celltrace.shared.schemas import AskResult, EvidenceCell, Step, Usage


def ev(address: str, role: str, sheet: str = "Data") -> EvidenceCell:
    return EvidenceCell(sheet=sheet, address=address, rows=[0], cols=[0], text="x", role=role)


def result(**kw) -> AskResult:
    base = dict(
        question="What was revenue in 2019?",
        status="answered",
        engine="offline",
        answer=["1,234"],
        evidence=[ev("B1:C1", "header"), ev("C5", "answer"), ev("A5", "header"), ev("D5", "answer")],
        steps=[Step(thought="first"), Step(thought="  Revenue row,\n 2019 column  ")],
        usage=Usage(llm_calls=3),
    )
    return AskResult(**{**base, **kw})


def test_fills_note_and_selection_for_an_answer() -> None:
    actions = actions_for_answer(result())
    fills = [a for a in actions if isinstance(a, Fill)]
    assert [(f.address, f.role, f.colour) for f in fills] == [
        ("B1:C1", "header", "#FFF2CC"),  # a merged area is one fill over the whole area
        ("C5", "answer", "#FFD966"),
        ("A5", "header", "#FFF2CC"),
        ("D5", "answer", "#FFD966"),
    ]
    (note,) = [a for a in actions if isinstance(a, Note)]
    assert (note.sheet, note.address) == ("Data", "C5")  # first answer-role cell
    assert note.text.splitlines() == [
        "celltrace",
        "Q: What was revenue in 2019?",
        "A: 1,234",
        "Engine: offline",
        "Why: Revenue row, 2019 column",
    ]
    assert isinstance(actions[-1], Select) and actions[-1].address == "C5"
    assert not any(isinstance(a, Clear | SetValue) for a in actions)


def test_answer_role_wins_and_colours_are_configurable() -> None:
    res = result(evidence=[ev("A1", "header"), ev("A1", "answer"), ev("A2", "header")])
    colours = Colours(answer="#ff0000", header="#00ff00")
    fills = [a for a in actions_for_answer(res, colours=colours) if isinstance(a, Fill)]
    assert [(f.address, f.role, f.colour) for f in fills] == [
        ("A1", "answer", "#FF0000"),
        ("A2", "header", "#00FF00"),
    ]
    with pytest.raises(ValidationError):
        Colours(answer="yellow")


def test_answer_cell_clear_and_overwrite() -> None:
    actions = actions_for_answer(
        result(), answer_cell="H2", default_sheet="Data", overwrite=True, clear_previous=True
    )
    assert isinstance(actions[0], Clear)
    (value,) = [a for a in actions if isinstance(a, SetValue)]
    assert (value.sheet, value.address, value.value, value.overwrite) == ("Data", "H2", "1,234", True)
    other = actions_for_answer(result(), answer_cell="'Q & A'!$b$3")
    assert [(a.sheet, a.address) for a in other if isinstance(a, SetValue)] == [("Q & A", "B3")]


@pytest.mark.parametrize(
    ("status", "error", "text"),
    [
        ("abstained", "no matching header", "#ABSTAINED: no matching header"),
        ("abstained", None, "#ABSTAINED"),
        ("failed", "LLM timeout\nafter 3 retries", "#ERROR: LLM timeout after 3 retries"),
        ("failed", None, "#ERROR: failed"),
    ],
)
def test_unanswered_results_write_text_but_never_highlight(status, error, text) -> None:
    res = result(status=status, error=error, answer=[])
    assert answer_text(res) == text
    actions = actions_for_answer(res, answer_cell="Data!H2")
    assert [type(a) for a in actions] == [SetValue]
    assert actions[0].value == text


def test_note_is_capped() -> None:
    res = result(question="q" * 5000, answer=["a" * 5000], steps=[Step(thought="t" * 5000)])
    (note,) = [a for a in actions_for_answer(res) if isinstance(a, Note)]
    assert len(note.text) <= NOTE_MAX_CHARS
    assert all(len(line) <= 410 for line in note.text.splitlines())


def test_long_form_planning_uses_the_same_path() -> None:
    actions = plan_actions(
        question="Summarise 2019", answer="A long paragraph.", evidence=[ev("B2", "answer")], engine="llm"
    )
    assert [type(a) for a in actions] == [Fill, Note, Select]


def test_actions_are_json_round_trippable() -> None:
    actions = actions_for_answer(result(), answer_cell="Data!H2", clear_previous=True)
    payload = ActionList.dump_json(actions)
    assert [a["kind"] for a in json.loads(payload)] == [
        "clear",
        "fill",
        "fill",
        "fill",
        "fill",
        "note",
        "set_value",
        "select",
    ]
    assert ActionList.validate_json(payload) == actions
    with pytest.raises(ValidationError):
        ActionList.validate_python(
            [{"kind": "fill", "sheet": "S", "address": "A0", "colour": "#FFFFFF", "role": "answer"}]
        )
    with pytest.raises(ValidationError):
        ActionList.validate_python([{"kind": "explode"}])


def test_evidence_text_and_log_entry() -> None:
    res = result(evidence=[ev("C5", "answer"), ev("B1:C1", "header"), ev("A1", "header", sheet="Other's")])
    assert evidence_text(res.evidence, "Data") == "C5 (headers: B1:C1, 'Other''s'!A1)"
    assert evidence_text([ev("A1", "header")]) == "(headers: A1)"
    entry = log_entry(res, sheet="Data", range_="A1:F20")
    assert entry.model_dump(exclude={"timestamp"}) == {
        "sheet": "Data",
        "range": "A1:F20",
        "question": "What was revenue in 2019?",
        "answer": "1,234",
        "status": "answered",
        "evidence": "C5 (headers: B1:C1, 'Other''s'!A1)",
        "engine": "offline",
        "llm_calls": 3,
        "link": "Data!C5",  # the evidence cell links to the first answer cell
        "colour": None,  # not highlighted: no legend colour
    }
    assert log_entry(res, sheet="Data", range_="A1:F20", colour="#9BC2E6").colour == "#9BC2E6"
    assert "link" not in LogEntry.columns() and "colour" not in LogEntry.columns()
    assert [sheet_address(s, "B10") for s in ("Income Statement", "Data", "A1", "2017", "Q&A")] == [
        "'Income Statement'!B10", "Data!B10", "'A1'!B10", "'2017'!B10", "'Q&A'!B10"
    ]  # fmt: skip


def test_restore_record_keeps_the_first_original() -> None:
    record = RestoreRecord()
    record.remember(FillEntry(sheet="S", cell="A1", original=FillState(colour="#00FF00"), applied="#FFF2CC"))
    record.remember(FillEntry(sheet="S", cell="A1", original=FillState(colour="#FFF2CC"), applied="#FFD966"))
    record.remember(NoteEntry(sheet="S", cell="A1", original=None, applied="note"))
    (fill, note) = list(record)
    assert (fill.original.colour, fill.applied) == ("#00FF00", "#FFD966")
    rows = record.to_rows()
    assert rows[0] == HEADER and len(rows) == 3
    again = RestoreRecord.from_rows(rows)
    assert list(again) == [fill, note]
    with pytest.raises(RecordError):
        RestoreRecord.from_rows(['{"celltrace_record": 99}'])
    with pytest.raises(RecordError):
        RestoreRecord.from_rows([HEADER, '{"kind": "fill"}'])
    assert "".join(split_chunks("x" * 70_000)) == "x" * 70_000


@pytest.mark.parametrize(
    "text", ["=1+1", "+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3", "\tx", "\rx", "#N/A", "#div/0!"]
)
def test_risky_text_needs_a_guard(text) -> None:
    assert needs_guard(text)


def test_clean_text_and_questions() -> None:
    assert not needs_guard("Revenue = 3")
    assert clean_text("a\x00b\x07c\nd") == "abc\nd"
    assert len(clean_text("x" * 40_000)) == 32_767
    assert clean_question("  What\tis\x00 the\r\ntotal?\x07 ") == "What is the total?"
    for broken in ("", "   ", "\t\r\n", "\x00\x07"):
        with pytest.raises(ValueError, match="empty question"):
            clean_question(broken)
    with pytest.raises(ValueError, match="longer than"):
        clean_question("q" * (MAX_QUESTION_CHARS + 1))


def test_a_best_guess_is_text_on_the_muted_fill_never_the_answer_colour() -> None:
    res = result(status="abstained", error="confidence 0.10 below 0.15", value=1234.0)
    assert answer_text(res) == "#ABSTAINED (best guess: 1,234): confidence 0.10 below 0.15"
    actions = actions_for_answer(res, answer_cell="Data!H2")
    fills = [a for a in actions if isinstance(a, Fill)]
    assert fills and {(f.role, f.colour) for f in fills} == {("guess", Colours().guess)}
    assert Colours().guess not in (Colours().answer, Colours().header)
    assert ("Data", "H2") in {(f.sheet, f.address) for f in fills}  # the answer cell is marked too
    (value,) = [a for a in actions if isinstance(a, SetValue)]
    assert (value.value, value.number_format) == (answer_text(res), None)  # text stays text
    (note,) = [a for a in actions if isinstance(a, Note)]
    assert "A: Best guess (low confidence): 1,234" in note.text


def test_an_answered_number_is_written_as_a_number_in_its_source_format() -> None:
    res = result(answer=["$87,000"], value=87000.0)
    assert answer_value(res) == (87000.0, '"$"#,##0')
    (value,) = [a for a in actions_for_answer(res, answer_cell="Data!H2") if isinstance(a, SetValue)]
    assert (value.value, value.number_format, value.format_for_number()) == (87000.0, '"$"#,##0', '"$"#,##0')
    pct = result(answer=["3.8%"], value=0.038283)
    assert answer_value(pct) == (0.038283, "0.0%")
    assert answer_value(result(answer=["quebec"])) == ("quebec", None)
    assert answer_value(result(answer=["5", "7"], value=5.0)) == ("5; 7", None)
    text = SetValue(sheet="S", address="A1", value="=1+1", number_format="0.0%")
    assert text.format_for_number() is None  # a format never applies to text


def test_the_note_states_the_unit() -> None:
    res = result(answer=["47,469"], value=47469.0, unit="millions")
    (note,) = [a for a in actions_for_answer(res) if isinstance(a, Note)]
    assert "A: 47,469 (millions)" in note.text
    (pct,) = [a for a in actions_for_answer(result(answer=["3.8%"], unit="%")) if isinstance(a, Note)]
    assert "A: 3.8%\n" in pct.text  # a unit the text shows is not repeated
