"""Execution-based table reasoner (TaPERA §4.2, Figure 4): one program per sub-question, run in the
sandbox, self-debugged on failure, then turned into a sub-answer sentence (Figure 5).

The reply's program is found locally (no extraction call): every fenced block (an unclosed last
fence too; the whole reply when there is none) is parsed with `ast`; top-level imports, functions,
classes and assignments that neither use `table` nor call one of the reply's functions are kept,
anything else (example calls, `print`, `__main__` blocks) is dropped; the target is `solve`, else
the last function. It runs only through
`celltrace.server.infra.sandbox.run_function`, with `table_api` as prelude and the table payload as its
one argument. A failure (exception, timeout, no function) gets up to `longform_debug_rounds` DEBUG
rounds that show the error and the generated-code traceback; then the item is `source="error"`,
or, when `longform_llm_fallback` is on, an LLM-only answer marked `source="llm_fallback"`. A
program that runs and returns nothing (None, empty) is a success with a null sub-answer: "not in
the table" is an answer the plan check can act on; it gets no fallback.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from celltrace.server.infra.llm import LLMClient, UsageMeter
from celltrace.server.infra.prompting import clip, data_block, fit_lines, note_lines, render, truncate
from celltrace.server.infra.sandbox import run_function
from celltrace.server.infra.settings import Settings
from celltrace.server.longform.generator import fallback_answer, sub_answer, user_message
from celltrace.server.longform.table_api import PATH_SEP
from celltrace.shared.graph import CellGraph, Node
from celltrace.shared.headers import HeaderModel, infer_headers
from celltrace.shared.schemas import PlanItem
from celltrace.shared.table import Table

PRELUDE = "celltrace.server.longform.table_api"
TARGET = "solve"
OUTPUT_TOKENS = 1500
"""Program output shown to the sub-answer and plan prompts is cut to about this many tokens."""
TRACEBACK_FRAMES = 5
_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_CODE_START = re.compile(r"^(?:def|import|from|class)\s", re.MULTILINE)


class ProgramError(ValueError):
    """The reply holds no usable program; the message is shown to the model in the DEBUG round."""


@dataclass
class TableContext:
    """Everything derived once per question from the table: graph, headers, payload, renderings."""

    table: Table
    graph: CellGraph
    headers: HeaderModel
    payload: dict[str, Any]
    block: str
    schema: str

    @classmethod
    def build(cls, table: Table, settings: Settings) -> TableContext:
        graph = CellGraph(table)
        headers = infer_headers(graph)
        payload = table_payload(graph, headers)
        return cls(table, graph, headers, payload, _table_block(payload, settings), _schema(payload))


def table_payload(graph: CellGraph, headers: HeaderModel) -> dict[str, Any]:
    """The JSON payload a program's `TableView` is built from (header inference runs here, trusted):
    grid text and raw values, merges, header bands, unique column labels (multi-level headers
    joined with `PATH_SEP`; `col<c>` when blank; repeats get ` #2`), each row's row-header path,
    and each non-empty node's anchor, row path, column path and header flag."""
    table = graph.table

    def texts(nodes: list[Node]) -> list[str]:
        return [" ".join(n.text.split()) for n in nodes if n.text.strip()]

    def probe(r: int, c: int) -> Node:
        return Node(-1, r, c, r, c, "", None)

    first_data_col = min(headers.header_cols, max(table.n_cols - 1, 0))
    labels = [PATH_SEP.join(texts(headers.col_path(probe(headers.header_rows, c)))) or f"col{c}"
              for c in range(table.n_cols)]
    return {
        "title": table.title,
        "notes": list(table.notes),
        "text": table.text,
        "values": [[_json_scalar(v) for v in row] for row in table.values or []],
        "merges": [list(m) for m in table.merges],
        "header_rows": headers.header_rows,
        "header_cols": headers.header_cols,
        "section_rows": sorted(headers.section_rows),
        "columns": _unique_labels(labels),
        "row_labels": [
            texts(headers.row_path(probe(r, first_data_col))) if r >= headers.header_rows else []
            for r in range(table.n_rows)
        ],
        "nodes": [
            [n.r0, n.c0, texts(headers.row_path(n)), texts(headers.col_path(n)), headers.is_header(n)]
            for n in graph.nodes
            if not n.empty
        ],
    }


def _json_scalar(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)


