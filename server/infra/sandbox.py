"""Run model-written Python functions in a locked-down child process (threat model: SANDBOX.md).

The server never execs, evals or unpickles generated code or its output. `run_function` checks a
restricted program against the allow-list of `program_policy` (a rejected program never starts a
process), then starts `python -I sandbox_child.py` with an empty environment in a fresh temporary
directory, inside bubblewrap namespaces when `bwrap` works, else a network namespace from `unshare`
when that works. The child checks the program again, locks itself down (rlimits, Landlock, seccomp,
audit hook) and answers with one JSON object authenticated by a per-run key; the parent verifies
the key and the values, enforces the wall-clock timeout and the output cap, kills the whole process
group, and refuses the result when a required layer (`require`) was not applied (fail closed).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import hmac
import importlib
import json
import math
import os
import secrets
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel

from celltrace.server.infra.program_policy import ProgramRejected, check_program
from celltrace.shared.errors import SandboxError

CHILD = Path(__file__).with_name("sandbox_child.py")
POLICY = Path(__file__).with_name("program_policy.py")
STDERR_CAP = 65_536
CHILD_LAYERS = "restricted-python+rlimits+landlock+seccomp+audit-hook"
MAX_VALUE_DEPTH = 64
ZYGOTE = sys.platform == "linux" and hasattr(os, "pidfd_open")
"""Programs run in children forked from a warm zygote (Linux), else each in a new process."""
ZYGOTE_IDLE = 4
"""Idle zygotes kept per outer layer and prelude (one serves one program at a time)."""
ZYGOTE_START_S = 30.0
ZYGOTE_GRACE_S = 2.0
"""How long past a program's timeout the zygote may take to report the child's end."""
DEFAULT_REQUIRE = ("restricted-python", "audit-hook")
"""Layers every program run must get (portable); more can be required with `require`."""
INSTALL_HINT = {
    "bwrap": "install bubblewrap (apt-get install bubblewrap)",
    "landlock": "use a Linux kernel with Landlock (5.13 or newer, LSM enabled)",
    "seccomp": "run on Linux x86_64 or aarch64",
    "rlimits": "run on Linux or macOS",
}


class IsolationUnavailable(SandboxError):
    """A required isolation layer is not available on this machine."""


class SandboxLimits(BaseModel):
    """Resource limits for one run."""

    timeout_s: float = 5.0
    cpu_s: int = 5
    memory_mb: int = 512
    output_bytes: int = 1_000_000
    file_bytes: int = 1_000_000


class SandboxResult(BaseModel):
    """Outcome of one run; `error` is a short reason whenever `ok` is False."""

    ok: bool
    value: Any = None
    error: str | None = None
    stdout: str = ""
    frames: list[tuple[int, str]] = []
    """(line, function) of the generated-code frames of a program's exception, outermost first."""
    seconds: float
    mechanism: str
    unavailable: bool = False
    """True when a required isolation layer is missing: the program did not run (or was refused)."""


def _bwrap_prefix(workdir: str, extra_ro: tuple[str, ...]) -> list[str]:
    """bubblewrap arguments: all namespaces, uid 65534, no capabilities, a read-only minimal view."""
    args = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--uid", "65534", "--gid", "65534",
            "--die-with-parent", "--clearenv", "--cap-drop", "ALL", "--hostname", "sandbox", "--dev", "/dev",
            "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    prefixes = (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    roots = {os.path.realpath(p) for p in prefixes}
    for path in sorted(roots | {sys.prefix, str(CHILD), str(POLICY), *extra_ro}):
        args += ["--ro-bind", path, path]
    return [*args, "--bind", workdir, workdir, "--chdir", workdir, "--"]


def _works(prefix: list[str]) -> bool:
    """Whether `prefix + [python, -I, -c, pass]` runs."""
    try:
        proc = subprocess.run([*prefix, sys.executable, "-I", "-c", "pass"], capture_output=True,
                              timeout=10, env={}, cwd=tempfile.gettempdir())
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0


