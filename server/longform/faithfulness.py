"""Faithfulness check: every number in a long-form answer must be backed by a program or the table.

Rules (`unsupported_numbers`):

* **What is a number.** Digits as written in prose: `559,151`, `13.5`, `-7.8`, `24.5%`, `$5,813`,
  `USD 5`, `₹1,234`, `1.2E+05` (sign, currency and exponent as in `celltrace.shared.numbers`),
  optionally followed by a multiplier (`thousand`, `million`, `billion`, `trillion`; glued `5k`,
  `3bn`, `2mn`; `$5m`, `$3b` only after a currency sign, since `8.95 m` is metres).
  Not numbers: number words (`three`), digits glued to a letter before them (`A380`, `F16`),
  or after a letter and hyphen (`COVID-19`), and ordinals (`3rd`, `21st`: positions and ranks are
  usually produced by the wording of a list, not by a value). A hyphen between digits separates
  (`57-23` → 57 and 23).
* **Support.** Numbers in any program output of the final plan (JSON numbers, and numbers written
  inside its strings), numbers of every table cell (its displayed text and its raw value), and
  numbers in the sub-answers of program-backed plan items that are themselves supported by the
  above (a sub-answer cannot launder a number of its own). LLM-fallback sub-answers support
  nothing.
* **Ignored.** Numbers that also occur in the question.
* **Comparison.** By absolute value (prose writes `-7.8` as "fell by 7.8"), within the precision
  shown: `13.51` matches 13.5149, `13,510` matches 13,510.4 (± half a unit of the last shown
  digit). After a hedge (`about`, `approximately`, `around`, `roughly`, `nearly`, `almost`,
  `over`, `under`, `more than`, `less than`, `~`) trailing zeros of an integer are not significant
  either (`about 560` matches 559.2). A support also matches ×100 and ÷100 (fraction ↔ percent);
  with a multiplier word, also ×10³, ×10⁶, ×10⁹ (a table in "$ Million" and "$559.2 billion").
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from celltrace.shared.numbers import CURRENCY, EXPONENT, MINUSES

_MULTIPLIERS = {
    "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "k": 1e3, "mn": 1e6, "bn": 1e9,
}
_AFTER_CURRENCY = {"m": 1e6, "b": 1e9}
"""`$5m`, `$3b`: single-letter multipliers only right after a currency amount (`8.95 m` is metres)."""
_NUMBER = re.compile(
    r"(?<![\w.,])(?<![A-Za-z]-)"
    rf"(?P<sign>[-{MINUSES}](?=(?:{CURRENCY}\s?)?\d))?(?P<cur>{CURRENCY}\s?)?"
    rf"(?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<exp>{EXPONENT}(?!\w|\.\d))?"
    r"(?P<suffix>[A-Za-z]*)"
    r"(?P<pct>\s?%)?"
    r"(?:\s(?P<mult>thousand|million|billion|trillion|bn|mn)\b)?",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"(?:\b(?:about|approximately|approx\.?|around|roughly|nearly|almost|over|under|more than|"
    rf"less than|some)|~)\s*(?:{CURRENCY}\s?)?$",
    re.IGNORECASE,
)
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
_SCALES = (1.0, 100.0, 0.01)
_UNIT_SCALES = (1e3, 1e6, 1e9)


@dataclass(frozen=True)
class NumberSpan:
    """A number as written: `text`, the written value `digits` (signed), `mult` (multiplier word,
    else 1), `half_unit` (half a unit of the last significant shown digit) and `ordinal`."""

    text: str
    digits: float
    mult: float
    half_unit: float
    ordinal: bool

    @property
    def value(self) -> float:
        return self.digits * self.mult


def number_spans(text: str) -> list[tuple[str, float]]:
    """`(text, value)` of every non-ordinal number written in `text` (the written digits' value)."""
    return [(s.text, s.digits) for s in parse_numbers(text) if not s.ordinal]


def parse_numbers(text: str) -> list[NumberSpan]:
    """Every number written in `text` (rules in the module docstring), ordinals flagged."""
    out = []
    for m in _NUMBER.finditer(text):
        suffix = (m["suffix"] or "").lower()
        mult = _MULTIPLIERS.get((m["mult"] or "").lower(), 1.0)
        if suffix in _MULTIPLIERS:
            mult = _MULTIPLIERS[suffix]
        elif m["cur"] and suffix in _AFTER_CURRENCY:
            mult = _AFTER_CURRENCY[suffix]
        digits_text = m["num"].replace(",", "")
        decimals = len(digits_text.partition(".")[2])
        if m["exp"]:
            decimals -= int(m["exp"][1:])
        elif decimals == 0 and _HEDGE.search(text[: m.start()]):
            significant = digits_text.rstrip("0")
            decimals = -(len(digits_text) - len(significant)) if significant else 0
        digits = float(digits_text + (m["exp"] or ""))
        out.append(
            NumberSpan(
                text=m.group(0).strip(),
                digits=-digits if m["sign"] else digits,
                mult=mult,
                half_unit=0.5 * 10.0 ** (-decimals),
                ordinal=suffix in _ORDINALS,
            )
        )
    return out


class SupportSet:
    """Absolute values of supporting numbers, sorted for interval lookups."""

    def __init__(self, values: Iterable[float] = ()) -> None:
        self._values = sorted({abs(v) for v in values if math.isfinite(v)})

    def add(self, values: Iterable[float]) -> None:
        self._values = sorted({*self._values, *(abs(v) for v in values if math.isfinite(v))})

    def _near(self, value: float, tolerance: float, scales: Iterable[float]) -> bool:
        slack = tolerance + 1e-9 * max(value, 1.0)
        for k in scales:
            i = bisect.bisect_left(self._values, (value - slack) / k)
            if i < len(self._values) and self._values[i] <= (value + slack) / k:
                return True
        return False

    def supports(self, span: NumberSpan, scales: tuple[float, ...] = _SCALES) -> bool:
        """Some support × scale within the span's precision (absolute values; module rules)."""
        written = abs(span.digits)
        if self._near(written, span.half_unit, scales):
            return True
        return span.mult != 1.0 and self._near(
            written * span.mult, span.half_unit * span.mult, (*scales, *_UNIT_SCALES)
        )


def values_in(value: Any) -> list[float]:
    """Numbers inside a JSON-like value: numbers themselves and numbers written in strings."""
    out: list[float] = []
    stack = [value]
    while stack:
        x = stack.pop()
        if isinstance(x, bool) or x is None:
            continue
        if isinstance(x, int | float):
            out.append(float(x))
        elif isinstance(x, str):
            for span in parse_numbers(x):
                out += [span.digits, span.value]
        elif isinstance(x, dict):
            stack += [*x.keys(), *x.values()]
        elif isinstance(x, list | tuple):
            stack += list(x)
    return out


def unsupported_numbers(
    answer: str,
    question: str,
    program_outputs: Iterable[Any],
    sub_answers: Iterable[str],
    table_values: Iterable[float],
) -> list[str]:
    """Numbers of `answer` (as written, first occurrence) that nothing supports (module rules)."""
    support = SupportSet([*table_values, *(v for out in program_outputs for v in values_in(out))])
    derived = [
        v
        for text in sub_answers
        for span in parse_numbers(text)
        if not span.ordinal and support.supports(span)
        for v in (span.value, span.digits)
    ]
    support.add(derived)
    in_question = SupportSet(values_in(question))
    missing: list[str] = []
    for span in parse_numbers(answer):
        if span.ordinal or in_question.supports(span, (1.0,)) or support.supports(span):
            continue
        if span.text not in missing:
            missing.append(span.text)
    return missing
