"""The display style of numbers in cells, so that computed numbers come back in the sources' terms.

A `NumStyle` is read from a cell's displayed text (`$31,000`, `(1,234.5)`, `24.5%`, `1,234 €`) and
turned into an Excel number-format code; computed values render through `numfmt.format_value` with
that code (a sum of `$31,000` cells prints `$87,000`) and a number written into a cell carries it.
Values follow Excel: a percent style renders a fraction (`0.245` → `24.5%`), see `excel_value`.

Decimals of derived quantities (`decimals_for`) come from the sources and the magnitude, never from
a data set: additive results keep the sources' decimals; means show one more; ratios show at least
three significant digits; percentages one decimal, more for two significant digits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Literal

from celltrace.shared.numbers import is_year_text, parse_number_info
from celltrace.shared.numfmt import format_value

__all__ = ["NumStyle", "combine", "decimals_for", "excel_value", "grouping", "percent_to_fraction"]

Kind = Literal["additive", "mean", "ratio", "percent", "count"]
MAX_DECIMALS = 6
"""No rendered number shows more decimals than this (a display choice, not a precision limit)."""
_GROUPED = re.compile(r"\d[,\u00a0\u202f ]\d{3}(?!\d)")


@dataclass(frozen=True)
class NumStyle:
    """How a number is shown: decimals, thousands grouping (None: not known from the text),
    percent, currency symbol (before or after the digits) and parentheses for negatives."""

    decimals: int = 0
    thousands: bool | None = None
    percent: bool = False
    currency: str | None = None
    currency_after: bool = False
    parens: bool = False

    @classmethod
    def of(cls, text: str) -> NumStyle | None:
        """The style of displayed number text; None when the text is not one number."""
        info = parse_number_info(text)
        if info is None or not isinstance(text, str):
            return None
        s = text.strip()
        grouped = bool(_GROUPED.search(s))
        thousands = True if grouped else (False if abs(info.value) >= 1000 else None)
        after = info.currency is not None and s.rstrip(" )%*†‡").endswith(info.currency)
        parens = info.value < 0 and "(" in s
        return cls(info.decimals, thousands, info.is_percent, info.currency, after, parens)

    def with_decimals(self, decimals: int) -> NumStyle:
        return replace(self, decimals=max(0, min(MAX_DECIMALS, decimals)))

    def code(self) -> str:
        """The Excel number-format code of this style (`"$"#,##0.00;("$"#,##0.00)`)."""
        grouped = self.thousands if self.thousands is not None else self.currency is not None
        body = ("#,##0" if grouped else "0") + ("." + "0" * self.decimals if self.decimals else "")
        body += "%" if self.percent else ""
        if self.currency:
            cur = '"' + self.currency.replace('"', "") + '"'
            body = f'{body}" "{cur}' if self.currency_after else f"{cur}{body}"
        return f"{body};({body})" if self.parens else body

    def render(self, value: float) -> str:
        """`value` (Excel terms: a fraction for a percent style) as this style displays it."""
        return format_value(value, self.code())


def excel_value(text: str) -> float | None:
    """The number Excel stores for displayed text: `24.5%` → 0.245, `($5,813)` → -5813."""
    info = parse_number_info(text)
    if info is None:
        return None
    return percent_to_fraction(info.value) if info.is_percent else info.value


def percent_to_fraction(x: float) -> float:
    """`x` percent as a fraction, without binary noise (83.7 → 0.837, not 0.8370000000000001)."""
    return float(Decimal(repr(float(x))) / 100)


def grouping(texts: Iterable[str]) -> bool | None:
    """How a table shows thousands: grouped when any number of 1,000 or more shows a separator,
    ungrouped when such numbers show none (years aside), None when no number reaches 1,000."""
    seen = {style.thousands for t in texts if not is_year_text(t) and (style := NumStyle.of(t)) is not None}
    return True if True in seen else (False if False in seen else None)


def combine(styles: Iterable[NumStyle | None], table_grouping: bool | None = None) -> NumStyle:
    """One style for a result computed from several cells: the most decimals shown, grouping and
    parentheses when any source shows them (grouping as the table shows it when no source tells,
    `grouping`), percent and currency only when every source agrees."""
    known = [s for s in styles if s is not None]
    if not known:
        return NumStyle(thousands=table_grouping)
    thousands = True if any(s.thousands for s in known) else (
        False if any(s.thousands is False for s in known) else table_grouping)
    currencies = {s.currency for s in known}
    currency = currencies.pop() if len(currencies) == 1 else None
    return NumStyle(
        decimals=max(s.decimals for s in known),
        thousands=thousands,
        percent=all(s.percent for s in known),
        currency=currency,
        currency_after=currency is not None and all(s.currency_after for s in known),
        parens=any(s.parens for s in known),
    )


def decimals_for(kind: Kind, shown: float, source_decimals: int) -> int:
    """Decimals to show a result of `kind` whose displayed magnitude is `shown` (e.g. 3.83 for
    3.83 %): additive → the sources'; mean → one more; ratio → ≥ 3 significant digits; percent →
    1 decimal, more for 2 significant digits (the sources' decimals aside: $5.15 → $6.05 is a growth
    of 17.5%); count → 0. Capped at `MAX_DECIMALS`."""
    if kind == "count":
        return 0
    if kind == "additive":
        out = source_decimals
    elif kind == "mean":
        out = max(source_decimals + 1, _significant(shown, 3))
    elif kind == "ratio":
        out = max(source_decimals, _significant(shown, 3))
    else:  # a share or a growth rate is read to a tenth of a percent, whatever its sources show
        out = max(1, _significant(shown, 2))
    return max(0, min(MAX_DECIMALS, out))


def _significant(x: float, digits: int) -> int:
    """Decimals needed to show `digits` significant digits of `x` (0 for zero)."""
    if x == 0 or not math.isfinite(x):
        return 0
    return max(0, digits - 1 - math.floor(math.log10(abs(x))))