def _netns_prefix() -> list[str]:
    """`unshare --net --` by absolute path (the child's environment has no PATH)."""
    return [shutil.which("unshare") or "unshare", "--net", "--"]


@functools.cache
def _wrapper() -> str:
    """The outer isolation layer that works on this machine: "bwrap", "netns" or ""."""
    if shutil.which("bwrap"):
        with tempfile.TemporaryDirectory(prefix="celltrace-sbx-") as tmp:
            if _works(_bwrap_prefix(tmp, ())):
                return "bwrap"
    if shutil.which("unshare") and _works(_netns_prefix()):
        return "netns"
    return ""


def _mechanism(wrapper: str, child_layers: str) -> str:
    outer = {"bwrap": "bwrap(user,pid,net,ipc,uts,mount;uid=65534)", "netns": "netns", "": ""}[wrapper]
    return "+".join(p for p in (outer, child_layers) if p)


@functools.cache
def isolation_info() -> str:
    """The isolation layers a run gets on this machine, e.g. "netns+rlimits+seccomp+audit-hook".

    Measured once per process by running a trivial function in the sandbox.
    """
    probe = run_function("def probe():\n    return 1\n", None, [], require=())
    return probe.mechanism if probe.ok else _mechanism(_wrapper(), "unverified")


def _prelude_dirs(prelude_module: str) -> tuple[str, ...]:
    """Source folders bwrap must expose so the child can import the prelude module (trusted code)."""
    importlib.import_module(prelude_module)
    top = prelude_module.partition(".")[0]
    files = [getattr(m, "__file__", None) for n, m in list(sys.modules.items())
             if n == top or n.startswith(top + ".")]
    return tuple(sorted({os.path.dirname(os.path.realpath(f)) for f in files if f}))


def _signal_reason(code: int, seconds: float, limits: SandboxLimits) -> str:
    """Why the child died, from its exit status (negative: signal; bwrap reports 128 + signal)."""
    sig = -code if code < 0 else code - 128
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and seconds >= limits.cpu_s):
        return f"cpu time limit exceeded ({limits.cpu_s} s)"
    if sig == signal.SIGXFSZ:
        return "file size limit exceeded"
    if sig == signal.SIGSYS:
        return "forbidden system call (seccomp)"
    if 0 < sig < signal.NSIG:
        return f"sandbox process killed by {signal.Signals(sig).name}"
    return f"sandbox process exited with code {code}"


def _communicate(stdin: IO[bytes], stdout: IO[bytes], stderr: IO[bytes], payload: bytes,
                 limits: SandboxLimits, deadline: float) -> tuple[bytes, bytes, str | None]:
    """Feed the child's stdin and read its stdout/stderr until both close, the deadline, or the
    output cap; no threads."""
    out_cap = 2 * limits.output_bytes + 65_536  # return value + captured prints + envelope
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    for f in (stdin, stdout, stderr):
        os.set_blocking(f.fileno(), False)
    sel.register(stdin, selectors.EVENT_WRITE)
    sel.register(stdout, selectors.EVENT_READ)
    sel.register(stderr, selectors.EVENT_READ)
    sent = 0
    try:
        while sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return bytes(out), bytes(err), f"timeout after {limits.timeout_s} s"
            for key, _ in sel.select(min(remaining, 0.5)):
                if key.fileobj is stdin:
                    try:
                        sent += os.write(stdin.fileno(), payload[sent:sent + 65_536])
                    except BrokenPipeError:
                        sent = len(payload)
                    if sent >= len(payload):
                        sel.unregister(stdin)
                        stdin.close()
                    continue
                chunk = os.read(key.fileobj.fileno(), 65_536)  # type: ignore[union-attr]
                if not chunk:
                    sel.unregister(key.fileobj)
                elif key.fileobj is stdout:
                    out += chunk
                    if len(out) > out_cap:
                        return bytes(out), bytes(err), "output too large"
                elif len(err) < STDERR_CAP:
                    err += chunk
        return bytes(out), bytes(err), None
    finally:
        sel.close()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child's process group if it still runs, reap it and close the pipes."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    for f in (proc.stdin, proc.stdout, proc.stderr):
        if f:
            with contextlib.suppress(OSError):
                f.close()


