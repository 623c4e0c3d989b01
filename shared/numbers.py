"""Parse numbers as tables display them, and write computed numbers back as text.

Parsing is deliberately conservative: a string is a number only when it is one number, written in
the en-US style tables use, with optional sign, currency, percent and footnote marker. Anything
else (words, ranges, dates, European ``1.234,56``) gives ``None`` so callers never act on a guess.

This is the one number classifier: header inference, table detection, retrieval, the offline
operations and the metrics decide "is this text a number" with :func:`is_number_text` /
:func:`parse_number_info`, so ``12.5*``, ``USD 5``, ``1.2E+05`` and ``₹1,234`` are numbers
everywhere. Finding numbers inside prose (faithfulness) builds on the same pieces
(:data:`CURRENCY`, :data:`MINUSES`, :data:`EXPONENT`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal

from celltrace.shared.graph import normalise_text

__all__ = [
    "CURRENCY", "EXPONENT", "MINUSES", "NumberInfo", "format_number", "is_number_text", "is_year_text",
    "parse_number", "parse_number_info",
]

_CTX = Context(prec=400, rounding=ROUND_HALF_UP)
_MINUSES = "\u2212\u2012\u2013\ufe63\uff0d"  # − ‒ – ﹣ － (not the em dash, which means "none")
_SPACES = "\u00a0\u2007\u2009\u202f"  # NBSP, figure, thin and narrow spaces
CURRENCY = r"(?:[A-Z]{1,2}\$|\$|€|£|¥|₹|₩|₽|₺|₪|฿|₫|₱|CHF|USD|EUR|GBP|JPY|CNY|INR|CAD|AUD|Rs\.?)"
"""A currency symbol or code (a regex; letters match in any case: ``usd 5`` after case-folding)."""
MINUSES = _MINUSES
"""Characters read as a minus sign besides ``-``."""
EXPONENT = r"(?:[eE][+-]?\d{1,3})"
"""A scientific-notation exponent (``E+05``)."""
_NUM = (
    r"(?:\d{1,3}(?:,\d{3})+(?:\.\d*)?"  # 1,234 / 1,234.5
    r"|\d{1,3}(?: \d{3})+(?:\.\d*)?"  # 1 234 567 (groups of exactly three)
    r"|\d+(?:\.\d*)?|\.\d+)"  # 1234 / 12.5 / 5. / .5
    rf"{EXPONENT}?"  # 1.23E+05
)
_BODY_RE = re.compile(
    rf"(?P<s1>[+-])?\s*(?P<c1>{CURRENCY})?\s*(?P<s2>[+-])?\s*(?P<num>{_NUM})(?:(?<=[\d.])[x×])?"
    rf"\s*(?P<pct>%)?\s*(?P<c2>{CURRENCY})?",
    re.IGNORECASE,
)
_PARENS_RE = re.compile(rf"(?P<c>{CURRENCY})?\s*\(\s*(?P<inner>[^()]*?)\s*\)\s*(?P<pct>%)?", re.IGNORECASE)
_FOOTNOTE_RE = re.compile(r"\s*[*†‡]+$")
_EXPONENT_RE = re.compile("[eE]")
MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
               "october", "november", "december")
MONTH_BY_SHORT = {name[:3]: name for name in MONTH_NAMES} | {"sept": "september"}
"""A month's short name → its name (`apr` → `april`)."""
YEAR_STATUS = (
    r"(?:\s?[aefpbr]|\s+(?:actuals?|estimated?|forecast|projected|budget|plan|revised|preliminary))?")
"""What follows a year in a financial model or a statistics table: actual, estimated, forecast,
budget, revised or preliminary (`FY2021A`, `2022E`, `2023 Budget`, `2019r`, `2021p`)."""
STATUS_MARK = (r"(?:\s*\((?:\w{1,3}\.?|(?:un)?audited|restated|revised|prelim(?:inary|\.)?|estimated?"
               r"|projected|forecast|budget|actuals?)\))?")
