"""Long-form engine end to end: the loopback LLM (real openai client), programs in the real sandbox.

The responder dispatches on the model name: every stage gets its own model (`m-program`, ...), and
PROGRAM/DEBUG replies are looked up by the sub-question under `### Target Question:`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from llm_server import Fault, ScriptedLLM
from typer.testing import CliRunner

from celltrace.server.cli import app, register_commands
from celltrace.server.infra.settings import Settings
from celltrace.server.longform.engine import answer_longform
from celltrace.server.longform.faithfulness import parse_numbers, unsupported_numbers
from celltrace.server.longform.planner import parse_plan, user_plan
from celltrace.shared.errors import UserError
from celltrace.shared.schemas import LongformResult, LongformStep
from celltrace.shared.table import Origin, Table

register_commands()

STAGES = ("PLAN", "PLAN_CHECK", "PROGRAM", "DEBUG", "SUB_ANSWER", "FINAL_ANSWER")
MODEL = {stage: f"m-{stage.lower().replace('_', '-')}" for stage in STAGES}
STAGE_OF = {m: s for s, m in MODEL.items()}

HEADER = ["Rank", "Company Name", "Industry", "Revenue ($ Million)", "Profit ($ Million)", "Employees",
          "Headquarters"]
ROWS = [
    ["1", "Walmart", "Retail", "$559,151", "$13,510", "2,300,000", "United States"],
    ["2", "State Grid", "Electricity", "$386,618", "$5,580", "896,360", "China"],
    ["3", "Amazon", "Retail", "$386,064", "$21,331", "1,298,000", "United States"],
    ["4", "National Petroleum", "Oil and gas", "$283,958", "$4,575", "1,242,245", "China"],
    ["5", "Sinopec Group", "Oil and gas", "$283,728", "$6,205", "553,833", "China"],
    ["6", "Apple", "Electronics", "$274,515", "$57,511", "147,000", "United States"],
]
QUESTION = (
    "Which company earns the highest profit in the Oil and Gas industry, and how does it compare to "
    "the most profitable company overall?"
)
Q1 = "Which company earns the highest profit in the Oil and gas industry, and how much?"
Q2 = "Which company is the most profitable overall?"
Q2B = "Which company has the highest profit overall, and how much is it?"


def fence(code: str) -> str:
    return f"Here is the program.\n```python\n{code.strip()}\n```"


BEST_OIL = fence("""
def solve(table):
    rows = [r for r in table.records() if r["Industry"].lower() == "oil and gas"]
    best = max(rows, key=lambda r: to_number(r["Profit"]))
    return {"company": best["Company Name"], "profit": to_number(best["Profit"])}
""")
NET_INCOME = fence("""
def solve(table):
    cols = [c for c in table.columns if "net income" in c.lower()]
    if not cols:
        return None
    return max(table.column(cols[0]), key=to_number)
""")
BEST_OVERALL = fence("""
def solve(table):
    best = max(table.records(), key=lambda r: to_number(r["Profit"]))
    return {"company": best["Company Name"], "profit": to_number(best["Profit"])}
""")
WRONG_COLUMN = fence("""
def solve(table):
    rows = table.records()
    return max(rows, key=lambda r: to_number(r["Profits"]))["Company Name"]
