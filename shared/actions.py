"""Engine-neutral write-back actions: what to fill, note, write and select after an answer.

The backend never touches Excel. It plans a list of actions; each client (the openpyxl writer,
the xlwings add-in, the HTTP API's caller) replays them. Actions are JSON-serialisable pydantic
models discriminated on `kind`; `ActionList` validates a list of them from JSON.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter, field_validator

from celltrace.shared.a1 import AddressError, parse_range, sheet_address, split_sheet_ref
from celltrace.shared.numstyle import NumStyle
from celltrace.shared.schemas import AskResult, EvidenceCell, Role, confidence_text

RECORD_TAG = "celltrace"
"""The tag of everything celltrace highlights; `Clear(tag=RECORD_TAG)` removes it all."""
NOTE_MAX_CHARS = 1000
"""Notes are capped at this many characters (Excel allows 32,767, but a note is a tooltip)."""
_NOTE_FIELD_CHARS = {"question": 300, "answer": 400, "reasoning": 200}
_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")


def _hex_colour(value: str) -> str:
    if not _HEX.match(value):
        raise ValueError(f"colour {value!r} is not #RRGGBB")
    return value.upper()


def _check_address(value: str) -> str:
    try:
        parse_range(value)
    except AddressError as exc:
        raise ValueError(str(exc)) from exc
    return value.replace("$", "").upper()


FillRole = Literal["answer", "header", "guess"]
"""`guess`: the evidence and answer cell of an abstained result's best guess (low confidence)."""


class Colours(BaseModel):
    """Fill colours by evidence role, as `#RRGGBB`; a best guess gets a muted colour of its own."""

    answer: str = "#FFD966"
    header: str = "#FFF2CC"
    guess: str = "#D9D9D9"

    @field_validator("answer", "header", "guess")
    @classmethod
    def _colours(cls, value: str) -> str:
        return _hex_colour(value)

    def for_role(self, role: FillRole) -> str:
        return {"answer": self.answer, "header": self.header, "guess": self.guess}[role]


QUESTION_COLOURS = [
    Colours(),
    Colours(answer="#9BC2E6", header="#DDEBF7"),
    Colours(answer="#A9D08E", header="#E2EFDA"),
    Colours(answer="#F4B084", header="#FCE4D6"),
    Colours(answer="#C9A0DC", header="#EADCF2"),
    Colours(answer="#8ED1C6", header="#DDF2EF"),
    Colours(answer="#F8A5C2", header="#FDE2EC"),
    Colours(answer="#D9D26A", header="#F4F1C9"),
]
"""Per-question colour pairs (`batch --highlight all`); the log sheet's question cells are the legend."""


def question_colours(index: int) -> Colours:
    """The colours of the `index`-th highlighted question (the palette repeats after 8)."""
    return QUESTION_COLOURS[index % len(QUESTION_COLOURS)]


class _Located(BaseModel):
    """An action on one sheet range; a merged area is addressed as a whole (`A1:C1`)."""

    sheet: str = Field(description="The worksheet's name.", examples=["Income Statement"])
    address: str = Field(
        description="A1 cell or range on that sheet; a merged area as a whole.", examples=["B10", "C3:E3"]
    )

    @field_validator("address")
    @classmethod
    def _address(cls, value: str) -> str:
        return _check_address(value)


class Fill(_Located):
    """A solid fill on every cell of `address`."""

    kind: Literal["fill"] = Field(default="fill", description="Action type: a fill.")
    colour: str = Field(description="`#RRGGBB`.", examples=["#FFD966"])
    role: FillRole = Field(
        description="Which evidence it marks: answer (strong), header (light) or guess (a best guess, muted)."
    )

    @field_validator("colour")
    @classmethod
    def _colour(cls, value: str) -> str:
        return _hex_colour(value)


class Note(_Located):
    """A legacy note (tooltip comment) on the top-left cell of `address`."""

    kind: Literal["note"] = Field(default="note", description="Action type: a note.")
    text: str = Field(
        description="The note: question, answer, engine and confidence (appended to a user's note).",
        examples=["celltrace\nQ: What was cargo revenue in 2016?\nA: 700 (millions)"],
    )


