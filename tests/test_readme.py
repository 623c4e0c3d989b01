"""README's contract: exactly a set-up, a main job and a test command; the main job answers offline."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from celltrace.server.infra.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_readme_has_exactly_install_main_job_and_test() -> None:
    install, main_job, test = _commands()
    assert "\n" not in install  # one set-up line: venv, activate, install
    assert install.startswith("python3 -m venv .venv && ") and "pip install torch==2.13.0 -e ." in install
    assert main_job.startswith("celltrace ask examples/")
    assert test == "pytest"


def test_main_job_answers_offline_with_evidence() -> None:
    args = shlex.split(_commands()[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELLTRACE_", "OPENAI_"))}
    env["HF_HUB_OFFLINE"] = "1"
    exe = Path(sys.executable).with_name("celltrace")
    done = subprocess.run(
        [str(exe), *args[1:], "--json"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["engine"] == "offline" and result["usage"]["llm_calls"] == 0
    # an answer, or below the abstain threshold a best guess, with its calibrated confidence
    threshold = Settings().offline_min_confidence
    assert result["status"] == ("answered" if result["confidence"] >= threshold else "abstained")
    assert result["answer"] == ["700"]
    roles = {e["role"] for e in result["evidence"]}
    assert roles == {"answer", "header"}
    answer_cells = [e for e in result["evidence"] if e["role"] == "answer"]
    assert [e["text"] for e in answer_cells] == result["answer"]
