"""Load test of `celltrace serve`: concurrent `/v1/ask` requests on the dev-data tables.

Usage: python benchmarks/server_load.py [--engine offline|llm] [--requests 200] [--concurrency 50]
       [--dataset hitab] [--runs 1] [--delay 0.5] [--tables 4] [--baseline DIR]
       [--url http://127.0.0.1:PORT] [--max-seconds 300]

Without `--url` a server is started on a free loopback port (default settings: the embedding model
loads at start-up) and stopped at the end. Only loopback URLs are accepted. Everything is bounded:
a fixed number of requests, a per-request timeout, and an overall deadline after which the run
stops. Reports errors (429s among them), latency p50/p99, requests/s, the engine's own time (the
result's `seconds`), the server overhead (latency minus engine time: HTTP, JSON, validation,
queueing) and `GET /v1/health` latency p50/p99 polled every 50 ms during the burst; `--runs N`
repeats the burst on the same server and prints the medians; the machine's load (`uptime`) too.
`--baseline DIR` first runs the same bursts against a server importing an older `celltrace` from
DIR (its environment gets the same settings) and prints the ratios measured in this one run.

`--engine llm` answers HiTab dev single-cell lookups with the `llm` engine against the scripted
oracle model of `scripted_model.py` (loopback, `--delay` seconds per call, ≈ 4–6 calls a question),
about `--tables` tables (questions about one workbook; 0: a cold table per question, where the
table's label embeddings, ≈ 0.8 s of CPU each, dominate).
Exit code 1 when any request failed.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from celltrace.server.evaluation.devdata import dev_data_dir

DATA = dev_data_dir()
REQUEST_TIMEOUT_S = 120.0
STARTUP_S = 300.0
HEALTH_EVERY_S = 0.05


def load_requests(dataset: str, n: int) -> list[dict]:
    """`n` offline ask bodies (question + TABLE) from `<dataset>_dev.jsonl`, cycling if needed."""
    bodies = []
    with (DATA / f"{dataset}_dev.jsonl").open() as f:
        for line in f:
            rec = json.loads(line)
            t = rec["table"]
            table = {"cells": t["cells"], "merges": t.get("merges", []), "title": t.get("title")}
            bodies.append({"question": rec["question"], "table": table, "engine": "offline"})
            if len(bodies) == n:
                break
    return [bodies[i % len(bodies)] for i in range(n)]


def llm_requests(n: int, tables: int | None) -> tuple[list[dict], list[dict]]:
    """`n` llm-engine ask bodies of HiTab single-cell lookups on at most `tables` tables, and their
    records."""
    from scripted_model import lookup_records

    records = lookup_records(n, tables)
    bodies = [
        {
            "question": r["question"],
            "table": {
                "cells": r["table"]["cells"],
                "merges": r["table"].get("merges", []),
                "title": r["table"].get("title"),
            },
            "engine": "llm",
        }
        for r in records
    ]
    return bodies, records


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def start_server(env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exe = Path(sys.executable).parent / "celltrace"
    cmd = (
        [str(exe)]
        if exe.exists()
        else [sys.executable, "-c", "from celltrace.server.cli import main; main()"]
    )
    proc = subprocess.Popen(
        [*cmd, "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        env={**os.environ, "CELLTRACE_TOKEN": "", **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            httpx.get(f"{url}/v1/health", timeout=1).raise_for_status()
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


async def run_load(url: str, bodies: list[dict], concurrency: int, max_seconds: float) -> dict:
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    engine: list[float] = []
    statuses: dict[str, int] = {}
    errors: list[str] = []
    health: list[float] = []
    calls: list[int] = []

    async def one(client: httpx.AsyncClient, body: dict) -> None:
        async with gate:
            started = time.perf_counter()
            try:
                response = await client.post(f"{url}/v1/ask", json=body)
            except httpx.HTTPError as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
                return
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                errors.append(f"HTTP {response.status_code}: {response.text[:200]}")
                return
            result = response.json()
            engine.append(result["seconds"])
            calls.append(result["usage"]["llm_calls"])
            statuses[result["status"]] = statuses.get(result["status"], 0) + 1

    async def poll_health(client: httpx.AsyncClient) -> None:
        while True:
            started = time.perf_counter()
            try:
                (await client.get(f"{url}/v1/health")).raise_for_status()
                health.append(time.perf_counter() - started)
            except httpx.HTTPError as exc:
                errors.append(f"health: {type(exc).__name__}: {exc}")
            await asyncio.sleep(HEALTH_EVERY_S)

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with (
        httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S, limits=limits) as client,
        httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S) as health_client,  # its own connection
    ):
        started = time.perf_counter()
        poller = asyncio.create_task(poll_health(health_client))
        tasks = [asyncio.create_task(one(client, body)) for body in bodies]
        _, pending = await asyncio.wait(tasks, timeout=max_seconds)
        for task in [*pending, poller]:
            task.cancel()
        wall = time.perf_counter() - started
    errors += [f"not finished within {max_seconds:g} s"] * len(pending)
    return {
        "latencies": latencies,
        "engine": engine,
        "statuses": statuses,
        "errors": errors,
        "wall": wall,
        "health": health,
        "calls": calls,
    }


def report(stats: dict, n: int, concurrency: int) -> None:
    lat, eng = stats["latencies"], stats["engine"]
    overhead = [t - e for t, e in zip(lat, eng, strict=False)] if len(lat) == len(eng) else []
    print(f"requests: {n}, concurrency: {concurrency}, errors: {len(stats['errors'])}")
    print(f"statuses: {stats['statuses']}")
    if lat:
        print(
            f"latency  p50 {percentile(lat, 0.5) * 1000:8.1f} ms   p99 {percentile(lat, 0.99) * 1000:8.1f} ms"
        )
        print(
            f"engine   p50 {percentile(eng, 0.5) * 1000:8.1f} ms   p99 {percentile(eng, 0.99) * 1000:8.1f} ms"
        )
    if overhead:
        print(
            f"overhead p50 {percentile(overhead, 0.5) * 1000:8.1f} ms   p99 "
            f"{percentile(overhead, 0.99) * 1000:8.1f} ms   (latency − engine: HTTP, JSON, queueing)"
        )
    if stats["health"]:
        health = stats["health"]
        print(
            f"health   p50 {percentile(health, 0.5) * 1000:8.1f} ms   "
            f"p99 {percentile(health, 0.99) * 1000:8.1f} ms"
            f"   ({len(health)} polls during the burst)"
        )
    if any(stats["calls"]):
        print(f"LLM calls per question: median {statistics.median(stats['calls']):g}")
    print(f"throughput {throughput(stats):.2f} requests/s over {stats['wall']:.1f} s")
    refused = sum(e.startswith("HTTP 429") for e in stats["errors"])
    print(f"refused (429): {refused}")
    for error in stats["errors"][:5]:
        print(f"error: {error}")


def throughput(stats: dict) -> float:
    """Successful answers per second of wall time."""
    return len(stats["engine"]) / stats["wall"]


def summary(runs: list[dict]) -> dict[str, float]:
    """Medians over runs: requests/s, health p99 (ms), errors and refusals per run."""
    p99 = [percentile(r["health"], 0.99) * 1000 for r in runs if r["health"]]
    return {
        "requests/s": statistics.median(throughput(r) for r in runs),
        "health p99 ms": statistics.median(p99) if p99 else float("nan"),
        "errors": statistics.median(len(r["errors"]) for r in runs),
        "refused": statistics.median(sum(e.startswith("HTTP 429") for e in r["errors"]) for r in runs),
    }


def bursts(url: str | None, env: dict[str, str], bodies: list[dict], args: argparse.Namespace) -> list[dict]:
    """`args.runs` bursts against `url`, or against a server started with `env` (stopped after)."""
    proc = None
    runs: list[dict] = []
    try:
        if url is None:
            started = time.perf_counter()
            proc, url = start_server(env)
            print(f"server started in {time.perf_counter() - started:.1f} s at {url}")
        for run in range(args.runs):
            print(f"--- run {run + 1}/{args.runs} ({args.engine}); {uptime()}")
            stats = asyncio.run(run_load(url, bodies, args.concurrency, args.max_seconds))
            report(stats, len(bodies), args.concurrency)
            runs.append(stats)
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                print(f"server stopped (exit code {proc.wait(timeout=15)})")
            except subprocess.TimeoutExpired:
                proc.kill()
                print("server killed (did not stop within 15 s)")
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", default="offline", choices=["offline", "llm"])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--dataset", default="hitab", choices=["hitab", "aitqa", "fetaqa", "qtsumm"])
    parser.add_argument("--runs", type=int, default=1, help="bursts on the same server (medians printed)")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds per scripted model call (llm)")
    parser.add_argument(
        "--tables",
        type=int,
        default=4,
        help="llm: questions about this many tables (0: every one a new table)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a folder holding an older `celltrace` package: its server runs the same bursts first and "
        "the ratios are printed (e.g. `git archive <commit>` unpacked into DIR/celltrace)",
    )
    parser.add_argument("--url", help="an already running loopback server (else one is started)")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="overall deadline")
    args = parser.parse_args()
    if args.url and not _loopback(args.url):
        raise SystemExit("only loopback servers may be load-tested")
    if args.url and (args.engine == "llm" or args.baseline):
        raise SystemExit("--engine llm and --baseline start their own servers")
    llm = None
    env: dict[str, str] = {}
    if args.engine == "llm":
        from scripted_model import ScriptedLLM, SlowOracle, model_env

        bodies, records = llm_requests(args.requests, args.tables or None)
        llm = ScriptedLLM(SlowOracle(records, args.delay)).start()
        env = model_env(llm)
    else:
        bodies = load_requests(args.dataset, args.requests)
    results: dict[str, dict[str, float]] = {}
    failed = False
    try:
        if args.baseline:
            print(f"=== baseline: {args.baseline}")
            runs = bursts(None, {**env, "PYTHONPATH": str(args.baseline.resolve())}, bodies, args)
            results["baseline"] = summary(runs)
            print("=== this checkout")
        runs = bursts(args.url, env, bodies, args)
        results["this"] = summary(runs)
        failed = any(r["errors"] for r in runs)
    finally:
        if llm is not None:
            llm.stop()
    for name, values in results.items():
        print(f"median of {args.runs} run(s), {name}: " + ", ".join(f"{k} {v:g}" for k, v in values.items()))
    if "baseline" in results:
        old, new = results["baseline"], results["this"]
        print(
            f"ratio this/baseline: requests/s {new['requests/s'] / old['requests/s']:.2f}x, "
            f"health p99 {new['health p99 ms'] / old['health p99 ms']:.2f}x"
        )
    sys.exit(1 if failed else 0)


def uptime() -> str:
    from scripted_model import uptime as machine_load

    return machine_load()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