class SetValue(_Located):
    """Write `value` into the top-left cell; text is always stored as text, never as a formula.

    A number is stored as a number with `number_format` (the answer's source format) when given;
    the format applies to numbers only (never to text, so text cannot turn into a number).
    """

    kind: Literal["set_value"] = Field(default="set_value", description="Action type: write a value.")
    value: str | int | float | bool | None = Field(
        description="The value to write (null empties the cell).", examples=[8902, "South"]
    )
    overwrite: bool = Field(default=False, description="Write even when the cell is not empty.")
    number_format: str | None = Field(
        default=None,
        max_length=255,
        description="Excel number format for a number value (the answer's source format).",
        examples=['"$"#,##0'],
    )

    def format_for_number(self) -> str | None:
        """`number_format` when `value` is a number (bools are not), else None."""
        is_number = isinstance(self.value, int | float) and not isinstance(self.value, bool)
        return self.number_format if is_number else None

    restorable: bool = Field(
        default=False, description="Record the previous value, so a clear with `values` puts it back."
    )
    """Keep the cell's previous value in the restore record, so `Clear` removes this answer again."""


class Select(_Located):
    """Select `address` (and show its sheet)."""

    kind: Literal["select"] = Field(default="select", description="Action type: select a range.")


class Clear(BaseModel):
    """Remove every highlight and note carrying `tag`, restoring what was there before; with
    `values`, also the answers written into cells (`celltrace clear`; a new answer keeps them)."""

    kind: Literal["clear"] = Field(default="clear", description="Action type: undo earlier highlights.")
    tag: str = Field(default=RECORD_TAG, description="Only what was written under this tag is undone.")
    values: bool = Field(default=False, description="Also remove answers written into cells.")


Action = Annotated[Fill | Note | SetValue | Select | Clear, Field(discriminator="kind")]
ActionList = TypeAdapter(list[Action])


class LogEntry(BaseModel):
    """One row of the visible `celltrace` log sheet (the columns), plus how to present it: `link`
    makes the evidence cell a hyperlink to that sheet address, `colour` fills the question cell
    with the colour its evidence is highlighted in (the legend)."""

    timestamp: str
    sheet: str
    range: str
    question: str
    answer: str
    status: str
    evidence: str
    engine: str
    llm_calls: int
    link: str | None = None
    colour: str | None = None

    @classmethod
    def columns(cls) -> list[str]:
        return [name for name in cls.model_fields if name not in _PRESENTATION]


_PRESENTATION = {"link", "colour"}


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed to single spaces, cut to `limit` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def answer_text(result: AskResult) -> str:
    """The text written for a result: the answers, or `#ABSTAINED…` (with the best guess, when there
    is one: `#ABSTAINED (best guess: 1,234): <reason>`) / `#ERROR: <reason>`."""
    if result.status == "answered":
        return "; ".join(result.answer)
    reason = one_line(result.error or "", 300)
    if result.status == "abstained":
        head = "#ABSTAINED"
        if result.answer:
            head += f" (best guess: {one_line('; '.join(result.answer), 200)})"
        return f"{head}: {reason}" if reason else head
    return f"#ERROR: {reason or 'failed'}"


def answer_value(result: AskResult) -> tuple[str | int | float, str | None]:
    """What goes into an answer cell: an answered single number as a number with its source number
    format (`$87,000` → 87000 with `"$"#,##0`), anything else as `answer_text`."""
    if result.status == "answered" and result.value is not None and len(result.answer) == 1:
        style = NumStyle.of(result.answer[0])
        if style is not None and math.isfinite(result.value):
            return result.value, style.code()
    return answer_text(result), None


def reasoning(result: AskResult) -> str:
    """The last non-empty thought of the trace, on one line ("" when there is none)."""
    thoughts = [s.thought for s in result.steps if s.thought.strip()]
    return one_line(thoughts[-1], _NOTE_FIELD_CHARS["reasoning"]) if thoughts else ""


