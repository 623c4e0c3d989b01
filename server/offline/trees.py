"""Gradient-boosted trees exported as JSON (fitted by `benchmarks/fit_confidence.py` on train data),
evaluated with numpy only: no scikit-learn at run time."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import numpy as np


class TreeModel:
    """Binary log-loss boosted regression trees: `init + rate · Σ leaf values`, logistic link."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.features: list[str] = list(spec["features"])
        self.init = float(spec["init"])
        self.rate = float(spec["learning_rate"])
        self.trees = [
            tuple(np.asarray(t[k]) for k in ("feature", "threshold", "left", "right", "value"))
            for t in spec["trees"]
        ]

    def matrix(self, rows: Sequence[Mapping[str, float]]) -> np.ndarray:
        """Feature rows as a matrix in the model's column order (a missing feature reads -1)."""
        return np.array([[r.get(n, -1.0) for n in self.features] for r in rows], dtype=float)

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """P(positive) for each row of `x`."""
        raw = np.full(len(x), self.init)
        rows = np.arange(len(x))
        for feature, threshold, left, right, value in self.trees:
            node = np.zeros(len(x), dtype=int)
            while True:
                inner = left[node] >= 0
                if not inner.any():
                    break
                go_left = x[rows, np.maximum(feature[node], 0)] <= threshold[node]
                node = np.where(inner, np.where(go_left, left[node], right[node]), node)
            raw += self.rate * value[node]
        return 1.0 / (1.0 + np.exp(-raw))


@functools.lru_cache(maxsize=4)
def load(name: str) -> TreeModel:
    """A model shipped with the package (`celltrace/server/offline/<name>.json`)."""
    text = resources.files("celltrace.server.offline").joinpath(f"{name}.json").read_text()
    return TreeModel(json.loads(text))
