"""Quality flags and footnote marks of statistics tables, as the notes under the table define them.

A figure shown as `16.5E` where the notes say `E use with caution` (`F too unreliable to be
published`, `r revised`, `p preliminary`, `* …`): `legend(notes)` reads the flags the notes define;
`flagged(text, flags)` splits a cell's text into the figure and its flag when the flag is one of
them (a unit such as `18.4 t` is not a flag unless the notes define it). The answer is the figure;
the flag's meaning goes to the result's warnings.

A label shown as `Ontario 2`, `Canada¹` or `Total (3)` where a note starts `2.`, `1` or `(3)`:
`footnote_marks(notes)` reads the numbers the notes define; `unmarked(text, marks)` is the label
without its mark (`Grade 12` keeps its number unless a note 12 exists, and `detect.crop` keeps
numbered series such as `Level 1`, `Level 2` whole).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from celltrace.shared.numbers import parse_number_info

__all__ = ["Flagged", "abbreviations", "figure_text", "flagged", "footnote_marks", "is_note_key", "legend",
           "unmarked"]

_FLAG = r"[A-Za-z]|[*†‡§¶:]|\.{2,3}"
"""A legend's flag: a letter, a symbol (Eurostat's `:` too), `..` or `...`."""
_LEGEND = re.compile(rf"^\s*(?P<flag>{_FLAG})(?:\s*[-–—:=]\s*|\s+)(?P<meaning>[A-Za-z][^\n]{{2,}})$")
_FLAGGED = re.compile(r"^(?P<figure>.*?[\d)%])\s?(?P<flag>[A-Za-z]|[*†‡§¶])$")


@dataclass(frozen=True)
class Flagged:
    """A figure with its quality flag and what the notes say the flag means."""

    figure: str
    flag: str
    meaning: str


def legend(notes: Iterable[str]) -> dict[str, str]:
    """Flag → meaning for each note line that defines one (`E use with caution`, `x: suppressed`,
    `... not applicable`)."""
    out: dict[str, str] = {}
    for line in notes:
        m = _LEGEND.match(line)
        if m:
            out.setdefault(m["flag"], m["meaning"].strip().rstrip("."))
    return out


_ABBREVIATION = re.compile(
    r"^\s*(?:(?i:notes?)\s*:\s*)?(?P<short>[A-Z][A-Za-z0-9/%.&-]{0,7})\s*(?:=|\s[-–—]\s)\s*"
    r"(?P<long>[A-Za-z][A-Za-z0-9 ,'/().-]{2,60}?)\s*\.?\s*$")
_FORMULA_WORDS = re.compile(r"[+*×÷/=]|\s[-–]\s|\b(?:divided|times|minus|plus|less|multiplied|ratio of)\b")
"""A definition by a formula (`PTR = enrolment divided by teachers`) spells no name out."""
_PIECE = re.compile(r";|,\s*(?=[A-Z][A-Za-z0-9/%.&-]{0,7}\s*=)")


def abbreviations(notes: Iterable[str]) -> dict[str, str]:
    """Short label → what it stands for, from notes that spell abbreviations out (`GP = games played;
    G = goals; G/90 = goals per 90 minutes`, `Note: FTE = full-time equivalent`). A definition by a
    formula (`Pts = goals + assists`, `Variance = Actual - Budget`) names nothing, nor is a word
    (`Variance`) a short label: three letters at most or capitals inside (`RevPAR`)."""
    out: dict[str, str] = {}
    for line in notes:
        for piece in _PIECE.split(line):
            m = _ABBREVIATION.match(piece.split(". ")[0])  # the definition's sentence only
            short = m["short"] if m else ""
            if m and (len(short) <= 3 or not short[1:].islower()) and not _FORMULA_WORDS.search(m["long"]):
                out.setdefault(m["short"].rstrip("."), m["long"].strip())
    return out


def flagged(text: str, flags: dict[str, str]) -> Flagged | None:
    """`16.5E` → the figure `16.5` flagged `E` when `flags` defines `E`; None otherwise."""
    m = _FLAGGED.match(text.strip())
    if m is None or m["flag"] not in flags or parse_number_info(m["figure"]) is None:
        return None
    return Flagged(m["figure"], m["flag"], flags[m["flag"]])


def figure_text(text: str, flags: dict[str, str]) -> str:
    """A cell's text without a flag `flags` defines (`4.8E` → `4.8`), else the text itself."""
    mark = flagged(text, flags) if flags else None
    return text if mark is None else mark.figure


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_NOTE_KEY = re.compile(rf"(?:{_FLAG}|[*†‡§¶#]+|\(?\d{{1,3}}\)?|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)\.?")


