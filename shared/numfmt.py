"""Render a raw cell value with its Excel number format code into the text Excel displays.

openpyxl (``data_only=True``) gives raw values plus ``cell.number_format`` but never renders them, so
this module implements the common subset of Excel's format language (en-US locale):

* ``General`` (integers up to 11 digits, otherwise up to 10 significant digits / 11 characters,
  scientific ``1.23457E+11`` when that does not fit), digit placeholders ``0 # ?``, ``.``, thousands
  ``,``, scaling ``,`` after the last digit (÷1000 each), ``%``, scientific ``0.00E+00`` (and
  engineering ``##0.0E+0``), fractions ``# ?/?`` / ``?/8``;
* up to four sections ``pos;neg;zero;text`` and conditions such as ``[>=1000]``;
* literals: ``"text"``, ``\\x``, unquoted ``$ - + ( ) : / space``, ``[$€-407]`` currency, ``_x``
  (one space), ``*x`` (fill, dropped), colours and ``[$-409]`` locale tags (dropped);
* dates and times: ``y m d h s``, ``AM/PM``, ``A/P``, ``ss.00``, elapsed ``[h] [m] [s]``, for
  ``datetime``/``date``/``time``/``timedelta`` values and for numeric serials (1900 date system).

Rounding is half away from zero on the value taken to 15 significant digits, as Excel does. Strings
(including error codes such as ``#N/A``) are returned unchanged; ``None`` → ``""``; booleans →
``TRUE``/``FALSE``. Not supported (falls back to General or ISO text, never raises): the 1904 date
system, serial 60 (the fictitious 1900-02-29), negative dates, non-Gregorian calendars, locale-specific
month names or separators, column-width effects (``###``), and the text section for string values.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction
from functools import lru_cache

__all__ = ["format_value", "from_serial", "is_date_format"]

_CTX = Context(prec=400, rounding=ROUND_HALF_UP)
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September"]
_MONTHS += ["October", "November", "December"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_COND_RE = re.compile(r"^(<=|>=|<>|<|>|=)\s*(-?[0-9.]+(?:[eE][+-]?\d+)?)$")
_ELAPSED_RE = re.compile(r"^(h+|m+|s+)$", re.IGNORECASE)
# Format codes that openpyxl reports for built-in ids but Excel (en-US) displays differently.
_ALIASES = {
    "mm-dd-yy": "m/d/yyyy",  # numFmtId 14 is the locale short date
    "m/d/yy h:mm": "m/d/yyyy h:mm",  # numFmtId 22
    '_("$"* #,##0.00_)_("$"* \\(#,##0.00\\)_("$"* "-"??_)_(@_)': (  # openpyxl lost the ';'
        '_("$"* #,##0.00_);_("$"* \\(#,##0.00\\);_("$"* "-"??_);_(@_)'
    ),
}
_EPOCH = datetime(1899, 12, 30)


@dataclass(frozen=True)
class _Tok:
    kind: str  # lit dig dot comma pct exp slash date ampm elapsed general text
    text: str


@dataclass(frozen=True)
class _Section:
    tokens: tuple[_Tok, ...]
    cond: tuple[str, float] | None
    is_date: bool


def format_value(value: object, number_format: str | None) -> str:
    """Return the text Excel displays for ``value`` formatted with ``number_format``.

    ``None``/empty format means General. Unsupported input falls back to General; never raises.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return value
    try:
        return _format(value, number_format)
    except Exception:  # the formatter must never break a snapshot; degrade to General
        return _fallback(value)


def is_date_format(number_format: str | None) -> bool:
    """True when the first section of ``number_format`` renders a date or time."""
    if not number_format:
        return False
    return _parse(number_format)[0].is_date


def _format(value: object, code: str | None) -> str:
    general = _is_general(code)
    if general and type(value) is int and -_GENERAL_INT < value < _GENERAL_INT:
        return str(value)  # what General shows for an integer of up to 11 digits (the common cell)
    sections = _parse(code) if code and code.strip() else ()
    if isinstance(value, datetime | date | time | timedelta):
        section = _pick_section(sections, 1.0) if sections else None
        if section is None or not section.is_date:
            return _fallback(value)
        moment = _moment_from_value(value)
        return _fallback(value) if moment is None else _render_date(section.tokens, *moment)
    if not isinstance(value, int | float | Decimal):
        return _fallback(value)
    num = _to_decimal(value)
    if not num.is_finite():
        return str(value)
    if general:
        return _general(num)
    section = _pick_section(sections, float(num))
    if section is None:
        return _general(num)
    if section.is_date:
        moment = _moment_from_serial(float(num))
        return _general(num) if moment is None else _render_date(section.tokens, *moment)
    # In the negative section (2+ sections, no conditions) the sign is expressed by the format.
    sign_in_format = num < 0 and section is _negative_section(sections)
    text = _render_number(section.tokens, abs(num))
    if num < 0 and not sign_in_format and any(t.kind in ("dig", "general", "text") for t in section.tokens):
        return "-" + text
    return text


