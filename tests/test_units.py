"""Unit phrases: unit rows, unit labels and captions, and `HeaderModel.unit_for`."""

from __future__ import annotations

import pytest

from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table
from celltrace.shared.units import caption_unit, label_unit, label_unit_of_values, parse_unit


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("percent", "percent"),
        ("Percentage", "percent"),
        ("%", "percent"),
        ("percentage points", "percentage points"),
        ("(in millions)", "millions"),
        ("$ thousands", "$ thousands"),
        ("millions of dollars", "$ millions"),
        ("current dollars", "$"),
        ("dollars per resident", "$ per resident"),
        ("thousands of acres", "thousand acres"),
        ("Thousand metric tonnes", "thousand tonnes"),
        ("metric", None),
        ("acres", "acres"),
        ("number", "number"),
        ("$'000", "$ thousands"),
        ("(x 1,000)", "thousands"),  # a scale written as a multiplier, as statistics agencies title
        ("x 1,000,000", "millions"),
        ("Dollars x 1,000,000", "$ millions"),
        ("Persons × 1 000", "thousand persons"),
        ("x 10", None),
        ("€m", "€ millions"),  # after a currency `m` is millions; alone it is no unit
        ("m", None),
        ("cents", "cents"),
        ("age group", None),
        ("2018 (a)", None),
        ("percent change", None),
        ("", None),
    ],
)
def test_parse_unit(text: str, unit: str | None) -> None:
    assert parse_unit(text) == unit


def test_label_unit_reads_the_unit_under_a_year() -> None:
    assert label_unit("2023\n€m") == "€ millions"
    assert label_unit("2022 $'000") == "$ thousands"
    assert label_unit("31 December 2023\n£'000") == "£ thousands"
    assert label_unit("2023") is None


def test_label_unit_reads_a_closing_in_clause() -> None:
    assert label_unit("Change in %") == "percent" and label_unit("Sales in € million") == "€ millions"
    assert label_unit("Employed in agriculture") is None and label_unit("Revenue in 2023") is None


def test_label_unit_reads_a_percent_parenthesis_with_words() -> None:
    assert label_unit("GDP growth (annual %)") == "percent"
    assert label_unit("Unemployment, total (% of total labor force)") == "percent"
    assert label_unit("Employment (full-time)") is None


def test_label_unit_reads_a_trailing_parenthesis_only() -> None:
    assert label_unit("annual median employment income ($)") == "$"
    assert label_unit("Revenue (in millions)") == "millions"
    assert label_unit("Other income (expense), net") is None


def test_a_label_opening_with_percent_shows_percents_but_is_no_unit_row() -> None:
    assert label_unit_of_values("Percent of labor force") == "percent"
    assert label_unit_of_values("% of total") == label_unit_of_values("percentage change") == "percent"
    assert label_unit_of_values("Percentage point change") is None
    assert label_unit_of_values("percentile") is None
    assert label_unit("Percent of labor force") is None  # a header row of such labels stays a header level
    grid = [["", "unemployed", ""], ["", "number", "percent of labor force"], ["women", "2,768", "3.6"]]
    table = Table(text=grid, merges=[(0, 1, 0, 2)])
    headers = infer_headers(CellGraph(table))
    assert headers.unit_for(headers.graph.node_at(2, 2)) == "percent"
    assert headers.unit_for(headers.graph.node_at(2, 1)) == "number"


def test_a_caption_states_its_scale_as_a_multiplier() -> None:
    caption = caption_unit("Gross domestic product at basic prices, by industry, monthly (x 1,000,000)")
    assert caption is not None and caption.unit == "millions"


def test_a_caption_line_opening_with_percent_states_a_percent_but_not_of_a_sample_size() -> None:
    caption = caption_unit("Q12. Do you support the expansion?\nPercent of respondents, by group")
    assert caption is not None and caption.unit == "percent"
    assert caption.leaves_out(["n"]) and caption.leaves_out(["Unweighted base"])
    assert not caption.leaves_out(["Yes"])
    assert caption_unit("Workers earning a percentage of the median wage, by province") is None
    assert caption_unit("Percent of respondents, by group") is None  # a title names what is shown


def test_caption_unit_with_an_except_clause() -> None:
    caption = caption_unit("Consolidated statements of income\n(in millions, except per share data)")
    assert caption is not None and caption.unit == "millions"
    assert caption.applies_to(["Net income", "2017"])
    assert not caption.applies_to(["Earnings per share", "Diluted"])
    # the exempted words may be inflected and have other words between them
    assert not caption.applies_to(["Earnings per common share", "Basic"])
    assert not caption_unit("(in millions, except per-share amounts)").applies_to(["Net income per shares"])
    assert caption.applies_to(["Shares outstanding"])
    # the clause ends at a `;` (`unaudited` is no exempted item)
    unaudited = caption_unit("(In millions, except per share amounts; unaudited)")
    assert unaudited is not None and not unaudited.applies_to(["Net income per share:", "Diluted"])
    assert caption_unit("(Dollars in thousands)").unit == "$ thousands"  # type: ignore[union-attr]


