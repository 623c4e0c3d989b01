"""Sandbox child: runs one model-written function and writes one authenticated JSON reply.

Started by `celltrace.server.infra.sandbox` as `python -I <this file>` (standard library only, so it runs
without the project on `sys.path`). It reads one JSON request from stdin, keeps the request's reply
key only inside an HMAC object local to `main`, imports the optional prelude, checks and compiles a
restricted program with `program_policy.py` (loaded by path), then locks itself down (rlimits,
Landlock, seccomp, audit hook) before it runs any generated code. The reply on the original stdout
is `<hex HMAC-SHA256>\\n<json>` with `{"ok", "value", "error", "stdout", "frames", "layers"}`.

Return values are made JSON-able by `to_jsonable`: None/bool/int/str stay; finite floats stay,
NaN/inf become their `str`; other numbers (Decimal, Fraction, numpy scalars) become int when
integral, else float; tuples and lists become lists; sets become sorted lists (sorted by `repr`
when their items do not compare); dicts keep their values, keys become `str`; anything else is
`str(x)`.

A prelude may define `sandbox_call(function, *args)` (how the program is called) and
`sandbox_export(result)` (what is sent back); its `__all__` names are what the program sees.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import errno
import functools
import hashlib
import hmac
import importlib
import importlib.util
import io
import json
import math
import numbers
import os
import platform
import selectors
import shutil
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

try:
    import resource
except ImportError:  # Windows: no rlimits (the parent's wall clock still bounds the run)
    resource = None  # type: ignore[assignment]

GENERATED = "<generated>"
MAX_WRITE_OPENS = 16
MAX_DEPTH = 64
POLICY_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "program_policy.py")

# Syscalls refused with EPERM: processes, sockets, namespaces, signals to others, kernel, foreign
# memory, device nodes/FIFOs, extended attributes and file handles.
_DENY = {
    "x86_64": [41, 42, 43, 49, 50, 53, 57, 58, 59, 101, 103, 129, 133, 135, 155, 161, 163, 165, 166,
               167, 168, 169, 172, 173, 175, 176, 179, *range(188, 200), 246, 248, 249, 250, 256,
               259, 272, 279, 297, 298, 300, 303, 304, 308, 310, 311, 312, 313, 320, 321, 322, 323,
               *range(424, 435), 438, 440, *range(463, 468)],
    "aarch64": [198, 199, 200, 201, 202, 203, 221, 117, 51, 40, 39, 41, 142, 105, 106, 104, 217, 218,
                219, 97, 241, 268, 270, 271, 273, 280, 281, 282, 294, 116, 138, 240, 33, 92, 89, 224,
                225, 60, *range(5, 8), *range(14, 17), 238, 239, 262, 264, 265, 272,
                *range(424, 435), 438, 440, *range(463, 468)],
}
# (clone, kill, tkill, tgkill) numbers and the audit architecture tag, per machine.
_SPECIAL = {"x86_64": (56, 62, 200, 234, 0xC000003E), "aarch64": (220, 129, 130, 131, 0xC00000B7)}
_CLONE3 = 435
_CLONE_THREAD = 0x00010000
_LANDLOCK = (444, 445, 446)  # create_ruleset, add_rule, restrict_self (same number on every arch)


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
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, str):
        return str.__str__(x)
    if isinstance(x, float):
        return float(x) if math.isfinite(x) else str(float(x))
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real) or (isinstance(x, numbers.Number) and not isinstance(x, numbers.Complex)):
        return to_jsonable(float(x), depth)  # type: ignore[arg-type]  # a non-complex Number has __float__
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
    return str(x)


def set_rlimits(limits: dict[str, Any]) -> bool:
    """Apply memory, CPU, file-size, open-file and core limits (soft = hard); False without `resource`."""
    if resource is None:
        return False
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
    return True


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _no_new_privs(libc: Any) -> None:
    import ctypes

    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")


def install_landlock(read_roots: tuple[str, ...], workdir: str) -> bool:
    """Landlock (Linux ≥ 5.13): reads only under `read_roots`, writes only in `workdir`, no TCP
    (ABI ≥ 4), no signals or abstract sockets outside the sandbox (ABI ≥ 6). False when absent."""
    if sys.platform != "linux":
        return False
    import ctypes

    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    create, add_rule, restrict = _LANDLOCK
    abi = libc.syscall(create, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        return False
    handled = (1 << 13) - 1 | (1 << 13 if abi >= 2 else 0) | (1 << 14 if abi >= 3 else 0) \
        | (1 << 15 if abi >= 5 else 0)
    fields = [handled] + ([3] if abi >= 4 else []) + ([3] if abi >= 6 else [])  # net: bind+connect TCP
    attr = struct.pack(f"{len(fields)}Q", *fields)
    fd = libc.syscall(create, attr, len(attr), 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    read = 1 | 4 | 8  # execute, read file, read dir
    file_rights = 1 | 2 | 4 | (1 << 14 if abi >= 3 else 0)
    write = read | 2 | 16 | 32 | 128 | 256 | (1 << 14 if abi >= 3 else 0)  # + write/remove/mkdir/mkreg
    try:
        for path, rights in [*((p, read) for p in read_roots), (workdir, write),
                             ("/dev/null", 4 | 2), ("/dev/urandom", 4)]:
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            allowed = rights if os.path.isdir(path) else rights & file_rights
            rule = struct.pack("=Qi", allowed, pfd)
            ok = libc.syscall(add_rule, fd, 1, rule, 0)  # LANDLOCK_RULE_PATH_BENEATH
            os.close(pfd)
            if ok != 0:
                raise OSError(ctypes.get_errno(), f"landlock_add_rule({path}) failed")
        _no_new_privs(libc)
        if libc.syscall(restrict, fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(fd)
    return True


@functools.cache
def _filter_types() -> tuple[Any, Any]:
    """The ctypes structures of a BPF program (`sock_filter`, `sock_fprog`)."""
    import ctypes

    class SockFilter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                    ("k", ctypes.c_uint32)]

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]

    return SockFilter, SockFprog


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
    for nr in sorted(set(_DENY[machine])):
        prog += [(jeq, 0, 1, nr), (ret, 0, 0, eperm)]
    prog += [(jeq, 0, 4, clone), (ld, 0, 0, 16), (jset, 0, 1, _CLONE_THREAD), (ret, 0, 0, allow),
             (ret, 0, 0, eperm)]
    for nr in (kill, tkill, tgkill):
        prog += [(jeq, 0, 4, nr), (ld, 0, 0, 16), (jeq, 0, 1, os.getpid()), (ret, 0, 0, allow),
                 (ret, 0, 0, eperm)]
    prog.append((ret, 0, 0, allow))

    SockFilter, SockFprog = _filter_types()
    filters = (SockFilter * len(prog))(*[SockFilter(c, t, f, k) for c, t, f, k in prog])
    fprog = SockFprog(len(prog), filters)
    libc = _libc()
    _no_new_privs(libc)
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
    return True


_PROCESS = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
            "subprocess.Popen", "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill",
            "os.startfile")
_NATIVE = ("ctypes.", "cffi.", "code.__new__", "gc.", "resource.setrlimit", "resource.prlimit",
           "sqlite3.", "sys._current_frames", "sys.settrace", "sys.setprofile",
           "sys.addaudithook", "function.__new__", "cpython.", "winreg.", "_winapi.", "msvcrt.")
_STRICT_EVENTS = frozenset({"sys._getframe", "object.__setattr__", "object.__delattr__"})
_BLOCKED_IMPORTS = frozenset({"_xxsubinterpreters", "cffi", "_cffi_backend", "_testcapi",
                              "_testinternalcapi", "multiprocessing"})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# event -> positions of its path arguments (every one must be inside the work dir)
_PATH_EVENTS = {"os.remove": (0,), "os.rename": (0, 1), "os.rmdir": (0,), "os.mkdir": (0,),
                "os.truncate": (0,), "os.chmod": (0,), "os.utime": (0,), "os.chdir": (0,),
                "os.setxattr": (0,), "os.removexattr": (0,), "os.getxattr": (0,),
                "os.listxattr": (0,), "shutil.rmtree": (0,), "shutil.move": (0, 1),
                "shutil.copyfile": (0, 1), "shutil.copytree": (0, 1), "os.fwalk": (0,)}
_DENIED_EVENTS = frozenset({"os.symlink", "os.link", "os.chown", "os.chroot", "os.chflags", "os.lchflags",
                            "os.putenv", "os.unsetenv", "os.mkfifo", "os.mknod", "os.fchdir"})


Hook = Callable[[str, tuple[Any, ...]], None]


def make_guard(workdir: str, read_roots: tuple[str, ...],
               strict: bool) -> tuple[Hook, Callable[[], None], list[str]]:
    """(hook, end_program, violations) — an audit hook that denies processes, network, native code,
    frames, monkey-patching of types and file access outside `read_roots` (reads) and `workdir`
    (writes, at most MAX_WRITE_OPENS; paths given relative to a directory descriptor are refused).

    The hook is a closure over immutable values: it is stored nowhere a program can name (no
    module global, no class whose `__call__` could be patched). Frame attributes (the
    `object.__getattr__` event) and, when `strict` (restricted programs, whose imports are all done
    before lockdown), `sys._getframe` and patching types are refused until `end_program()` (the
    child's own traceback walk comes after it). The first violation is kept in `violations`, so
    code that catches the exception still fails.
    """
    workdir = os.path.realpath(workdir)
    read_files = frozenset({"/dev/null", "/dev/urandom", "/dev/zero"})
    realpath, fsdecode, sep = os.path.realpath, os.fsdecode, os.sep
    violations: list[str] = []
    state = [True, 0]  # program running, write opens

    def deny(what: str) -> None:
        msg = f"forbidden: {what}"
        if not violations:
            violations.append(msg)
        raise SandboxViolation(msg)

    def inside(path: Any, roots: tuple[str, ...]) -> bool:
        if isinstance(path, bytes):
            path = fsdecode(path)
        if not isinstance(path, str):
            return False
        real = realpath(path)
        return real in read_files or any(real == r or real.startswith(r + sep) for r in roots)

    def dir_fd_used(args: tuple[Any, ...]) -> bool:
        return any(isinstance(a, int) and not isinstance(a, bool) and a != -1 for a in args[1:])

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = (*args, None, None, None)[:3]
            if isinstance(path, int):
                return  # an already open descriptor
            writing = isinstance(mode, str) and any(c in mode for c in "wax+")
            writing = writing or (isinstance(flags, int) and bool(flags & _WRITE_FLAGS))
            if writing:
                if not inside(path, (workdir,)):
                    deny(f"file write ({path})")
                state[1] += 1
                if state[1] > MAX_WRITE_OPENS:
                    deny(f"more than {MAX_WRITE_OPENS} files written")
            elif not inside(path, read_roots):
                deny(f"file access ({path})")
        elif event.startswith("socket."):
            deny(f"network access ({event})")
        elif event.startswith(_PROCESS):
            deny(f"process creation or signals ({event})")
        elif event.startswith(_NATIVE):
            deny(f"native code or interpreter internals ({event})")
        elif event == "object.__getattr__" and state[0]:
            deny(f"interpreter internals ({args[1] if len(args) > 1 else event})")
        elif event in _STRICT_EVENTS and state[0] and strict:
            deny(f"interpreter internals ({event})")
        elif event == "import" and str(args[0]).partition(".")[0] in _BLOCKED_IMPORTS:
            deny(f"import of {args[0]}")
        elif event in ("os.listdir", "os.scandir"):
            if not inside(args[0] or ".", read_roots):
                deny(f"file access ({args[0]})")
        elif event in _PATH_EVENTS:
            paths = [args[i] for i in _PATH_EVENTS[event] if i < len(args)]
            if any(not inside(p, (workdir,)) for p in paths):
                deny(f"file access ({event} {paths})")
        elif event in _DENIED_EVENTS:
            deny(f"file access ({event})")
        if (event in ("os.rename", "os.link", "os.symlink") and dir_fd_used(args[1:])) \
                or (event in _PATH_EVENTS and event not in ("os.rename",) and dir_fd_used(args)):
            deny(f"file access ({event} relative to a directory descriptor)")

    def end_program() -> None:
        state[0] = False

    return hook, end_program, violations


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
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        text = f"KeyError: {exc.args[0]}"[:800]
    else:
        text = f"{type(exc).__name__}: {exc}"[:800]
    if isinstance(exc, SyntaxError):
        return f"{text} (line {exc.lineno})" if exc.lineno else text
    frames = program_frames(exc)
    return f"{text} (line {frames[-1][0]})" if frames else text


def program_frames(exc: BaseException) -> list[list[Any]]:
    """[line, function] of the generated-code frames of a traceback, outermost first."""
    out: list[list[Any]] = []
    tb = exc.__traceback__  # walk frames by hand: reading source files is forbidden now
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == GENERATED:
            out.append([tb.tb_lineno, code.co_name])
        tb = tb.tb_next
    return out


def pick_entry(source: str, entry: str | None) -> str:
    """The function to call: `entry`, or the last top-level function the source defines."""
    if entry:
        return entry
    names = [n.name for n in ast.parse(source, GENERATED).body if isinstance(n, ast.FunctionDef)]
    if not names:
        raise ValueError("no top-level function defined")
    return names[-1]


@functools.cache
def _safe_builtins() -> dict[str, Any]:
    """The restricted builtins (built once per process: a zygote builds them for all its children,
    each of which gets its own copy with the fork)."""
    return _load_policy().safe_builtins()


@functools.cache
def _load_policy() -> Any:
    spec = importlib.util.spec_from_file_location("celltrace_program_policy", POLICY_FILE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_roots() -> tuple[str, ...]:
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return tuple(sorted({os.path.realpath(p) for p in prefixes}))


def run(request: dict[str, Any], layers: list[str]) -> dict[str, Any]:
    """Check and compile, lock down, then exec the source into a fresh namespace and call the entry."""
    restricted = bool(request.get("restricted", True))
    prelude = importlib.import_module(request["prelude"]) if request.get("prelude") else None
    namespace: dict[str, Any] = {"__name__": "__generated__"}
    if restricted:
        namespace["__builtins__"] = _safe_builtins()
        code = _load_policy().compile_program(request["source"], GENERATED)
    else:
        namespace["__builtins__"] = builtins
        code = compile(request["source"], GENERATED, "exec")
    if prelude is not None:
        public = getattr(prelude, "__all__", [n for n in vars(prelude) if not n.startswith("_")])
        namespace.update({n: getattr(prelude, n) for n in public})
    call = getattr(prelude, "sandbox_call", None)
    export = getattr(prelude, "sandbox_export", None)
    name = pick_entry(request["source"], request.get("entry"))
    args = request["args"]
    limits = request["limits"]
    workdir = os.getcwd()
    if restricted:
        layers.append("restricted-python")
    if set_rlimits(limits):
        layers.append("rlimits")
    if install_landlock((*_read_roots(), "/usr", "/lib", "/lib64", "/bin"), workdir):
        layers.append("landlock")
    if install_seccomp():
        layers.append("seccomp")
    hook, end_program, violations = make_guard(workdir, (*_read_roots(), workdir), restricted)
    sys.addaudithook(hook)
    del hook
    layers.append("audit-hook")
    captured = CappedText(int(limits["output_bytes"]))
    sys.stdout = sys.stderr = captured
    frames: list[list[Any]] = []
    try:
        try:
            exec(code, namespace)
            func = namespace.get(name)
            if not callable(func):
                raise NameError(f"entry function {name!r} not found")
            result = call(func, *args) if call else func(*args)
        finally:
            end_program()
        value = to_jsonable(export(result) if export else result)
        error = None
    except BaseException as exc:  # generated code may raise anything, SystemExit included
        value, error = None, describe_error(exc)
        frames = program_frames(exc)
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    if violations:
        value, error, frames = None, violations[0], []
    reply = {"ok": error is None, "value": value, "error": error, "stdout": "".join(captured.parts),
             "frames": frames}
    if len(json.dumps(value, ensure_ascii=False)) > int(limits["output_bytes"]):
        reply.update(ok=False, value=None, error="output too large (return value)")
    return reply


def main() -> None:
    """Read the request, run it, write the authenticated reply, exit without running finalizers."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # stray writes to fd 1 cannot corrupt the reply
    raw = sys.stdin.buffer.read()
    request = json.loads(raw)
    del raw
    mac = hmac.new(bytes.fromhex(request.pop("key")), digestmod=hashlib.sha256)
    layers: list[str] = []
    try:
        reply = run(request, layers)
    except BaseException as exc:  # setup failure (bad prelude, rlimit, seccomp): report, never hang
        reply = {"ok": False, "value": None, "error": f"sandbox setup failed: {describe_error(exc)}",
                 "stdout": "", "frames": []}
    reply["layers"] = layers
    try:
        text = json.dumps(reply, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except BaseException as exc:
        text = json.dumps({"ok": False, "value": None, "error": f"reply not serialisable: {exc}"[:500],
                           "stdout": "", "frames": [], "layers": layers}).encode("utf-8")
    mac.update(text)
    out.write(mac.hexdigest().encode() + b"\n" + text)
    out.flush()
    os._exit(0)


def zygote(prelude: str | None) -> None:
    """A warm parent of one-program children: imports what a child needs once, then per request
    forks a fresh child that runs `main` on pipes the server passed over the control socket.

    Fd 0 is a Unix SEQPACKET socket to the server. Each message is `{"seq", "timeout"}` with three
    descriptors: the child's stdin (the request), stdout (the reply) and stderr. The zygote never
    reads or writes them — requests and replies never enter its memory, so no child inherits
    another's data — and never runs generated code. It kills the child at `timeout` or when the
    server sends `{"kill": seq}`, removes the child's work dir, and answers `{"seq", "code"}` (the
    exit status, negative for a signal). It exits when the server goes away.
    """
    control = socket.socket(fileno=os.dup(0))
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    if prelude:
        importlib.import_module(prelude)
    _safe_builtins()  # imports every allowed module
    if sys.platform == "linux":
        _libc()
        _filter_types()
    base = os.getcwd()
    control.send(json.dumps({"ready": True}).encode())
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 4096, 3)
        except OSError:
            break
        if not message:
            break
        request = json.loads(message)
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"seq": request.get("seq"), "code": None}).encode())
            continue
        workdir = os.path.join(base, f"run-{int(request['seq'])}")
        os.mkdir(workdir, 0o700)
        pid = os.fork()
        if pid == 0:
            _forked_child(fds, workdir)
        for fd in fds:
            os.close(fd)
        code = _wait_child(pid, control, float(request["timeout"]))
        shutil.rmtree(workdir, ignore_errors=True)
        if code is None:  # the server is gone
            break
        control.send(json.dumps({"seq": request["seq"], "code": code}).encode())
    for name in os.listdir(base):
        shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    os._exit(0)