_GENERAL_INT = 10**11
"""Integers below this magnitude show all their digits in the General format."""


@lru_cache(maxsize=512)
def _is_general(code: str | None) -> bool:
    """The format is empty or plain `General` (one section, one token, no condition)."""
    sections = _parse(code) if code and code.strip() else ()
    if len(sections) > 1:
        return False
    return not sections or (sections[0].cond is None and [t.kind for t in sections[0].tokens] == ["general"])


def _fallback(value: object) -> str:
    """General text for numbers, ISO text for dates, ``str`` for anything else."""
    try:
        if isinstance(value, bool):
            return "TRUE" if value else "FALSE"
        if isinstance(value, int | float | Decimal):
            num = _to_decimal(value)
            return _general(num) if num.is_finite() else str(value)
        if isinstance(value, datetime):
            if value.time() == time(0):
                return value.date().isoformat()
            return value.replace(tzinfo=None).isoformat(sep=" ", timespec="seconds")
        if isinstance(value, date | time):
            return value.isoformat()
        return str(value)
    except Exception:  # last resort: never raise
        return repr(value)


def _to_decimal(value: int | float | Decimal) -> Decimal:
    """Exact for ints/Decimals; floats are taken to 15 significant digits like Excel."""
    if isinstance(value, float):
        return Decimal(format(value, ".15g")) if math.isfinite(value) else Decimal(str(value))
    return Decimal(value)


def _round(num: Decimal, decimals: int) -> Decimal:
    """Round half away from zero to ``decimals`` places."""
    return num.quantize(Decimal(1).scaleb(-decimals), context=_CTX)


def _plain(num: Decimal) -> str:
    """Fixed-point text without exponent or trailing fractional zeros."""
    text = format(num, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _scientific(num: Decimal, decimals: int = 5) -> str:
    """Excel General scientific text: ``1.23457E+11``, ``1E-12``."""
    exp = num.adjusted()
    mant = _round(num.scaleb(-exp), decimals)
    if abs(mant) >= 10:
        exp += 1
        mant = _round(num.scaleb(-exp), decimals)
    sign = "+" if exp >= 0 else "-"
    return f"{_plain(mant)}E{sign}{abs(exp):02d}"


def _general(num: Decimal) -> str:
    """Excel's General format (standard column width: at most 11 characters besides the sign)."""
    if num.is_zero():
        return "0"
    neg = num < 0
    num = abs(num)
    exp = num.adjusted()
    if num == num.to_integral_value() and exp < 11:
        text = _plain(num)
    elif -5 <= exp <= -1:
        text = _plain(_round(num, 9)) if exp >= -4 else _plain(_round(num, 12))
        if len(text) > 11 or text == "0":
            text = _scientific(num)
    elif 0 <= exp <= 10:
        rounded = _round(num, max(0, 9 - exp))
        text = _plain(rounded) if rounded < Decimal("1e11") else _scientific(num)
    elif -9 <= exp < -5:
        text = _plain(_round(num, 12))
        if len(text) > 11:
            text = _scientific(num)
    else:
        text = _scientific(num)
    return "-" + text if neg and text != "0" else text


# ---------------------------------------------------------------- parsing


@lru_cache(maxsize=512)
def _parse(code: str) -> tuple[_Section, ...]:
    code = _ALIASES.get(code, code)
    return tuple(_parse_section(part) for part in _split_sections(code))


def _split_sections(code: str) -> list[str]:
    parts, buf, i = [], [], 0
    while i < len(code):
        ch = code[i]
        if ch == '"':
            end = code.find('"', i + 1)
            end = len(code) if end < 0 else end + 1
            buf.append(code[i:end])
            i = end
            continue
        if ch in "\\_*" and i + 1 < len(code):
            buf.append(code[i : i + 2])
            i += 2
            continue
        if ch == "[":
            end = code.find("]", i)
            end = len(code) if end < 0 else end + 1
            buf.append(code[i:end])
            i = end
            continue
        if ch == ";":
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf))
    return parts


