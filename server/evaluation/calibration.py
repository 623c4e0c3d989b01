"""How well a confidence separates right from wrong answers (AUROC) and matches accuracy (ECE)."""

from __future__ import annotations

from collections.abc import Sequence


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Area under the ROC curve of `scores` for `labels` (rank-based Mann–Whitney U, ties averaged).

    The probability that a random right answer scores higher than a random wrong one (a tie counts
    one half). None when either class is empty.
    """
    if len(scores) != len(labels):
        raise ValueError("scores and labels differ in length")
    n_pos = sum(1 for y in labels if y)
    n_neg = len(labels) - n_pos
    if not n_pos or not n_neg:
        return None
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1  # 1-based rank, averaged over the tie
        i = j + 1
    pos_ranks = sum(r for r, y in zip(ranks, labels, strict=True) if y)
    return (pos_ranks - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def ece(confidences: Sequence[float], labels: Sequence[bool], bins: int = 10) -> float | None:
    """Expected calibration error over `bins` equal-width bins of [0, 1].

    Σ_b (n_b / n) · |accuracy_b − mean confidence_b|; a confidence of exactly 1 falls in the last bin.
    None without any answer.
    """
    if len(confidences) != len(labels):
        raise ValueError("confidences and labels differ in length")
    if not confidences:
        return None
    sums: list[list[float]] = [[0, 0.0, 0.0] for _ in range(bins)]  # count, Σ confidence, Σ right
    for c, y in zip(confidences, labels, strict=True):
        if not 0.0 <= c <= 1.0:
            raise ValueError(f"confidence {c} outside [0, 1]")
        b = sums[min(int(c * bins), bins - 1)]
        b[0] += 1
        b[1] += c
        b[2] += bool(y)
    n = len(confidences)
    return sum(abs(right / count - conf / count) * count / n for count, conf, right in sums if count)