def _forked_child(fds: list[int], workdir: str) -> None:
    """In the fresh child: the passed pipes become fds 0-2, every other descriptor (the control
    socket among them) is closed, the work dir is its own; then `main` as in a new process."""
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 1 << 16)
        os.chdir(workdir)
        if "random" in sys.modules:  # not the zygote's sequence in every child
            sys.modules["random"].seed()
        main()
    finally:
        os._exit(70)


def _wait_child(pid: int, control: socket.socket, timeout: float) -> int | None:
    """The child's exit code after it ends (killed past `timeout` or on the server's request);
    None when the server went away meanwhile (the child is killed)."""
    deadline: float | None = time.monotonic() + timeout
    pidfd = os.pidfd_open(pid)
    gone = False
    with selectors.DefaultSelector() as sel:
        sel.register(pidfd, selectors.EVENT_READ, "child")
        sel.register(control, selectors.EVENT_READ, "server")
        while True:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0)
            ready = {key.data for key, _ in sel.select(wait)}
            if "child" in ready:
                break
            if "server" in ready:
                data = control.recv(4096)
                if not data:
                    gone = True
                    sel.unregister(control)
                if not data or json.loads(data).get("kill") is not None:
                    _kill_child(pid)
            if deadline is not None and time.monotonic() >= deadline:
                _kill_child(pid)
                deadline = None
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    return None if gone else os.waitstatus_to_exitcode(status)


def _kill_child(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--zygote"]:
        zygote(sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None)
    else:
        main()
