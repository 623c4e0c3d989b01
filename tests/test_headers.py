"""Header inference on hand-built tables: financial statement, HiTab-like, AIT-QA-like."""

from __future__ import annotations

from tables import statement

from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.numbers import is_number_text, is_year_text
from celltrace.shared.table import Table


def texts(nodes) -> list[str]:
    return [n.text.strip() for n in nodes]


FINANCIAL = statement(with_expenses=True)


def test_financial_statement_bands_and_paths() -> None:
    g = CellGraph(FINANCIAL)
    h = infer_headers(g)
    assert (h.header_rows, h.header_cols) == (2, 1)
    assert h.section_rows == frozenset({2, 6})
    cargo_2016 = g.node_at(4, 2)
    assert texts(h.col_path(cargo_2016)) == ["Year Ended December 31", "2016"]
    assert texts(h.row_path(cargo_2016)) == ["Operating revenue", "Cargo"]
    assert h.path_text(g.node_at(1, 1)) == "year ended december 31 > 2017"
    assert h.path_text(cargo_2016) == "operating revenue > cargo | year ended december 31 > 2016"
    assert texts(h.row_path(g.node_at(8, 1))) == ["Operating expenses", "Salaries", "Pension"]
    assert texts(h.row_path(g.node_at(7, 3))) == ["Operating expenses", "Salaries"]
    assert h.is_header(g.node_at(2, 0)) and h.is_header(g.node_at(1, 3))
    assert not h.is_header(cargo_2016) and h.is_data(cargo_2016)
    assert texts(h.row_path(g.node_at(4, 0))) == ["Operating revenue"]  # a header's parents only


def test_hitab_like_merged_column_groups_and_unit_row() -> None:
    t = Table(
        text=[
            ["sector", "black workers", "", "other workers", ""],
            ["", "immigrant", "total", "immigrant", "total"],
            ["", "percent", "", "", ""],
            ["utilities", "0.5", "0.6", "0.7", "1.1"],
            ["construction", "8.0", "7.5", "10.2", "12.8"],
        ],
        merges=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 0, 4), (2, 1, 2, 4)],
    )
    g = CellGraph(t)
    h = infer_headers(g)
    assert (h.header_rows, h.header_cols) == (3, 1)
    cell = g.node_at(4, 3)
    assert texts(h.col_path(cell)) == ["other workers", "immigrant", "percent"]
    assert texts(h.row_path(cell)) == ["construction"]
    assert texts(h.col_path(g.node_at(3, 0))) == ["sector"]


def test_unmerged_spanning_header_fills_right_and_row_labels_fill_down() -> None:
    t = Table(
        text=[
            ["club", "season", "league", "", "cup", ""],
            ["", "", "apps", "goals", "apps", "goals"],
            ["burnley", "1950-51", "30", "5", "1", "0"],
            ["", "1951-52", "28", "4", "0", "0"],
            ["york", "1952-53", "38", "11", "3", "1"],
        ],
    )
    g = CellGraph(t)
    h = infer_headers(g)
    assert (h.header_rows, h.header_cols) == (2, 2)
    cell = g.node_at(3, 3)
    assert texts(h.col_path(cell)) == ["league", "goals"]
    assert texts(h.row_path(cell)) == ["burnley", "1951-52"]
    assert texts(h.col_path(g.node_at(4, 5))) == ["cup", "goals"]


def test_a_total_line_below_records_takes_no_record_label() -> None:
    """A blank date beside `Total` under dated records is no fill-down of the last record's date; a
    group label written once over its rows still heads its total line."""
    records = CellGraph(Table(text=[
        ["Send date", "Campaign", "Revenue"],
        ["03-Jan-24", "New Year Clearance", "12,400"],
        ["10-Jan-24", "January Newsletter", "5,210"],
        ["17-Jan-24", "Winter Boots Restock", "11,296"],
        ["", "Total", "28,906"],
    ]))
    assert texts(infer_headers(records).row_path(records.node_at(4, 2))) == ["Total"]
    groups = CellGraph(Table(text=[
        ["Province", "City", "Population"],
        ["Ontario", "Toronto", "2,794"],
        ["", "Ottawa", "1,017"],
        ["", "Total", "3,811"],
        ["Quebec", "Montreal", "1,762"],
        ["", "Total", "1,762"],
    ]))
    assert texts(infer_headers(groups).row_path(groups.node_at(3, 2))) == ["Ontario", "Total"]


