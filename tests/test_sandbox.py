"""The layers under the restricted-Python check must hold on their own; honest programs must work.

These attacks are plain (unrestricted) Python, as if the allow-list of `program_policy` had been
bypassed: they exercise rlimits, Landlock, seccomp and the audit hook. Every attack runs under each
outer layer this machine supports (bubblewrap, a bare network namespace, none). The restricted path
through the real long-form engine is tested in `test_attacks.py`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from celltrace.server.infra import sandbox
from celltrace.server.infra.sandbox import SandboxLimits, SandboxResult, isolation_info, run_function

PROJECT = Path(sandbox.__file__).resolve().parent.parent
FAST = SandboxLimits(timeout_s=3.0, cpu_s=2)


def _available() -> list[str]:
    best = sandbox._wrapper()
    return {"bwrap": ["bwrap", "netns", ""], "netns": ["netns", ""], "": [""]}[best]


@pytest.fixture(params=_available(), ids=lambda w: w or "plain")
def wrapper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "netns" and subprocess.run(["unshare", "--net", "true"]).returncode:
        pytest.skip("unshare --net does not work here")
    monkeypatch.setattr(sandbox, "_wrapper", lambda: request.param)
    return request.param


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that records whether anything connected."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    srv.settimeout(0.2)
    hits: list[int] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            hits.append(1)
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield srv.getsockname()[1]
    stop.set()
    thread.join()
    srv.close()
    assert not hits, "the sandbox reached the host's loopback listener"


def raw(
    source: str,
    args: list[Any] | None = None,
    limits: SandboxLimits | None = None,
    entry: str | None = None,
    **kwargs: Any,
) -> SandboxResult:
    """`run_function` on unrestricted Python (the allow-list check skipped)."""
    return run_function(source, entry, args or [], limits, restricted=False, require=(), **kwargs)


def _fails(source: str, *needles: str, limits: SandboxLimits = FAST) -> str:
    result = raw(source, limits=limits)
    assert not result.ok, result
    assert result.error and any(n in result.error for n in needles), result.error
    assert result.value is None
    assert result.seconds < limits.timeout_s + 2
    return result.error


ATTACKS = {
    "etc_passwd": ("def f():\n    return open('/etc/passwd').read()\n", ("forbidden: file access",)),
    "project_file": (
        f"def f():\n    return open({str(PROJECT / 'pyproject.toml')!r}).read()\n",
        ("forbidden: file access",),
    ),
    "own_source": (f"def f():\n    return open({sandbox.__file__!r}).read()\n", ("forbidden: file access",)),
    "list_project": (
        f"import os\ndef f():\n    return os.listdir({str(PROJECT)!r})\n",
        ("forbidden: file access",),
    ),
    "write_outside": (
        "def f():\n    open('/tmp/celltrace-pwned', 'w').write('x')\n",
        ("forbidden: file write",),
    ),
    "subprocess": (
        "import subprocess\ndef f():\n    return subprocess.run(['ls']).returncode\n",
        ("forbidden: process creation",),
    ),
    "fork": ("import os\ndef f():\n    return os.fork()\n", ("forbidden: process creation",)),
    "system": ("import os\ndef f():\n    return os.system('id')\n", ("forbidden: process creation",)),
    "raw_fork_exec": (  # no audit event: only seccomp stops this one
        "import _posixsubprocess, os\ndef f():\n    r, w = os.pipe()\n"
        "    return _posixsubprocess.fork_exec([b'/bin/ls'], [b'/bin/ls'], True, (w,), None, None,"
        " -1, -1, -1, -1, -1, -1, r, w, True, False, -1, None, None, None, -1, None, False)\n",
        ("Operation not permitted",),
    ),
    "ctypes_system": (
        "import ctypes\ndef f():\n    return ctypes.CDLL(None).system(b'id')\n",
        ("forbidden: native code",),
    ),
    "ctypes_pythonapi": (
        "import ctypes\ndef f():\n    return ctypes.pythonapi.Py_GetVersion()\n",
        ("forbidden: native code",),
    ),
    "swallowed_violation": (
        "def f():\n    try:\n        open('/etc/passwd')\n    except BaseException:\n"
        "        pass\n    return 'got away'\n",
        ("forbidden: file access",),
    ),
    "recursion": ("def f(n=0):\n    return f(n + 1)\n", ("recursion too deep",)),
    "memory": ("def f():\n    return len(bytearray(8 * 1024 ** 3))\n", ("memory limit exceeded",)),
    "disk": (
        "def f():\n    with open('big.bin', 'wb') as fh:\n        for _ in range(2048):\n"
        "            fh.write(b'x' * 1024 * 1024)\n",
        ("file size limit exceeded",),
    ),
    "print_flood": (
        "def f():\n    for _ in range(100):\n        print('x' * 1_000_000)\n",
        ("output too large",),
    ),
    "huge_return": ("def f():\n    return 'x' * 100_000_000\n", ("output too large",)),
    "sys_exit": ("import sys\ndef f():\n    sys.exit(3)\n", ("SystemExit",)),
    "kill_parent": ("import os\ndef f():\n    os.kill(1, 9)\n", ("forbidden: process creation or signals",)),
}


@pytest.mark.parametrize("name", ATTACKS)
def test_attack_fails_safely(wrapper: str, name: str) -> None:
    source, needles = ATTACKS[name]
    _fails(source, *needles)
    assert not Path("/tmp/celltrace-pwned").exists()


def test_secret_environment_is_absent(wrapper: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    source = "import os\ndef f():\n    return [os.environ.get('OPENAI_API_KEY'), sorted(os.environ)]\n"
    result = raw(source)
    assert result.ok, result
    assert result.value[0] is None
    assert not any("KEY" in k for k in result.value[1])
    _fails("def f():\n    return open('/proc/self/environ').read()\n", "forbidden: file access")


def test_network_is_refused(wrapper: str, listener: int) -> None:
    for host, port in (("127.0.0.1", listener), ("203.0.113.1", 80)):
        src = f"import socket\ndef f():\n    socket.create_connection(({host!r}, {port}), timeout=1)\n"
        _fails(src, "forbidden: network access")


def test_infinite_loop_times_out(wrapper: str) -> None:
    error = _fails(
        "def f():\n    while True:\n        pass\n",
        "timeout after 1.0 s",
        limits=SandboxLimits(timeout_s=1.0),
    )
    assert error == "timeout after 1.0 s"


def test_cpu_limit_kills_before_wall_clock(wrapper: str) -> None:
    _fails(
        "def f():\n    while True:\n        pass\n",
        "cpu time limit exceeded",
        limits=SandboxLimits(timeout_s=5.0, cpu_s=1),
    )


def test_helpers_imports_and_copies(wrapper: str) -> None:
    source = (
        "import statistics\nfrom collections import Counter\n\n"
        "def helper(rows):\n    return [r['v'] * 2 for r in rows]\n\n"
        "def answer(table, key):\n    table['rows'].append({'v': 100})\n"
        "    print('rows', len(table['rows']))\n"
        "    return {'mean': statistics.mean(helper(table['rows'])), 'n': Counter([key])[key],\n"
        "            'pair': (1, 2), 'set': {3, 1, 2}, 'nan': float('nan')}\n"
    )
    table = {"rows": [{"v": 1}, {"v": 2}, {"v": 3}]}
    result = raw(source, [table, "k"])
    assert result.ok, result
    assert result.value == {"mean": 53, "n": 1, "pair": [1, 2], "set": [1, 2, 3], "nan": "nan"}
    assert result.stdout == "rows 4\n"
    assert table == {"rows": [{"v": 1}, {"v": 2}, {"v": 3}]}  # passed by value
    assert "rlimits" in result.mechanism and "audit-hook" in result.mechanism


def test_entry_selection_and_errors() -> None:
    source = "def first():\n    return 1\n\ndef second():\n    return 2\n"
    assert run_function(source, None, []).value == 2
    assert run_function(source, "first", []).value == 1
    missing = run_function(source, "third", [])
    assert not missing.ok and "third" in (missing.error or "")
    broken = run_function("def f(:\n    pass\n", None, [])
    assert not broken.ok and (broken.error or "").startswith("SyntaxError")
    raised = run_function("def f(x):\n    return 1 / x\n", None, [0])
    assert raised.error == "ZeroDivisionError: division by zero (line 2)"
    unjson = run_function("def f(x):\n    return x\n", None, [object()])
    assert not unjson.ok and "JSON" in (unjson.error or "")


def test_prelude_names_are_injected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_function("def f():\n    return dumps([1])\n", None, [], prelude_module="json")
    assert result.ok and result.value == "[1]", result
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # a private temp root: no other run's dirs
    bad = run_function("def f():\n    return 1\n", None, [], prelude_module="no_such_module_xyz")
    assert not bad.ok and "no_such_module_xyz" in (bad.error or "")
    assert not os.listdir(tmp_path)  # a zygote that could not start leaves no work folder behind


def test_still_works_after_attacks_and_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # a private temp root: no other run's dirs
    result = raw(
        "import os\ndef f(a):\n    open('scratch.txt', 'w').write('x')\n"
        "    return [a + 1, os.listdir('.')]\n",
        [41],
    )
    assert result.value == [42, ["scratch.txt"]], result
    homes = [tmp_path / n for n in os.listdir(tmp_path) if n.startswith("celltrace-sbx-")]
    assert all(not os.listdir(home) for home in homes)  # the program's work folder is gone (a zygote's
    sandbox.close_zygotes()  # home stays, empty, while the zygote lives)
    assert not [n for n in os.listdir(tmp_path) if n.startswith("celltrace-sbx-")]
    assert "audit-hook" in isolation_info()


@pytest.mark.skipif(not sandbox.ZYGOTE, reason="programs run in children of a zygote on Linux only")
def test_programs_of_a_warm_zygote_share_no_state(wrapper: str) -> None:
    leave = (
        "import builtins, os, sys\ndef f():\n    builtins.LEFT_BEHIND = 1\n"
        "    sys.modules['json'].LEFT_BEHIND = 1\n    open('left.txt', 'w').write('x')\n"
        "    return os.getpid()\n"
    )
    look = (
        "import builtins, json, os\ndef f():\n    return [hasattr(builtins, 'LEFT_BEHIND'),"
        " hasattr(json, 'LEFT_BEHIND'), os.path.exists('left.txt'), os.getpid()]\n"
    )
    first, second = raw(leave), raw(look)
    assert first.ok and second.ok, (first, second)
    assert second.value[:3] == [False, False, False]  # no module, builtin or file state carried over
    assert second.value[3] != first.value  # a new process per program