def evidence_text(evidence: Iterable[EvidenceCell], home_sheet: str | None = None) -> str:
    """`B7, C7 (headers: A7, B1:C1)`; addresses on another sheet than `home_sheet` are qualified."""

    def ref(cell: EvidenceCell) -> str:
        if home_sheet is None or cell.sheet == home_sheet:
            return cell.address
        return sheet_address(cell.sheet, cell.address)

    cells = list(evidence)
    answers = ", ".join(ref(c) for c in cells if c.role == "answer")
    headers = ", ".join(ref(c) for c in cells if c.role == "header")
    if headers:
        return f"{answers} (headers: {headers})" if answers else f"(headers: {headers})"
    return answers


def note_text(
    question: str,
    answer: str,
    engine: str,
    why: str = "",
    *,
    confidence: float | None = None,
) -> str:
    """The evidence note: question, answer (with its unit), engine with the confidence, and a one-line
    reasoning, capped."""
    lines = [
        "celltrace",
        f"Q: {one_line(question, _NOTE_FIELD_CHARS['question'])}",
        f"A: {one_line(answer, _NOTE_FIELD_CHARS['answer'])}",
        f"Engine: {engine}"
        + (f" · confidence {confidence_text(confidence)}" if confidence is not None else ""),
    ]
    if why:
        lines.append(f"Why: {one_line(why, _NOTE_FIELD_CHARS['reasoning'])}")
    text = "\n".join(lines)
    return text if len(text) <= NOTE_MAX_CHARS else text[: NOTE_MAX_CHARS - 1] + "…"


def parse_target(ref: str, default_sheet: str | None) -> tuple[str, str]:
    """`SHEET!B2` or `B2` (on `default_sheet`) → (sheet, upper-case address); ValueError if bad."""
    sheet, address = split_sheet_ref(ref)
    sheet = sheet or default_sheet
    if not sheet:
        raise ValueError(f"{ref!r} needs a sheet name (SHEET!A1)")
    return sheet, _check_address(address)


def plan_actions(
    *,
    question: str,
    answer: str,
    evidence: Sequence[EvidenceCell],
    engine: str,
    why: str = "",
    confidence: float | None = None,
    colours: Colours | None = None,
    answer_cell: str | None = None,
    default_sheet: str | None = None,
    overwrite: bool = False,
    clear_previous: bool = False,
    cell_value: tuple[str | int | float, str | None] | None = None,
    guess: bool = False,
) -> list[Action]:
    """Actions for any answer with evidence (short or long form).

    Fills per evidence area (answer role strong, header role light; an area that is both is
    an answer), a note on the first answer-role area, the answer in `answer_cell` when given
    (`SHEET!A1` or `A1` on `default_sheet`; `cell_value` = (value, number format) when it is not
    the text `answer`), and a selection of the first answer area. `guess` marks a low-confidence
    best guess: every evidence area and the answer cell get the muted `guess` colour instead.
    `clear_previous` starts the list with a `Clear`, so only this answer stays highlighted.
    """
    colours = colours or Colours()
    actions: list[Action] = [Clear()] if clear_previous else []
    roles: dict[tuple[str, str], Role] = {}
    for cell in evidence:
        key = (cell.sheet, cell.address)
        roles[key] = "answer" if cell.role == "answer" or roles.get(key) == "answer" else "header"
    for (s, a), role in roles.items():
        fill_role: FillRole = "guess" if guess else role
        actions.append(Fill(sheet=s, address=a, colour=colours.for_role(fill_role), role=fill_role))
    first = next(((s, a) for (s, a), role in roles.items() if role == "answer"), None)
    if first:
        text = note_text(question, answer, engine, why, confidence=confidence)
        actions.append(Note(sheet=first[0], address=first[1], text=text))
    if answer_cell:
        sheet, address = parse_target(answer_cell, default_sheet or (first[0] if first else None))
        value, number_format = cell_value or (answer, None)
        actions += _written(
            sheet, address, value, number_format, overwrite, colours.guess if guess else None, restorable=True
        )
    if first:
        actions.append(Select(sheet=first[0], address=first[1]))
    return actions