def test_a_caption_unit_may_be_one_comma_clause_of_a_parenthesis() -> None:
    for text, unit in (("(Unaudited, in thousands)", "thousands"), ("(in millions, unaudited)", "millions"),
                       ("($ in millions, unless otherwise stated)", "$ millions")):
        caption = caption_unit(f"Reconciliation of net income to adjusted EBITDA\n{text}")
        assert caption is not None and caption.unit == unit, text
    assert caption_unit("Table 3: Revenue, by segment") is None
    assert caption_unit("(Unaudited)") is None


def test_caption_unit_in_brackets_or_a_semicolon_clause() -> None:
    bracketed = caption_unit("Table 1.1.5. Gross Domestic Product\n[Billions of dollars] Seasonally adjusted")
    assert bracketed is not None and bracketed.unit == "$ billions"
    clause = caption_unit("Employment by industry\nThousands of persons; not seasonally adjusted")
    assert clause is not None and clause.unit == "thousand persons"
    assert caption_unit("Rates; both sexes, all ages") is None
    keyed = caption_unit("Last update 15/04/2024\nUnit of measure Percentage of population in labour force")
    assert keyed is not None and keyed.unit == "percent"
    assert caption_unit("Units: Thousands of dollars").unit == "$ thousands"  # type: ignore[union-attr]
    assert caption_unit("Units sold by region") is None


def test_caption_unit_naming_what_is_scaled() -> None:
    """Statistical captions say what the scale applies to (`Numbers in thousands`); those words alone
    name no unit."""
    assert caption_unit("Table 3. Employed persons\n(Numbers in thousands)").unit == "thousands"  # type: ignore[union-attr]
    assert caption_unit("(Amounts in thousands of dollars)").unit == "$ thousands"  # type: ignore[union-attr]
    assert caption_unit("(Numbers)") is None
    assert caption_unit("Values by region") is None


def test_amounts_per_something_keep_the_captions_currency_without_its_scale() -> None:
    per_share = caption_unit("($ in millions, except per share amounts)")
    assert per_share is not None and (per_share.unit, per_share.exempt_unit) == ("$ millions", "$")
    assert caption_unit("(in millions, except per share data)").exempt_unit is None  # type: ignore[union-attr]
    headcount = caption_unit("(dollars in thousands, except number of employees)")
    assert headcount is not None and headcount.exempt_unit is None
    assert caption_unit("percentage distribution of workers by sector") is None


def test_a_currency_caption_does_not_measure_a_count_of_people_or_places() -> None:
    """`Employees` under `($ in millions, except per share data)` has no unit of the caption's (not
    `$ millions`, not the per-share `$`); a scale-only caption still scales them."""
    money = caption_unit("($ in millions, except per share data)")
    assert money is not None and money.leaves_out(["Employees"])
    assert money.leaves_out(["Number of stores", "2023"])
    assert not money.leaves_out(["Revenue"]) and money.leaves_out(["Number of employees at year-end"])
    assert not money.leaves_out(["Employee benefits"]) and not money.leaves_out(["Compensation of employees"])
    assert not money.leaves_out(["Members' equity"])
    assert money.leaves_out(["Revenue per employee"])  # a relative figure: no $ millions either
    assert not caption_unit("(in thousands)").leaves_out(["Employees"])  # type: ignore[union-attr]
    table = Table(title="Selected financial data\n($ in millions, except per share data)",
                  text=[["Fiscal year", "Revenue", "Diluted EPS", "Employees"],
                        ["2023", "48,250", "4.12", "88,400"]])
    graph = CellGraph(table)
    headers = infer_headers(graph)
    assert [headers.unit_for(graph.node_at(1, c)) for c in (1, 2, 3)] == ["$ millions", "$", None]