_SINGLE_TOKENS = {".": "dot", ",": "comma", "%": "pct", "/": "slash", "@": "text"}
"""One-character format symbols and their token kinds."""


def _parse_section(text: str) -> _Section:
    toks: list[_Tok] = []
    cond: tuple[str, float] | None = None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        low = ch.lower()
        if ch == '"':
            end = text.find('"', i + 1)
            if end < 0:
                raise ValueError(f"unterminated quote in {text!r}")
            toks.append(_Tok("lit", text[i + 1 : end]))
            i = end + 1
        elif ch == "\\":
            toks.append(_Tok("lit", text[i + 1 : i + 2]))
            i += 2
        elif ch == "_":
            toks.append(_Tok("lit", " "))
            i += 2
        elif ch == "*":
            i += 2
        elif ch == "[":
            end = text.find("]", i)
            if end < 0:
                raise ValueError(f"unterminated bracket in {text!r}")
            inner = text[i + 1 : end]
            i = end + 1
            if m := _COND_RE.match(inner):
                cond = (m.group(1), float(m.group(2)))
            elif inner.startswith("$"):
                symbol = inner[1:].split("-", 1)[0]
                if symbol:
                    toks.append(_Tok("lit", symbol))
            elif _ELAPSED_RE.match(inner):
                toks.append(_Tok("elapsed", inner.lower()))
            # colours ([Red], [Color10]) and other tags are dropped
        elif ch in "0#?":
            toks.append(_Tok("dig", ch))
            i += 1
        elif ch in _SINGLE_TOKENS:
            toks.append(_Tok(_SINGLE_TOKENS[ch], ch))
            i += 1
        elif low == "e" and i + 1 < n and text[i + 1] in "+-":
            toks.append(_Tok("exp", text[i + 1]))
            i += 2
        elif text[i : i + 5].upper() == "AM/PM":
            toks.append(_Tok("ampm", "AM/PM"))
            i += 5
        elif text[i : i + 3].upper() == "A/P":
            toks.append(_Tok("ampm", text[i : i + 3]))
            i += 3
        elif text[i : i + 7].lower() == "general":
            toks.append(_Tok("general", "General"))
            i += 7
        elif low in "ymdhse":
            j = i
            while j < n and text[j].lower() == low:
                j += 1
            toks.append(_Tok("date", ("y" if low == "e" else low) * (j - i if low != "e" else 4)))
            i = j
        else:
            toks.append(_Tok("lit", ch))
            i += 1
    is_date = any(t.kind in ("date", "ampm", "elapsed") for t in toks)
    return _Section(tuple(toks), cond, is_date)


# ---------------------------------------------------------------- section choice


def _matches(cond: tuple[str, float], x: float) -> bool:
    op, ref = cond
    return {
        "<": x < ref,
        ">": x > ref,
        "=": x == ref,
        "<=": x <= ref,
        ">=": x >= ref,
        "<>": x != ref,
    }[op]


def _numeric_sections(sections: tuple[_Section, ...]) -> tuple[_Section, ...]:
    return sections[:3]


def _negative_section(sections: tuple[_Section, ...]) -> _Section | None:
    nums = _numeric_sections(sections)
    if len(nums) >= 2 and not any(s.cond for s in nums):
        return nums[1]
    return None


def _pick_section(sections: tuple[_Section, ...], x: float) -> _Section | None:
    """Excel's rule: pos;neg;zero (two sections: pos/zero;neg), or explicit conditions."""
    nums = _numeric_sections(sections)
    if any(s.cond for s in nums):
        for s in nums:
            if s.cond is None or _matches(s.cond, x):
                return s
        return None
    if len(nums) == 1 or x > 0:
        return nums[0]
    if x < 0:
        return nums[1]
    return nums[2] if len(nums) >= 3 else nums[0]


# ---------------------------------------------------------------- numbers