def test_aitqa_like_empty_corner_two_level_rows() -> None:
    t = Table(
        text=[
            ["", "", "Year Ended December 31", ""],
            ["", "", "2019", "2018 (a)"],
            ["Income Statement Data", "Operating revenue", "$43,259", "$41,303"],
            ["", "Net income", "3,009", "2,122"],
            ["Balance Sheet Data", "Total assets", "52,611", "49,024"],
        ],
        merges=[(0, 2, 0, 3), (2, 0, 3, 0)],
    )
    g = CellGraph(t)
    h = infer_headers(g)
    assert (h.header_rows, h.header_cols) == (2, 2)
    cell = g.node_at(3, 3)
    assert texts(h.row_path(cell)) == ["Income Statement Data", "Net income"]
    assert texts(h.col_path(cell)) == ["Year Ended December 31", "2018 (a)"]
    assert h.section_rows == frozenset()
    assert len(h.data_nodes()) == 6


def test_year_rows_and_columns_are_labels() -> None:
    t = Table(text=[["year", "handgun", "rifle"], ["1995", "95", "62"], ["1996", "108", "81"]])
    h = infer_headers(CellGraph(t))
    assert (h.header_rows, h.header_cols) == (1, 1)
    assert is_year_text("fy 2018") and is_year_text("2017-18") and not is_year_text("12")
    assert all(map(is_year_text, ("FY2021A", "2022E", "2023 Budget", "FY 2024F")))
    assert not is_year_text("2022 Eastern") and not is_year_text("2022Q1")
    # a status in parentheses, a letter or a word (`(p)`, `(unaudited)`), is no other label
    assert all(map(is_year_text, ("2023 (p)", "FY 2024 (unaudited)", "2022 (restated)")))
    assert not is_year_text("2024 (Ontario)")
    # a year over its currency and scale in one cell, as IFRS statements head their columns
    assert all(map(is_year_text, ("2023\n€m", "2022 £m", "2023 ($m)", "2023 $'000")))
    assert is_number_text("(7.8)") and is_number_text("$5,813") and is_number_text("2017")
    assert not is_number_text("2017", years_as_labels=True)


def test_text_only_table_keeps_first_row_and_column() -> None:
    t = Table(text=[["name", "team"], ["ann", "red"], ["bob", "blue"]])
    h = infer_headers(CellGraph(t))
    assert (h.header_rows, h.header_cols) == (1, 1)


def test_unit_row_written_once_spans_every_data_column() -> None:
    t = Table(
        text=[
            ["", "lowest quartile", "highest quartile", "total"],
            ["", "percent", "", ""],
            ["has internet access", "95.8", "99.8", "98.8"],
        ]
    )
    g = CellGraph(t)
    h = infer_headers(g)
    assert h.header_rows == 2
    assert texts(h.col_path(g.node_at(2, 3))) == ["total", "percent"]


def test_label_merged_across_the_row_is_a_section() -> None:
    t = Table(
        text=[
            ["company size", "2014", "2015"],
            ["current dollars", "", ""],
            ["all companies", "340", "355"],
            ["constant dollars", "", ""],
            ["all companies", "313", "323"],
        ],
        merges=[(1, 0, 1, 2), (3, 0, 3, 2)],
    )
    g = CellGraph(t)
    h = infer_headers(g)
    assert (h.header_rows, h.header_cols) == (1, 1)
    assert h.section_rows == frozenset({1, 3})
    assert texts(h.row_path(g.node_at(4, 2))) == ["constant dollars", "all companies"]


def test_numeric_first_column_is_a_row_key_with_the_name_columns_after_it() -> None:
    ranked = CellGraph(Table(text=[
        ["rank", "athlete", "total", "snatch"],
        ["1", "ann lee", "120", "55"],
        ["2", "bo chan", "115", "50"],
    ]))
    h = infer_headers(ranked)
    assert (h.header_rows, h.header_cols) == (1, 2)
    assert texts(h.row_path(ranked.node_at(2, 3))) == ["2", "bo chan"]
    counts = CellGraph(Table(text=[["gap in years", "number", "percent"], ["1", "972", "40.1"],
                                   ["2", "360", "15.0"]]))
    assert infer_headers(counts).header_cols == 1


def test_full_width_title_and_unit_rows_at_the_top_stay_in_the_header_band() -> None:
    table = Table(
        text=[
            ["Statement of operations", "", "", ""],
            ["(In millions)", "", "", ""],
            ["", "Year ended December 31", "", ""],
            ["", "2017", "2016", "2015"],
            ["Passenger", "38,722", "36,052", "36,817"],
            ["Cargo", "812", "700", "760"],
        ],
        merges=[(0, 0, 0, 3), (1, 0, 1, 3), (2, 1, 2, 3)],
    )
    graph = CellGraph(table)
    model = infer_headers(graph)
    assert model.header_rows == 4 and not model.section_rows
    cell = graph.node_at(5, 2)
    assert texts(model.col_path(cell))[-2:] == ["Year ended December 31", "2016"]


