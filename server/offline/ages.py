"""Age groups: the interval of years an age label or a question's wording names, so that `children
under 15` finds the label `0 to 14 years` and `aged 65 or older` finds `65 years and over`."""

from __future__ import annotations

import re

from celltrace.shared.graph import normalise_text

_YEARS = r"(?:\s*years?(?:\s*(?:old|of age))?)?"
_RANGE = re.compile(rf"\b(\d{{1,3}})\s*(?:to|-|–|through)\s*(\d{{1,3}})\b{_YEARS}", re.IGNORECASE)
_AND_OVER = re.compile(
    rf"\b(\d{{1,3}}){_YEARS}\s*(?:and|or)\s*(?:over|older|more|above)\b|\b(\d{{1,3}})\s*\+", re.IGNORECASE)
_UNDER = re.compile(
    rf"\b(?:under|less\s+than|younger\s+than|below)\s+(?:age\s+)?(\d{{1,3}})\b{_YEARS}", re.IGNORECASE)
AGE_LABEL = re.compile(rf"^(?:age[sd]?\s+)?(?:{_RANGE.pattern}|{_AND_OVER.pattern}|{_UNDER.pattern})$")
"""An age group's whole label: `15 to 24`, `25-34 years`, `65 years and over`, `ages 5 to 11`,
`under 15`, `75+`."""

Interval = tuple[int, int | None]
_NUMBER = re.compile(r"\d+")


def interval(text: str) -> Interval | None:
    """The ages (first, last; None: no upper bound) a whole age label names."""
    text = normalise_text(text)
    found = _intervals(text) if AGE_LABEL.match(text) else []
    return found[0][1] if len(found) == 1 else None


def _intervals(text: str) -> list[tuple[re.Match[str], Interval]]:
    """Every age interval `text` words, with its match, in order."""
    found: list[tuple[re.Match[str], Interval]] = []
    for m in _RANGE.finditer(text):
        if int(m.group(1)) < int(m.group(2)):
            found.append((m, (int(m.group(1)), int(m.group(2)))))
    for m in _AND_OVER.finditer(text):
        found.append((m, (int(m.group(1) or m.group(2)), None)))
    for m in _UNDER.finditer(text):
        found.append((m, (0, int(m.group(1)) - 1)))
    spans = sorted(found, key=lambda f: f[0].start())
    return [f for f in spans if not any(  # a range inside a longer one is its part
        o[0].start() <= f[0].start() and f[0].end() <= o[0].end() and o is not f for o in spans)]


def spelled_ages(question: str, labels: list[str]) -> str:
    """The question with each age group it words with other numbers written as the table's label for
    the same ages (`children under 15` → `children 0 to 14 years` when a label reads so); a wording
    with the label's numbers (`65 and over` for `65 years and over`), or that no label or more than
    one label matches, is left as it is."""
    by_ages: dict[Interval, set[str]] = {}
    for text in labels:
        ages = interval(text)
        if ages is not None:
            by_ages.setdefault(ages, set()).add(text.strip())
    if not by_ages:
        return question
    out, last = [], 0
    for m, ages in _intervals(question):
        named = by_ages.get(ages, set())
        if len(named) == 1 and _NUMBER.findall(m.group(0)) != _NUMBER.findall(next(iter(named))):
            out += [question[last:m.start()], next(iter(named))]
            last = m.end()
    return "".join(out) + question[last:]
