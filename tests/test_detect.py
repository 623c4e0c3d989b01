"""Table detection on real layouts: title, blank rows, unit rows, notes, two tables, a 10-K statement."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from celltrace.server.cli import app, register_commands
from celltrace.server.evaluation import harness
from celltrace.server.evaluation.layouts import (
    FOOTNOTE,
    NOTE_LINES,
    Layout,
    income_statement,
    number_cell,
    write_layout,
)
from celltrace.shared.detect import detect_blocks, locate
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table
from celltrace.shared.xlsx_read import read_table

FARMS = Table(
    text=[
        ["farm type", "2016", "2011"],
        ["", "percent", ""],
        ["dairy", "12.5", "14.0"],
        ["grain", "30.1", "28.7"],
        ["total", "100.0", "100.0"],
    ],
    title="farms by type, census years",
)
WAGES = Table(
    text=[
        ["occupation", "men", "women"],
        ["nurses", "71,300", "68,200"],
        ["teachers", "64,100", "62,900"],
    ],
    title="median wages by occupation and sex",
)


def _read(tmp_path: Path, layout: Layout, other: Table | None = None) -> tuple[Table, Table]:
    path = tmp_path / "book.xlsx"
    write_layout(path, FARMS, layout, other)
    raw = read_table(path)
    return raw, locate(raw, "what percent of farms were dairy farms in 2016?")


def test_title_blank_row_and_notes_are_cut_off_with_a_warning(tmp_path: Path) -> None:
    raw, table = _read(tmp_path, Layout(notes=True))
    assert raw.text[0][0] == FARMS.title and raw.n_rows > FARMS.n_rows + 4
    assert table.text == FARMS.text and table.title == FARMS.title
    assert table.region == "Data!A3:C7"
    assert "detected the table at Data!A3:C7" in table.warnings[-1]
    assert "notes below left out" in table.warnings[-1]
    assert table.notes == [FOOTNOTE, *NOTE_LINES]  # kept: a legend of flags among them


def test_unit_row_is_a_unit_not_the_innermost_level_that_matters(tmp_path: Path) -> None:
    _, table = _read(tmp_path, Layout(notes=True))
    graph = CellGraph(table)
    headers = infer_headers(graph)
    assert headers.header_rows == 2
    assert headers.unit_for(graph.node_at(3, 2)) == "percent"


def test_blank_row_between_header_band_and_body(tmp_path: Path) -> None:
    _, table = _read(tmp_path, Layout(header_gap=True))
    assert table.n_rows == FARMS.n_rows + 1 and not any(table.text[2])
    graph = CellGraph(table)
    headers = infer_headers(graph)
    assert headers.header_rows == 2 and headers.is_data(graph.node_at(3, 1))


@pytest.mark.parametrize("where", ["above", "below"])
def test_two_tables_the_question_picks_one(tmp_path: Path, where: str) -> None:
    raw, table = _read(tmp_path, Layout(notes=True, second_table=where), other=WAGES)
    blocks = detect_blocks(raw)
    assert len(blocks) == 2
    assert table.text == FARMS.text and table.title == FARMS.title
    assert "the sheet holds 2 tables" in table.warnings[-1]
    wages = locate(raw, "what were the median wages of women teachers?")
    assert wages.text == WAGES.text and wages.title == WAGES.title
    assert locate(raw, cell=(blocks[1].r0 + 1, 1)).origin == (wages if where == "below" else table).origin


def test_income_statement_caption_unit_and_sections(tmp_path: Path) -> None:
    path = tmp_path / "10k.xlsx"
    income_statement(path)
    table = locate(read_table(path), "What was net income in 2018?")
    assert table.region == "'Income Statement'!A4:D21"
    assert table.title is not None and "(in millions, except per share data)" in table.title
    graph = CellGraph(table)
    headers = infer_headers(graph)
    assert (headers.header_rows, headers.header_cols) == (2, 1)
    row = next(r for r in range(table.n_rows) if table.text[r][0] == "Net income")
    net_income_2018 = graph.node_at(row, 2)
    assert [n.text for n in headers.col_path(net_income_2018)] == ["Year ended December 31", "2018"]
    assert net_income_2018.value == 2558 and headers.unit_for(net_income_2018) == "millions"
    diluted = next(graph.node_at(r, 1) for r in range(table.n_rows) if table.text[r][0].strip() == "Diluted")
    assert headers.unit_for(diluted) is None  # per-share data is exempt from the caption's scale


def test_a_clean_used_range_is_returned_unchanged_without_warnings() -> None:
    assert locate(FARMS) is FARMS and detect_blocks(FARMS)[0].caption_rows == ()


def test_statement_sections_after_blank_rows_stay_in_one_table() -> None:
    t = Table(text=[
        ["Statement", "", ""],
        ["", "2017", "2016"],
        ["", "", ""],
        ["Revenue", "", ""],
        ["  Cargo", "5", "6"],
        ["", "", ""],
        ["Expenses", "", ""],
        ["  Fuel", "3", "4"],
        ["Source: annual report", "", ""],
    ])  # fmt: skip
    blocks = detect_blocks(t)
    assert [(b.r0, b.r1, b.caption_rows, b.note_rows) for b in blocks] == [(1, 7, (0,), (8,))]


EMPLOYMENT = Table(text=[
    ["Table 1  Employment by province", "", "", ""],
    ["", "", "", ""],
    ["Province", "2019r", "2020r", "2021p"],
    ["Canada¹", "19,123.4", "17,993.9", "18,928.6"],
    ["Ontario 2", "7,508.9", "7,056.3", "7,413.8"],
    ["Quebec", "4,355.5", "4,171.3", "4,297.9"],
    ["Level 1", "1.0", "2.0", "3.0"],
    ["Level 2", "4.0", "5.0", "6.0"],
    ["Younger than 2", "7.0", "8.0", "9.0"],
    ["", "", "", ""],
    ["1. Excludes the territories.", "", "", ""],
    ["2. Includes Ottawa.", "", "", ""],
    ["Source: Labour Force Survey.", "", "", ""],
])  # fmt: skip


def test_footnote_marks_the_notes_define_are_not_part_of_the_labels() -> None:
    """`Canada¹` and `Ontario 2` under notes `1.` and `2.` are `Canada` and `Ontario`; a numbered
    series (`Level 1`, `Level 2`) and a number a label needs (`Younger than 2`) stay."""
    table = locate(EMPLOYMENT, "What was employment in Ontario in 2021?")
    assert [row[0] for row in table.text[1:]] == [
        "Canada", "Ontario", "Quebec", "Level 1", "Level 2", "Younger than 2"]
    assert table.values[2][0] == "Ontario" and table.text[2][3] == "7,413.8"
    assert table.notes[:2] == ["1. Excludes the territories.", "2. Includes Ottawa."]


def test_footnotes_and_a_legend_set_out_in_two_cells_are_notes_not_a_second_table() -> None:
    """A statistics download lists its legend and footnotes as mark | text: they are the table's notes
    (so `Goods-producing sector 8` loses its mark), while a two-column list of short names stays a table."""
    sheet = Table(text=[
        ["Labour force characteristics by industry", "", ""],
        ["", "", ""],
        ["NAICS 5", "2021", "2022"],
        ["Goods-producing sector 8", "3,830.5", "3,890.0"],
        ["Services-producing sector 9", "15,104.5", "15,793.4"],
        ["", "", ""],
        ["Symbol legend:", "", ""],
        ["..", "not available for a specific reference period", ""],
        ["Footnotes:", "", ""],
        ["5", "Estimates are based on the 2017 NAICS.", ""],
        ["8", "Goods-producing sector includes agriculture.", ""],
        ["9", "Services-producing sector.", ""],
    ])  # fmt: skip
    assert len(detect_blocks(sheet)) == 1
    table = locate(sheet, "What was employment in the goods-producing sector in 2021?")
    assert [row[0] for row in table.text] == ["NAICS", "Goods-producing sector", "Services-producing sector"]
    assert table.notes[1] == ".. not available for a specific reference period"
    assert table.notes[-1] == "9 Services-producing sector." and not table.warnings[1:]
    ranks = Table(text=[["Rank", "City", ""], ["1", "Toronto", "2,794"], ["", "", ""],
                        ["Rank", "Team", ""], ["1", "Maple Leafs", ""], ["2", "Blue Jays", ""]])
    assert len(detect_blocks(ranks)) == 2


def test_name_value_lines_above_a_table_are_its_caption_and_a_flag_legend_below_its_notes() -> None:
    """A Eurostat download: `Last update` | date and `Unit of measure` | text above the table are
    what it is (its caption gives the unit), the `:` | `not available` legend below are notes."""
    sheet = Table(text=[
        ["Unemployment by sex and age - annual data", "", "", ""],
        ["", "", "", ""],
        ["Last update", "15/04/2024", "", ""],
        ["Unit of measure", "Percentage of population in the labour force", "", ""],
        ["", "", "", ""],
        ["GEO (Labels)", "2019", "2020", "2021"],
        ["Belgium", "5.4", "5.8", "6.3"],
        ["Iceland", "3.9", ":", "6.0"],
        ["", "", "", ""],
        [":", "not available", "", ""],
        ["p", "provisional", "", ""],
    ])  # fmt: skip
    (block,) = detect_blocks(sheet)
    assert (block.r0, block.r1, block.caption_rows, block.note_rows) == (5, 7, (0, 2, 3), (9, 10))
    table = locate(sheet, "What was the unemployment rate in Belgium in 2020?")
    assert table.text[0] == ["GEO (Labels)", "2019", "2020", "2021"]
    assert "Unit of measure" in (table.title or "")
    headers = infer_headers(CellGraph(table))
    assert headers.unit_for(headers.graph.node_at(1, 2)) == "percent"
    # the same lines with no blank row before the header; a group label over columns stays a header
    packed = Table(text=[row for row in sheet.text[:8] if any(row)])
    (block,) = detect_blocks(packed)
    assert (block.r0, block.caption_rows) == (3, (0, 1, 2))
    grouped = Table(text=[["province", "2016", "", ""], ["", "men", "women", "total"],
                          ["ontario", "1", "2", "3"]])
    assert detect_blocks(grouped)[0].r0 == 0


def test_a_run_of_report_lines_above_a_table_is_its_caption() -> None:
    """A job cost report: the title, a `Period ending:` | | date line (its value two columns over)
    and `Prepared by` above a blank row are the caption; the header is the row of column names."""
    sheet = Table(text=[
        ["Job Cost Report", "", "", ""],
        ["Job No. 24-117 | Period ending:", "", "06/30/2025", ""],
        ["Prepared by: K. Brennan", "", "", ""],
        ["", "", "", ""],
        ["Cost Code", "Description", "Original Budget", "Committed"],
        ["01-100", "Demolition", "84,000", "81,500"],
        ["01-200", "Excavation", "156,000", "162,400"],
    ])  # fmt: skip
    (block,) = detect_blocks(sheet)
    assert (block.r0, block.caption_rows) == (4, (0, 1, 2))
    assert locate(sheet, "What is the committed cost for Excavation?").text[0][2] == "Original Budget"


def test_a_report_line_dated_in_words_is_caption_too() -> None:
    """`Prepared by: … Date:` | | `Jul 22, 2025` (a date written with its month's name) above a
    blank row and a two-level header: caption, so the date heads no column."""
    sheet = Table(text=[
        ["Riverbend Community Food Bank", "", "", "", ""],
        ["Prepared by: Development Office   Date:", "", "Jul 22, 2025", "", ""],
        ["", "", "", "", ""],
        ["", "FY2024", "", "FY2025", ""],
        ["Gift Range", "# of Donors", "Total Given", "# of Donors", "Total Given"],
        ["$1-$99", "1,842", "81,230", "1,765", "79,410"],
        ["Total", "3,178", "1,240,166", "3,219", "1,461,960"],
    ], merges=[(3, 1, 3, 2), (3, 3, 3, 4)])  # fmt: skip
    (block,) = detect_blocks(sheet)
    assert (block.r0, block.caption_rows) == (3, (0, 1))


def test_remarks_beside_a_table_past_a_blank_column_are_notes() -> None:
    sheet = Table(text=[
        ["Department", "2023", "2024", "", "Notes"],
        ["Finance", "1,200", "1,350", "", ""],
        ["IT", "2,400", "2,900", "", "IT includes the new data centre lease."],
        ["Total", "3,600", "4,250", "", ""],
    ])  # fmt: skip
    (block,) = detect_blocks(sheet)
    assert (block.c1, block.note_cols) == (2, (4,))
    table = locate(sheet, "What was the IT budget in 2024?")
    assert table.n_cols == 3 and table.notes == ["Notes", "IT includes the new data centre lease."]
    assert "remarks beside it left out" in table.warnings[-1]
    spaced = Table(text=[["", "2019", "", "2018"], ["Revenue", "1,200", "", "1,100"],
                         ["Costs", "800", "", "750"]])
    assert detect_blocks(spaced)[0].c1 == 3  # a spacer between figure columns keeps both sides


def test_number_cells_round_trip_the_displayed_text() -> None:
    assert number_cell("1,234") == (1234, "#,##0")
    assert number_cell("(7.8)") == (-7.8, "0.0;(0.0)")
    assert number_cell("24.5%")[1] == "0.0%"
    assert number_cell("..") == ("..", None) and number_cell("05") == ("05", None)


def test_eval_via_xlsx_answers_from_the_whole_sheet(tmp_path: Path) -> None:
    records = [
        {"id": f"r{i}", "dataset": "hitab", "question": q, "answers": [a], "answer_cells": [cell],
         "table": {"title": t.title, "cells": t.text, "merges": []}}
        for i, (t, q, a, cell) in enumerate([
            (FARMS, "what percent of farms were grain farms in 2011?", "28.7", [3, 2]),
            (WAGES, "what were the median wages of women nurses?", "68,200", [1, 2]),
            (FARMS, "what percent of farms were dairy farms in 2016?", "12.5", [2, 1]),
        ])
    ]  # fmt: skip
    data = tmp_path / "data.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    out, clean_out = tmp_path / "rows.jsonl", tmp_path / "clean.jsonl"
    summary = harness.evaluate(data, "offline", out=out, via_xlsx=True)
    clean = harness.evaluate(data, "offline", out=clean_out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary["em_best_guess"] == 100.0 and summary["evidence_recall"] == 1.0  # mapped back
    assert summary["em_strict"] == clean["em_strict"]  # the same verdicts as on the clean grids
    assert all(r["prediction"]["region"].startswith("Data!") for r in rows)
    assert all("_xlsx" not in r for r in rows)


def test_eval_finds_the_table_in_a_record_grid_that_is_a_whole_sheet(tmp_path: Path) -> None:
    """A record's grid may be a sheet as people keep it: the same detection as for a workbook, the
    evidence scored in the record's own grid."""
    sheet = [
        ["Table 3 Farms by type, census years", "", ""],
        ["", "", ""],
        *FARMS.text[:2],
        ["", "", ""],  # a blank row inside the table
        *FARMS.text[2:],
        ["", "", ""],
        ["Source: Census of Agriculture.", "", ""],
        ["", "", ""],
        ["Table 4 Median wages by occupation and sex", "", ""],
        *WAGES.text,
    ]
    records = [
        {"id": f"r{i}", "dataset": "hitab", "question": q, "answers": [a], "answer_cells": [cell],
         "table": {"title": None, "cells": sheet, "merges": []}}
        for i, (q, a, cell) in enumerate([
            ("what percent of farms were grain farms in 2011?", "28.7", [6, 2]),
            ("what were the median wages of women nurses?", "68,200", [13, 2]),
        ])
    ]  # fmt: skip
    data = tmp_path / "data.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    out = tmp_path / "rows.jsonl"
    summary = harness.evaluate(data, "offline", out=out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary["em_best_guess"] == 100.0 and summary["evidence_recall"] == 1.0
    assert [r["prediction"]["region"] for r in sorted(rows, key=lambda r: r["id"])] == ["A3:C8", "A13:C15"]


def test_ask_json_reports_region_and_reader_warnings(tmp_path: Path) -> None:
    register_commands()
    path = tmp_path / "book.xlsx"
    write_layout(path, WAGES, Layout(notes=True))
    wb = openpyxl.load_workbook(path)
    wb["Data"]["B5"] = "=B4-1"  # a formula openpyxl cannot cache: the reader warns
    wb.save(path)
    result = CliRunner().invoke(
        app,
        ["ask", str(path), "what were the median wages of women nurses?", "--engine", "offline", "--json"],
        env={"CELLTRACE_DENSE_RETRIEVAL": "false"},
    )
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["answer"] == ["68,200"] and body["region"] == "Data!A3:C5"
    assert any("no cached value" in w for w in body["warnings"])
    assert any("detected the table at Data!A3:C5" in w for w in body["warnings"])


SIDE_BY_SIDE = Table(text=[
    ["Table 1. Sales by region ($ thousands)", "", "", "", "", "Table 2. Headcount by region", "", ""],
    ["", "", "", "", "", "", "", ""],
    ["Region", "2022", "2023", "", "", "Region", "2022", "2023"],
    ["North", "1,200", "1,350", "", "", "North", "120", "128"],
    ["South", "980", "1,010", "", "", "South", "95", "97"],
    ["East", "1,430", "1,520", "", "", "East", "140", "151"],
    ["Total", "3,610", "3,880", "", "", "Total", "355", "376"],
])  # fmt: skip


def test_tables_side_by_side_are_two_blocks_each_with_its_own_caption() -> None:
    blocks = detect_blocks(SIDE_BY_SIDE)
    assert [(b.r0, b.c0, b.r1, b.c1) for b in blocks] == [(2, 0, 6, 2), (2, 5, 6, 7)]
    heads = locate(SIDE_BY_SIDE, "What was the headcount in the South in 2022?")
    assert heads.title == "Table 2. Headcount by region" and heads.text[2] == ["South", "95", "97"]
    sales = locate(SIDE_BY_SIDE, "What were sales in the East in 2023?")
    assert sales.title == "Table 1. Sales by region ($ thousands)" and sales.n_cols == 3
    assert "the sheet holds 2 tables" in sales.warnings[-1]


STACKED = Table(text=[
    ["Resort skier visits and lift revenue by ticket type", "", ""],
    ["", "", ""],
    ["A. Skier visits", "", ""],
    ["(thousands of visits)", "2022/23", "2023/24"],
    ["Adult day ticket", "284.3", "291.7"],
    ["Season pass", "224.7", "261.0"],
    ["Total", "509.0", "552.7"],
    ["", "", ""],
    ["B. Lift revenue", "", ""],
    ["(thousands of dollars)", "2022/23", "2023/24"],
    ["Adult day ticket", "37,598", "37,928"],
    ["Season pass", "9,747", "11,743"],
    ["Total", "47,345", "49,671"],
])  # fmt: skip


def test_a_section_past_a_blank_row_continues_the_table_above() -> None:
    """`02 | Structure` stands left of the figures and figures follow it: a section of the cost
    report above, not a new table without a header."""
    report = Table(text=[
        ["Project cost report", "", "", ""],
        ["", "", "", ""],
        ["Cost Code", "Description", "Original Budget", "Revised Budget"],
        ["01", "Site Work", "", ""],
        ["01-100", "Demolition", "412,000", "430,500"],
        ["01-200", "Earthwork", "1,285,000", "1,349,000"],
        ["", "", "", ""],
        ["02", "Structure", "", ""],
        ["02-100", "Foundations", "2,340,000", "2,485,000"],
        ["02-200", "Structural steel", "4,870,000", "5,080,500"],
    ])
    found = locate(report, "What is the revised budget for structural steel?")
    assert found.text[0] == ["Cost Code", "Description", "Original Budget", "Revised Budget"]
    assert found.text[-1][1] == "Structural steel"


def test_the_closing_notes_speak_for_every_table_above_them() -> None:
    """A legend under the last table (`P = provisional`) is read with the first one too."""
    first = locate(Table(text=[*[list(r) for r in STACKED.text], ["", "", ""], ["P = provisional", "", ""]]),
                   "How many skier visits did season passes account for in 2022/23?")
    assert first.text[-1] == ["Total", "509.0", "552.7"]
    assert "P = provisional" in first.notes


def test_the_sheet_title_over_stacked_tables_picks_none_of_them() -> None:
    """The title above the first table names both (`… and lift revenue`): each table's own caption
    (`B. Lift revenue`) and cells decide which one a question means."""
    revenue = locate(STACKED, "What was lift revenue from adult day tickets in 2023/24?")
    assert revenue.text[-1] == ["Total", "47,345", "49,671"]
    visits = locate(STACKED, "How many skier visits did season passes account for in 2022/23?")
    assert visits.text[-1] == ["Total", "509.0", "552.7"]


def test_a_title_over_the_first_of_stacked_tables_headed_by_their_own_cells() -> None:
    """`Segment revenue and operating income` is over the first table only, the second heads itself
    (`Operating income (loss)`): the cells decide, not the title."""
    segments = Table(text=[
        ["Note 16 — Segment Information", "", ""],
        ["Segment revenue and operating income (loss) (in millions)", "", ""],
        ["", "", ""],
        ["Revenue", "2024", "2023"],
        ["Cloud Infrastructure", "24,310", "20,845"],
        ["Payments", "6,418", "5,270"],
        ["Total revenue", "30,728", "26,115"],
        ["", "", ""],
        ["Operating income (loss)", "2024", "2023"],
        ["Cloud Infrastructure", "8,512", "6,940"],
        ["Payments", "1,248", "905"],
        ["Total operating income", "9,760", "7,845"],
    ])  # fmt: skip
    found = locate(segments, "How much operating income did the Payments segment generate in fiscal 2024?")
    assert found.text[-1] == ["Total operating income", "9,760", "7,845"]
    found = locate(segments, "What was revenue of the Payments segment in 2023?")
    assert found.text[-1] == ["Total revenue", "30,728", "26,115"]


STARTS_AND_COMPLETIONS = Table(text=[
    ["Housing units started and completed, by region (thousands)", "", "", ""],
    ["", "", "", ""],
    ["Table 1. Housing units started", "", "", ""],
    ["Region", "Q1 2022", "Q2 2022", "Q3 2022"],
    ["Northeast", "21.4", "33.8", "30.2"],
    ["Midwest", "30.9", "55.2", "51.7"],
    ["", "", "", ""],
    ["Table 2. Housing units completed", "", "", ""],
    ["Region", "Q1 2022", "Q2 2022", "Q3 2022"],
    ["Northeast", "22.7", "25.3", "27.9"],
    ["Midwest", "36.2", "39.8", "42.5"],
])  # fmt: skip


def test_a_caption_names_its_table_by_any_form_of_a_word() -> None:
    """`completions` names the table captioned `Housing units completed`, not the first one."""
    table = locate(STARTS_AND_COMPLETIONS, "Midwest completions in Q2 2022?")
    assert table.text[-1][2] == "39.8"


def test_a_year_in_one_stacked_caption_picks_its_roll_forward() -> None:
    """Two roll-forwards whose lines both name June 30, 2023: the caption of the one for the fiscal
    year 2023 decides; `pay out` names the `payments` block."""
    endowment = Table(text=[
        ["Changes in endowment net assets for the fiscal year ended June 30, 2024:", "", ""],
        ["", "Without donor restrictions", "Total"],
        ["Endowment net assets, June 30, 2023", "20,533", "87,911"],
        ["Appropriation of endowment assets for expenditure", "(842)", "(3,167)"],
        ["Endowment net assets, June 30, 2024", "21,201", "93,575"],
        ["", "", ""],
        ["Changes in endowment net assets for the fiscal year ended June 30, 2023:", "", ""],
        ["", "Without donor restrictions", "Total"],
        ["Endowment net assets, June 30, 2022", "18,240", "82,270"],
        ["Appropriation of endowment assets for expenditure", "(805)", "(3,015)"],
        ["Endowment net assets, June 30, 2023", "20,533", "87,911"],
    ])  # fmt: skip
    question = "What was the appropriation of endowment assets for expenditure in fiscal 2023?"
    found = locate(endowment, question)
    assert found.text[-1] == ["Endowment net assets, June 30, 2023", "20,533", "87,911"]
    balance = Table(text=[
        ["Current account receipts", "", ""],
        ["Components", "2022", "2023"],
        ["Travel", "24,188", "30,476"],
        ["Transportation", "25,402", "24,918"],
        ["", "", ""],
        ["Current account payments", "", ""],
        ["Components", "2022", "2023"],
        ["Travel", "36,512", "44,715"],
        ["Transportation", "38,840", "36,215"],
    ])  # fmt: skip
    assert locate(balance, "How much did Canada pay out for travel in 2023?").text[-2][2] == "44,715"


def test_how_many_picks_the_table_of_numbers() -> None:
    """Both captions name forest fires: `how many` asks the number of them, not the area burned."""
    fires = Table(text=[
        ["Table 1  Area burned by forest fires (hectares)", "", ""],
        ["Province", "2021", "2022"],
        ["Ontario", "507,947", "11,400"],
        ["Quebec", "120,310", "5,020"],
        ["", "", ""],
        ["Table 2  Number of forest fires", "", ""],
        ["Province", "2021", "2022"],
        ["Ontario", "719", "240"],
        ["Quebec", "602", "410"],
    ])  # fmt: skip
    assert locate(fires, "How many forest fires were there in Ontario in 2021?").text[-2][1] == "719"


def test_a_caption_declaring_percentages_answers_only_a_question_asking_one() -> None:
    """Both captions name balances (`share of balances`, `Outstanding balances`): a balance asked is
    read in the dollars table, a share asked in the one whose unit line says percent."""
    sheet = Table(text=[
        ["Table 1. Accounts 60 or more days past due, share of balances", "", ""],
        ["Units: percent", "", ""],
        ["Credit tier", "2023", "2024"],
        ["Prime", "0.38", "0.41"],
        ["Subprime", "2.24", "2.37"],
        ["", "", ""],
        ["Table 2. Outstanding balances", "", ""],
        ["Units: billions of dollars", "", ""],
        ["Credit tier", "2023", "2024"],
        ["Prime", "121.3", "123.9"],
        ["Subprime", "23.1", "22.4"],
    ])  # fmt: skip
    assert locate(sheet, "Which credit tier had the largest loan balance in 2023?").text[-1][1] == "23.1"
    assert locate(sheet, "What percent of subprime balances were past due in 2023?").text[-1][1] == "2.24"


def test_a_caption_of_rates_or_medians_answers_no_question_asking_none() -> None:
    """`Job vacancy rate (percent)` is no answer to a share of all job vacancies nor to a percent
    change in them (both are computed from the counts), and `Median total time` none to the total
    number of visits; a rate asked reads the rates."""
    sheet = Table(text=[
        ["Table 1  Job vacancies", "", ""],
        ["(number)", "", ""],
        ["Geography", "2023 Q3", "2024 Q3"],
        ["Canada", "669,790", "503,910"],
        ["Quebec", "160,905", "113,210"],
        ["Ontario", "214,380", "160,575"],
        ["", "", ""],
        ["Table 2  Job vacancy rate", "", ""],
        ["(percent)", "", ""],
        ["Geography", "2023 Q3", "2024 Q3"],
        ["Canada", "3.8", "2.8"],
        ["Quebec", "4.1", "2.9"],
        ["Ontario", "3.4", "2.5"],
    ])  # fmt: skip
    for question in ("What percentage of all job vacancies in Canada in Q3 2024 were in Quebec?",
                     "What was the percent change in Ontario's job vacancies from Q3 2023 to Q3 2024?"):
        assert locate(sheet, question).text[-1][1] == "214,380", question
    assert locate(sheet, "What was Ontario's job vacancy rate in Q3 2024?").text[-1][1] == "3.4"
    visits = Table(text=[
        ["Median time spent per visit in the emergency department, by triage level (hours)", "", ""],
        ["Triage level", "2022–23", "2023–24"],
        ["Level 2 – Emergent", "6.2", "6.6"],
        ["Level 3 – Urgent", "4.8", "5.0"],
        ["", "", ""],
        ["Emergency department visits by triage level (thousands)", "", ""],
        ["Triage level", "2022–23", "2023–24"],
        ["Level 2 – Emergent", "1,042.0", "1,091.6"],
        ["Level 3 – Urgent", "2,903.8", "2,978.8"],
    ])  # fmt: skip
    question = "How many urgent (Level 3) emergency department visits were there in 2022–23?"
    assert locate(visits, question).text[-1][1] == "2,903.8"


def test_a_table_the_question_designates_is_read() -> None:
    """`in Table B`: the block captioned `Table B`, however many more words the other shares."""
    sheet = Table(text=[
        ["Table A. Age-standardized mortality rates per 100,000 by cause of death and sex", "", ""],
        ["Cause of death", "Men", "Women"],
        ["All causes", "712.4", "498.1"],
        ["Cancer", "201.3", "148.2"],
        ["", "", ""],
        ["Table B. All-cause mortality rates by age group", "", ""],
        ["Age group", "Men", "Women"],
        ["45–64", "610.2", "402.9"],
        ["65–84", "3,621.4", "2,544.0"],
    ])  # fmt: skip
    question = "What was the all-cause death rate per 100,000 for men aged 65–84 in Table B?"
    assert locate(sheet, question).text[-1][1] == "3,621.4"


def test_a_percentage_asked_counts_no_words_for_a_table_of_shares() -> None:
    """`What proportion of retail spending came from international visitors, in percent?`: the
    expenditure table holds every other word (`international`); a percentage is computed from it,
    so the shares table below does not win on `percent`."""
    sheet = Table(text=[
        ["Table 1. Tourism expenditure by type of visitor (millions of dollars)", "", ""],
        ["Product category", "2024", ""],
        ["", "International", "Total"],
        ["Accommodation", "4,406.8", "12,436.4"],
        ["Retail (shopping)", "2,284.0", "5,874.6"],
        ["", "", ""],
        ["Table 2. Share of total tourism expenditure, all visitors", "", ""],
        ["Units: percent of total", "", ""],
        ["Product category", "2024", ""],
        ["Accommodation", "28.2", ""],
        ["Retail (shopping)", "13.3", ""],
    ])  # fmt: skip
    question = "What proportion of 2024 retail (shopping) spending came from international visitors, in %?"
    assert locate(sheet, question).text[-1][1] == "2,284.0"
    question = "What share of tourism expenditure was retail in 2024, in percent?"
    assert locate(sheet, question).text[-1][1] == "13.3"


PRICE_TABLES = Table(text=[
    ["U.S. import and export price indexes", "", ""],
    ["", "", ""],
    ["Table A. Import price indexes", "", ""],
    ["End use", "Nov.", "Dec."],
    ["All commodities", "140.5", "140.8"],
    ["Capital goods", "99.4", "99.2"],
    ["Consumer goods", "107.9", "107.9"],
    ["", "", ""],
    ["Table B. Export price indexes", "", ""],
    ["End use", "Nov.", "Dec."],
    ["All commodities", "153.2", "153.9"],
    ["Capital goods", "135.1", "135.2"],
    ["Consumer goods", "124.8", "124.7"],
])  # fmt: skip


def test_what_only_another_table_shows_is_reported_and_caps_the_confidence() -> None:
    """A question naming both stacked tables (`export … above … import`) reads one of them: the other
    table's caption word is reported, and the answer is never confident."""
    from celltrace.server.engine.api import answer_question

    both = "In November, how far did the export capital goods index stand above the import capital goods one?"
    table = locate(PRICE_TABLES, both)
    assert table.elsewhere in (("Export",), ("Import",))
    assert "another table" in table.warnings[-1]
    result = answer_question(table, both, engine="offline")
    assert result.confidence is not None and result.confidence <= 0.5 and result.status == "abstained"
    one = locate(PRICE_TABLES, "What was the import capital goods index in November?")
    assert one.elsewhere == () and one.text[2] == ["Capital goods", "99.4", "99.2"]


WAVES = Table(text=[
    ["Presidential job approval tracker", "", "", ""],
    ["", "", "", ""],
    ["Table 1. Job approval by survey wave", "", "", ""],
    ["Survey wave", "Total approve", "Total disapprove", "Unweighted n"],
    ["Jan 2024", "41", "54", "1,530"],
    ["Apr 2024", "43", "53", "1,544"],
    ["", "", "", ""],
    ["Table 2. Job approval by party, Oct 2024 wave", "", "", ""],
    ["Party identification", "Total approve", "Total disapprove", "Unweighted n"],
    ["Democrat", "78", "17", "512"],
    ["Republican", "6", "91", "468"],
])  # fmt: skip


def test_a_month_said_in_full_names_the_block_showing_it_short() -> None:
    """`April 2024` is the first table's `Apr 2024`, whatever the second's caption says of its wave."""
    table = locate(WAVES, "How many interviews (unweighted n) were there in the April 2024 wave?")
    assert table.text[-1][0] == "Apr 2024"


OUTLOOK = Table(text=[
    ["Household finance survey", "", ""],
    ["", "", ""],
    ["Table 3.1  Distribution of adults by expected financial situation", "", ""],
    ["Units: percent of adults", "", ""],
    ["Expected situation", "2022", "2024"],
    ["Net: worse off", "34.5", "24.1"],
    ["Total, all adults", "100.0", "100.0"],
    ["", "", ""],
    ["Table 3.2  Estimated number of adults by expected financial situation", "", ""],
    ["(in thousands)", "", ""],
    ["Expected situation", "2022", "2024"],
    ["Net: worse off", "89,989", "63,601"],
    ["Total, all adults", "260,836", "263,905"],
])  # fmt: skip


def test_a_change_in_percentage_points_names_the_table_of_percentages() -> None:
    """`by how many percentage points` asks neither a number of adults nor a percent change: the
    percentages' table."""
    table = locate(OUTLOOK, "By how many percentage points did the Net: worse off share change between 2022 "
                            "and 2024?")
    assert table.text[1] == ["Net: worse off", "34.5", "24.1"]
