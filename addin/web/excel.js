// celltrace over Office.js: read a range as the TABLE payload, replay the server's action JSON
// (fill, note, set_value, select, clear) and keep the restore record that Clear uses. The record is
// the same as the desktop add-in's (see shared/restore.py): the very hidden sheet `_celltrace`, A1 =
// {"celltrace_record": 1}, then one JSON entry per row (longer texts continue in B, C, ...).
"use strict";

const celltraceExcel = (() => {
  const RECORD_SHEET = "_celltrace";
  const RECORD_HEADER = JSON.stringify({ celltrace_record: 1 });
  const CHUNK_CHARS = 30000;

  // ---- A1 addresses ---------------------------------------------------------------------------
  function colLetter(col) {
    let s = "";
    for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    return s;
  }

  function a1(row, col) {
    return colLetter(col) + (row + 1);
  }

  function parseCell(ref) {
    const m = /^\$?([A-Z]+)\$?(\d+)$/i.exec(ref);
    if (!m) throw new Error("bad cell address " + ref);
    let col = 0;
    for (const ch of m[1].toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
    return [Number(m[2]) - 1, col - 1];
  }

  // "Sheet 1!B2:C3" / "'It''s'!B2" -> { sheet, address, r0, c0, r1, c1 } (0-based, inclusive)
  function parseRef(ref) {
    const bang = ref.lastIndexOf("!");
    let sheet = bang >= 0 ? ref.slice(0, bang) : null;
    if (sheet && sheet.startsWith("'")) sheet = sheet.slice(1, -1).replace(/''/g, "'");
    const address = (bang >= 0 ? ref.slice(bang + 1) : ref).replace(/\$/g, "");
    const [first, last] = address.split(":");
    const [r0, c0] = parseCell(first);
    const [r1, c1] = last ? parseCell(last) : [r0, c0];
    return { sheet, address, r0, c0, r1, c1 };
  }

  function qualified(sheet, address) {
    return "'" + sheet.replace(/'/g, "''") + "'!" + address;
  }

  // ---- reading ----------------------------------------------------------------------------------
  // The merged areas overlapping `box` (sheet coordinates), clipped to it, 0-based relative to it
  // (a clipped area may be a single cell: it still carries its anchor's text into the box).
  // Office.js lists a merged area only when its top-left cell is inside the range asked about
  // (office-js#3611), so the caller asks about the sheet's used range and we intersect here.
  function clipMerges(areas, box) {
    const out = [];
    for (const a of areas) {
      const r0 = Math.max(a.rowIndex, box.r0);
      const c0 = Math.max(a.columnIndex, box.c0);
      const r1 = Math.min(a.rowIndex + a.rowCount - 1, box.r1);
      const c1 = Math.min(a.columnIndex + a.columnCount - 1, box.c1);
      if (r0 > r1 || c0 > c1) continue;
      out.push({ rel: [r0 - box.r0, c0 - box.c0, r1 - box.r0, c1 - box.c0], anchor: [a.rowIndex, a.columnIndex] });
    }
    return out;
  }

  // Leading spaces per indent level (Format Cells > Indent) of a text cell, as in file mode: statements
  // indent line items that way, and the server reads indentation from leading spaces.
  const INDENT = "  ";

  // Text and values of `range`, in blocks of whole rows of at most `api.blockCells` cells: Excel on
  // the web caps each request and response at 5 MB. Indent levels need ExcelApi 1.9.
  async function readGrid(ctx, range) {
    const rowsPerBlock = Math.max(1, Math.floor(api.blockCells / range.columnCount));
    const indents = Office.context.requirements.isSetSupported("ExcelApi", "1.9");
    const cells = [];
    const values = [];
    for (let start = 0; start < range.rowCount; start += rowsPerBlock) {
      const n = Math.min(rowsPerBlock, range.rowCount - start);
      const block = range.worksheet.getRangeByIndexes(range.rowIndex + start, range.columnIndex, n, range.columnCount);
      block.load("text,values");
      const props = indents ? block.getCellProperties({ format: { indentLevel: true } }) : null;
      await ctx.sync(); // one block per round trip
      cells.push(...block.text.map((row, i) => row.map((t, j) => {
        const level = props && typeof block.values[i][j] === "string" ? props.value[i][j].format.indentLevel : 0;
        return INDENT.repeat(level || 0) + String(t);
      })));
      values.push(...block.values.map((row) => row.map((v) => (v === "" ? null : v))));
    }
    return { cells, values };
  }

  // The TABLE payload of `ref` (Sheet!A1:B2), else of the selection (one cell: its current region).
  async function readTable(ref) {
    return Excel.run(async (ctx) => {
      let range;
      if (ref) {
        const p = parseRef(ref);
        const sheet = p.sheet ? ctx.workbook.worksheets.getItem(p.sheet) : ctx.workbook.worksheets.getActiveWorksheet();
        range = sheet.getRange(p.address);
      } else {
        range = ctx.workbook.getSelectedRange();
      }
      range.load("cellCount");
      await ctx.sync();
      if (range.cellCount === 1) range = range.getSurroundingRegion();
      range.load("address,rowIndex,columnIndex,rowCount,columnCount");
      range.worksheet.load("name");
      const book = ctx.workbook;
      book.load("name");
      const merged = range.worksheet.getUsedRange(true).getMergedAreasOrNullObject();
      merged.load("isNullObject");
      await ctx.sync();
      const box = {
        r0: range.rowIndex,
        c0: range.columnIndex,
        r1: range.rowIndex + range.rowCount - 1,
        c1: range.columnIndex + range.columnCount - 1,
      };
      let clipped = [];
      if (!merged.isNullObject) {
        merged.areas.load("items/rowIndex,items/columnIndex,items/rowCount,items/columnCount");
        await ctx.sync();
        clipped = clipMerges(merged.areas.items, box);
      }
      const { cells, values } = await readGrid(ctx, range);
      // A merged area whose top-left cell lies outside the range: its text belongs to the clipped part.
      const outside = clipped.filter((m) => m.anchor[0] < box.r0 || m.anchor[1] < box.c0);
      const anchors = outside.map((m) => {
        const cell = range.worksheet.getCell(m.anchor[0], m.anchor[1]);
        cell.load("text,values");
        return cell;
      });
      if (anchors.length) await ctx.sync();
      const warnings = [];
      outside.forEach((m, i) => {
        cells[m.rel[0]][m.rel[1]] = String(anchors[i].text[0][0]);
        values[m.rel[0]][m.rel[1]] = anchors[i].values[0][0] === "" ? null : anchors[i].values[0][0];
        warnings.push("merged area at " + a1(m.anchor[0], m.anchor[1]) + " crosses the range border");
      });
      const address = parseRef(range.address).address;
      return {
        cells,
        values,
        merges: clipped.filter((m) => m.rel[2] > m.rel[0] || m.rel[3] > m.rel[1]).map((m) => m.rel),
        origin: { workbook: book.name || null, sheet: range.worksheet.name, address },
        warnings,
      };
    });
  }

  // ---- the restore record -------------------------------------------------------------------
  async function loadRecord(ctx) {
    const sheet = ctx.workbook.worksheets.getItemOrNullObject(RECORD_SHEET);
    await ctx.sync();
    const entries = new Map();
    if (sheet.isNullObject) return entries;
    const used = sheet.getUsedRange(true);
    used.load("values");
    await ctx.sync();
    const rows = used.values.map((row) => row.map((v) => (v === null ? "" : String(v))).join("")).filter((s) => s);
    if (!rows.length) return entries;
    const header = JSON.parse(rows[0]);
    if (header.celltrace_record !== 1) throw new Error("The celltrace record is from a newer celltrace.");
    for (const row of rows.slice(1)) {
      const e = JSON.parse(row);
      entries.set(e.kind + "\u0000" + e.sheet + "\u0000" + e.cell, e);
    }
    return entries;
  }

  function remember(entries, entry) {
    const key = entry.kind + "\u0000" + entry.sheet + "\u0000" + entry.cell;
    const old = entries.get(key);
    entries.set(key, old ? Object.assign({}, old, { applied: entry.applied }) : entry);
  }

  function recordEntry(entries, kind, sheet, cell) {
    return entries.get(kind + "\u0000" + sheet + "\u0000" + cell);
  }

  async function saveRecord(ctx, entries) {
    const old = ctx.workbook.worksheets.getItemOrNullObject(RECORD_SHEET);
    await ctx.sync();
    if (!old.isNullObject) {
      old.visibility = Excel.SheetVisibility.visible; // a very hidden sheet cannot be deleted directly
      old.delete();
    }
    if (!entries.size) return;
    const rows = [RECORD_HEADER, ...[...entries.values()].map((e) => JSON.stringify(e))];
    const chunks = rows.map((r) => {
      const parts = [];
      for (let i = 0; i < r.length; i += CHUNK_CHARS) parts.push(r.slice(i, i + CHUNK_CHARS));
      return parts;
    });
    const width = Math.max(...chunks.map((c) => c.length));
    const sheet = ctx.workbook.worksheets.add(RECORD_SHEET);
    const target = sheet.getRangeByIndexes(0, 0, rows.length, width);
    target.numberFormat = chunks.map(() => new Array(width).fill("@"));
    target.values = chunks.map((c) => c.concat(new Array(width - c.length).fill("")));
    sheet.visibility = Excel.SheetVisibility.veryHidden;
  }

  // ---- writing ------------------------------------------------------------------------------
  function notesSupported() {
    return Office.context.requirements.isSetSupported("ExcelApi", "1.18");
  }

  async function fill(ctx, entries, action) {
    const sheet = ctx.workbook.worksheets.getItem(action.sheet);
    const p = parseRef(action.address);
    const cells = [];
    for (let r = p.r0; r <= p.r1; r++) {
      for (let c = p.c0; c <= p.c1; c++) {
        const cell = sheet.getCell(r, c);
        cell.format.fill.load("color,pattern");
        cells.push([a1(r, c), cell]);
      }
    }
    await ctx.sync();
    for (const [ref, cell] of cells) {
      const f = cell.format.fill;
      const original = f.pattern === "None" || !f.color ? null : f.color.toUpperCase();
      remember(entries, { kind: "fill", sheet: action.sheet, cell: ref, original: { colour: original, ooxml: null }, applied: action.colour });
    }
    sheet.getRange(p.address).format.fill.color = action.colour;
  }

  async function note(ctx, entries, action, report) {
    if (!notesSupported()) {
      report.skipped.push("notes need Excel API 1.18 (this Excel has no notes API)");
      return;
    }
    const p = parseRef(action.address);
    const ref = a1(p.r0, p.c0);
    const where = qualified(action.sheet, ref);
    const existing = ctx.workbook.notes.getItemOrNullObject(where);
    existing.load("content,authorName");
    await ctx.sync();
    const entry = recordEntry(entries, "note", action.sheet, ref);
    let original = null;
    if (entry) original = entry.original;
    else if (!existing.isNullObject) original = { text: existing.content, author: existing.authorName || null };
    const text = original ? original.text + "\n\n" + action.text : action.text; // never replace a user's note
    if (existing.isNullObject) ctx.workbook.notes.add(where, text);
    else existing.content = text;
    remember(entries, { kind: "note", sheet: action.sheet, cell: ref, original, applied: text });
  }

  async function setValue(ctx, action) {
    const sheet = ctx.workbook.worksheets.getItem(action.sheet);
    const p = parseRef(action.address);
    const cell = sheet.getCell(p.r0, p.c0);
    cell.load("values,formulas");
    const area = cell.getMergedAreasOrNullObject();
    area.load("isNullObject,address");
    await ctx.sync();
    if (!area.isNullObject && parseRef(area.address).r0 !== p.r0) {
      throw new Error(action.sheet + "!" + a1(p.r0, p.c0) + " is inside a merged area; write to its top-left cell");
    }
    if (!action.overwrite && cell.values[0][0] !== "" && cell.values[0][0] !== null) {
      throw new Error(action.sheet + "!" + a1(p.r0, p.c0) + " is not empty; choose an empty answer cell");
    }
    if (typeof action.value === "number" && action.number_format) {
      // A numeric answer is a number cell in its source format (format first, so it never shows otherwise).
      cell.numberFormat = [[action.number_format]];
      cell.values = [[action.value]];
      return;
    }
    // The quote prefix keeps any answer text (even "=..." or "@...") a text value, never a formula.
    cell.values = [[action.value === null ? "" : "'" + String(action.value)]];
  }

  async function select(ctx, action) {
    const sheet = ctx.workbook.worksheets.getItem(action.sheet);
    sheet.activate(); // range.select() on another sheet is unreliable otherwise (office-js#5118)
    sheet.getRange(action.address).select();
  }

  async function clearRecorded(ctx, entries, report) {
    const fills = [];
    const notes = [];
    for (const e of entries.values()) {
      const sheet = ctx.workbook.worksheets.getItemOrNullObject(e.sheet);
      if (e.kind === "fill") {
        const cell = sheet.getRange(e.cell);
        cell.format.fill.load("color");
        fills.push([e, sheet, cell]);
      } else if (notesSupported()) {
        const n = ctx.workbook.notes.getItemOrNullObject(qualified(e.sheet, e.cell));
        n.load("content");
        notes.push([e, n]);
      }
    }
    await ctx.sync();
    for (const [e, sheet, cell] of fills) {
      if (sheet.isNullObject || String(cell.format.fill.color).toUpperCase() !== e.applied.toUpperCase()) continue;
      if (e.original.colour) cell.format.fill.color = e.original.colour;
      else cell.format.fill.clear();
      report.restored += 1;
    }
    for (const [e, n] of notes) {
      if (n.isNullObject || n.content !== e.applied) continue;
      if (e.original) n.content = e.original.text;
      else n.delete();
      report.restored += 1;
    }
    entries.clear();
  }

  // Replay the server's actions; one restore record for the whole workbook.
  async function applyActions(actions) {
    return Excel.run(async (ctx) => {
      const entries = await loadRecord(ctx);
      const report = { restored: 0, applied: 0, skipped: [] };
      for (const action of actions) {
        if (action.kind === "clear") await clearRecorded(ctx, entries, report);
        else if (action.kind === "fill") await fill(ctx, entries, action);
        else if (action.kind === "note") await note(ctx, entries, action, report);
        else if (action.kind === "set_value") await setValue(ctx, action);
        else if (action.kind === "select") await select(ctx, action);
        report.applied += 1;
      }
      await saveRecord(ctx, entries);
      await ctx.sync();
      return report;
    });
  }

  async function clearAll() {
    return Excel.run(async (ctx) => {
      const entries = await loadRecord(ctx);
      const report = { restored: 0, applied: 0, skipped: [] };
      await clearRecorded(ctx, entries, report);
      await saveRecord(ctx, entries);
      await ctx.sync();
      return report;
    });
  }

  async function selectCell(sheet, address) {
    return Excel.run(async (ctx) => {
      await select(ctx, { sheet, address });
      await ctx.sync();
    });
  }

  const api = { readTable, applyActions, clearAll, selectCell, blockCells: 20000 };
  return api;
})();