def run_function(source: str, entry: str | None, args: list[Any], limits: SandboxLimits | None = None,
                 prelude_module: str | None = None, *, restricted: bool = True,
                 require: tuple[str, ...] = DEFAULT_REQUIRE) -> SandboxResult:
    """Run `entry` (default: the last top-level function) of `source` on a JSON copy of `args`.

    `restricted` (the default; False only for tests of the lower layers) checks the program
    against `program_policy` first. `require` names layers the run must get ("bwrap", "landlock",
    "seccomp", "rlimits", "restricted-python", "audit-hook"); when one is missing the result is
    `ok=False, unavailable=True` with what to install. Never raises: every failure, including
    sandbox setup problems, becomes `ok=False` with a reason.
    """
    limits = limits or SandboxLimits()
    start = time.monotonic()
    wrapper = ""
    try:
        wrapper = _wrapper()
        if "bwrap" in require and wrapper != "bwrap":
            raise IsolationUnavailable(_missing(["bwrap"]))
        if restricted:
            check_program(source)
        return _run(source, entry, args, limits, prelude_module, wrapper, start, restricted, require)
    except (ProgramRejected, SyntaxError) as exc:
        error = str(exc)
        if isinstance(exc, SyntaxError):
            error = f"SyntaxError: {exc.msg} (line {exc.lineno})"
        return SandboxResult(ok=False, error=error, seconds=time.monotonic() - start,
                             mechanism=_mechanism(wrapper, "restricted-python"))
    except IsolationUnavailable as exc:
        return SandboxResult(ok=False, error=str(exc), unavailable=True, seconds=time.monotonic() - start,
                             mechanism=_mechanism(wrapper, ""))
    except Exception as exc:  # a bug or an OS problem here must not reach the caller
        return SandboxResult(ok=False, error=f"sandbox error: {type(exc).__name__}: {exc}"[:500],
                             seconds=time.monotonic() - start, mechanism=_mechanism(wrapper, CHILD_LAYERS))


def _missing(layers: list[str]) -> str:
    hints = "; ".join(f"{layer}: {INSTALL_HINT.get(layer, 'not available')}" for layer in layers)
    return (f"sandbox isolation unavailable, generated programs are not run: missing {', '.join(layers)} "
            f"({hints}; or drop it from CELLTRACE_SANDBOX_REQUIRE)")


