"""Number display styles read from cell text, rendered back through the Excel format renderer."""

from __future__ import annotations

import pytest

from celltrace.shared.numstyle import NumStyle, combine, decimals_for, excel_value, grouping


@pytest.mark.parametrize(
    ("text", "code", "value", "shown"),
    [
        ("$31,000", '"$"#,##0', 87000, "$87,000"),
        ("(1,234.5)", "#,##0.0;(#,##0.0)", -2469, "(2,469.0)"),
        ("24.5%", "0.0%", 0.038283, "3.8%"),
        ("1,234 €", '#,##0" ""€"', 5000, "5,000 €"),
        ("154983", "0", 309966, "309966"),
        ("($5,813)", '"$"#,##0;("$"#,##0)', 1200, "$1,200"),
    ],
)
def test_style_of_text_round_trips_through_its_code(text: str, code: str, value: float, shown: str) -> None:
    style = NumStyle.of(text)
    assert style is not None and style.code() == code
    assert style.render(value) == shown


def test_not_a_number_has_no_style() -> None:
    assert NumStyle.of("Quebec") is None and NumStyle.of("1.234,56") is None


def test_excel_value_reads_percent_as_fraction() -> None:
    assert excel_value("24.5%") == pytest.approx(0.245)
    assert excel_value("($5,813)") == -5813
    assert excel_value("n/a") is None


def test_combine_keeps_what_all_sources_agree_on() -> None:
    style = combine([NumStyle.of("$1,200"), NumStyle.of("$3.50"), None])
    assert (style.currency, style.decimals, style.thousands) == ("$", 2, True)
    assert combine([NumStyle.of("12%"), NumStyle.of("4")]).percent is False
    assert combine([NumStyle.of("(12)"), NumStyle.of("4")]).parens is True
    assert combine([]) == NumStyle()


def test_a_table_shows_grouping_when_its_sources_do_not() -> None:
    """Sources under 1,000 do not show whether thousands are grouped: the table's other numbers do."""
    assert grouping(["(520)", "1,210", "2019", "x"]) is True
    assert grouping(["(520)", "1210"]) is False
    assert grouping(["(520)", "2019", "2020", "n/a"]) is None  # a year is not a grouped number
    sources = [NumStyle.of("(520)"), NumStyle.of("(935)")]
    assert NumStyle.of("(520)").thousands is None
    assert [combine(sources, t).render(-1455) for t in (True, False, None)] == ["(1,455)", "(1455)", "(1455)"]
    assert combine([NumStyle.of("1200")], True).thousands is False  # a source that shows it decides
    assert combine([], True).thousands is True


def test_decimals_follow_sources_and_magnitude() -> None:
    assert decimals_for("additive", 87000, 0) == 0
    assert decimals_for("mean", 61.727, 0) == 1
    assert decimals_for("ratio", 3.354167, 0) == 2
    assert decimals_for("ratio", 0.0123, 0) == 4
    assert decimals_for("percent", 3.8283, 0) == 1
    assert decimals_for("percent", 0.0383, 0) == 3
    assert decimals_for("percent", 17.476, 2) == 1  # a growth of $5.15 to $6.05: 17.5%, not 17.48%
    assert decimals_for("count", 3, 2) == 0
