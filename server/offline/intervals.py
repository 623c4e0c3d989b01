"""Numeric classes: the interval a class label names (`15 to 24 years`, `500 employees and over`,
`Under $25,000`) and the intervals a question words (`children under 15`, `fewer than 10
employees`, `between 10 and 49`), so that a question's range finds the one label for it
(`spelled_classes`) or the sibling classes that together make it (`tiling`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from celltrace.shared.graph import normalise_text

_N = r"\$?(?:\d{1,3}(?:,\d{3})+|\d+)(?![\d,.]*\d)"
"""A whole number as classes write it (`25`, `$25,000`)."""
_YEARS = r"(?:\s*years?(?:\s*(?:old|of age))?)?"
_WORD = r"(?:\s+(?!and\b|or\b|to\b)[a-z]+)?"
"""One unit word between a class's number and `and over` (`500 employees and over`)."""
_RANGE = re.compile(rf"(?:\bbetween\s+(?:the\s+ages\s+of\s+)?({_N}){_YEARS}\s+and\s+({_N})"
                    rf"|(?<![\d,])({_N})\s*(?:to|-|–|through)\s*({_N})){_YEARS}", re.IGNORECASE)
_AND_OVER = re.compile(rf"(?<![\d,])({_N}){_YEARS}{_WORD}\s*(?:and|or)\s*(?:over|older|more|above)\b"
                       rf"|(?<![\d,])({_N})\s*\+|\bat\s+least\s+({_N})", re.IGNORECASE)
_MORE_THAN = re.compile(rf"\b(?:more|greater|older)\s+than\s+({_N})", re.IGNORECASE)
_UNDER = re.compile(rf"\b(?:under|less\s+than|fewer\s+than|younger\s+than|below)\s+(?:(?:the\s+)?age\s+"
                    rf"(?:of\s+)?)?({_N})\b{_YEARS}", re.IGNORECASE)
_CLASS_LABEL = re.compile(
    rf"^(?:age[sd]?\s+)?(?:{_RANGE.pattern}|{_AND_OVER.pattern}|{_MORE_THAN.pattern}|{_UNDER.pattern})"
    r"(?:\s+[a-z]+){0,2}$")
_AGE_WORDS = frozenset({"age", "ages", "aged", "year", "years", "old", "of"})

Interval = tuple[int, int | None]
"""The first and last number of a class (None: no upper bound)."""
T = TypeVar("T")


def _number(text: str) -> int:
    return int(re.sub(r"[$,]", "", text))


def _year_like(*numbers: str) -> bool:
    """Numbers written like years (`2015 to 2019`): a span of periods, not a class."""
    return any(re.fullmatch(r"(?:1[89]|20)\d\d", n) for n in numbers)


def _intervals(text: str) -> list[tuple[re.Match[str], Interval]]:
    """Every interval `text` words, with its match, in order (a range inside a longer one is its
    part)."""
    found: list[tuple[re.Match[str], Interval]] = []
    for m in _RANGE.finditer(text):
        lo, hi = [g for g in m.groups() if g]
        if not _year_like(lo, hi) and _number(lo) < _number(hi):
            found.append((m, (_number(lo), _number(hi))))
    for rx, step in ((_AND_OVER, 0), (_MORE_THAN, 1)):
        for m in rx.finditer(text):
            n = next(g for g in m.groups() if g)
            if not _year_like(n):
                found.append((m, (_number(n) + step, None)))
    for m in _UNDER.finditer(text):
        if not _year_like(m.group(1)):
            found.append((m, (0, _number(m.group(1)) - 1)))
    spans = sorted(found, key=lambda f: f[0].start())
    return [f for f in spans if not any(
        o[0].start() <= f[0].start() and f[0].end() <= o[0].end() and o is not f for o in spans)]


def interval(text: str) -> Interval | None:
    """The interval a whole class label names (`0 to 14 years`, `500 employees and over`, `Under
    $25,000`, `75+`); None for any other label."""
    text = normalise_text(text)
    found = _intervals(text) if _CLASS_LABEL.match(text) else []
    return found[0][1] if len(found) == 1 else None


def whole_classes(labels: Sequence[tuple[T, str]]) -> set[T]:
    """The keys of class labels that two or more of the others make together (`25 to 64 years` of
    `25 to 34 years` … `55 to 64 years`, `15 years and over`): a total of classes, no class."""
    classes = [(key, iv) for key, text in labels if (iv := interval(text)) is not None]
    return {key for key, iv in classes
            if len(tiling(iv, [(other, k) for k, other in classes if k != key]) or []) >= 2}


def is_age_label(text: str) -> bool:
    """A class label of ages (`15 to 24`, `65 years and over`), not of another unit (`1 to 4
    employees`, `less than $40,000`)."""
    text = normalise_text(text)
    unit = set(re.findall(r"[a-z]+", _CLASS_WORDS.sub(" ", text)))
    return interval(text) is not None and unit <= _AGE_WORDS and "$" not in text


_CLASS_WORDS = re.compile(r"\b(?:between|and|or|to|through|over|older|more|above|at|least|than|greater|"
                          r"under|less|fewer|younger|below|the)\b")


def asked(question: str) -> tuple[Interval, str] | None:
    """The one interval a question words (`fewer than 10 employees`) and its wording, or None."""
    found = _intervals(question)
    return (found[0][1], found[0][0].group(0)) if len(found) == 1 else None


def worded(text: str) -> set[Interval]:
    """Every interval a text (a title: `household population aged 12 to 79`) words."""
    return {found for _, found in _intervals(text)}


def spelled_classes(question: str, labels: list[str]) -> str:
    """The question with each interval it words with other numbers written as the table's label for
    the same interval (`children under 15` → `children 0 to 14 years` when a label reads so); a
    wording with the label's numbers (`65 and over` for `65 years and over`), or that no label or
    more than one label matches, is left as it is."""
    by_interval: dict[Interval, set[str]] = {}
    for text in labels:
        found = interval(text)
        if found is not None:
            by_interval.setdefault(found, set()).add(text.strip())
    if not by_interval:
        return question
    out, last = [], 0
    for m, found in _intervals(question):
        named = by_interval.get(found, set())
        if len(named) == 1 and _numbers(m.group(0)) != _numbers(next(iter(named))):
            out += [question[last:m.start()], next(iter(named))]
            last = m.end()
    return "".join(out) + question[last:]


def _numbers(text: str) -> list[int]:
    return [_number(n) for n in re.findall(_N, text)]


def tiling(wanted: Interval, classes: Sequence[tuple[Interval, T]]) -> list[T] | None:
    """The fewest classes (each starting where the one before ends) that together make exactly
    `wanted`, in order; None when none do. A wanted interval from 0 (`under 10`) starts at the
    lowest class; a class ending at the next one's first number (`25,000 to 50,000`) meets it."""
    lowest = min((iv[0] for iv, _ in classes), default=None)
    start = lowest if wanted[0] == 0 and lowest is not None and lowest <= 1 else wanted[0]
    paths: dict[int, list[T]] = {start: []}  # by the last number reached: one path each (bounded)
    for _ in range(len(classes)):
        grown: dict[int, list[T]] = {}
        for edge, chosen in paths.items():
            for (lo, hi), item in classes:
                if lo in (edge, edge + 1 if chosen else edge) and item not in chosen:
                    if hi == wanted[1] or (hi is not None and wanted[1] is not None and hi == wanted[1] + 1):
                        return [*chosen, item]
                    if hi is not None and (wanted[1] is None or hi < wanted[1]):
                        grown.setdefault(hi, [*chosen, item])
        paths = grown
    return None
