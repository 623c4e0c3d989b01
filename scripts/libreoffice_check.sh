#!/usr/bin/env bash
# Render a workbook celltrace wrote with LibreOffice (headless) to PDF, then to PNG pages, to look
# at fills, wrapped answers and the log sheet without Excel. Every visible sheet becomes pages;
# the very hidden `_celltrace` record sheet does not print, nor do notes (LibreOffice's default).
#
#   scripts/libreoffice_check.sh [--fit] OUTPUT.xlsx [OUT_DIR]      # default OUT_DIR: ./lo-check
#
# --fit prints a copy with every sheet landscape and one page wide (page setup only, via openpyxl
# from the active Python), so a wide statement or the log sheet is one picture, not several.
# Needs `soffice` and `pdftoppm` (Debian: apt-get install libreoffice-calc-nogui poppler-utils).
set -euo pipefail

fit=0
if [[ ${1:-} == --fit ]]; then
  fit=1
  shift
fi
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 [--fit] WORKBOOK.xlsx [OUT_DIR]" >&2
  exit 2
fi
workbook=$1
out_dir=${2:-lo-check}
for tool in soffice pdftoppm; do
  command -v "$tool" >/dev/null || { echo "$0: $tool not found" >&2; exit 2; }
done
[[ -f $workbook ]] || { echo "$0: $workbook: no such file" >&2; exit 2; }

mkdir -p "$out_dir"
profile=$(mktemp -d)  # a throwaway profile: no lock clash with a running LibreOffice
trap 'rm -rf "$profile"' EXIT
if (( fit )); then
  copy="$profile/$(basename "$workbook")"
  python3 - "$workbook" "$copy" <<'PY'
import sys

import openpyxl

wb = openpyxl.load_workbook(sys.argv[1])
for ws in wb.worksheets:
    ws.page_setup.orientation = "landscape"
    ws.page_setup.fitToWidth, ws.page_setup.fitToHeight = 1, 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
wb.save(sys.argv[2])
PY
  workbook=$copy
fi
soffice -env:UserInstallation="file://$profile" --headless --convert-to pdf --outdir "$out_dir" "$workbook" >&2
stem=$(basename "${workbook%.*}")
pdf="$out_dir/$stem.pdf"
[[ -f $pdf ]] || { echo "$0: LibreOffice produced no PDF" >&2; exit 1; }
pdftoppm -png -r 80 "$pdf" "$out_dir/$stem"
ls -1 "$out_dir/$stem"*.png