"""A period's status or footnote letter in parentheses (`2023 (p)`, `Dec 2023 (r)`, `FY 2024
(unaudited)`, `FY 2023 (prelim.)`)."""
CURRENCY_SCALE = r"(?:\s+\(?[$€£¥]\s*(?:m|bn|k|'?000s?|millions?|thousands?|billions?)?\)?)?"
"""A currency and scale written under a year in one header cell (`2023 €m`, `2022 $'000`)."""
_YEAR = re.compile(
    rf"^(?:fy\s*|fiscal\s+|(?:fall|spring|summer|autumn|winter)\s+)?"
    rf"(1[89]\d\d|20\d\d)(?:\s*[-/–]\s*\d{{2,4}})?{YEAR_STATUS}"
    rf"{STATUS_MARK}{CURRENCY_SCALE}\s*\*?$"
)


@dataclass(frozen=True)
class NumberInfo:
    """A parsed displayed number.

    ``value`` is the number as shown (``24.5%`` → 24.5, ``(7.8)`` → -7.8); ``is_percent`` says a
    ``%`` followed it; ``currency`` is the symbol or code as written (``$``, ``€``, ``US$``, ``USD``)
    or None; ``decimals`` counts the digits shown after the decimal point (mantissa for ``1.2E+05``).
    """

    value: float
    is_percent: bool
    currency: str | None
    decimals: int


def parse_number_info(text: str | float | None) -> NumberInfo | None:
    """Parse displayed number text; None when it is not exactly one number.

    Rules, applied in order:

    * ints and floats pass through (``bool``, NaN and ``None`` → None); other non-strings → None;
    * whitespace (including NBSP and thin spaces) is trimmed; empty, ``-``, ``–``, ``—`` → None;
    * a trailing footnote marker made of ``*``, ``†`` or ``‡`` is dropped (``12.5*`` → 12.5); letter
      markers such as ``12.5 (a)`` are *not* accepted;
    * unicode minus signs (``−``, ``–``, ``‒``, full-width) count as ``-``; a leading ``+`` is allowed;
    * parentheses mean negative: ``(7.8)``, ``( 1,151 )``, ``($5,813)``, ``$(5,813)``, ``(7.8)%``;
      a sign inside parentheses is rejected;
    * one currency symbol or code, before or after the number, before or after the sign
      (``$5``, ``-$5``, ``$-5``, ``€ 1.5``, ``5 €``, ``US$5``, ``USD 5``);
    * a ``%`` after the number sets ``is_percent`` but does not divide: ``24.5%`` → 24.5;
    * a multiple's ``x`` right after the digits is dropped (``5.11x``, ``2.5×`` → 5.11, 2.5);
    * digits: plain (``2017``, ``.5``, ``5.``), comma thousands in groups of exactly three
      (``1,234.5``; ``1,23`` → None), space thousands only in groups of exactly three
      (``1 234 567``), optional exponent (``1.23E+05``). European ``1.234,56`` → None.
    """
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, int | float):
        return None if math.isnan(text) else NumberInfo(float(text), False, None, _decimals_of(text))
    if not isinstance(text, str):
        return None
    s = text.strip()
    plain = s.isascii()  # no unicode spaces or minus signs to map
    if not plain:
        for ch in _SPACES:
            s = s.replace(ch, " ")
    s = _FOOTNOTE_RE.sub("", s.strip()).strip()
    if not s or s == "-" or s in _MINUSES:
        return None
    if not plain:
        for ch in _MINUSES:
            s = s.replace(ch, "-")
    negative = False
    outer_currency = None
    outer_pct = False
    if m := _PARENS_RE.fullmatch(s):
        negative, outer_currency, outer_pct, s = True, m["c"], bool(m["pct"]), m["inner"]
    m = _BODY_RE.fullmatch(s)
    if not m:
        return None
    signs = [x for x in (m["s1"], m["s2"]) if x]
    currencies = [x for x in (outer_currency, m["c1"], m["c2"]) if x]
    if len(signs) > 1 or len(currencies) > 1 or (negative and signs) or (outer_pct and m["pct"]):
        return None
    num = m["num"].replace(",", "").replace(" ", "")
    value = float(num)
    if negative or signs == ["-"]:
        value = -value
    mantissa = _EXPONENT_RE.split(num)[0]
    decimals = len(mantissa.partition(".")[2])
    return NumberInfo(value, outer_pct or bool(m["pct"]), currencies[0] if currencies else None, decimals)


