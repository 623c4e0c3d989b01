"""Where engine work runs: worker processes (the default), or this process's threads.

The event loop's process only serves HTTP: questions and graphs run in `ProcessEngines`, a fixed
set of long-lived worker processes (one per core by default), each answering many questions at
once on its own threads — an LLM question waiting on the model holds a thread, not a process, and
CPU-bound work (graph build, retrieval, offline solving) takes the GIL of a worker, never the
server's, so `/v1/health` stays fast under load. Workers run at a lower priority (`WORKER_NICE`)
than the HTTP process. They are forked from a forkserver that has imported the engines once, so a
worker starts in milliseconds; with `preload` each loads the embedding model at start (≈ 0.3 s).

A job is `fn(*args, emit)`: a module-level function and picklable arguments. `emit(StepEvent)`
relays a step to the caller; `cancel()` makes the worker's next `emit` (or LLM call, through
`celltrace.server.infra.cancel`) stop the engine. The caller hears `("step", event)` per step and then
exactly one `("done", result)` (`None` when cancelled) or `("error", exception)`; a worker that
dies fails its jobs with an error and is replaced on the next submit. `ThreadEngines`
(`engine_processes=0`) runs the same jobs in this process (closures allowed: tests' fake engines).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import multiprocessing
import os
import pickle
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any, NoReturn, Protocol

from celltrace.server.infra.cancel import Cancelled, cancellable
from celltrace.server.infra.sandbox import close_zygotes
from celltrace.server.infra.settings import Settings
from celltrace.shared.api_models import StepEvent

log = logging.getLogger("celltrace.server")
OnMessage = Callable[[str, Any], None]
"""Called (from another thread) with ("step", StepEvent), then ("done", result | None) or ("error", exc)."""
Emit = Callable[[StepEvent], None]
WORKER_NICE = 5
"""How much lower the worker processes' CPU priority is than the HTTP process's."""
PRELOAD = (
    "celltrace.server.api.ask",
    "celltrace.server.api.longform",
    "celltrace.server.engine.api",
    "celltrace.server.engine.llm_policy",
    "celltrace.server.engine.offline_engine",
    "celltrace.server.longform.engine",
    "celltrace.server.infra.llm",
    "openai",  # imported on a worker's first LLM call otherwise (≈ 1-3 s of CPU per worker)
    "safetensors.numpy",  # the embedding model's libraries (the model itself loads per worker)
    "tokenizers",
    "scipy.special",
)
"""Modules the forkserver imports once, so that forked workers start warm."""
STOP_S = 2.0
READY_S = 600.0
"""Longest wait for a worker's start-up (imports, the embedding model) before serving anyway."""


class Handle(Protocol):
    def cancel(self) -> None: ...


class Engines(Protocol):
    """Runs jobs `fn(*args, emit)`; `submit` raises RuntimeError once closed."""

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...], on_message: OnMessage) -> Handle: ...

    def close(self) -> None: ...


def _run(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    cancelled: threading.Event,
    send: Callable[[tuple[str, Any]], None],
) -> None:
    """Run one job in this thread, reporting its steps and its end through `send`."""

    def emit(event: StepEvent) -> None:
        if cancelled.is_set():
            raise Cancelled
        send(("step", event))

    try:
        with cancellable(cancelled):  # LLM calls check it too (celltrace.server.infra.cancel)
            result = fn(*args, emit)
    except Cancelled:
        result = None
    except BaseException as exc:  # reported to the request (a 500), never lost in the worker
        send(("error", exc))
        return
    send(("done", result))


class _ThreadHandle:
    def __init__(self) -> None:
        self.event = threading.Event()

    def cancel(self) -> None:
        self.event.set()


