"""Tests for celltrace.shared.numbers: parse_number, parse_number_info, format_number."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from celltrace.shared.numbers import NumberInfo, format_number, parse_number, parse_number_info
from celltrace.shared.numfmt import format_value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,234", 1234.0),
        ("1,234,567.25", 1234567.25),
        ("1 234", 1234.0),
        ("12 345 678.9", 12345678.9),
        ("1\u00a0234", 1234.0),
        ("1\u202f234", 1234.0),
        ("$5,813", 5813.0),
        ("$43,259", 43259.0),
        ("€ 1.5", 1.5),
        ("5 €", 5.0),
        ("£7", 7.0),
        ("US$5", 5.0),
        ("USD 5", 5.0),
        ("(7.8)", -7.8),
        ("( 1,151 )", -1151.0),
        ("($5,813)", -5813.0),
        ("$(5,813)", -5813.0),
        ("$ (5,813)", -5813.0),
        ("−5", -5.0),
        ("–5", -5.0),
        ("- 5", -5.0),
        ("-$5", -5.0),
        ("$-5", -5.0),
        ("+3", 3.0),
        ("24.5%", 24.5),
        ("24.5 %", 24.5),
        ("(7.8)%", -7.8),
        ("(7.8%)", -7.8),
        ("-0.5%", -0.5),
        ("12.5*", 12.5),
        ("12.5 *", 12.5),
        ("12.5†", 12.5),
        ("12.5**", 12.5),
        ("2017", 2017.0),
        ("0", 0.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1.23E+05", 123000.0),
        ("1E-12", 1e-12),
        ("  42  ", 42.0),
        (7, 7.0),
        (2.5, 2.5),
    ],
)
def test_parse_number_accepts(text: str, expected: float) -> None:
    assert parse_number(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "-",
        "—",
        "–",
        "abc",
        "n/a",
        "N/A",
        "#N/A",
        "12.5 (a)",
        "12.5a",
        "1 23",
        "3 4",
        "2017 2018",
        "1,5",
        "1,2345",
        "1.234,56",
        "10–20",
        "10-20",
        "(-5)",
        "--5",
        "+-5",
        "$",
        "%",
        "($)",
        "5$$",
        "$5 €",
        "5%%",
        "(5%)%",
        "1.2.3",
        "3 million",
        "Q1 2019",
        "2019-03-15",
        None,
        True,
        float("nan"),
    ],
)
def test_parse_number_rejects(text: str) -> None:
    assert parse_number(text) is None


@pytest.mark.parametrize(
    ("text", "info"),
    [
        ("24.5%", NumberInfo(24.5, True, None, 1)),
        ("$5,813", NumberInfo(5813.0, False, "$", 0)),
        ("€ 1.50", NumberInfo(1.5, False, "€", 2)),
        ("($1,151.25)", NumberInfo(-1151.25, False, "$", 2)),
        ("(0.0%)", NumberInfo(-0.0, True, None, 1)),
        ("1.23E+05", NumberInfo(123000.0, False, None, 2)),
        ("2017", NumberInfo(2017.0, False, None, 0)),
        ("-3.000", NumberInfo(-3.0, False, None, 3)),
        (2.25, NumberInfo(2.25, False, None, 2)),
        (3.0, NumberInfo(3.0, False, None, 0)),
    ],
)
def test_parse_number_info(text: str, info: NumberInfo) -> None:
    assert parse_number_info(text) == info


@pytest.mark.parametrize(
    ("x", "decimals", "expected"),
    [
        (55.0, None, "55"),
        (55, None, "55"),
        (-55.0, None, "-55"),
        (1 / 3, None, "0.33"),
        (2 / 3, None, "0.67"),
        (2.5, None, "2.5"),
        (2.675, None, "2.68"),
        (-2.675, None, "-2.68"),
        (0.1 + 0.2, None, "0.3"),
        (0.001234, None, "0.0012"),
        (-0.001234, None, "-0.0012"),
        (0.005, None, "0.01"),
        (1e-20, None, "0.00000000000000000001"),
        (123456.789, None, "123456.79"),
        (1e30, None, "1000000000000000000000000000000"),
        (-0.0, None, "0"),
        (5, 2, "5.00"),
        (1 / 3, 4, "0.3333"),
        (2.5, 0, "3"),
        (-2.5, 0, "-3"),
        (-0.001, 2, "0.00"),
        (1234, -2, "1200"),
        (float("nan"), None, "nan"),
        (float("inf"), None, "inf"),
        (float("-inf"), 2, "-inf"),
    ],
)
def test_format_number(x: float, decimals: int | None, expected: str) -> None:
    assert format_number(x, decimals) == expected


_amounts = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@given(_amounts)
def test_format_number_round_trips_through_parse(x: float) -> None:
    text = format_number(x)
    assert "e" not in text.lower()
    value = parse_number(text)
    assert value is not None
    assert value == pytest.approx(x, abs=0.005 + 1e-9, rel=0.05)


@given(_amounts, st.integers(min_value=0, max_value=6))
def test_format_number_fixed_decimals(x: float, decimals: int) -> None:
    text = format_number(x, decimals)
    assert len(text.partition(".")[2]) == decimals
    assert parse_number(text) == pytest.approx(x, abs=0.51 * 10**-decimals, rel=1e-12)


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_integers_have_no_decimal_point(n: int) -> None:
    assert format_number(float(n)) == str(n)
    assert parse_number(f"{n:,}") == n


@given(
    st.decimals(min_value=-(10**9), max_value=10**9, places=2, allow_nan=False, allow_infinity=False),
    st.sampled_from(["$", "€", "£", None]),
    st.booleans(),
    st.booleans(),
)
def test_displayed_combinations(amount: object, currency: str | None, parens: bool, percent: bool) -> None:
    magnitude = abs(float(amount))  # type: ignore[arg-type]
    body = f"{magnitude:,.2f}" + ("%" if percent else "")
    if currency:
        body = currency + body
    text = f"({body})" if parens else body
    info = parse_number_info(text)
    assert info is not None
    assert info.value == pytest.approx(-magnitude if parens else magnitude)
    assert info.is_percent is percent
    assert info.currency == currency
    assert info.decimals == 2


@given(st.text(max_size=20))
def test_parse_never_raises(text: str) -> None:
    value = parse_number(text)
    assert value is None or math.isfinite(value) or "E" in text.upper()


@given(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False), st.sampled_from(["0", "#,##0", "0.00"]))
@example(100000000000.49951, "0")  # 15 significant digits first: …000.500, then half away from zero
def test_excel_display_parses_to_rounded_value(x: float, code: str) -> None:
    parsed = parse_number(format_value(x, code))
    assert parsed is not None
    # Excel rounds the value taken to 15 significant digits, so the display may be off by half a
    # unit plus that first rounding (at most 5 units of the 15th digit)
    assert parsed == pytest.approx(x, abs=0.5 + abs(x) * 5e-15 + 1e-6)


@pytest.mark.parametrize(
    ("text", "value"), [("12.5*", 12.5), ("USD 5", 5.0), ("1.2E+05", 120000.0), ("₹1,234", 1234.0)]
)
def test_one_classifier_everywhere(text: str, value: float) -> None:
    """Header inference, retrieval, the operations, the metrics and faithfulness read the same number."""
    from celltrace.server.evaluation.metrics import em_strict
    from celltrace.server.infra.retrieval import Retriever
    from celltrace.server.longform.faithfulness import unsupported_numbers
    from celltrace.server.offline.operations import parse
    from celltrace.shared.graph import CellGraph
    from celltrace.shared.headers import infer_headers
    from celltrace.shared.numbers import is_number_text
    from celltrace.shared.table import Table

    assert is_number_text(text) and is_number_text(text, years_as_labels=True)
    graph = CellGraph(Table(text=[["", "a", "b"], ["x", text, "1"], ["y", "2", "3"]]))
    assert (infer_headers(graph).header_rows, infer_headers(graph).header_cols) == (1, 1)  # a data row
    hits = Retriever(graph, dense=False).search(format_number(value))
    assert [(h.node.text, h.how) for h in hits[:1]] == [(text, "number")]
    num = parse(text)
    assert num is not None and num.value == value
    assert em_strict([text], [format_number(value)])
    assert unsupported_numbers(f"It was {text}.", "", [], [], [value]) == []