def _checked_value(value: Any, depth: int = 0) -> Any:
    """`value` when it is plain JSON with finite numbers and bounded nesting; else ValueError."""
    if depth > MAX_VALUE_DEPTH:
        raise ValueError("value nested too deeply")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("non-finite number")
    if isinstance(value, dict):
        for v in value.values():
            _checked_value(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _checked_value(v, depth + 1)
    return value


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_reply(out: bytes, key: bytes) -> dict[str, Any]:
    """The child's reply when its HMAC matches and its values are plain, finite JSON; else ValueError."""
    tag, sep, body = out.partition(b"\n")
    expected = hmac.new(key, body, hashlib.sha256).hexdigest().encode()
    if not sep or not hmac.compare_digest(tag, expected):
        raise ValueError("reply not authenticated")
    reply = json.loads(body, parse_constant=_no_constants)
    if not isinstance(reply, dict) or not isinstance(reply.get("layers"), list):
        raise ValueError("reply is not an object")
    _checked_value(reply.get("value"))
    return reply


def _run(source: str, entry: str | None, args: list[Any], limits: SandboxLimits, prelude_module: str | None,
         wrapper: str, start: float, restricted: bool, require: tuple[str, ...]) -> SandboxResult:
    def fail(error: str, layers: str = CHILD_LAYERS) -> SandboxResult:
        return SandboxResult(ok=False, error=error, seconds=time.monotonic() - start,
                             mechanism=_mechanism(wrapper, layers))

    key = secrets.token_bytes(32)
    request = {"source": source, "entry": entry, "args": args, "prelude": prelude_module,
               "limits": limits.model_dump(), "restricted": restricted, "key": key.hex()}
    try:
        payload = json.dumps(request, allow_nan=False).encode()
    except (TypeError, ValueError) as exc:
        return fail(f"arguments are not JSON-serialisable: {exc}")
    ran = _zygote_run(payload, limits, prelude_module, wrapper, start) if ZYGOTE else None
    if ran is None:
        ran = _process_run(payload, limits, prelude_module, wrapper, start)
    out, err, problem, code = ran
    if problem:
        return fail(problem)
    if code != 0 and not out:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        reason = _signal_reason(code, time.monotonic() - start, limits)
        return fail(f"{reason}: {last[0][:200]}" if last[0] else reason)
    try:
        reply = _parse_reply(out, key)
        layers = [str(x) for x in reply["layers"]]
        mechanism = _mechanism(wrapper, "+".join(layers))
        missing = [r for r in require if r not in layers and r != "bwrap"]
        if missing and not str(reply.get("error") or "").startswith("sandbox setup failed"):
            return SandboxResult(ok=False, error=_missing(missing), unavailable=True,
                                 seconds=time.monotonic() - start, mechanism=mechanism)
        frames = [(int(line), str(name)) for line, name in reply.get("frames") or []]
        return SandboxResult(ok=reply["ok"] is True, value=reply["value"], error=reply["error"],
                             stdout=str(reply["stdout"]), frames=frames,
                             seconds=time.monotonic() - start, mechanism=mechanism)
    except (ValueError, KeyError, TypeError):
        return fail("sandbox protocol error: the child's reply is not authenticated, plain JSON")


Ran = tuple[bytes, bytes, str | None, int]
"""The child's stdout and stderr, the parent's reason to stop it (timeout, output cap), its exit code."""


def _outer_prefix(wrapper: str, workdir: str, prelude_module: str | None) -> list[str]:
    """The command prefix of the outer layer (bwrap or netns) for a child working in `workdir`."""
    if wrapper == "bwrap":
        return _bwrap_prefix(workdir, _prelude_dirs(prelude_module) if prelude_module else ())
    if wrapper == "netns":
        return _netns_prefix()
    return []


class _ZygoteBroken(Exception):
    """The zygote did not answer as the protocol says (it is discarded)."""


class _Zygote:
    """A warm zygote (`sandbox_child.zygote`) behind the outer layer, serving one program at a time."""

    def __init__(self, wrapper: str, prelude_module: str | None) -> None:
        self.workdir = tempfile.mkdtemp(prefix="celltrace-sbx-")
        self.seq = 0
        try:
            os.chmod(self.workdir, 0o700)
            prefix = _outer_prefix(wrapper, self.workdir, prelude_module)
        except BaseException:
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        try:
            self.proc = subprocess.Popen(
                [*prefix, sys.executable, "-I", str(CHILD), "--zygote", prelude_module or ""],
                stdin=theirs.fileno(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={},
                cwd=self.workdir, start_new_session=True, close_fds=True)
        except BaseException:
            ours.close()
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        finally:
            theirs.close()
        try:
            if self._receive(time.monotonic() + ZYGOTE_START_S) != {"ready": True}:
                raise _ZygoteBroken("the zygote did not start")
        except BaseException:
            self.close()
            raise

    def run(self, payload: bytes, limits: SandboxLimits, start: float) -> Ran:
        self.seq += 1
        pipes = [os.pipe() for _ in range(3)]  # the child's stdin, stdout, stderr
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        try:
            # the zygote's own kill is a backstop: the timeout is decided (and reported) here
            header = json.dumps({"seq": self.seq, "timeout": limits.timeout_s + ZYGOTE_GRACE_S / 2}).encode()
            socket.send_fds(self.sock, [header], theirs)
        finally:
            for fd in theirs:
                os.close(fd)
        with open(pipes[0][1], "wb", buffering=0) as stdin, open(pipes[1][0], "rb", buffering=0) as stdout, \
                open(pipes[2][0], "rb", buffering=0) as stderr:
            out, err, problem = _communicate(stdin, stdout, stderr, payload, limits, start + limits.timeout_s)
        if problem is not None:
            self.sock.send(json.dumps({"kill": self.seq}).encode())
        status = self._receive(max(start + limits.timeout_s, time.monotonic()) + ZYGOTE_GRACE_S)
        if status.get("seq") != self.seq or not isinstance(status.get("code"), int):
            raise _ZygoteBroken(f"unexpected zygote status {status!r}")
        return out, err, problem, status["code"]

    def _receive(self, deadline: float) -> dict[str, Any]:
        """The zygote's next message (a JSON object); _ZygoteBroken past `deadline` or on EOF."""
        self.sock.settimeout(max(deadline - time.monotonic(), 0.001))
        try:
            data = self.sock.recv(4096)
            message = json.loads(data) if data else None
        except (OSError, ValueError) as exc:
            raise _ZygoteBroken(f"no answer from the zygote: {exc}") from exc
        if not isinstance(message, dict):
            raise _ZygoteBroken("the zygote is gone")
        return message

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        _kill(self.proc)
        shutil.rmtree(self.workdir, ignore_errors=True)


_zygotes: dict[tuple[str, str | None], list[_Zygote]] = {}
_zygotes_lock = threading.Lock()
_zygote_failed: set[tuple[str, str | None]] = set()


def _zygote_run(payload: bytes, limits: SandboxLimits, prelude_module: str | None, wrapper: str,
                start: float) -> Ran | None:
    """Run the request in a fresh child forked from an idle warm zygote of this outer layer and
    prelude (started when none is idle); None when no zygote works here (use a new process)."""
    key = (wrapper, prelude_module)
    with _zygotes_lock:
        if key in _zygote_failed:
            return None
        idle = _zygotes.setdefault(key, [])
        zygote = idle.pop() if idle else None
    try:
        if zygote is None or not zygote.alive():
            zygote = _Zygote(wrapper, prelude_module)
    except (OSError, _ZygoteBroken):
        with _zygotes_lock:
            _zygote_failed.add(key)
        return None
    try:
        ran = zygote.run(payload, limits, start)
    except (OSError, _ZygoteBroken) as exc:
        zygote.close()
        return b"", b"", f"sandbox error: {exc}"[:500], -1
    with _zygotes_lock:
        if len(_zygotes[key]) < ZYGOTE_IDLE:
            _zygotes[key].append(zygote)
            zygote = None
    if zygote is not None:
        zygote.close()
    return ran


@atexit.register
def close_zygotes() -> None:
    """Stop the idle warm zygotes and remove their work folders (at exit; call it before `os._exit`)."""
    with _zygotes_lock:
        zygotes = [z for idle in _zygotes.values() for z in idle]
        _zygotes.clear()
    for zygote in zygotes:
        zygote.close()


def _process_run(payload: bytes, limits: SandboxLimits, prelude_module: str | None, wrapper: str,
                 start: float) -> Ran:
    """Run the request in a new child process (the path without a zygote)."""
    workdir = tempfile.mkdtemp(prefix="celltrace-sbx-")
    try:
        os.chmod(workdir, 0o700)
        prefix = _outer_prefix(wrapper, workdir, prelude_module)
        proc = subprocess.Popen([*prefix, sys.executable, "-I", str(CHILD)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={}, cwd=workdir,
                                start_new_session=True, close_fds=True)
        try:
            assert proc.stdin and proc.stdout and proc.stderr
            out, err, problem = _communicate(proc.stdin, proc.stdout, proc.stderr, payload, limits,
                                             start + limits.timeout_s)
            if problem is None:  # pipes closed: let it exit by itself so its status is kept
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=1.0)
        finally:
            _kill(proc)
        return out, err, problem, proc.returncode
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
