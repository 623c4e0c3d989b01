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
        # all trees in one node table (children as indices into it, -1 at a leaf), so a row walks every
        # tree at once: one numpy step per depth level instead of one per tree and level
        trees = spec["trees"]
        sizes = [len(t["feature"]) for t in trees]
        self.roots = np.cumsum([0, *sizes[:-1]], dtype=np.int64)
        glue = np.concatenate

        def children(key: str) -> np.ndarray:
            own = [np.asarray(t[key]) for t in trees]
            return glue([np.where(c >= 0, c + r, -1) for c, r in zip(own, self.roots, strict=True)])

        self.feature = np.maximum(glue([np.asarray(t["feature"]) for t in trees]), 0)
        self.threshold = glue([np.asarray(t["threshold"], dtype=float) for t in trees])
        self.left, self.right = children("left"), children("right")
        self.value = glue([np.asarray(t["value"], dtype=float) for t in trees])

    def matrix(self, rows: Sequence[Mapping[str, float]]) -> np.ndarray:
        """Feature rows as a matrix in the model's column order (a missing feature reads -1)."""
        return np.array([[r.get(n, -1.0) for n in self.features] for r in rows], dtype=float)

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """P(positive) for each row of `x`."""
        rows = np.arange(len(x))[None, :]
        node = np.repeat(self.roots[:, None], len(x), axis=1)  # (tree, row)
        while True:
            inner = self.left[node] >= 0
            if not inner.any():
                break
            go_left = x[rows, self.feature[node]] <= self.threshold[node]
            node = np.where(inner, np.where(go_left, self.left[node], self.right[node]), node)
        # init, then each tree's step in tree order (cumsum adds in sequence, as boosting does)
        steps = np.vstack([np.full((1, len(x)), self.init), self.rate * self.value[node]])
        raw = np.cumsum(steps, axis=0)[-1]
        return 1.0 / (1.0 + np.exp(-raw))


@functools.lru_cache(maxsize=4)
def load(name: str) -> TreeModel:
    """A model shipped with the package (`celltrace/server/offline/<name>.json`)."""
    text = resources.files("celltrace.server.offline").joinpath(f"{name}.json").read_text()
    return TreeModel(json.loads(text))