def _render_number(toks: tuple[_Tok, ...], num: Decimal) -> str:
    """Render non-negative ``num`` with a numeric section."""
    num *= Decimal(100) ** sum(t.kind == "pct" for t in toks)
    exp_at = next((i for i, t in enumerate(toks) if t.kind == "exp"), None)
    body_end = exp_at if exp_at is not None else len(toks)
    digit_idx = [i for i, t in enumerate(toks) if t.kind == "dig"]
    dot_at = next((i for i, t in enumerate(toks[:body_end]) if t.kind == "dot"), None)
    int_end = dot_at if dot_at is not None else body_end
    int_digits = [i for i in digit_idx if i < int_end]

    out: dict[int, str] = {}
    grouping = False
    for i, t in enumerate(toks):
        if t.kind != "comma":
            continue
        if any(d < i for d in int_digits) and any(i < d < int_end for d in int_digits):
            grouping = True
            out[i] = ""
        elif (
            i
            and (toks[i - 1].kind == "dig" or out.get(i - 1) == "")
            and not any(i < d < body_end for d in digit_idx)
        ):
            num /= 1000  # scaling comma after the last digit placeholder
            out[i] = ""

    if any(t.kind in ("general", "text") for t in toks):  # "General", "$"General, "@"
        return _assemble(toks, out, num, None, "")
    slash_at = next((i for i, t in enumerate(toks) if t.kind == "slash"), None)
    if slash_at is not None and exp_at is None and any(d < slash_at for d in digit_idx):
        return _render_fraction(toks, num, slash_at, out)

    frac_digits = [i for i in digit_idx if dot_at is not None and dot_at < i < body_end]
    exponent = 0
    if exp_at is not None:
        num, exponent = _mantissa(num, [toks[i].text for i in int_digits], len(frac_digits))
    num = _round(num, len(frac_digits))
    int_text = str(int(num)) if int(num) else ""
    frac_text = format(num, "f").partition(".")[2]

    out.update(_fill_int([toks[i].text for i in int_digits], int_text, int_digits, grouping))
    out.update(_fill_frac([toks[i].text for i in frac_digits], frac_text, frac_digits))
    if exp_at is not None:
        exp_digits = [i for i in digit_idx if i > exp_at]
        zeros = sum(toks[i].text == "0" for i in exp_digits)
        sign = "-" if exponent < 0 else ("+" if toks[exp_at].text == "+" else "")
        out[exp_at] = "E" + sign + str(abs(exponent)).zfill(zeros)
        out.update(dict.fromkeys(exp_digits, ""))
    lead = int_text if frac_digits and not int_digits else ""  # ".00" still shows integer digits
    return _assemble(toks, out, num, dot_at, lead)


