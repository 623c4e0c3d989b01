"""How many questions `batch` and `eval` answer at once, and on what: threads or processes.

An LLM question mostly waits on the model, so LLM engines run on threads (`Settings.concurrency`
by default, 16: a question makes ≈ 6 sequential calls, so at 0.5 s a call 40 questions need
40 × 6 × 0.5 / 8 = 15 s of waiting at 8, 7.5 s at 16; our CPU per question is ≈ 0.1 s). The offline
engine is CPU-bound Python (the GIL), so it runs on processes; a process first pays its start-up
(imports), which pays off only over `QUESTIONS_PER_PROCESS` questions or more, so the default is
one process per core up to that.
An explicit `--workers N` is honoured as given (processes for offline, threads for LLM engines).
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from celltrace.server.infra.settings import Settings
from celltrace.shared.schemas import Engine

QUESTIONS_PER_PROCESS = 16
"""Fewest questions per offline worker process for the default to start one."""


def uses_llm(engine: Engine, settings: Settings) -> bool:
    """True when questions on `engine` go to the model (llm, or auto with a model configured)."""
    return engine == "llm" or (engine == "auto" and settings.llm_configured)


def default_workers(engine: Engine, settings: Settings, questions: int) -> int:
    """Questions answered at once when `--workers` is not given (at least 1)."""
    if uses_llm(engine, settings):
        return max(1, min(settings.concurrency, questions))
    return max(1, min(os.cpu_count() or 1, questions // QUESTIONS_PER_PROCESS))


def question_pool(engine: Engine, workers: int, settings: Settings) -> Executor:
    """Threads for LLM engines (and a single worker), processes for the offline engine."""
    if workers > 1 and not uses_llm(engine, settings):
        return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    return ThreadPoolExecutor(max(1, workers))