def _unique_labels(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return out


def _md(text: str) -> str:
    return clip(" ".join(str(text).split()).replace("|", "\\|"))


def _table_block(payload: dict[str, Any], settings: Settings) -> str:
    """The one table serialisation of this pipeline, all inside the TABLE data block: facts (title,
    size, headers, record keys, merged areas), then a Markdown table whose header is the flattened
    column labels and whose rows are the data rows."""
    grid, hr, hc = payload["text"], payload["header_rows"], payload["header_cols"]
    n_rows, n_cols = len(grid), len(grid[0]) if grid else 0
    merges = [f"({r0}, {c0})-({r1}, {c1}) {grid[r0][c0]!r}" for r0, c0, r1, c1 in payload["merges"]]
    facts = [
        f"Title: {payload['title'] or '(none)'}",
        *(f"Note: {_md(n)}" for n in note_lines(payload["notes"])),
        f"Size: {n_rows} rows x {n_cols} columns (0-based indices, as in table.cell(r, c))",
        f"Inferred headers: {hr} header row(s), {hc} row-header column(s); data rows: "
        f"{_ranges(_data_rows(payload))}",
        f"Record keys (table.columns): {json.dumps(payload['columns'], ensure_ascii=False)}",
        f"Merged areas: {'; '.join(merges[:40]) if merges else 'none'}"
        + (f" ... and {len(merges) - 40} more" if len(merges) > 40 else ""),
    ]
    head = ["| row | " + " | ".join(_md(c) for c in payload["columns"]) + " |",
            "|---" * (n_cols + 1) + "|"]
    body = [f"| {r} | " + " | ".join(_md(x) for x in grid[r]) + " |" for r in range(hr, n_rows)]
    budget = settings.context_token_budget
    return data_block("TABLE", facts + head + fit_lines(body, budget, "rows"))


def _data_rows(payload: dict[str, Any]) -> list[int]:
    sections = set(payload["section_rows"])
    grid = payload["text"]
    return [r for r in range(payload["header_rows"], len(grid))
            if r not in sections and any(x.strip() for x in grid[r])]


def _ranges(rows: list[int]) -> str:
    if not rows:
        return "none"
    parts, start, prev = [], rows[0], rows[0]
    for r in [*rows[1:], None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if r is not None:
            start = prev = r
    return ", ".join(parts)


def _schema(payload: dict[str, Any]) -> str:
    """What the planner sees of the table: title, column labels, number of data rows."""
    return data_block("TABLE SCHEMA", [
        f"Title: {payload['title'] or '(none)'}",
        f"Columns: {json.dumps(payload['columns'], ensure_ascii=False)}",
        f"Data rows: {len(_data_rows(payload))}",
    ])


# ---- program extraction -----------------------------------------------------------------------
def _kept(node: ast.stmt, functions: set[str]) -> bool:
    """Top-level statements that only define things: imports, functions, classes, and assignments
    that neither touch `table` nor call a function of the reply (`result = solve(table)`)."""
    if isinstance(node, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef):
        return True
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        names = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
        return "table" not in names and not names & functions
    return False


def extract_program(reply: str) -> tuple[str, str]:
    """(source, function name) of the program in a reply (rules in the module docstring)."""
    blocks = [m.group(1) for m in _FENCE.finditer(reply)]
    if not blocks:
        start = _CODE_START.search(reply)
        blocks = [reply[start.start():]] if start else []
    parsed: list[tuple[str, ast.Module]] = []
    syntax: SyntaxError | None = None
    for block in blocks:
        try:
            parsed.append((block, ast.parse(block)))
        except SyntaxError as exc:
            syntax = syntax or exc
    functions = [n.name for _, tree in parsed for n in tree.body if isinstance(n, ast.FunctionDef)]
    kept: list[str] = []
    for block, tree in parsed:
        drop: set[int] = set()
        for node in tree.body:
            if not _kept(node, set(functions)):
                drop.update(range(node.lineno - 1, node.end_lineno or node.lineno))
        lines = block.splitlines()
        kept.append("\n".join(line for i, line in enumerate(lines) if i not in drop).strip("\n"))
    if not functions:
        if syntax is not None:
            raise ProgramError(f"SyntaxError: {syntax.msg} (line {syntax.lineno} of the code block)")
        raise ProgramError(f"no Python function found in the reply; define `def {TARGET}(table):`")
    source = "\n\n".join(k for k in kept if k.strip()) + "\n"
    return source, TARGET if TARGET in functions else functions[-1]


# ---- execution ------------------------------------------------------------------------------------
@dataclass
class ProgramRun:
    """One execution: the output and the cells behind it, or the error and a trimmed traceback."""

    ok: bool
    output: Any = None
    cells: list[tuple[int, int]] = field(default_factory=list)
    error: str | None = None
    traceback: str = ""
    unavailable: bool = False


def execute(ctx: TableContext, source: str, function: str, settings: Settings) -> ProgramRun:
    """Run `function(table)` of `source` in the sandbox (default `SandboxLimits`: 5 s, 512 MB) with
    the isolation layers `settings.sandbox_require` demands; the cells it returns are checked."""
    require = tuple(x.strip() for x in settings.sandbox_require.split(",") if x.strip())
    result = run_function(source, function, [ctx.payload], prelude_module=PRELUDE, require=require)
    if not result.ok:
        return ProgramRun(ok=False, error=result.error or "the program failed",
                          traceback=_traceback(source, result.frames), unavailable=result.unavailable)
    reply = result.value if isinstance(result.value, dict) else {}
    n_rows, n_cols = ctx.table.n_rows, ctx.table.n_cols
    cells = [(r, c) for r, c in _pairs(reply.get("cells")) if 0 <= r < n_rows and 0 <= c < n_cols]
    return ProgramRun(ok=True, output=reply.get("value"), cells=cells)


def _pairs(cells: Any) -> list[tuple[int, int]]:
    """The [r, c] integer pairs of a reply's `cells` (anything else is dropped)."""
    if not isinstance(cells, list):
        return []
    return [(x[0], x[1]) for x in cells if isinstance(x, list) and len(x) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in x)]


def _traceback(source: str, frames: list[tuple[int, str]]) -> str:
    lines = source.splitlines()
    out = []
    for lineno, name in frames[-TRACEBACK_FRAMES:]:
        out.append(f"  line {lineno}, in {name}")
        if 0 < lineno <= len(lines):
            out.append(f"    {lines[lineno - 1].strip()}")
    return "\n".join(out)


def is_empty(output: Any) -> bool:
    """No result: None, an empty string or container, or the text None/null/N/A."""
    if isinstance(output, str):
        return output.strip().lower() in {"", "none", "null", "n/a"}
    return output is None or output in ([], {})


def show_output(output: Any) -> str:
    """Program output as shown to prompts: text as is, anything else as JSON; capped."""
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    return truncate(text, OUTPUT_TOKENS)


# ---- one sub-question -------------------------------------------------------------------------------
@dataclass
class Solved:
    """A plan item with the grid cells its program's output carries."""

    item: PlanItem
    cells: list[tuple[int, int]] = field(default_factory=list)


def solve(
    llm: LLMClient,
    meter: UsageMeter,
    ctx: TableContext,
    settings: Settings,
    question: str,
    context: str,
) -> Solved:
    """Program → sandbox → self-debug → sub-answer (or fallback / error) for one sub-question."""
    prompt = [user_message(render("longform_program", question=question, table=ctx.block, context=context))]
    reply = llm.complete("PROGRAM", prompt, meter)
    program: str | None = None
    run = ProgramRun(ok=False)
    for round_ in range(settings.longform_debug_rounds + 1):
        if round_:
            debug = render("longform_debug", error="\n" + data_block("ERROR", [run.error or ""]),
                           traceback=data_block("TRACEBACK", run.traceback.splitlines()))
            convo = [*prompt, {"role": "assistant", "content": reply}, user_message(debug)]
            reply = llm.complete("DEBUG", convo, meter)
        try:
            program, function = extract_program(reply)
        except ProgramError as exc:  # `program` keeps the last program that could be run
            run = ProgramRun(ok=False, error=str(exc))
            continue
        run = execute(ctx, program, function, settings)
        if run.ok or run.unavailable:  # no isolation: another round cannot help
            break
    item = PlanItem(question=question, program=program)
    if run.ok:
        item.source, item.program_output = "program", run.output
        if not is_empty(run.output):
            item.answer = sub_answer(llm, meter, question, show_output(run.output))
        return Solved(item, run.cells)
    item.error = run.error
    if settings.longform_llm_fallback:
        item.answer = fallback_answer(llm, meter, question, ctx.block, context)
        item.source = "llm_fallback"
    return Solved(item)