def test_unit_for_reads_unit_rows_labels_and_caption() -> None:
    t = Table(
        text=[
            ["", "immigrant", "total", "men", "women"],
            ["", "percent", "", "number", ""],
            ["utilities", "0.5", "0.6", "700", "1,100"],
            ["Earnings per share", "1.5", "1.6", "1.7", "1.8"],
        ],
        title="Workers by sector\n(in millions, except per share data)",
    )
    g = CellGraph(t)
    h = infer_headers(g)
    assert h.header_rows == 2
    assert h.unit_for(g.node_at(2, 2)) == "percent"
    assert h.unit_for(g.node_at(2, 4)) == "number"
    caption_only = CellGraph(
        Table(text=[["", "2017"], ["Revenue", "42"], ["Earnings per share", "1.5"]], title=t.title)
    )
    h2 = infer_headers(caption_only)
    assert h2.unit_for(caption_only.node_at(1, 1)) == "millions"
    assert h2.unit_for(caption_only.node_at(2, 1)) is None
    # the same caption selected with the table: full-width lines at the top of the grid
    in_grid = CellGraph(
        Table(
            text=[
                ["Workers by sector", "", ""],
                ["(in millions, except per share data)", "", ""],
                ["", "2017", "2016"],
                ["Revenue", "42", "40"],
                ["Earnings per share", "1.5", "1.4"],
            ],
            merges=[(0, 0, 0, 2), (1, 0, 1, 2)],
        )
    )
    h4 = infer_headers(in_grid)
    assert h4.unit_for(in_grid.node_at(3, 1)) == "millions"
    assert h4.unit_for(in_grid.node_at(4, 2)) is None
    unit_column = CellGraph(
        Table(text=[["item", "unit", "2017"], ["wheat", "tonnes", "5"], ["farms", "number", "7"]])
    )
    h3 = infer_headers(unit_column)
    assert h3.unit_for(unit_column.node_at(1, 2)) == "tonnes"
    assert h3.unit_for(unit_column.node_at(2, 2)) == "number"


def test_a_time_unit_over_period_labels_names_the_periods() -> None:
    """`Year` merged over `2022 | 2023` (a pivot table) is the dimension, not the unit of the sales
    under it; `Age (years)` over no period states one."""
    pivot = CellGraph(Table(text=[["Sum of Sales", "", "Year", ""], ["Region", "Product", "2022", "2023"],
                                  ["East", "Laptops", "1200", "1500"], ["", "Phones", "800", "950"]],
                            merges=[(0, 2, 0, 3)]))
    h = infer_headers(pivot)
    assert h.unit_for(pivot.node_at(2, 3)) is None
    ages = CellGraph(Table(text=[["group", "Age (years)", "Weight (kg)"], ["men", "41", "82"],
                                 ["women", "43", "68"]]))
    assert infer_headers(ages).unit_for(ages.node_at(1, 1)) == "years"


def test_a_scale_caption_does_not_measure_a_rate_or_an_average() -> None:
    """`[Numbers in thousands]` over `Unemployed` and `Unemployment rate`: the rate is no number of
    thousands; a percent caption still states the rate's unit."""
    table = Table(title="Employment status of the civilian population\n[Numbers in thousands]",
                  text=[["", "Oct. 2024"], ["Unemployed", "6,481"], ["Unemployment rate", "3.8"],
                        ["Average weeks unemployed", "20.7"]])
    graph = CellGraph(table)
    headers = infer_headers(graph)
    assert [headers.unit_for(graph.node_at(r, 1)) for r in (1, 2, 3)] == ["thousands", None, None]
    percent = caption_unit("Labour force characteristics\nPercent")
    assert percent is not None and not percent.leaves_out(["Unemployment rate"])
    area = caption_unit("Farm area\n(hectares)")  # an average area is still in hectares
    assert area is not None and not area.leaves_out(["Average area per farm"])


def test_a_currency_label_takes_the_scale_of_the_caption() -> None:
    """`$` over an `Increase (Decrease)` column under `(in millions)` is `$ millions`; a per-share
    column the caption exempts keeps `$` alone."""
    table = Table(title="Operating expenses\n(in millions, except per share data)",
                  text=[["", "2019", "$"], ["Aircraft fuel", "7,526", "(527)"],
                        ["Fuel cost per share ($)", "1.20", "0.10"]])
    graph = CellGraph(table)
    headers = infer_headers(graph)
    assert headers.unit_for(graph.node_at(1, 2)) == "$ millions"
    assert headers.unit_for(graph.node_at(1, 1)) == "millions"
    assert headers.unit_for(graph.node_at(2, 1)) == "$"


def test_a_unit_in_the_corner_above_the_row_labels_is_the_tables() -> None:
    table = Table(text=[["€ million", "Note", "31 Dec 2023", "31 Dec 2022"],
                        ["Inventories", "15", "2,140", "2,388"], ["Total assets", "", "17,105", "16,765"]])
    graph = CellGraph(table)
    headers = infer_headers(graph)
    assert headers.unit_for(graph.node_at(1, 2)) == "€ millions"
