"""Tests for celltrace.shared.numfmt.format_value."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from celltrace.shared.numbers import parse_number
from celltrace.shared.numfmt import format_value, from_serial, is_date_format

ACCOUNTING = '_(* #,##0_);_(* \\(#,##0\\);_(* "-"_);_(@_)'
ACCOUNTING_USD = '_("$"* #,##0.00_);_("$"* \\(#,##0.00\\);_("$"* "-"??_);_(@_)'


@pytest.mark.parametrize(
    ("value", "code", "expected"),
    [
        # the brief's examples
        (0.245, "0.0%", "24.5%"),
        (5813, '"$"#,##0', "$5,813"),
        (-7.8, "0.0;(0.0)", "(7.8)"),
        # plain numeric codes
        (1234.5, "0", "1235"),
        (2.5, "0", "3"),
        (-2.5, "0", "-3"),
        (2.675, "0.00", "2.68"),
        (1.005, "0.00", "1.01"),
        (1234567.891, "#,##0", "1,234,568"),
        (1234567.891, "#,##0.00", "1,234,567.89"),
        (999.995, "#,##0.00", "1,000.00"),
        (12, "#,##0", "12"),
        (0, "#,##0", "0"),
        (0.5, "#,##0", "1"),
        (0.4, "#", ""),
        (5.5, ".00", "5.50"),
        (0.5, "#.00", ".50"),
        (0.5, "0.##", "0.5"),
        (3, "0.##", "3."),
        (1.5, "0.0?", "1.5 "),
        (12, "000", "012"),
        (5, "?0", " 5"),
        (-0.3, "0", "-0"),
        # percent
        (0.5, "0%", "50%"),
        (0.12345, "0.00%", "12.35%"),
        (-0.078, "0.0%", "-7.8%"),
        (-0.078, "0.0%;(0.0%)", "(7.8%)"),
        # scaling commas and literals
        (1234567, '#,##0,"K"', "1,235K"),
        (1234567, '0.0,,"M"', "1.2M"),
        (12, '"Total: "0', "Total: 12"),
        (5, "0\\x", "5x"),
        (1.5, '0.0 "kg"', "1.5 kg"),
        (12, "000-00", "000-12"),
        (5551234567, "(###) ###-####", "(555) 123-4567"),
        # currency
        (5813, "$#,##0", "$5,813"),
        (-5813, "$#,##0", "-$5,813"),
        (1234.5678, "[$€-407] #,##0.00", "€ 1,234.57"),
        (1234.5, "#,##0.00 [$€-1]", "1,234.50 €"),
        (42, "[$USD] 0", "USD 42"),
        (-1151, '"$"#,##0_);("$"#,##0)', "($1,151)"),
        (1151, '"$"#,##0_);("$"#,##0)', "$1,151 "),
        # sections, colours, padding, fill
        (-1234.5, "#,##0;[Red](#,##0)", "(1,235)"),
        (1234.5, "#,##0;[Red](#,##0)", "1,235"),
        (-1234.5, "[Blue]#,##0;[Color10]-#,##0", "-1,235"),
        (1234, "#,##0_);(#,##0)", "1,234 "),
        (-1151, ACCOUNTING, " (1,151)"),
        (1151, ACCOUNTING, " 1,151 "),
        (0, ACCOUNTING, " - "),
        (0, ACCOUNTING_USD, " $-   "),
        (-1.5, ACCOUNTING_USD, " $(1.50)"),
        (0, '0.0;(0.0);"zero"', "zero"),
        (0, "0;-0;;@", ""),
        (5, ";;;", ""),
        (7, "**0", "7"),
        # conditions
        (5, "[>=10]0;[<10]0.0", "5.0"),
        (12, "[>=10]0;[<10]0.0", "12"),
        (1500, '[>=1000]0,"K";0', "2K"),
        (500, '[>=1000]0,"K";0', "500"),
        # scientific and fractions
        (1234567, "0.00E+00", "1.23E+06"),
        (0.000123, "0.00E+00", "1.23E-04"),
        (9.999, "0.00E+00", "1.00E+01"),
        (0, "0.00E+00", "0.00E+00"),
        (1234567, "##0.0E+0", "1.2E+6"),
        (1234, "0.0E-0", "1.2E3"),
        (5.25, "# ?/?", "5 1/4"),
        (0.5, "# ?/?", " 1/2"),
        (-1234.5678, "# ?/?", "-1234 4/7"),
        (45000.5, "# ??/??", "45000  1/2 "),
        (0.3, "?/8", "2/8"),
        (5, "# ?/?", "5    "),
        # General inside sections, text placeholder with numbers
        (1.25, '"$"General', "$1.25"),
        (-3, "General;(General)", "(3)"),
        (123, "@", "123"),
    ],
)
def test_numeric_formats(value: object, code: str, expected: str) -> None:
    assert format_value(value, code) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, "0"),
        (42, "42"),
        (42.0, "42"),
        (-42.0, "-42"),
        (-0.0, "0"),
        (0.1 + 0.2, "0.3"),
        (1 / 3, "0.333333333"),
        (-1 / 3, "-0.333333333"),
        (2 / 3, "0.666666667"),
        (12345.6789012, "12345.6789"),
        (123456.789012345, "123456.789"),
        (12345678901, "12345678901"),
        (123456789012, "1.23457E+11"),
        (1e11, "1E+11"),
        (1e15, "1E+15"),
        (1.5e-7, "0.00000015"),
        (1.23456789e-5, "1.23457E-05"),
        (0.000123456789, "0.000123457"),
        (1e-12, "1E-12"),
        (2.5, "2.5"),
        (Decimal("1.10"), "1.1"),
    ],
)
def test_general(value: float, expected: str) -> None:
    assert format_value(value, "General") == expected
    assert format_value(value, None) == expected
    assert format_value(value, "") == expected


@pytest.mark.parametrize(
    ("value", "code", "expected"),
    [
        (45000, "yyyy-mm-dd", "2023-03-15"),
        (45000, "m/d/yyyy", "3/15/2023"),
        (45000, "d-mmm-yy", "15-Mar-23"),
        (45000, "mmm yyyy", "Mar 2023"),
        (45000, "mmmm d, yyyy", "March 15, 2023"),
        (45000, "[$-409]mmmm d, yyyy;@", "March 15, 2023"),
        (45000, "dddd, mmmmm", "Wednesday, M"),
        (45000, "ddd dd/mm/yy", "Wed 15/03/23"),
        (45000, "mm-dd-yy", "3/15/2023"),  # built-in 14 shows the en-US short date
        (45000.75, "m/d/yyyy h:mm", "3/15/2023 18:00"),
        (45000.75, "m/d/yy h:mm", "3/15/2023 18:00"),
        (45000.5, "dd/mm/yyyy hh:mm", "15/03/2023 12:00"),
        (0.5, "h:mm:ss AM/PM", "12:00:00 PM"),
        (0.25, "h:mm AM/PM", "6:00 AM"),
        (0.75, "hh:mm a/p", "06:00 p"),
        (0.000694444, "mm:ss", "01:00"),
        (0.99999999, "h:mm:ss", "0:00:00"),
        (1.5, "[h]:mm:ss", "36:00:00"),
        (0.5, "[m]", "720"),
        (0.5 + 1.5 / 86400, "h:mm:ss.0", "12:00:01.5"),
        (59, "yyyy-mm-dd", "1900-02-28"),
        (61, "yyyy-mm-dd", "1900-03-01"),
        (1, "yyyy-mm-dd", "1900-01-01"),
        (1.75, "m/d/yyyy h:mm", "1/1/1900 18:00"),
        (31, "d-mmm-yy", "31-Jan-00"),
        (32, "d-mmm-yy", "1-Feb-00"),
        (59.5, "yyyy-mm-dd hh:mm", "1900-02-28 12:00"),
        (61.25, "yyyy-mm-dd hh:mm", "1900-03-01 06:00"),
    ],
)
def test_serial_dates(value: float, code: str, expected: str) -> None:
    assert format_value(value, code) == expected


@pytest.mark.parametrize(
    ("serial", "expected"),
    [
        (0.5, time(12, 0)),  # day 0: a time of day
        (1, datetime(1900, 1, 1)),
        (59, datetime(1900, 2, 28)),
        (59.999, datetime(1900, 2, 28, 23, 58, 33, 600000)),
        (60, None),  # Excel's fictitious 1900-02-29
        (60.5, None),
        (61, datetime(1900, 3, 1)),
        (45000.5, datetime(2023, 3, 15, 12, 0)),
        (-1, None),
    ],
)
def test_from_serial_is_the_date_excel_displays(serial: float, expected: object) -> None:
    assert from_serial(serial) == expected
    assert from_serial(serial, elapsed=True) == timedelta(days=serial)


@pytest.mark.parametrize(
    ("value", "code", "expected"),
    [
        (datetime(2024, 3, 14, 15, 9, 26), "yyyy-mm-dd h:mm:ss", "2024-03-14 15:09:26"),
        (datetime(2024, 3, 14, 15, 9, 26), "h:mm:ss AM/PM", "3:09:26 PM"),
        (datetime(2024, 3, 14, 0, 0, 0, 600000), "h:mm:ss", "0:00:01"),
        (date(2024, 3, 14), "mm-dd-yy", "3/14/2024"),
        (date(2024, 3, 14), "d-mmm-yy", "14-Mar-24"),
        (time(13, 5), "h:mm AM/PM", "1:05 PM"),
        (time(0, 5), "h:mm AM/PM", "12:05 AM"),
        (timedelta(hours=30, minutes=5), "[h]:mm:ss", "30:05:00"),
        # date values under a non-date format fall back to ISO text
        (datetime(2024, 3, 14), "General", "2024-03-14"),
        (datetime(2024, 3, 14, 8, 30), None, "2024-03-14 08:30:00"),
        (date(2024, 3, 14), "0.00", "2024-03-14"),
        (time(8, 30), "General", "08:30:00"),
    ],
)
def test_datetime_values(value: object, code: str | None, expected: str) -> None:
    assert format_value(value, code) == expected


@pytest.mark.parametrize(
    ("value", "code", "expected"),
    [
        (None, "0.00", ""),
        (True, "0", "TRUE"),
        (False, "General", "FALSE"),
        ("hello", "0.00", "hello"),
        ("#N/A", "0.00", "#N/A"),
        ("#DIV/0!", "#,##0", "#DIV/0!"),
        ("  padded ", "@", "  padded "),
        (float("nan"), "0", "nan"),
        (float("inf"), "General", "inf"),
        (-5, "yyyy-mm-dd", "-5"),  # negative serials are not dates
        (60, "yyyy-mm-dd", "60"),  # the fictitious 1900-02-29
        (b"raw", "0", "b'raw'"),
        (1.5, '"unterminated', "1.5"),  # malformed codes fall back to General
        (1.5, "[Red", "1.5"),
    ],
)
def test_special_values_and_fallbacks(value: object, code: str, expected: str) -> None:
    assert format_value(value, code) == expected


def test_builtin_formats_never_raise() -> None:
    from openpyxl.styles.numbers import BUILTIN_FORMATS

    for code in BUILTIN_FORMATS.values():
        for value in (-1234.5678, 0, 0.5, 45000.5, date(2024, 1, 2), "x", None, True):
            assert isinstance(format_value(value, code), str)


def test_is_date_format() -> None:
    assert is_date_format("yyyy-mm-dd")
    assert is_date_format("[$-409]h:mm AM/PM")
    assert is_date_format("[h]:mm:ss")
    assert not is_date_format("#,##0.00")
    assert not is_date_format('"day"0')
    assert not is_date_format("General")
    assert not is_date_format(None)


_finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


def _excel_round(x: float, places: int) -> float:
    exact = Decimal(format(x, ".15g")).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return float(exact)


@given(_finite)
def test_round_trip_thousands_two_decimals(x: float) -> None:
    assert parse_number(format_value(x, "#,##0.00")) == _excel_round(x, 2)


@given(_finite)
def test_round_trip_accounting_negatives(x: float) -> None:
    text = format_value(x, "#,##0_);(#,##0)")
    expected = _excel_round(x, 0)
    assert parse_number(text) == (expected if expected else 0)
    assert text.startswith("(") == (x < 0)


@given(st.floats(min_value=-100, max_value=100, allow_nan=False))
def test_round_trip_percent_currency(x: float) -> None:
    text = format_value(x, '"$"0.0%;("$"0.0%)')
    expected = _excel_round(x * 100, 1)
    assert parse_number(text) == pytest.approx(abs(expected) if x >= 0 else -abs(expected))


@given(st.one_of(_finite, st.integers(min_value=-(10**15), max_value=10**15)))
def test_round_trip_general(x: float) -> None:
    value = parse_number(format_value(x, "General"))
    assert value is not None
    assert value == pytest.approx(x, rel=1e-5, abs=1e-9)


@given(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30))
def test_arbitrary_codes_never_raise(x: float, code: str) -> None:
    assert isinstance(format_value(x, code), str)


@given(st.integers(-(10**13), 10**13), st.sampled_from([None, "", "General", "general"]))
def test_general_integers_match_the_decimal_path(x: int, code: str | None) -> None:
    """The integer fast path of General shows what the Decimal path shows (11 digits, then E+)."""
    assert format_value(x, code) == format_value(Decimal(x), code)