def _mantissa(num: Decimal, int_ph: list[str], decimals: int) -> tuple[Decimal, int]:
    """Split ``num`` into mantissa and exponent for ``0.00E+00`` / engineering ``##0.0E+0``."""
    if num.is_zero():
        return num, 0
    width = max(1, len(int_ph))
    engineering = width > 1 and "#" in int_ph
    mag = num.adjusted()
    while True:
        exponent = (mag // width) * width if engineering else mag - (width - 1)
        mant = _round(num.scaleb(-exponent), decimals)
        if mant.adjusted() <= mag - exponent:  # rounding did not add a digit
            return mant, exponent
        mag += 1


def _fill_int(ph: list[str], digits: str, idx: list[int], grouping: bool) -> dict[int, str]:
    """Right-align ``digits`` into integer placeholders; the leftmost takes any overflow."""
    parts: list[str] = []
    for k in range(len(ph)):
        pos = len(digits) - len(ph) + k
        if pos >= 0:
            parts.append(digits[: pos + 1] if k == 0 else digits[pos])
        else:
            parts.append({"0": "0", "?": " "}.get(ph[k], ""))
    if grouping:
        count, grouped = 0, []
        for part in reversed(parts):
            chars = []
            for ch in reversed(part):
                if ch.isdigit():
                    if count and count % 3 == 0:
                        chars.append(",")
                    count += 1
                chars.append(ch)
            grouped.append("".join(reversed(chars)))
        parts = list(reversed(grouped))
    return dict(zip(idx, parts, strict=True))


def _fill_frac(ph: list[str], digits: str, idx: list[int]) -> dict[int, str]:
    """Fraction digits; trailing zeros vanish under ``#`` and become spaces under ``?``."""
    parts = list(digits[: len(ph)])
    for k in range(len(ph) - 1, -1, -1):
        if parts[k] != "0" or ph[k] == "0":
            break
        parts[k] = " " if ph[k] == "?" else ""
    return dict(zip(idx, parts, strict=True))


def _assemble(
    toks: tuple[_Tok, ...], out: dict[int, str], num: Decimal, dot_at: int | None, lead: str
) -> str:
    pieces = []
    for i, t in enumerate(toks):
        if i == dot_at and lead:
            pieces.append(lead)
        if i in out:
            pieces.append(out[i])
        elif t.kind in ("general", "text"):
            pieces.append(_general(num))
        elif t.kind == "date":
            pieces.append("")
        else:
            pieces.append(t.text)
    if dot_at is None and lead:
        pieces.append(lead)
    return "".join(pieces)


def _render_fraction(toks: tuple[_Tok, ...], num: Decimal, slash_at: int, out: dict[int, str]) -> str:
    """``# ?/?``, ``?/8``: optional whole part, numerator, denominator (placeholders or fixed)."""
    before = [i for i in range(slash_at) if toks[i].kind == "dig"]
    k = len(before) - 1  # the numerator is the last run of adjacent placeholders
    while k > 0 and before[k - 1] == before[k] - 1:
        k -= 1
    whole_idx, numer_idx = before[:k], before[k:]
    den_idx = []
    j = slash_at + 1
    while j < len(toks) and (toks[j].kind == "dig" or (toks[j].kind == "lit" and toks[j].text.isdigit())):
        den_idx.append(j)
        j += 1
    den_code = "".join(toks[i].text for i in den_idx)
    # "?/8", "?/10": a literal non-zero digit makes the denominator fixed
    fixed = any(toks[i].kind == "lit" for i in den_idx) and den_code.isdigit() and int(den_code) > 0
    whole = int(num) if whole_idx else 0
    rest = Fraction(num) - whole
    if fixed:
        denom = int(den_code)
        numer = int(_round(_CTX.divide(Decimal(rest.numerator * denom), Decimal(rest.denominator)), 0))
    else:
        frac = rest.limit_denominator(10 ** max(1, len(den_idx)) - 1)
        numer, denom = frac.numerator, frac.denominator
    if whole_idx and numer == denom:
        whole, numer = whole + 1, 0
    if whole_idx:
        out.update(
            _fill_int([toks[i].text for i in whole_idx], str(whole) if whole else "", whole_idx, False)
        )
    if whole_idx and numer == 0:  # Excel blanks the fraction: "5    "
        if not whole:
            out[whole_idx[-1]] = "0"
        span = range(numer_idx[0], (den_idx[-1] if den_idx else slash_at) + 1)
        out.update(dict.fromkeys(span, ""))
        out[numer_idx[0]] = " " * len(span)
        return _assemble(toks, out, num, None, "")
    out.update(_fill_int([toks[i].text for i in numer_idx], str(numer), numer_idx, False))
    if den_idx:
        out.update(dict.fromkeys(den_idx, ""))
        den_str = den_code if fixed else str(denom)
        pad = toks[den_idx[-1]].text == "?" and not fixed
        out[den_idx[0]] = den_str.ljust(len(den_idx)) if pad else den_str
    return _assemble(toks, out, num, None, "")


# ---------------------------------------------------------------- dates


def from_serial(serial: float, *, elapsed: bool = False) -> datetime | time | timedelta | None:
    """The moment Excel displays for a 1900-system serial, to the millisecond (the one serial → date
    conversion: numfmt renders with it, the add-in reads live Excel dates with it).

    Excel counts a fictitious 1900-02-29 as serial 60, so 1 → 1900-01-01 and 59 → 1900-02-28 count
    from 1899-12-31, 61 → 1900-03-01 on from 1899-12-30; serial 60 and negatives display no date
    (None). ``0 <= serial < 1`` is a time of day (day 0, as openpyxl reads it). ``elapsed``: a
    duration format (``[h]:mm``), so the serial is a ``timedelta`` of that many days.
    """
    if elapsed:
        return timedelta(milliseconds=round(serial * _MS_PER_DAY))
    if serial < 0 or 60 <= serial < 61:
        return None
    day, fraction = divmod(serial, 1)
    base = _EPOCH if serial >= 61 else datetime(1899, 12, 31)
    moment = base + timedelta(days=day, milliseconds=round(fraction * _MS_PER_DAY))
    return moment.time() if moment.date() == _DAY_ZERO else moment


_MS_PER_DAY = 86_400_000
_DAY_ZERO = date(1899, 12, 31)
"""Serial 0 (Excel shows it as 1900-01-00)."""


def _moment_from_serial(serial: float) -> tuple[datetime, float] | None:
    """1900-system serial → (datetime, elapsed seconds); None where Excel shows no date."""
    moment = from_serial(serial)
    if moment is None or isinstance(moment, timedelta):
        return None
    if isinstance(moment, time):
        moment = datetime.combine(_DAY_ZERO, moment)
    return moment, serial * 86400


def _moment_from_value(value: datetime | date | time | timedelta) -> tuple[datetime, float] | None:
    if isinstance(value, timedelta):
        return (_EPOCH + value, value.total_seconds()) if value >= timedelta(0) else None
    if isinstance(value, datetime):
        value = value.replace(tzinfo=None)
        return value, (value - _EPOCH).total_seconds()
    if isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
        return dt, (dt - _EPOCH).total_seconds()
    dt = datetime.combine(_EPOCH.date(), value.replace(tzinfo=None))
    return dt, (dt - _EPOCH).total_seconds()


def _render_date(toks: tuple[_Tok, ...], dt: datetime, elapsed: float) -> str:
    """Render a date/time section; times are rounded to the displayed precision first."""
    kinds = [t.text[0] if t.kind in ("date", "elapsed") else "" for t in toks]
    # seconds decimals: "ss.00"
    frac_at: dict[int, int] = {}
    for i, t in enumerate(toks):
        if t.kind == "dot" and i and kinds[i - 1] == "s":
            j = i + 1
            while j < len(toks) and toks[j].kind == "dig" and toks[j].text == "0":
                j += 1
            frac_at[i] = j - i - 1
    decimals = max(frac_at.values(), default=0)
    shows_time = any(k in ("h", "s") for k in kinds)
    if shows_time:
        unit = 10 ** (6 - decimals)
        micros = (dt.microsecond + unit // 2) // unit * unit
        dt = dt.replace(microsecond=0) + timedelta(microseconds=micros)
        elapsed = float(_round(Decimal(repr(elapsed)), decimals))
    ampm = any(t.kind == "ampm" for t in toks)
    minute_at = _minute_positions(toks, kinds)
    pieces: list[str] = []
    skip = 0
    for i, t in enumerate(toks):
        if skip:
            skip -= 1
            continue
        if i in frac_at:
            n = frac_at[i]
            if n:
                pieces.append("." + f"{dt.microsecond:06d}"[:n])
                skip = n
            else:
                pieces.append(".")
            continue
        if t.kind == "elapsed":
            unit_s = {"h": 3600, "m": 60, "s": 1}[t.text[0]]
            pieces.append(str(int(elapsed // unit_s)).zfill(len(t.text)))
        elif t.kind == "ampm":
            pm = dt.hour >= 12
            if t.text.upper() == "AM/PM":
                pieces.append("PM" if pm else "AM")
            else:
                letter = t.text[2] if pm else t.text[0]
                pieces.append(letter)
        elif t.kind == "date":
            pieces.append(_date_part(t.text, dt, i in minute_at, ampm))
        else:
            pieces.append(t.text)
    return "".join(pieces)


def _minute_positions(toks: tuple[_Tok, ...], kinds: list[str]) -> set[int]:
    """``m``/``mm`` means minutes right after an hour token or right before a seconds token."""
    seq = [i for i, k in enumerate(kinds) if k]
    found = set()
    for pos, i in enumerate(seq):
        if kinds[i] != "m" or toks[i].kind != "date" or len(toks[i].text) > 2:
            continue
        prev_h = pos > 0 and kinds[seq[pos - 1]] == "h"
        next_s = pos + 1 < len(seq) and kinds[seq[pos + 1]] == "s"
        if prev_h or next_s:
            found.add(i)
    return found


def _date_part(code: str, dt: datetime, minute: bool, ampm: bool) -> str:
    letter, width = code[0], len(code)
    if letter == "y":
        return f"{dt.year % 100:02d}" if width <= 2 else f"{dt.year:04d}"
    if letter == "m" and minute:
        return f"{dt.minute:02d}" if width >= 2 else str(dt.minute)
    if letter == "m":
        name = _MONTHS[dt.month - 1]
        return [str(dt.month), f"{dt.month:02d}", name[:3], name][width - 1] if width <= 4 else name[0]
    if letter == "d":
        name = _DAYS[dt.weekday()]
        return [str(dt.day), f"{dt.day:02d}", name[:3]][width - 1] if width <= 3 else name
    if letter == "h":
        hour = (dt.hour % 12 or 12) if ampm else dt.hour
        return f"{hour:02d}" if width >= 2 else str(hour)
    return f"{dt.second:02d}" if width >= 2 else str(dt.second)