""")


def companies() -> Table:
    return Table(text=[HEADER, *[list(r) for r in ROWS]], title="Top 10 Company in 2012",
                 origin=Origin(sheet="Companies", address="B2:H8"))


def target(prompt: str) -> str:
    """The sub-question a PROGRAM prompt is about."""
    m = re.search(r"### Target Question:\n(.+)", prompt)
    assert m, prompt[:200]
    return m.group(1).strip()


class Script:
    """Responder: PLAN reply, PLAN_CHECK replies in order, PROGRAM/DEBUG replies per sub-question."""

    def __init__(self, plan: str = "", checks: list[str] | None = None,
                 programs: dict[str, list[str]] | None = None, final: str = "", fallback: str = "") -> None:
        self.plan, self.checks, self.programs = plan, list(checks or []), programs or {}
        self.final, self.fallback = final, fallback

    def __call__(self, model: str, messages: list[dict[str, Any]]) -> str:
        stage = STAGE_OF[model]
        first, last = messages[0]["content"], messages[-1]["content"]
        if stage == "PLAN":
            return self.plan
        if stage == "PLAN_CHECK":
            return self.checks.pop(0)
        if stage in ("PROGRAM", "DEBUG"):
            return self.programs[target(first)].pop(0)
        if stage == "SUB_ANSWER":
            if "No program could answer" in last:
                return self.fallback
            out = re.search(r"<<<BEGIN PROGRAM OUTPUT>>>\n(.*)\n<<<END PROGRAM OUTPUT>>>", last, re.S)
            assert out, last
            return f"The result is {out.group(1)}."
        return self.final


def settings(llm: ScriptedLLM, **extra: Any) -> Settings:
    models = {f"model_{s.lower()}": m for s, m in MODEL.items()}
    return Settings(base_url=llm.base_url, api_key="test", raise_errors=True,
                    **models, **extra)


def requests(llm: ScriptedLLM, stage: str) -> list[list[dict[str, Any]]]:
    return [r.messages for r in llm.chat_requests if r.model == MODEL[stage]]


def program_targets(llm: ScriptedLLM) -> list[str]:
    return [target(m[0]["content"]) for m in requests(llm, "PROGRAM")]


# ---- the FeTaQA-style question ----------------------------------------------------------------------
def test_two_subquestions_refined_once_reuse_the_unchanged_answer(llm_server: ScriptedLLM) -> None:
    revised = {"reasoning": "Sub-question 2 found nothing; ask about the profit column.",
               "finalized": False, "plan": [f"1. {Q1}", Q2B]}
    llm_server.responder = Script(
        plan=f"Distinct facts: 2\n1. {Q1}\n2. {Q2}",
        checks=['{"finalized": false}', json.dumps(revised), '{"reasoning": "ok", "finalized": true}'],
        programs={Q1: [BEST_OIL], Q2: [NET_INCOME], Q2B: [BEST_OVERALL]},
        final="Sinopec Group earns the highest profit in the Oil and Gas industry, $6,205 million, while "
        "Apple is the most profitable company overall with $57,511 million.",
    )
    events: list[LongformStep] = []
    result = answer_longform(companies(), QUESTION, settings=settings(llm_server), on_step=events.append)

    assert result.status == "answered", result.error
    assert program_targets(llm_server) == [Q1, Q2, Q2B]  # Q1 ran once: its answer was reused
    assert result.iterations == 2
    assert [p.question for p in result.plan] == [Q1, Q2B]
    assert [p.source for p in result.plan] == ["program", "program"]
    assert result.plan[0].program_output == {"company": "Sinopec Group", "profit": 6205}
    assert result.plan[1].program_output == {"company": "Apple", "profit": 57511}
    assert result.plan[0].answer == 'The result is {"company": "Sinopec Group", "profit": 6205}.'
    assert result.unsupported_numbers == []

    checks = requests(llm_server, "PLAN_CHECK")
    assert len(checks) == 3  # the first reply failed validation and was re-asked
    assert "(no answer: the program found nothing in the table)" in checks[0][0]["content"]
    assert "Sub-Answer 1: The result is" in checks[0][0]["content"]
    assert "a plan that is not finalized needs the revised `plan`" in checks[1][-1]["content"]
    assert f"Sub-Question 2: {Q2B}" in checks[2][0]["content"]
    assert len(requests(llm_server, "SUB_ANSWER")) == 2  # an empty output needs no sentence
    final_prompt = requests(llm_server, "FINAL_ANSWER")[0][0]["content"]
    assert f"Sub-Question 1: {Q1}\nSub-Answer 1: The result is" in final_prompt
    assert Q2 not in final_prompt

    assert [e.kind for e in events] == ["plan", "item", "item", "check", "item", "check"]
    assert events[3].finalized is False and events[3].plan == [Q1, Q2B]
    assert events[4].index == 1 and events[4].item is not None and events[4].item.question == Q2B
    assert events[5].finalized is True

    answers = {(e.address, e.text) for e in result.evidence if e.role == "answer"}
    assert answers == {("C7", "Sinopec Group"), ("F7", "$6,205"), ("C8", "Apple"), ("F8", "$57,511")}
    headers = {e.text for e in result.evidence if e.role == "header"}
    assert {"Company Name", "Profit ($ Million)"} <= headers
    assert all(e.sheet == "Companies" for e in result.evidence)
    assert result.usage.by_stage["PROGRAM"].calls == 3 and result.usage.llm_calls == 10


def test_result_json_has_exactly_the_contract_keys(llm_server: ScriptedLLM) -> None:
    llm_server.responder = Script(programs={Q2B: [BEST_OVERALL]}, final="Apple earns $57,511 million.")
    result = answer_longform(companies(), QUESTION, plan=[Q2B],
                             settings=settings(llm_server, longform_max_iterations=1))
    data = json.loads(result.model_dump_json())
    assert list(data) == ["question", "status", "error", "answer", "plan", "iterations", "evidence",
                          "unsupported_numbers", "usage", "seconds", "error_code"]
    assert list(data["plan"][0]) == ["question", "answer", "program", "program_output", "source", "error"]
    assert list(data["evidence"][0]) == ["sheet", "address", "rows", "cols", "text", "role"]
    assert set(data["usage"]) == {"llm_calls", "prompt_tokens", "completion_tokens", "by_stage"}
    assert not requests(llm_server, "PLAN") and not requests(llm_server, "PLAN_CHECK")


# ---- faithfulness -------------------------------------------------------------------------------------
def test_a_number_no_program_produced_is_flagged(llm_server: ScriptedLLM) -> None:
    llm_server.responder = Script(
        programs={Q2B: [BEST_OVERALL]},
        final="Apple leads with $57,511 million in profit, about 51,306 million more than Sinopec Group "
        "and 4.2 times the profit of Walmart ($13,510 million) in 2012.",
    )
    result = answer_longform(companies(), "How profitable was the top company in 2012?", plan=[Q2B],
                             settings=settings(llm_server, longform_max_iterations=1))
    assert result.status == "answered"
    assert result.unsupported_numbers == ["51,306 million", "4.2"]  # 13,510: a table cell; 2012: question


@pytest.mark.parametrize(
    ("answer", "missing"),
    [
        ("Profit rose to 13.5%.", []),  # 0.135 as a percent
        ("It made $559.2 billion.", []),  # 559,151 in a $ Million column
        ("It made about 560 billion.", []),  # hedged: trailing zero not significant
        ("It made 560 billion.", ["560 billion"]),
        ("It fell by 7.8 points, 3rd in 2012.", []),  # sign ignored; ordinal; question year
        ("The A380 sold 12 units.", ["12"]),  # identifier skipped, 12 unsupported
        ("Scores were 57-23.", []),
    ],
)
def test_faithfulness_rules(answer: str, missing: list[str]) -> None:
    outputs = [{"share": 0.135, "loss": -7.8, "scores": "57 - 23"}]
    assert unsupported_numbers(answer, "What happened in 2012?", outputs, [], [559151.0]) == missing


def test_sub_answers_cannot_launder_numbers() -> None:
    assert unsupported_numbers("It earned 77 and 5.", "Q?", [5], ["It earned 77 and 5."], []) == ["77"]
    assert [s.text for s in parse_numbers("$5m, 3bn, 8.95 m")] == ["$5m", "3bn", "8.95"]


# ---- self-debug -----------------------------------------------------------------------------------------
def test_a_failing_program_is_fixed_in_the_debug_round(llm_server: ScriptedLLM) -> None:
    llm_server.responder = Script(programs={Q2: [WRONG_COLUMN, BEST_OVERALL]}, final="Apple, $57,511m.")
    result = answer_longform(companies(), QUESTION, plan=[Q2],
                             settings=settings(llm_server, longform_max_iterations=1))
    assert result.status == "answered"
    assert result.plan[0].source == "program" and result.plan[0].error is None
    assert result.plan[0].program is not None and "r[\"Profit\"]" in result.plan[0].program
    debug = requests(llm_server, "DEBUG")
    assert len(debug) == 1 and len(requests(llm_server, "PROGRAM")) == 1
    assert [m["role"] for m in debug[0]] == ["user", "assistant", "user"]
    assert debug[0][1]["content"] == WRONG_COLUMN
    assert "<<<BEGIN ERROR>>>\nKeyError: no column matches 'Profits'" in debug[0][2]["content"]
    assert "  line 3, in solve\n    return max(rows, key=lambda r: to_number(r[\"Profits\"]))" in debug[0][2][
        "content"
    ]


FAILURES = [
    WRONG_COLUMN,
    "I am sorry, I cannot write this program.",
    fence("def solve(table):\n    return 1 / 0"),
    "```python\ndef solve(table)\n    return 1\n```",
]


def test_a_program_failing_every_round_is_an_error(llm_server: ScriptedLLM) -> None:
    llm_server.responder = Script(programs={Q2: list(FAILURES)})
    result = answer_longform(companies(), QUESTION, plan=[Q2],
                             settings=settings(llm_server, longform_max_iterations=1))
    assert len(requests(llm_server, "PROGRAM")) == 1 and len(requests(llm_server, "DEBUG")) == 3
    debug_errors = [m[-1]["content"] for m in requests(llm_server, "DEBUG")]
    assert "no Python function found" in debug_errors[1]
    assert "ZeroDivisionError: division by zero" in debug_errors[2]
    item = result.plan[0]
    assert item.source == "error" and item.answer is None
    assert item.program == "def solve(table):\n    return 1 / 0\n"  # the last program that ran
    assert item.error is not None and item.error.startswith("SyntaxError")
    assert result.status == "failed" and result.error == "no sub-question could be answered from the table"
    assert not requests(llm_server, "SUB_ANSWER") and not requests(llm_server, "FINAL_ANSWER")


def test_llm_fallback_only_when_enabled_and_labelled(llm_server: ScriptedLLM) -> None:
    llm_server.responder = Script(
        programs={Q2: [WRONG_COLUMN]}, fallback="Apple earns the most, 57,511.", final="Apple earns 57,511."
    )
    result = answer_longform(
        companies(), QUESTION, plan=[Q2],
        settings=settings(llm_server, longform_max_iterations=1, longform_debug_rounds=0,
                          longform_llm_fallback=True),
    )
    item = result.plan[0]
    assert item.source == "llm_fallback" and item.answer == "Apple earns the most, 57,511."
    assert item.error is not None and item.error.startswith("KeyError")
    assert result.status == "answered" and result.evidence == []
    assert result.unsupported_numbers == []  # 57,511 is a table cell, though no program produced it


def test_llm_failure_is_a_failed_result_not_an_exception(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.status(500))
    result = answer_longform(companies(), QUESTION, settings=settings(llm_server, max_retries=0))
    assert result.status == "failed" and result.error is not None and "PLAN call failed" in result.error
    assert result.plan == [] and result.usage.llm_calls == 1


# ---- planner parsing and user plans -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reply", "plan"),
    [
        ("Distinct facts: 2\n1. Who won?\n2. How many points?", ["Who won?", "How many points?"]),
        ("Who won?\n2. How many points?", ["Who won?", "How many points?"]),  # prompt ended at "1."
        ("Target Response (in numbered list format):\n1) Who won?\n(2) Which year?",
         ["Who won?", "Which year?"]),
        ("**Sub-question 1:** Who won?\n- **Q2:** Who lost?", ["Who won?", "Who lost?"]),
        ("1. Which runner finished in 2.5 hours? 2. Who was second?",
         ["Which runner finished in 2.5 hours?", "Who was second?"]),
        ("1. Which team scored\n   the most goals?\n2. How many?",
         ["Which team scored the most goals?", "How many?"]),
        ("1. Who won?\n2. who won", ["Who won?"]),
        ("Who finished in the top 3. 2. Who won?", ["Who finished in the top 3.", "Who won?"]),
        ("", []),
    ],
)
def test_parse_plan(reply: str, plan: list[str]) -> None:
    assert parse_plan(reply) == plan


def test_user_plan_accepts_strings_items_and_whole_outputs() -> None:
    assert user_plan(["A?", " B ?", "a"]) == ["A?", "B ?"]
    assert user_plan([{"question": "A?", "answer": "x"}]) == ["A?"]
    assert user_plan({"question": "Q", "plan": [{"question": "A?"}]}) == ["A?"]
    for bad in ([], "A?", [1], [{"answer": "x"}], [f"Q{i}?" for i in range(9)]):
        with pytest.raises(UserError):
            user_plan(bad)


# ---- the CLI ------------------------------------------------------------------------------------------
@pytest.fixture
def workbook(tmp_path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Companies"
    for r, row in enumerate([HEADER, *ROWS]):
        for c, value in enumerate(row):
            ws.cell(row=r + 2, column=c + 2, value=value)
    path = tmp_path / "companies.xlsx"
    wb.save(path)
    return path


EDITED = ["Which company has the most employees?", "Where is that company headquartered?"]
MOST_EMPLOYEES = fence("""
def solve(table):
    most = max(table.column("Employees"), key=to_number)
    return table.record(most.r)["Company Name"]
