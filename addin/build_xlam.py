"""Assemble `celltrace.xlam` from xlwings' own ribbon add-in template (`xlwings quickstart NAME
--addin --ribbon`, i.e. `xlwings/quickstart_addin_ribbon.xlam`), celltrace's ribbon XML and VBA.

Two steps, because a VBA project can only be edited by Excel itself:

1. `package()` — anywhere xlwings is installed (the template ships inside the xlwings package):
   copy the template, put `vba/customUI.xml` in as the ribbon (tab "celltrace": Ask, Long answer,
   Batch, Clear) and rename the add-in's settings sheet `_myaddin.conf` → `_celltrace.conf`.
2. `import_vba()` — Windows with Excel and "Trust access to the VBA project object model" on:
   import `vba/celltrace.bas` (the ribbon callbacks), drop the template's `RibbonMyAddin` module
   and set the xlwings module's `PROJECT_NAME` to `celltrace` (so settings come from
   `%USERPROFILE%\\.celltrace\\celltrace.conf`, or `celltrace.conf` in Excel's Mac container).

`python addin/build_xlam.py OUT.xlam` runs both (step 2 only where Excel is scriptable); the
resulting .xlam works on Windows and macOS. Without step 2 the ribbon shows but its buttons have no
macros: then import `celltrace.bas` by hand in the VBA editor (File › Import File…).
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

VBA_DIR = Path(__file__).with_name("vba")
RIBBON_XML = VBA_DIR / "customUI.xml"
BAS = VBA_DIR / "celltrace.bas"
TEMPLATE_NAME = "quickstart_addin_ribbon.xlam"
TEMPLATE_RIBBON = "customUI/customUI.xml"
TEMPLATE_MODULE = "RibbonMyAddin"
PROJECT_NAME = "celltrace"
_CONF_SHEET = (b'name="_myaddin.conf"', b'name="_celltrace.conf"')


def template_path() -> Path:
    """xlwings' ribbon add-in template (raises a one-line error when xlwings is missing)."""
    try:
        import xlwings
    except ImportError:
        raise SystemExit("build_xlam needs xlwings installed (pip install 'celltrace[excel]')") from None
    path = Path(xlwings.__file__).with_name(TEMPLATE_NAME)
    if not path.is_file():
        raise SystemExit(f"this xlwings ({xlwings.__version__}) has no {TEMPLATE_NAME}")
    return path


def package(out: Path, template: Path | None = None) -> Path:
    """Step 1: the template with celltrace's ribbon and settings sheet name."""
    template = template or template_path()
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(template) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        names = src.namelist()
        if TEMPLATE_RIBBON not in names:
            raise SystemExit(f"{template.name} has no {TEMPLATE_RIBBON}: not xlwings' ribbon template")
        for info in src.infolist():
            body = src.read(info)
            if info.filename == TEMPLATE_RIBBON:
                body = RIBBON_XML.read_bytes()
            elif info.filename == "xl/workbook.xml":
                body = body.replace(*_CONF_SHEET)
            dst.writestr(info, body)
    return out


def import_vba(xlam: Path) -> None:
    """Step 2 (Windows, Excel): celltrace's callbacks in, the template's demo module out."""
    import xlwings as xw

    with xw.App(visible=False, add_book=False) as app:
        book = app.books.open(str(xlam))
        components = book.api.VBProject.VBComponents
        for component in list(components):
            if component.Name in (TEMPLATE_MODULE, "CelltraceRibbon"):
                components.Remove(component)
        components.Import(str(BAS))
        code = components("xlwings").CodeModule
        for line in range(1, code.CountOfLines + 1):
            if code.Lines(line, 1).startswith("Public Const PROJECT_NAME"):
                code.ReplaceLine(line, f'Public Const PROJECT_NAME As String = "{PROJECT_NAME}"')
                break
        book.save()
        book.close()


def build(out: Path, *, with_vba: bool | None = None) -> Path:
    """Both steps; `with_vba` defaults to "Excel is scriptable here" (Windows)."""
    package(out)
    if with_vba if with_vba is not None else sys.platform.startswith("win"):
        import_vba(out)
    return out


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("celltrace.xlam")
    print(f"wrote {build(target)}")