def actions_for_answer(
    result: AskResult,
    *,
    colours: Colours | None = None,
    answer_cell: str | None = None,
    default_sheet: str | None = None,
    overwrite: bool = False,
    clear_previous: bool = False,
) -> list[Action]:
    """`plan_actions` for an `AskResult`. Answered results highlight their evidence; an abstained
    result with a best guess highlights it in the muted guess colour (answer cell included); any
    status may be written to `answer_cell` (as `#ABSTAINED…` / `#ERROR: …`); an answered number
    goes in as a number with its source format (`answer_value`)."""
    guess = is_best_guess(result)
    evidence = result.evidence if result.status == "answered" or guess else []
    if result.status == "answered" or guess:
        shown = f"{BEST_GUESS}: {with_unit(result)}" if guess else with_unit(result)
    else:
        shown = answer_text(result)
    return plan_actions(
        question=result.question,
        answer=shown,
        cell_value=answer_value(result),
        guess=guess,
        evidence=evidence,
        engine=result.engine,
        why=reasoning(result),
        confidence=result.confidence,
        colours=colours,
        answer_cell=answer_cell,
        default_sheet=default_sheet,
        overwrite=overwrite,
        clear_previous=clear_previous,
    )


def with_unit(result: AskResult, sep: str = "; ") -> str:
    """The answers, then the unit when the text does not show it already (`47,469 (millions)`)."""
    text = sep.join(result.answer)
    return f"{text} ({result.unit})" if result.unit and result.unit not in text else text


BEST_GUESS = "Best guess (low confidence)"
"""How an abstained result's answer is labelled wherever it is shown (CLI, notes)."""


def answer_cell_actions(
    result: AskResult, sheet: str, address: str, *, overwrite: bool = False, colours: Colours | None = None
) -> list[Action]:
    """`result` written into one answer cell (`answer_value`), on the muted fill for a best guess."""
    value, number_format = answer_value(result)
    guess = (colours or Colours()).guess if is_best_guess(result) else None
    return _written(sheet, address, value, number_format, overwrite, guess)


def _written(
    sheet: str,
    address: str,
    value: str | int | float,
    number_format: str | None,
    overwrite: bool,
    guess_colour: str | None,
    restorable: bool = False,
) -> list[Action]:
    actions: list[Action] = [
        SetValue(
            sheet=sheet,
            address=address,
            value=value,
            overwrite=overwrite,
            number_format=number_format,
            restorable=restorable,
        )
    ]
    if guess_colour is not None:
        actions.append(Fill(sheet=sheet, address=address, colour=guess_colour, role="guess"))
    return actions


def is_best_guess(result: AskResult) -> bool:
    """An abstained result that still names an answer (shown as a low-confidence best guess)."""
    return result.status == "abstained" and bool(result.answer)


def evidence_link(evidence: Sequence[EvidenceCell]) -> str | None:
    """The sheet address of the first answer-role evidence area (else the first area), or None."""
    first = next((e for e in evidence if e.role == "answer"), evidence[0] if evidence else None)
    return sheet_address(first.sheet, first.address) if first else None


def log_entry(
    result: AskResult,
    *,
    sheet: str,
    range_: str,
    now: datetime | None = None,
    colour: str | None = None,
) -> LogEntry:
    """The log row for one question over the table `sheet!range_`; `colour` is the answer colour its
    evidence was highlighted in (None when it was not highlighted)."""
    shown = result.status == "answered" or is_best_guess(result)
    return LogEntry(
        timestamp=(now or datetime.now().astimezone()).isoformat(timespec="seconds"),
        sheet=sheet,
        range=range_,
        question=result.question,
        answer=answer_text(result),
        status=result.status,
        evidence=evidence_text(result.evidence, sheet),
        engine=result.engine,
        llm_calls=result.usage.llm_calls,
        link=evidence_link(result.evidence) if shown else None,
        colour=colour if shown and result.evidence else None,
    )