""")
HEADQUARTERS = fence("""
def solve(table):
    return table.row("Walmart")["Headquarters"]
""")


def _env(llm: ScriptedLLM) -> dict[str, str]:
    env = {"OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "test",
           "CELLTRACE_LONGFORM_MAX_ITERATIONS": "2"}
    env.update({f"CELLTRACE_MODEL_{s}": m for s, m in MODEL.items()})
    return env


def test_cli_plan_replaces_the_generated_plan_and_out_writes_the_answer(
    llm_server: ScriptedLLM, workbook: Path, tmp_path: Path
) -> None:
    long_answer = "Walmart has the most employees and is headquartered in the United States. " * 8
    script = Script(checks=['{"finalized": true}'] * 2,
                    programs={EDITED[0]: [MOST_EMPLOYEES] * 2, EDITED[1]: [HEADQUARTERS] * 2},
                    final=long_answer.strip())
    llm_server.responder = script
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(EDITED), encoding="utf-8")
    out_path = tmp_path / "answered.xlsx"
    args = ["longform", str(workbook), QUESTION, "--sheet", "Companies", "--plan", str(plan_file), "--json",
            "--out", str(out_path)]
    run = CliRunner().invoke(app, args, env=_env(llm_server))
    assert run.exit_code == 0, run.output
    data = json.loads(run.stdout)
    result = LongformResult.model_validate(data)
    assert not requests(llm_server, "PLAN")
    assert program_targets(llm_server) == EDITED
    assert [p.question for p in result.plan] == EDITED
    assert [p.program_output for p in result.plan] == ["Walmart", "United States"]
    assert {(e.address, e.role) for e in result.evidence} >= {("C3", "answer"), ("H3", "answer")}

    wb = openpyxl.load_workbook(out_path)
    ws = wb["Companies"]
    assert ws["C3"].fill.fgColor.rgb.endswith("FFD966")
    assert ws["C3"].comment is not None and "Engine: longform" in ws["C3"].comment.text
    log = wb["celltrace"]
    columns = [c.value for c in log[1]]
    row = {k: v.value for k, v in zip(columns, log[2], strict=False)}
    assert row["answer"] == long_answer.strip() and row["engine"] == "longform"
    assert row["question"] == QUESTION and row["status"] == "answered"

    # the `plan` array of that output is a valid --plan too
    previous = tmp_path / "previous.json"
    previous.write_text(run.stdout, encoding="utf-8")
    again = CliRunner().invoke(app, ["longform", str(workbook), QUESTION, "--plan", str(previous)],
                               env=_env(llm_server))
    assert again.exit_code == 0, again.output
    assert program_targets(llm_server) == EDITED * 2
    assert "Plan (1 iteration(s)):" in again.stdout and "[program]" in again.stdout


def test_cli_bad_plan_file_is_a_user_error(workbook: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    run = CliRunner().invoke(app, ["longform", str(workbook), QUESTION, "--plan", str(bad)])
    assert run.exit_code != 0
    assert isinstance(run.exception, UserError) and "not valid JSON" in str(run.exception)
