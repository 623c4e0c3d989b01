"""LLM judge (GraphOTTER Figure 15) on stage JUDGE, with verdicts cached on disk.

The judge runs at temperature 0 whatever the engine's temperature is; only the first token of the
reply counts (`yes_no_verdict`); an unparseable reply or a transport failure counts as "no" and is
not cached, so a later run asks again.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from celltrace.server.evaluation.longform_metrics import yes_no_verdict
from celltrace.server.infra.llm import LLMClient, LLMError, UsageMeter
from celltrace.server.infra.prompting import render
from celltrace.server.infra.settings import Settings


class Judge:
    """Yes/no correctness verdicts, cached by (question, gold, prediction, model) in a JSONL file."""

    def __init__(self, settings: Settings, cache_path: Path) -> None:
        self.settings = settings.model_copy(update={"temperature": 0.0})
        self.client = LLMClient(self.settings)
        self.model = self.settings.model_for("JUDGE")
        self.cache_path = cache_path
        self._lock = threading.Lock()
        self._cache: dict[str, bool] = {}
        if cache_path.exists():
            for line in cache_path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self._cache[row["key"]] = bool(row["verdict"])
                except (ValueError, KeyError, TypeError):
                    continue

    def _key(self, question: str, gold: str, prediction: str) -> str:
        blob = json.dumps([question, gold, prediction, self.model], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def verdict(self, question: str, gold: str, prediction: str, meter: UsageMeter) -> bool:
        """True when the judge says the prediction answers the question like the gold does."""
        if not prediction.strip():
            return False
        key = self._key(question, gold, prediction)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        prompt = render("judge", question=question, ground_truth=gold, prediction=prediction)
        try:
            reply = self.client.complete("JUDGE", [{"role": "user", "content": prompt}], meter)
        except LLMError:
            return False
        verdict = yes_no_verdict(reply)
        if verdict is None:
            return False
        with self._lock:
            self._cache[key] = verdict
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            with self.cache_path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"key": key, "verdict": verdict}) + "\n")
        return verdict