class ThreadEngines:
    """Jobs on `threads` threads of this process."""

    def __init__(self, threads: int) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="celltrace-engine")

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...], on_message: OnMessage) -> Handle:
        handle = _ThreadHandle()
        self._pool.submit(_run, fn, args, handle.event, lambda message: on_message(*message))
        return handle

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _portable(exc: BaseException) -> BaseException:
    """`exc` when it survives pickling, else a RuntimeError naming it."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


def worker_main(conn: Connection, threads: int, warm: Settings | None) -> None:
    """A worker process: run jobs from `conn` on `threads` threads until told to
    stop or the server is gone (end of file), then exit at once (running jobs are abandoned with
    the server)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole group: the server decides
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)
    if warm is not None:
        warm_up_engine(warm)
    conn.send(("ready", 0, None))
    pool = ThreadPoolExecutor(threads, thread_name_prefix="celltrace-engine")
    lock = threading.Lock()
    jobs: dict[int, threading.Event] = {}

    def send(job: int, message: tuple[str, Any]) -> None:
        kind, payload = message
        with lock:
            if kind != "step":
                jobs.pop(job, None)
            try:
                conn.send((kind, job, _portable(payload) if kind == "error" else payload))
            except OSError:  # the server is gone
                _leave()
            except Exception as exc:  # a step or result that does not pickle
                if kind == "step":
                    raise  # in the engine's `emit`: the question fails
                conn.send(("error", job, RuntimeError(f"the result cannot be sent: {exc}")))

    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            break
        kind, job = message[0], message[1]
        if kind == "run":
            with lock:
                event = jobs[job] = threading.Event()
            pool.submit(_run, message[2], message[3], event, functools.partial(send, job))
        elif kind == "cancel":
            with lock:
                found = jobs.get(job)
            if found is not None:
                found.set()
        elif kind == "stop":
            break
    _leave()


def _leave() -> NoReturn:
    """Exit the worker at once (running jobs are abandoned), its warm sandbox zygotes stopped."""
    close_zygotes()
    os._exit(0)


class _Worker:
    """One worker process seen from the server: its pipe, its jobs and the thread reading replies."""

    def __init__(self, ctx: Any, threads: int, warm: Settings | None) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=worker_main, args=(child, threads, warm), daemon=True, name="celltrace-worker"
        )
        self.process.start()
        child.close()
        self.jobs: dict[int, OnMessage] = {}
        self.alive = True
        self.ready = threading.Event()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="celltrace-worker-reader", daemon=True)
        self._reader.start()

    def send(self, message: tuple[Any, ...]) -> None:
        with self._lock:
            self.conn.send(message)

    def submit(self, job: int, fn: Callable[..., Any], args: tuple[Any, ...], on_message: OnMessage) -> None:
        self.jobs[job] = on_message
        try:
            self.send(("run", job, fn, args))
        except BaseException:
            self.jobs.pop(job, None)
            raise

    def cancel(self, job: int) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.send(("cancel", job))

    def _read(self) -> None:
        while True:
            try:
                kind, job, payload = self.conn.recv()
            except (EOFError, OSError):
                break
            except Exception as exc:  # a reply that does not unpickle: fail that job below
                log.error("unreadable reply from an engine worker", exc_info=exc)
                continue
            if kind == "ready":
                self.ready.set()
                continue
            callback = self.jobs.get(job) if kind == "step" else self.jobs.pop(job, None)
            if callback is not None:
                callback(kind, payload)
        self.alive = False
        self.ready.set()
        for job in list(self.jobs):
            callback = self.jobs.pop(job, None)
            if callback is not None:
                callback("error", RuntimeError("the engine worker process ended"))

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.send(("stop", 0))
        self.process.join(STOP_S)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(STOP_S)
        self.conn.close()


class _ProcessHandle:
    def __init__(self, worker: _Worker, job: int) -> None:
        self.worker, self.job = worker, job

    def cancel(self) -> None:
        self.worker.cancel(self.job)


class ProcessEngines:
    """Jobs on `processes` worker processes of `threads` threads each; a job goes to the worker with
    the fewest jobs. `warm`: settings whose embedding model each worker loads at start."""

    def __init__(self, processes: int, threads: int, warm: Settings | None = None) -> None:
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(list(PRELOAD))
        self._threads, self._warm = threads, warm
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._closed = False
        self._workers = [_Worker(self._ctx, threads, warm) for _ in range(processes)]
        for worker in self._workers:  # jobs sent meanwhile would wait in the pipe, unseen by the slots
            worker.ready.wait(READY_S)

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...], on_message: OnMessage) -> Handle:
        with self._lock:
            if self._closed:
                raise RuntimeError("the engine workers are stopped")
            for i, worker in enumerate(self._workers):
                if not worker.alive:
                    log.warning("an engine worker process ended; starting a new one")
                    self._workers[i] = _Worker(self._ctx, self._threads, self._warm)
            worker = min(self._workers, key=lambda w: len(w.jobs))
            job = next(self._ids)
            worker.submit(job, fn, args, on_message)
        return _ProcessHandle(worker, job)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers = list(self._workers)
        for worker in workers:
            worker.stop()


def warm_up_engine(engine: Settings) -> None:
    """Load the embedding model when dense retrieval is on (in each process that answers)."""
    if engine.dense_retrieval:
        from celltrace.server.infra.embedding import get_embedder

        get_embedder().encode(["warm-up"])


def default_processes() -> int:
    """One worker process per core."""
    return os.cpu_count() or 1
