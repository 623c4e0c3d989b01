"""Sandbox child: runs one model-written function and prints a JSON reply.

Started by `celltrace.server.sandbox` as `python -I <this file>` (standard library only, so it runs
without the project on `sys.path`). It reads one JSON request from stdin, imports the optional
prelude module, then locks itself down (rlimits, seccomp filter, audit hook) before it compiles or
runs any generated code. The reply is exactly one JSON object on the original stdout:
`{"ok", "value", "error", "stdout", "layers"}`.

Return values are made JSON-able by `to_jsonable`: None/bool/int/str stay; finite floats stay,
NaN/inf become their `str`; other numbers (Decimal, Fraction, numpy scalars) become int when
integral, else float; tuples and lists become lists; sets become sorted lists (sorted by `repr`
when their items do not compare); dicts keep their values, keys become `str`; anything else is
`str(x)`.
"""

from __future__ import annotations

import ast
import builtins
import errno
import importlib
import io
import json
import math
import numbers
import os
import platform
import resource
import signal
import sys
from typing import Any

GENERATED = "<generated>"
MAX_WRITE_OPENS = 16
MAX_DEPTH = 64

# Syscalls refused with EPERM: processes, sockets, namespaces, kernel and foreign-memory access.
_DENY = {
    "x86_64": [41, 42, 43, 49, 50, 53, 57, 58, 59, 101, 155, 161, 165, 166, 169, 175, 176, 246, 248, 249,
               250, 272, 298, 308, 310, 311, 313, 320, 321, 322, 323, *range(425, 435), 438],
    "aarch64": [198, 199, 200, 201, 202, 203, 221, 117, 51, 40, 39, 41, 142, 105, 106, 104, 217, 218, 219,
                97, 241, 268, 270, 271, 273, 280, 281, 282, 294, *range(425, 435), 438],
}
# (clone, kill, tkill, tgkill) numbers and the audit architecture tag, per machine.
_SPECIAL = {"x86_64": (56, 62, 200, 234, 0xC000003E), "aarch64": (220, 129, 130, 131, 0xC00000B7)}
_CLONE3 = 435
_CLONE_THREAD = 0x00010000


class SandboxViolation(BaseException):
    """Raised by the audit hook; a BaseException so `except Exception` in generated code misses it."""


class OutputTooLarge(BaseException):
    """Raised when captured prints exceed the output cap."""