def is_note_key(text: str) -> bool:
    """`text` is what opens a note set out in a cell of its own: a legend's flag (`E`, `..`, `*`,
    Eurostat's `:`) or a footnote's number (`5`, `(2)`, `³`)."""
    return _NOTE_KEY.fullmatch(text.strip()) is not None
_NOTE_NUMBER = re.compile(
    r"^\s*(?:\((\d{1,2})\)|(\d{1,2})[.):]|(\d{1,2})(?=\s+[A-Z])|([⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2}))\s*[A-Za-z]")
"""A note defining a footnote: `1. Excludes …`, `(2) Includes …`, `3 Revised …`, `⁴ …` (a sentence
that opens with a number, `1 in 5 Canadians …`, defines none)."""
_MARKED = re.compile(
    r"^(?P<label>.*?[A-Za-z)\]])\s*(?:\((?P<paren>\d{1,2}(?:\s*,\s*\d{1,2})*|[A-Za-z])\)"
    r"|⁽?(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹]+(?:,[⁰¹²³⁴⁵⁶⁷⁸⁹]+)*)⁾?"
    r"|(?P<plain>\d{1,2}(?:\s*,\s*\d{1,2})*))$")


_MARKED_NUMBER = re.compile(
    r"^(?P<label>.*?\d)\s*(?:\((?P<paren>\d{1,2}|[A-Za-z])\)"
    r"|⁽?(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹]+)⁾?)(?P<plain>)$")
"""A number label's mark set apart (`2021 (1)`, `2021¹`), never run into it (`20211`)."""


def footnote_marks(notes: Iterable[str]) -> frozenset[str]:
    """The footnote numbers the notes define (`1. Excludes the territories.`, `(2) Includes …`,
    `³ Revised`), and letters they define in parentheses (`(p) provisional`)."""
    out = set()
    for line in notes:
        m = _NOTE_NUMBER.match(line) or _NOTE_LETTER.match(line)
        if m:
            out.add(next(g for g in m.groups() if g).translate(_SUPERSCRIPT))
    return frozenset(out)


_NOTE_LETTER = re.compile(r"^\s*\(([A-Za-z])\)\s*[-–:=]?\s*[A-Za-z]{3}")
"""A note defining a letter mark: `(p) provisional`, `(r) revised`."""


def unmarked(text: str, marks: frozenset[str]) -> str:
    """A label without the footnote marks at its end when every one is a note's number
    (`Ontario 2`, `Canada¹`, `Total (1,3)`, `2021 (1)` → `Ontario`, `Canada`, `Total`, `2021`); else the
    text unchanged."""
    m = (_MARKED.match(text.strip()) or _MARKED_NUMBER.match(text.strip())) if marks else None
    if m is None:
        return text
    found = (m["paren"] or m["sup"] or m["plain"]).translate(_SUPERSCRIPT)
    numbers = {n.strip() for n in found.split(",")}
    last = m["label"].rsplit(None, 1)[-1].lower()
    if m["plain"] and last in _TAKES_A_NUMBER:
        return text  # `younger than 2`, `Level 2`: the number belongs to the label
    indent = text[:len(text) - len(text.lstrip())]  # `  Restructuring⁽²⁾` stays indented
    return indent + m["label"] if numbers <= marks else text


_TAKES_A_NUMBER = frozenset((
    "to", "than", "under", "over", "and", "or", "of", "from", "aged", "age", "ages", "level", "grade",
    "year", "years", "model", "quintile", "quartile", "decile", "phase", "part", "group", "type", "class",
    "division", "step", "stage", "tier", "wave", "cycle", "round", "edition", "version", "no", "number",
    "zone", "region", "district", "ward", "unit", "week", "month", "day", "q", "quarter",
))
"""Words a label's own number follows (`aged 15 to 24`, `Level 2`, `Grade 12`): never a footnote."""