def test_title_and_blank_rows_above_and_inside_the_header_band_are_not_levels() -> None:
    t = Table(
        text=[
            ["Table 3. Farms by size", "", "", ""],
            ["", "", "", ""],
            ["", "Year ended December 31", "", ""],
            ["", "", "", ""],
            ["", "2017", "2016", "2015"],
            ["", "acres", "", ""],
            ["small", "12", "11", "10"],
            ["large", "7", "8", "9"],
        ],
        merges=[(2, 1, 2, 3)],
    )
    g = CellGraph(t)
    h = infer_headers(g)
    assert (h.header_rows, h.header_cols) == (6, 1)
    cell = g.node_at(7, 3)
    assert texts(h.col_path(cell)) == ["Year ended December 31", "2015", "acres"]
    assert texts(h.row_path(cell)) == ["large"]
    assert h.unit_for(cell) == "acres"


def test_a_column_0_label_after_the_header_still_heads_a_section() -> None:
    t = Table(text=[["", "2017", "2016"], ["Revenue", "", ""], ["  Cargo", "5", "6"]])
    h = infer_headers(CellGraph(t))
    assert h.header_rows == 1 and h.section_rows == frozenset({1})


def test_a_section_of_indented_items_ends_at_its_own_indentation() -> None:
    """`Operating revenue` heads the indented `Passenger` and `Cargo`; `Total operating revenue`,
    back at the section's indentation, is not one of its items (nor is the section after it)."""
    g = CellGraph(statement(with_expenses=True))
    h = infer_headers(g)
    assert texts(h.row_path(g.node_at(3, 1))) == ["Operating revenue", "Passenger"]
    assert texts(h.row_path(g.node_at(5, 1))) == ["Total operating revenue"]
    assert texts(h.row_path(g.node_at(8, 1))) == ["Operating expenses", "Salaries", "Pension"]


def test_a_total_indented_deeper_than_its_items_totals_the_section() -> None:
    """Statements often indent `Total …` further than the items it sums: it is not an item's child."""
    t = Table(text=[["", "2019", "2018"], ["Operating expenses:", "", ""], ["  Research", "3,120", "2,870"],
                    ["  Marketing", "2,410", "2,265"], ["    Total operating expenses", "5,530", "5,135"]])
    g = CellGraph(t)
    h = infer_headers(g)
    assert texts(h.row_path(g.node_at(4, 1))) == ["Operating expenses:", "Total operating expenses"]
    assert texts(h.row_path(g.node_at(3, 1))) == ["Operating expenses:", "Marketing"]


def test_a_section_over_repeated_blocks_heads_each_block() -> None:
    """`age group` recurs under `currently sexually active` and `more than one partner`: those two
    head their blocks, one level up, instead of being replaced by the recurring section."""
    t = Table(text=[["", "%"], ["currently sexually active", ""], ["age group", ""], ["15 to 17", "20.6"],
                    ["18 to 19", "52.4"], ["more than one partner", ""], ["age group", ""],
                    ["15 to 17", "30.1"], ["18 to 19", "35.0"]])
    g = CellGraph(t)
    h = infer_headers(g)
    assert texts(h.row_path(g.node_at(3, 1))) == ["currently sexually active", "age group", "15 to 17"]
    assert texts(h.row_path(g.node_at(7, 1))) == ["more than one partner", "age group", "15 to 17"]


def test_a_row_over_a_repeated_run_of_rows_heads_it() -> None:
    """The same occupations follow `total population`, `females` and `males` (rows with values of
    their own): each of those heads its run; a run that differs heads nothing."""
    jobs = [["management", "8.0"], ["sales", "25.3"]]
    t = Table(text=[["occupation", "%"], ["total population", "100.0"], *jobs, ["females", "100.0"], *jobs,
                    ["males", "100.0"], *jobs])
    g = CellGraph(t)
    h = infer_headers(g)
    assert texts(h.row_path(g.node_at(5, 1))) == ["females", "management"]
    assert texts(h.row_path(g.node_at(4, 1))) == ["females"]
    assert texts(h.row_path(g.node_at(9, 1))) == ["males", "sales"]
    uneven = CellGraph(Table(text=t.text[:-1]))
    assert texts(infer_headers(uneven).row_path(uneven.node_at(5, 1))) == ["management"]



def test_a_row_heading_a_repeated_run_stays_inside_its_section() -> None:
    """`men aged` / `women aged` are section rows; under each, `18 or older` heads the same run of
    age groups. The head sits one level out from its run but still under its section, and the next
    section ends its block."""
    ages = [["18 to 24", "25.0"], ["25 to 34", "17.4"]]
    t = Table(text=[["age", "%"], ["men aged", ""], ["18 or older", "17.0"], *ages, ["women aged", ""],
                    ["18 older", "5.5"], *ages])
    g = CellGraph(t)
    h = infer_headers(g)
    assert texts(h.row_path(g.node_at(2, 1))) == ["men aged", "18 or older"]
    assert texts(h.row_path(g.node_at(3, 1))) == ["men aged", "18 or older", "18 to 24"]
    assert texts(h.row_path(g.node_at(6, 1))) == ["women aged", "18 older"]
    assert texts(h.row_path(g.node_at(8, 1))) == ["women aged", "18 older", "25 to 34"]