class CappedText(io.TextIOBase):
    """A text sink that keeps what is written, up to `cap` UTF-8 bytes."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.size = 0
        self.parts: list[str] = []

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self.size += len(s.encode("utf-8", "replace"))
        if self.size > self.cap:
            raise OutputTooLarge
        self.parts.append(s)
        return len(s)


def to_jsonable(x: Any, depth: int = 0) -> Any:
    """Convert a return value to plain JSON types (rule in the module docstring)."""
    if depth > MAX_DEPTH:
        raise ValueError("return value nested too deeply")
    if x is None or isinstance(x, bool | int | str):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else str(x)
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real) or (isinstance(x, numbers.Number) and not isinstance(x, numbers.Complex)):
        return to_jsonable(float(x), depth)
    if isinstance(x, dict):
        return {k if isinstance(k, str) else str(k): to_jsonable(v, depth + 1) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [to_jsonable(v, depth + 1) for v in x]
    if isinstance(x, set | frozenset):
        try:
            items = sorted(x)
        except TypeError:
            items = sorted(x, key=repr)
        return [to_jsonable(v, depth + 1) for v in items]
    if hasattr(x, "item") and callable(x.item) and getattr(x, "shape", None) == ():
        return to_jsonable(x.item(), depth)
    return str(x)


def set_rlimits(limits: dict[str, Any]) -> None:
    """Apply memory, CPU, file-size, open-file and core limits (soft = hard, so they cannot be raised)."""
    mem = int(limits["memory_mb"]) * 1024 * 1024
    cpu = int(limits["cpu_s"])
    for res, value in (
        (resource.RLIMIT_AS, mem),
        (resource.RLIMIT_FSIZE, int(limits["file_bytes"])),
        (resource.RLIMIT_NOFILE, 64),
        (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(res, (value, value))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversized writes raise EFBIG instead of killing


def install_seccomp() -> bool:
    """Install a seccomp-BPF filter (via ctypes) refusing process creation, sockets and kernel escapes.

    Returns False when the machine is not supported. Threads (clone with CLONE_THREAD) stay allowed;
    clone3 answers ENOSYS so the C library falls back to clone; signals may only target this process.
    """
    machine = platform.machine()
    if sys.platform != "linux" or machine not in _SPECIAL:
        return False
    import ctypes

    clone, kill, tkill, tgkill, arch = _SPECIAL[machine]
    allow, kill_proc = 0x7FFF0000, 0x80000000
    eperm, enosys = 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    prog: list[tuple[int, int, int, int]] = [
        (ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, kill_proc), (ld, 0, 0, 0),
    ]
    if machine == "x86_64":
        prog += [(jge, 0, 1, 0x40000000), (ret, 0, 0, eperm)]  # x32 ABI
    prog += [(jeq, 0, 1, _CLONE3), (ret, 0, 0, enosys)]
    for nr in _DENY[machine]:
        prog += [(jeq, 0, 1, nr), (ret, 0, 0, eperm)]
    prog += [(jeq, 0, 4, clone), (ld, 0, 0, 16), (jset, 0, 1, _CLONE_THREAD), (ret, 0, 0, allow),
             (ret, 0, 0, eperm)]
    for nr in (kill, tkill, tgkill):
        prog += [(jeq, 0, 4, nr), (ld, 0, 0, 16), (jeq, 0, 1, os.getpid()), (ret, 0, 0, allow),
                 (ret, 0, 0, eperm)]
    prog.append((ret, 0, 0, allow))

    class SockFilter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                    ("k", ctypes.c_uint32)]

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]

    filters = (SockFilter * len(prog))(*[SockFilter(c, t, f, k) for c, t, f, k in prog])
    fprog = SockFprog(len(prog), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
    return True


class AuditGuard:
    """Audit hook denying processes, network, native code, introspection escapes and file access.

    Reads are allowed under the Python installation, the work directory and a few devices; writes
    only inside the work directory, at most MAX_WRITE_OPENS times. The first violation is kept, so
    generated code that catches the exception still fails.
    """

    PROCESS = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
               "subprocess.Popen", "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill")
    NATIVE = ("ctypes.", "cffi.", "code.__new__", "gc.get_", "resource.setrlimit",
              "resource.prlimit", "sqlite3.", "sys._current_frames")
    BLOCKED_IMPORTS = frozenset({"_xxsubinterpreters", "cffi",
                                 "_cffi_backend", "_testcapi", "_testinternalcapi", "multiprocessing"})
    WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    PATH_EVENTS = frozenset({"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.truncate", "os.chmod",
                             "os.utime", "shutil.rmtree", "shutil.move", "shutil.copyfile"})

    def __init__(self, workdir: str) -> None:
        self.workdir = os.path.realpath(workdir)
        prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
        self.read_roots = (*(os.path.realpath(p) for p in prefixes), self.workdir)
        self.read_files = frozenset({"/dev/null", "/dev/urandom", "/dev/zero"})
        self.write_opens = 0
        self.violations: list[str] = []

    def deny(self, what: str) -> None:
        msg = f"forbidden: {what}"
        if not self.violations:
            self.violations.append(msg)
        raise SandboxViolation(msg)

    def _inside(self, path: Any, roots: tuple[str, ...]) -> bool:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str):
            return False
        real = os.path.realpath(path)
        return real in self.read_files or any(real == r or real.startswith(r + os.sep) for r in roots)

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            self._check_open(*args[:3])
        elif event.startswith("socket."):
            self.deny(f"network access ({event})")
        elif event.startswith(self.PROCESS):
            self.deny(f"process creation or signals ({event})")
        elif event.startswith(self.NATIVE):
            self.deny(f"native code or interpreter internals ({event})")
        elif event == "import" and args[0].partition(".")[0] in self.BLOCKED_IMPORTS:
            self.deny(f"import of {args[0]}")
        elif event in ("os.listdir", "os.scandir"):
            if not self._inside(args[0] or ".", self.read_roots):
                self.deny(f"file access ({args[0]})")
        elif event in self.PATH_EVENTS:
            if not self._inside(args[0], (self.workdir,)):
                self.deny(f"file access ({args[0]})")
        elif event in ("os.symlink", "os.link", "os.chown", "os.chroot", "os.chflags", "os.lchflags"):
            self.deny(f"file access ({event})")

    def _check_open(self, path: Any, mode: Any, flags: Any) -> None:
        if isinstance(path, int):
            return  # an already open descriptor
        writing = isinstance(mode, str) and any(c in mode for c in "wax+")
        writing = writing or (isinstance(flags, int) and bool(flags & self.WRITE_FLAGS))
        if writing:
            if not self._inside(path, (self.workdir,)):
                self.deny(f"file write ({path})")
            self.write_opens += 1
            if self.write_opens > MAX_WRITE_OPENS:
                self.deny(f"more than {MAX_WRITE_OPENS} files written")
        elif not self._inside(path, self.read_roots):
            self.deny(f"file access ({path})")


def describe_error(exc: BaseException) -> str:
    """A short reason for an exception raised by generated code, with its line in the program."""
    if isinstance(exc, MemoryError):
        return "memory limit exceeded"
    if isinstance(exc, OutputTooLarge):
        return "output too large"
    if isinstance(exc, RecursionError):
        return "recursion too deep (RecursionError)"
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        return "file size limit exceeded"
    if isinstance(exc, SandboxViolation):
        return str(exc)
    text = f"{type(exc).__name__}: {exc}"[:500]
    if isinstance(exc, SyntaxError):
        return f"{text} (line {exc.lineno})" if exc.lineno else text
    line, tb = None, exc.__traceback__  # walk frames by hand: reading source files is forbidden now
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == GENERATED:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"{text} (line {line})" if line else text


def pick_entry(source: str, entry: str | None) -> str:
    """The function to call: `entry`, or the last top-level function the source defines."""
    if entry:
        return entry
    names = [n.name for n in ast.parse(source, GENERATED).body if isinstance(n, ast.FunctionDef)]
    if not names:
        raise ValueError("no top-level function defined")
    return names[-1]


def run(request: dict[str, Any], layers: list[str]) -> dict[str, Any]:
    """Lock down, then exec the source into a fresh namespace and call the entry function."""
    namespace: dict[str, Any] = {"__name__": "__generated__", "__builtins__": builtins}
    if request.get("prelude"):
        module = importlib.import_module(request["prelude"])
        public = getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")])
        namespace.update({n: getattr(module, n) for n in public})
    limits = request["limits"]
    set_rlimits(limits)
    layers.append("rlimits")
    if install_seccomp():
        layers.append("seccomp")
    guard = AuditGuard(os.getcwd())
    sys.addaudithook(guard)
    layers.append("audit-hook")
    captured = CappedText(int(limits["output_bytes"]))
    sys.stdout = sys.stderr = captured
    try:
        name = pick_entry(request["source"], request.get("entry"))
        exec(compile(request["source"], GENERATED, "exec"), namespace)
        func = namespace.get(name)
        if not callable(func):
            raise NameError(f"entry function {name!r} not found")
        value = to_jsonable(func(*request["args"]))
        error = None
    except BaseException as exc:  # generated code may raise anything, SystemExit included
        value, error = None, describe_error(exc)
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    if guard.violations:
        value, error = None, guard.violations[0]
    reply = {"ok": error is None, "value": value, "error": error, "stdout": "".join(captured.parts)}
    if len(json.dumps(value, ensure_ascii=False)) > int(limits["output_bytes"]):
        reply.update(ok=False, value=None, error="output too large (return value)")
    return reply


def main() -> None:
    """Read the request, run it, write the reply and exit without running any user finalizers."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # stray writes to fd 1 cannot corrupt the reply
    layers: list[str] = []
    try:
        reply = run(json.loads(sys.stdin.buffer.read()), layers)
    except BaseException as exc:  # setup failure (bad prelude, rlimit, seccomp): report, never hang
        reply = {"ok": False, "value": None, "error": f"sandbox setup failed: {describe_error(exc)}",
                 "stdout": ""}
    reply["layers"] = layers
    try:
        text = json.dumps(reply, ensure_ascii=False, allow_nan=False)
    except BaseException as exc:
        text = json.dumps({"ok": False, "value": None, "error": f"reply not serialisable: {exc}"[:500],
                           "stdout": "", "layers": layers})
    out.write(text)
    out.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
