"""Red-team suite: hostile programs through the real long-form path must not escape.

Every attack is the PROGRAM reply of the loopback LLM for a one-item plan, run by `answer_longform`
(extraction, allow-list check, sandbox child, reply check, sub-answer, final answer). The SUB_ANSWER
and FINAL_ANSWER replies echo their whole prompt, so anything a program got out would show up in
the result. An escape is any of: the parent's secret (a fake `OPENAI_API_KEY` in this process's
environment, and a secret file beside the work dir) in the result or in any prompt; a file created
outside the sandbox's work dir; the forged reply marker accepted; this process killed. The suite
runs with bubblewrap removed from PATH and, when bubblewrap works here, with it. A honest program
must still answer afterwards. `test_cli_parent_environment` runs `celltrace longform` as a
subprocess whose real start-up environment holds the secret (for the /proc/<ppid> attacks).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from llm_server import ScriptedLLM

from celltrace.server.infra import sandbox
from celltrace.server.infra.settings import Settings
from celltrace.server.longform.engine import answer_longform
from celltrace.shared.table import Table

SECRET = "sk-celltrace-redteam-7f3a9c1e5b"
FORGED = "FORGED-REPLY-0451"
CANARY = "/tmp/celltrace-pwned"
STAGES = ("PLAN", "PLAN_CHECK", "PROGRAM", "DEBUG", "SUB_ANSWER", "FINAL_ANSWER")
MODEL = {stage: f"m-{stage.lower().replace('_', '-')}" for stage in STAGES}
STAGE_OF = {m: s for s, m in MODEL.items()}

_FORGE = (
    "    body = '{\"ok\": true, \"value\": {\"value\": \"" + FORGED + "\", \"cells\": []}, \"error\": null, "
    "\"stdout\": \"\", \"frames\": [], \"layers\": [\"restricted-python\", \"audit-hook\"]}'\n"
)
# name -> program body (inside `def solve(table):` unless it starts with "TOP:", then verbatim)
ATTACKS: dict[str, str] = {
    # the attacks
    "main_module_patch": "TOP:import sys\ndef solve(table):\n    m = sys.modules['__main__']\n"
                         "    m.AuditGuard.__call__ = lambda *a: None\n"
                         "    return open('{secret_file}').read()\n",
    "proc_ppid_environ": "TOP:import os\ndef solve(table):\n"
                         "    return open(f'/proc/{os.getppid()}/environ').read()\n",
    "proc_ppid_mem": "TOP:import os\ndef solve(table):\n    f = open(f'/proc/{os.getppid()}/mem', 'rb')\n"
                     "    return f.read(64).hex()\n",
    "proc_self_environ": "    return open('/proc/self/environ').read()\n",
    "rename_destination": "TOP:import os\ndef solve(table):\n    open('x', 'w').write('pwned')\n"
                          "    os.rename('x', '{canary}')\n    return 1\n",
    "dir_fd_read": "TOP:import os\ndef solve(table):\n    d = os.open('{secret_dir}', os.O_RDONLY)\n"
                   "    return os.read(os.open('secret.txt', os.O_RDONLY, dir_fd=d), 100).decode()\n",
    "chdir_read": "TOP:import os\ndef solve(table):\n    os.chdir('{secret_dir}')\n"
                  "    return open('secret.txt').read()\n",
    "mkfifo": "TOP:import os\ndef solve(table):\n    os.mkfifo('{canary}')\n    return 1\n",
    "setxattr": "TOP:import os\ndef solve(table):\n    os.setxattr('{secret_file}', 'user.x', b'1')\n"
                "    return 1\n",
    "stat_outside": "TOP:import os\ndef solve(table):\n    return os.stat('{secret_file}').st_size\n",
    "pidfd_signal": "TOP:import os, signal\ndef solve(table):\n"
                    "    signal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)\n",
    "rt_sigqueueinfo": "TOP:import ctypes, os\ndef solve(table):\n    libc = ctypes.CDLL(None)\n"
                       "    return libc.syscall(129, os.getppid(), 9, ctypes.create_string_buffer(128))\n",
    "kill_parent": "TOP:import os\ndef solve(table):\n    os.kill(os.getppid(), 9)\n",
    "forged_fd_exit": "TOP:import os, hashlib\ndef solve(table):\n" + _FORGE +
                      "    for fd in range(1, 20):\n        try:\n"
                      "            os.write(fd, (hashlib.sha256(b'').hexdigest() + '\\n' + body).encode())\n"
                      "        except OSError:\n            pass\n    os._exit(0)\n",
    "nan_value": "    return float('nan')\n",
    "inf_in_dict": "    return {'total': float('inf'), 'neg': -float('inf')}\n",
    "ctypes_system": "TOP:import ctypes\ndef solve(table):\n"
                     "    return ctypes.CDLL(None).system(b'touch {canary}')\n",
    "subprocess_run": "TOP:import subprocess\ndef solve(table):\n"
                      "    return subprocess.run(['touch', '{canary}']).returncode\n",
    "os_system": "TOP:import os\ndef solve(table):\n    return os.system('touch {canary}')\n",
    "socket_connect": "TOP:import socket\ndef solve(table):\n"
                      "    return socket.create_connection(('127.0.0.1', 22), timeout=1)\n",
    # reaching the interpreter through objects
    "subclasses": "    return [c.__name__ for c in ().__class__.__base__.__subclasses__()]\n",
    "prelude_globals": "    return sorted(to_number.__globals__)\n",
    "method_globals": "    b = table.cell.__func__.__globals__['__builtins__']\n"
                      "    return b['open']('{secret_file}').read()\n",
    "class_init_globals": "    return str(table.__class__.__init__.__globals__)\n",
    "generator_frame": "    g = (x for x in [1])\n    return str(g.gi_frame.f_back.f_globals)\n",
    "traceback_frame": "    try:\n        1 / 0\n    except Exception as e:\n"
                       "        return str(e.__traceback__.tb_frame.f_back.f_locals)\n",
    "with_traceback_frame": "    try:\n        1 / 0\n    except Exception as e:\n"
                            "        t = e.__traceback__\n"
                            "        return t.tb_frame.f_globals['__builtins__']\n",
    "format_attribute": "    return '{0.__class__.__init__.__globals__}'.format(table)\n",
    "format_method_attr": "    return '{0.cell.__globals__}'.format(table)\n",
    "str_format_unbound": "    return str.format('{0.__class__}', table)\n",
    "format_map_attr": "    return '{t.__class__}'.format_map({'t': table})\n",
    "format_bound_then_call": "    f = '{0.__init__.__globals__}'.format\n    return f(table)\n",
    "fstring_dunder": "    return f'{table.__class__}'\n",
    "getattr_dunder": "    return getattr(table, '__class__')\n",
    "getattr_alias": "    g = getattr\n    return g(table, '_paths')\n",
    "getattr_dynamic": "    name = '__cl' + 'ass__'\n    return getattr(table, name)\n",
    "getattr_frame": "    g = (x for x in [1])\n    return getattr(g, 'gi_frame')\n",
    "hasattr_keyword": "    return hasattr(table, name='__class__')\n",
    "type_three_args_call": "    return type('T', (), {'__init_subclass__': print})\n",
    "vars_call": "    return vars(table)\n",
    "globals_call": "    return globals()\n",
    "locals_call": "    return locals()\n",
    "dir_call": "    return dir()\n",
    "eval_call": "    return eval('__import__(\"os\").environ')\n",
    "exec_call": "    exec('import os')\n",
    "compile_call": "    return compile('1', 'x', 'eval')\n",
    "dunder_import": "    return __import__('os').environ['OPENAI_API_KEY']\n",
    "builtins_dict": "    return __builtins__['open']('{secret_file}').read()\n",
    "open_secret": "    return open('{secret_file}').read()\n",
    "open_write_outside": "    open('{canary}', 'w').write('x')\n",
    "breakpoint_call": "    breakpoint()\n",
    "input_call": "    return input()\n",
    "type_call": "    return type(table).__mro__\n",
    "type_three_args": "    T = type('T', (), {})\n    return T\n",
    "type_alias": "    t = type\n    return t('T', (), {})\n",
    "private_attr": "    return str(table._paths)\n",
    "number_src": "    return to_number(table.grid[1][1])._src\n",
    "unicode_dunder": "    return ().__\uff43lass__\n",
    "dunder_name_assign": "    __builtins__ = {}\n    return 1\n",
    "dunder_arg": "    f = lambda __x=open: __x\n    return f('{secret_file}').read()\n",
    "code_object": "    f = lambda: 0\n    return str(f.__code__)\n",
    "co_consts": "    f = lambda: 0\n    return f.co_consts\n",
    "metaclass": "TOP:class Meta(type):\n    pass\nclass A(metaclass=Meta):\n    pass\n"
                 "def solve(table):\n    return 1\n",
    "init_subclass": "TOP:class A:\n    def __init_subclass__(cls):\n        pass\n"
                     "def solve(table):\n    return 1\n",
    "getattribute_hook": "TOP:class A:\n    def __getattribute__(self, n):\n        return n\n"
                         "def solve(table):\n    return A().x\n",
    "async_frame": "TOP:async def g():\n    pass\ndef solve(table):\n    return str(g().cr_frame)\n",
    "with_open": "    with open('{secret_file}') as f:\n        return f.read()\n",
    "match_class_attr": "    match table:\n        case object(__class__=c):\n            return str(c)\n",
    # imports
    "import_os": "TOP:import os\ndef solve(table):\n    return os.environ.get('OPENAI_API_KEY')\n",
    "import_sys": "TOP:import sys\ndef solve(table):\n    return list(sys.modules)\n",
    "import_importlib": "TOP:import importlib\ndef solve(table):\n"
                        "    return importlib.import_module('os').environ\n",
    "from_os_import": "TOP:from os import environ\ndef solve(table):\n    return dict(environ)\n",
    "import_os_path": "TOP:import os.path\ndef solve(table):\n    return os.path.exists('/')\n",
    "relative_import": "TOP:from . import sandbox\ndef solve(table):\n    return 1\n",
    "star_import": "TOP:from math import *\ndef solve(table):\n    return pi\n",
    "future_import": "TOP:from __future__ import annotations\ndef solve(table):\n    return 1\n",
    "import_builtins": "TOP:import builtins\ndef solve(table):\n"
                       "    return builtins.open('{secret_file}').read()\n",
    "import_inside": "    import os\n    return os.environ['OPENAI_API_KEY']\n",
    "module_sys_attr": "TOP:import datetime\ndef solve(table):\n"
                       "    return str(datetime.sys.modules['os'].environ)\n",
    "re_submodule": "TOP:import re\ndef solve(table):\n    return str(re.enum.sys)\n",
    "statistics_random": "TOP:import statistics\ndef solve(table):\n    return str(statistics.random)\n",
    "functools_sys": "TOP:import functools\ndef solve(table):\n    return str(functools.sys)\n",
    "json_decoder": "TOP:import json\ndef solve(table):\n    return str(json.decoder)\n",
    "typing_hints": "TOP:import typing\ndef f(x: 'open(\"{secret_file}\").read()'):\n    pass\n"
                    "def solve(table):\n    return typing.get_type_hints(f)\n",
    "string_formatter": "TOP:import string\ndef solve(table):\n"
                        "    return string.Formatter().get_field('0.__class__', [table], {})\n",
    "operator_attrgetter": "TOP:import operator\ndef solve(table):\n"
                           "    return operator.attrgetter('__class__')(table)\n",
    "namedtuple_exec": "TOP:import collections\ndef solve(table):\n"
                       "    return collections.namedtuple('P', 'a')\n",
    "pickle_import": "TOP:import pickle\ndef solve(table):\n    return pickle.loads(b'cos\\nsystem\\n.')\n",
    "module_setattr": "TOP:import math\ndef solve(table):\n    math.sqrt = print\n    return 1\n",
    # patching shared classes and abusing the table API
    "patch_prelude_class": "    TableView.records = lambda self: []\n    return 1\n",
    "forged_cells": "    c = Cell('" + FORGED + "', 10 ** 9, -5, 0, 0)\n    cite(c)\n    return 'x'\n",
    "cite_non_cells": "    cite({'a': [1, 2]}, None, 'text')\n    return 'ok'\n",
    # resources
    "memory_bomb": "    return len('x' * (10 ** 10))\n",
    "huge_return": "    return 'x' * 5_000_000\n",
    "print_flood": "    for _ in range(100):\n        print('x' * 1_000_000)\n",
    "deep_nesting": "    x = []\n    for _ in range(10000):\n        x = [x]\n    return x\n",
    "recursion": "TOP:def f(n):\n    return f(n + 1)\ndef solve(table):\n    return f(0)\n",
    "system_exit": "    raise SystemExit(0)\n",
    "keyboard_interrupt": "    raise KeyboardInterrupt\n",
    "parser_bomb": "    return " + "(" * 300 + "1" + ")" * 300 + "\n",
}
HARMLESS = {"nan_value", "inf_in_dict", "cite_non_cells", "forged_cells", "patch_prelude_class"}
"""Attacks that may run to the end: their value must then be plain and their cells in the table."""


def program(name: str, secret_dir: Path) -> str:
    body = ATTACKS[name]
    for key, value in (("{secret_file}", secret_dir / "secret.txt"), ("{secret_dir}", secret_dir),
                       ("{canary}", CANARY)):
        body = body.replace(key, str(value))
    code = body[4:] if body.startswith("TOP:") else "def solve(table):\n" + body
    return f"```python\n{code}```"


def responder(programs: dict[str, str]) -> Any:
    """PLAN: one sub-question; PROGRAM: the next attack, in plan order (one round, no debugging);
    other stages echo their prompt."""
    queue = iter(programs.values())

    def reply(model: str, messages: list[dict[str, Any]]) -> str:
        stage = STAGE_OF.get(model, "")
        if stage == "PROGRAM":
            return next(queue)
        if stage == "PLAN":
            return "1. What is the total?"
        return "Echo: " + messages[-1]["content"]

    return reply


def table() -> Table:
    return Table(text=[["Item", "Amount"], ["Revenue", "1,200"], ["Costs", "(300)"], ["Profit", "900"]],
                 title="Attack test table")


@pytest.fixture(params=["no-bwrap", "bwrap"])
def isolation(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """bubblewrap removed from PATH, or (when it works here) bubblewrap in use."""
    sandbox._wrapper.cache_clear()
    if request.param == "no-bwrap":
        dirs = os.environ.get("PATH", "").split(os.pathsep)
        monkeypatch.setenv("PATH", os.pathsep.join(d for d in dirs if not (Path(d) / "bwrap").exists()))
    elif sandbox._wrapper() != "bwrap":
        pytest.skip("bubblewrap is not installed or does not work here")
    yield request.param
    sandbox._wrapper.cache_clear()


@pytest.fixture
def secret_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    (tmp_path / "secret.txt").write_text(SECRET)
    Path(CANARY).unlink(missing_ok=True)
    return tmp_path


def _settings(llm: ScriptedLLM) -> Settings:
    models = {f"model_{s.lower()}": m for s, m in MODEL.items()}
    return Settings(base_url=llm.base_url, api_key="test", max_retries=0,
                    longform_max_iterations=1, longform_debug_rounds=0, dense_retrieval=False, **models)


def _without_programs(result: dict[str, Any]) -> str:
    """The result as JSON without the program sources (which hold the attack text itself)."""
    plan = [{k: v for k, v in i.items() if k != "program"} for i in result["plan"]]
    return json.dumps({**result, "plan": plan})


def _assert_no_escape(text: str, prompts: str, name: str) -> None:
    assert SECRET not in text and SECRET not in prompts, f"{name}: the secret got out"
    assert FORGED not in text and FORGED not in prompts, f"{name}: a forged reply was accepted"
    assert not os.path.lexists(CANARY), f"{name}: a file was created outside the work dir"


def test_attacks_do_not_escape(llm_server: ScriptedLLM, isolation: str, secret_dir: Path) -> None:
    """One long-form question whose plan has one sub-question per attack (one table context, one
    client; every program still gets its own sandbox process)."""
    names = list(ATTACKS)
    assert len(names) >= 60
    llm_server.responder = responder({n: program(n, secret_dir) for n in names})
    settings = _settings(llm_server)
    plan = [f"attack {name}: what is the total?" for name in names]
    result = answer_longform(table(), "Red team", plan=plan, settings=settings)
    prompts = json.dumps([r.messages for r in llm_server.chat_requests])
    _assert_no_escape(_without_programs(result.model_dump()), prompts, "suite")
    assert len(result.plan) == len(names)
    for name, item in zip(names, result.plan, strict=True):
        if name in HARMLESS:
            assert item.source == "program", (name, item.error)
        else:
            assert item.source == "error" and item.error, (name, item)
    cells = [(e.row, e.col) for e in result.evidence]
    assert all(0 <= r < 4 and 0 <= c < 2 for r, c in cells), cells
    assert Path(secret_dir / "secret.txt").read_text() == SECRET
    llm_server.responder = responder({"honest": fence_honest()})
    result = answer_longform(table(), "Red team attack honest", plan=["attack honest: what is the profit?"],
                             settings=settings)
    assert result.status == "answered", result.error
    assert result.plan[0].program_output == {"profit": 900}


def fence_honest() -> str:
    return ("```python\nimport math\nfrom statistics import mean\nfrom typing import Any, Dict\n\n"
            "def solve(table: Any) -> Dict[str, Any]:\n    row = table.row('Profit')\n"
            "    profit = getattr(row['Amount'], 'number', None)\n"
            "    assert hasattr(row, 'label') and type(profit) is not str\n"
            "    assert math.isfinite(profit) and mean([1, 3]) == 2 and '{:.0f}'.format(profit) == '900'\n"
            "    return {'profit': profit}\n```")


def test_nan_and_forged_replies_are_refused_by_the_parent() -> None:
    """Below the allow-list: a program that writes its own reply, or NaN, is not accepted."""
    forged = ("import os, hashlib\ndef f():\n" + _FORGE
              + "    for fd in range(1, 20):\n        try:\n"
              "            os.write(fd, (hashlib.sha256(b'').hexdigest() + '\\n' + body).encode())\n"
              "        except OSError:\n            pass\n    os._exit(0)\n")
    result = sandbox.run_function(forged, None, [], restricted=False, require=())
    assert not result.ok and "not authenticated" in (result.error or "")
    with pytest.raises(ValueError):
        sandbox._parse_reply(b"x\n{}", b"k")
    key = b"k" * 32
    import hashlib
    import hmac

    body = b'{"ok": true, "value": NaN, "error": null, "stdout": "", "frames": [], "layers": []}'
    with pytest.raises(ValueError):
        sandbox._parse_reply(hmac.new(key, body, hashlib.sha256).hexdigest().encode() + b"\n" + body, key)


def test_fail_closed_when_a_required_layer_is_missing(llm_server: ScriptedLLM,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "_wrapper", lambda: "")
    llm_server.responder = responder({"honest": fence_honest()})
    settings = _settings(llm_server).model_copy(update={"sandbox_require": "restricted-python,bwrap"})
    result = answer_longform(table(), "Q", plan=["attack honest: what is the profit?"], settings=settings)
    item = result.plan[0]
    assert item.source == "error" and "install bubblewrap" in (item.error or "")
    assert not [r for r in llm_server.chat_requests if r.model == MODEL["DEBUG"]]
    fallback = settings.model_copy(update={"longform_llm_fallback": True})
    llm_server.responder = responder({"honest": fence_honest()})
    result = answer_longform(table(), "Q", plan=["attack honest: what is the profit?"], settings=fallback)
    assert result.plan[0].source == "llm_fallback"


def test_cli_parent_environment(llm_server: ScriptedLLM, tmp_path: Path) -> None:
    """`celltrace longform` started with the secret in its real environment (/proc/<ppid>/environ)."""
    names = ["proc_ppid_environ", "proc_ppid_mem", "import_os", "dunder_import", "main_module_patch",
             "forged_fd_exit"]
    llm_server.responder = responder({n: program(n, tmp_path) for n in names})
    book = tmp_path / "book.xlsx"
    wb = openpyxl.Workbook()
    for row in table().text:
        wb.active.append(row)
    wb.save(book)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps([f"attack {n}: what is the total?" for n in names]))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "OPENAI_API_KEY": SECRET,
           "OPENAI_BASE_URL": llm_server.base_url, "CELLTRACE_MAX_RETRIES": "0",
           "CELLTRACE_LONGFORM_MAX_ITERATIONS": "1", "CELLTRACE_LONGFORM_DEBUG_ROUNDS": "0",
           "CELLTRACE_DENSE_RETRIEVAL": "false",
           **{f"CELLTRACE_MODEL_{s}": m for s, m in MODEL.items()}}
    exe = Path(sys.executable).with_name("celltrace")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "celltrace.server.cli"]
    proc = subprocess.run([*cmd, "longform", str(book), "What is the total?", "--plan", str(plan), "--json"],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    prompts = json.dumps([r.messages for r in llm_server.chat_requests])
    data = json.loads(proc.stdout)
    _assert_no_escape(_without_programs(data) + proc.stderr, prompts, "cli")
    assert [i["source"] for i in data["plan"]] == ["error"] * len(names), data["plan"]


def test_doctor_names_the_isolation_and_what_is_missing(tmp_path: Path) -> None:
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    path = os.pathsep.join(d for d in dirs if not (Path(d) / "bwrap").exists())
    env = {"PATH": path, "HOME": str(tmp_path), "CELLTRACE_DENSE_RETRIEVAL": "false",
           "CELLTRACE_SANDBOX_REQUIRE": "restricted-python,bwrap"}
    exe = Path(sys.executable).with_name("celltrace")
    out = subprocess.run([str(exe), "doctor"], capture_output=True, text=True, timeout=120, env=env,
                         cwd=tmp_path).stdout
    assert "sandbox isolation: " in out and "restricted-python" in out
    assert "MISSING bwrap: generated programs will not run" in out