def test_a_unit_row_inside_the_data_heads_the_rows_below_it() -> None:
    """Counts, then the same years again as percentages under a `percent` row (left band blank)."""
    t = Table(text=[["year", "canada", "man"], ["", "number", ""], ["2013", "259,024", "13,103"],
                    ["2014", "260,411", "16,225"], ["", "percent", ""], ["2013", "100.0", "5.1"],
                    ["2014", "100.0", "6.2"]])
    g = CellGraph(t)
    h = infer_headers(g)
    assert 4 in h.section_rows
    assert texts(h.row_path(g.node_at(6, 2))) == ["percent", "2014"]
    assert h.unit_for(g.node_at(6, 2)) == "percent" and h.unit_for(g.node_at(3, 2)) == "number"


def test_a_row_naming_several_units_is_not_a_section() -> None:
    t = Table(text=[["year", "men", "women"], ["2013", "259", "261"], ["", "number", "percent"],
                    ["2014", "260", "262"]])
    assert 2 not in infer_headers(CellGraph(t)).section_rows


def test_a_blank_row_inside_the_header_band_does_not_stop_a_label_spanning_right() -> None:
    """`2021/2022` written once over `number | median salary`, a blank row between them: both
    columns are under it."""
    graph = CellGraph(Table(text=[
        ["", "", "2021/2022", "", "2022/2023", ""],
        ["", "", "", "", "", ""],
        ["Rank", "Sex", "number", "median salary ($)", "number", "median salary ($)"],
        ["Full professor", "Men", "11,420", "168,250", "11,380", "172,400"],
        ["", "Women", "5,630", "163,900", "5,910", "168,100"],
    ]))
    headers = infer_headers(graph)
    assert [n.text for n in headers.col_path(graph.node_at(4, 5))] == ["2022/2023", "median salary ($)"]
    assert [n.text for n in headers.col_path(graph.node_at(4, 3))] == ["2021/2022", "median salary ($)"]


def test_a_total_line_naming_its_section_closes_it() -> None:
    """`Total current assets` ends `Current assets`: `Total assets` below is not one of them."""
    graph = CellGraph(Table(text=[
        ["", "2023", "2022"], ["Current assets", "", ""], ["Inventories", "2,140", "2,388"],
        ["Cash", "1,260", "980"], ["Total current assets", "3,400", "3,368"], ["Goodwill", "900", "900"],
        ["Total assets", "4,300", "4,268"],
    ]))
    headers = infer_headers(graph)
    def path(r: int) -> list[str]:
        return [n.text for n in headers.row_path(graph.node_at(r, 1))]

    assert path(4) == ["Current assets", "Total current assets"]
    assert path(6) == ["Total assets"]


def test_a_label_merged_over_some_columns_spans_just_those() -> None:
    """`Headcount` merged over `Female | Male | Total` neither spans `FTE` beside it nor names the
    unit of every column."""
    graph = CellGraph(Table(text=[
        ["", "Headcount", "", "", ""], ["Department", "Female", "Male", "Total", "FTE"],
        ["Sales", "22", "19", "41", "39.0"], ["Finance", "9", "6", "15", "14.2"],
    ], merges=[(0, 1, 0, 3)]))
    headers = infer_headers(graph)
    assert texts(headers.col_path(graph.node_at(2, 4))) == ["FTE"]
    assert texts(headers.col_path(graph.node_at(2, 3))) == ["Headcount", "Total"]


def test_a_section_whose_first_row_sits_at_its_indentation_keeps_its_rows() -> None:
    """`Vancouver`, then `Total` and its items at the left (some with indented parts): every row up
    to the next section is Vancouver's, unlike `Current assets:` over indented items."""
    graph = CellGraph(Table(text=[
        ["Household type", "Owner", "Renter"], ["Toronto", "", ""], ["Total", "1,600", "800"],
        ["Couple-family households", "1,000", "300"], ["  With children", "600", "150"],
        ["One-person households", "600", "500"], ["Vancouver", "", ""], ["Total", "700", "450"],
        ["Couple-family households", "400", "160"], ["  With children", "220", "76"],
        ["One-person households", "300", "290"],
    ]))
    headers = infer_headers(graph)

    def path(r: int) -> list[str]:
        return texts(headers.row_path(graph.node_at(r, 1)))

    assert path(5) == ["Toronto", "One-person households"]
    assert path(10) == ["Vancouver", "One-person households"]
    assert path(9) == ["Vancouver", "Couple-family households", "With children"]
