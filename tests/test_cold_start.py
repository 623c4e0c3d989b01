"""Cold start: a command's --help and an offline answer load neither the LLM SDK, the HTTP server,
torch nor the embedding model (the modules a one-shot `celltrace ask` must not pay for)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "financials.xlsx"
HEAVY = ("openai", "httpx", "fastapi", "uvicorn", "torch", "sentence_transformers", "networkx")


def loaded_after(*argv: str, modules: tuple[str, ...] = HEAVY) -> list[str]:
    """The `modules` (default HEAVY) in `sys.modules` after running `celltrace ARGV` in a fresh
    interpreter."""
    code = (
        "import json, sys\n"
        f"sys.argv = ['celltrace', *{list(argv)!r}]\n"
        "from celltrace.server.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print(json.dumps([m for m in {modules!r} if m in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [("--help",), ("ask", "--help"), ("graph", "--help")])
def test_help_loads_no_heavy_module(argv: tuple[str, ...]) -> None:
    loaded = loaded_after(*argv)
    assert "openai" not in loaded and "torch" not in loaded and "fastapi" not in loaded
    if argv != ("--help",):
        assert loaded == []


def test_root_help_loads_no_workbook_library() -> None:
    # the command list needs no openpyxl (question cleaning imports it for annotations only)
    assert loaded_after("--help", modules=("openpyxl", *HEAVY)) == []


def test_offline_ask_loads_no_llm_client_nor_model() -> None:
    loaded = loaded_after(
        "ask", str(EXAMPLE), "What was cargo revenue in 2016?", "--engine", "offline", "--json"
    )
    assert not {"openai", "fastapi", "torch", "sentence_transformers"} & set(loaded)