def is_year_text(text: str) -> bool:
    """A year label: ``2017``, ``fy 2018``, ``fiscal 2018``, ``Fall 2019``, ``2017-18``, ``2018 (a)``,
    ``2017*``, ``2023 €m``."""
    return bool(_YEAR.match(normalise_text(text)))


def is_number_text(text: str, *, years_as_labels: bool = False) -> bool:
    """``text`` is one displayed number (:func:`parse_number_info`): ``1,234``, ``(7.8)``, ``USD 5``,
    ``12.5*``, ``1.2E+05``, ``24.5%``.

    ``years_as_labels``: a year label (:func:`is_year_text`, ``2017``) is not a number. Header
    inference and table detection read years as labels (a row of years heads the columns below it);
    retrieval and the arithmetic read them as numbers.
    """
    return parse_number_info(text) is not None and not (years_as_labels and is_year_text(text))


NIL_MARKS = frozenset(("-", "--", "–", "—", "‒", "―"))
"""A dash alone in a figure's place: nil, nothing in that period."""


def is_nil_text(text: str) -> bool:
    """The cell shows a dash alone (`—`, `-`)."""
    return text.strip() in NIL_MARKS


def parse_number(text: str | float | None) -> float | None:
    """The value of :func:`parse_number_info` (``"$5,813"`` → 5813.0, ``"24.5%"`` → 24.5) or None."""
    info = parse_number_info(text)
    return None if info is None else info.value


def format_number(x: float, decimals: int | None = None) -> str:
    """Write a computed number as plain text (no thousands separators, no exponent).

    * ``decimals`` given: round half away from zero to exactly that many places
      (``format_number(5, 2)`` → ``"5.00"``; negative values round to tens, hundreds: ``(1234, -2)``
      → ``"1200"``);
    * default: the value is first taken to 15 significant digits (float noise: ``0.1 + 0.2`` → ``"0.3"``);
      integers print without ``.0`` (``55.0`` → ``"55"``); otherwise round to 2 decimals and drop
      trailing zeros (``1/3`` → ``"0.33"``, ``2.5`` → ``"2.5"``); if that would show 0 for a non-zero
      value, keep two significant digits instead (``0.001234`` → ``"0.0012"``);
    * ``-0`` prints as ``"0"``; NaN and infinities print as ``"nan"``, ``"inf"``, ``"-inf"``.
    """
    if not math.isfinite(x):
        return str(float(x))
    num = Decimal(format(x, ".15g")) if isinstance(x, float) else Decimal(x)
    if decimals is not None:
        return _fixed(num.quantize(Decimal(1).scaleb(-decimals), context=_CTX))
    if num == num.to_integral_value():
        return _fixed(num.quantize(Decimal(1), context=_CTX))
    places = 2
    if abs(num) < Decimal("0.005"):
        places = 1 - num.adjusted()  # two significant digits
    rounded = num.quantize(Decimal(1).scaleb(-places), context=_CTX)
    text = _fixed(rounded)
    return text.rstrip("0").rstrip(".") if "." in text else text


def _fixed(num: Decimal) -> str:
    text = format(num, "f")
    return "0" + text[2:] if text.startswith("-0") and not text.strip("-0.") else text


def _decimals_of(x: float) -> int:
    """Decimals in the shortest repr of a float (``2.50`` → 1, ``3.0`` → 0)."""
    if isinstance(x, int) or not math.isfinite(x) or x == int(x):
        return 0
    exponent = Decimal(repr(x)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0
