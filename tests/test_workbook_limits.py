"""Hostile workbooks (generated here, never committed): caps checked while streaming, exit 2 fast
and with little memory; the writer's load has the same caps; --in-place follows a symlink."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest

from celltrace.shared.errors import UserError
from celltrace.shared.xlsx_limits import ReadLimits, WorkbookTooLarge, check_workbook
from celltrace.shared.xlsx_read import read_table
from celltrace.shared.xlsx_write import load_for_write, prepare_output, save_atomic

MB = 1 << 20
_SHEET_HEAD = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
)
_SHEET_TAIL = "</sheetData></worksheet>"


def _skeleton(path: Path) -> zipfile.ZipFile:
    """A minimal one-sheet .xlsx without its sheet part (the caller streams that in)."""
    z = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1)
    ns = "http://schemas.openxmlformats.org"
    z.writestr("[Content_Types].xml", (
        f'<Types xmlns="{ns}/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'))
    z.writestr("_rels/.rels", (
        f'<Relationships xmlns="{ns}/package/2006/relationships"><Relationship Id="rId1" '
        f'Type="{ns}/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
        '</Relationships>'))
    z.writestr("xl/workbook.xml", (
        f'<workbook xmlns="{ns}/spreadsheetml/2006/main" xmlns:r="{ns}/officeDocument/2006/relationships">'
        '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'))
    z.writestr("xl/_rels/workbook.xml.rels", (
        f'<Relationships xmlns="{ns}/package/2006/relationships"><Relationship Id="rId1" '
        f'Type="{ns}/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
        '</Relationships>'))
    return z


def zip_bomb(path: Path, mb: int = 200) -> Path:
    """One inline-string cell whose text inflates to `mb` MiB (the file is a few hundred KB)."""
    with _skeleton(path) as z, z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as part:
        part.write((_SHEET_HEAD + '<row r="1"><c r="A1" t="inlineStr"><is><t>').encode())
        block = b"A" * MB
        for _ in range(mb):
            part.write(block)
        part.write(("</t></is></c></row>" + _SHEET_TAIL).encode())
    return path


def many_rows(path: Path, rows: int = 2_500_000) -> Path:
    """`rows` rows of one number each."""
    with _skeleton(path) as z, z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as part:
        part.write(_SHEET_HEAD.encode())
        step = 50_000
        for start in range(1, rows + 1, step):
            part.write("".join(f'<row r="{r}"><c r="A{r}"><v>{r}</v></c></row>'
                               for r in range(start, min(start + step, rows + 1))).encode())
        part.write(_SHEET_TAIL.encode())
    return path


_MEASURE = (
    "import json, resource, subprocess, sys, time\n"
    "t = time.monotonic()\n"
    "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "print(json.dumps([p.returncode, time.monotonic() - t,"
    " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.stderr.strip()]))\n"
)


def _cli(*args: str) -> tuple[int, float, float, str]:
    """(exit code, seconds, peak RSS in MB, stderr) of `celltrace ARGS` in a fresh process."""
    exe = Path(sys.executable).with_name("celltrace")
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(exe), *args], capture_output=True, text=True,
                         timeout=120).stdout
    code, seconds, rss_kb, err = json.loads(out)
    return code, seconds, rss_kb / 1024, err


@pytest.mark.parametrize("make", [zip_bomb, many_rows], ids=["zip-bomb-200MB", "2.5M-rows"])
def test_hostile_workbooks_exit_2_fast_and_small(make: object, tmp_path: Path) -> None:
    book = make(tmp_path / "hostile.xlsx")  # type: ignore[operator]
    assert book.stat().st_size < 25 * MB  # a few hundred KB (bomb) or about 20 MB (rows)
    code, seconds, peak_mb, err = _cli("graph", str(book), "--json")
    assert code == 2, err
    assert seconds < 10 and peak_mb < 500, (seconds, peak_mb)
    assert err.count("\n") == 0 and "hostile.xlsx" in err and "CELLTRACE_MAX_" in err


def test_caps_are_settings_and_apply_to_the_writer(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    for r in range(1, 21):
        wb.active.append([f"row {r}", r, "x" * 50])
    book = tmp_path / "book.xlsx"
    wb.save(book)
    assert read_table(book).n_rows == 20
    check_workbook(str(book), book.name)
    with pytest.raises(WorkbookTooLarge, match=r"more than 59 cells .*CELLTRACE_MAX_READ_CELLS"):
        check_workbook(str(book), book.name, ReadLimits(max_read_cells=59))
    with pytest.raises(WorkbookTooLarge, match="CELLTRACE_MAX_TEXT_BYTES"):
        check_workbook(str(book), book.name, ReadLimits(max_text_bytes=40))
    with pytest.raises(WorkbookTooLarge, match="CELLTRACE_MAX_PART_BYTES"):
        check_workbook(str(book), book.name, ReadLimits(max_part_bytes=500))
    bomb = zip_bomb(tmp_path / "bomb.xlsx", mb=3)
    for load in (read_table, load_for_write):
        with pytest.raises(UserError, match="CELLTRACE_MAX_TEXT_BYTES"):
            load(bomb)


def test_in_place_on_a_symlink_writes_the_real_file(tmp_path: Path) -> None:
    real = tmp_path / "data" / "book.xlsx"
    real.parent.mkdir()
    wb = openpyxl.Workbook()
    wb.active.append(["Item", "Amount"])
    wb.save(real)
    link = tmp_path / "link.xlsx"
    link.symlink_to(real)
    plan = prepare_output(link, in_place=True)
    assert plan.output == real.resolve()
    wb.active["C1"] = "written"
    save_atomic(wb, link)  # also when a caller hands the link itself to the saver
    assert link.is_symlink() and link.readlink() == real
    assert openpyxl.load_workbook(real).active["C1"].value == "written"
