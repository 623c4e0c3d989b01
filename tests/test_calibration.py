"""AUROC (rank-based, ties averaged) and expected calibration error."""

from __future__ import annotations

import pytest

from celltrace.server.evaluation.calibration import auroc, ece


def test_auroc_perfect_inverse_and_uninformative() -> None:
    assert auroc([0.9, 0.8, 0.2, 0.1], [True, True, False, False]) == 1.0
    assert auroc([0.1, 0.2, 0.8, 0.9], [True, True, False, False]) == 0.0
    assert auroc([0.5, 0.5, 0.5, 0.5], [True, False, True, False]) == 0.5  # all tied


def test_auroc_counts_a_tie_as_one_half() -> None:
    # pairs (right, wrong): (0.8, 0.3) win, (0.8, 0.5) win, (0.5, 0.3) win, (0.5, 0.5) tie → 3.5 / 4
    assert auroc([0.8, 0.5, 0.5, 0.3], [True, True, False, False]) == pytest.approx(3.5 / 4)


def test_auroc_needs_both_classes() -> None:
    assert auroc([0.1, 0.9], [True, True]) is None
    assert auroc([], []) is None
    with pytest.raises(ValueError):
        auroc([0.1], [True, False])


def test_ece_bins_by_confidence() -> None:
    assert ece([1.0, 1.0, 0.0, 0.0], [True, True, False, False]) == 0.0  # 1.0 falls in the last bin
    # bin [0.9, 1): mean 0.9, accuracy 1/2 → 0.4; bin [0.2, 0.3): mean 0.2, accuracy 0 → 0.2
    assert ece([0.9, 0.9, 0.2, 0.2], [True, False, False, False]) == pytest.approx(0.5 * 0.4 + 0.5 * 0.2)
    assert ece([0.75] * 4, [True, True, True, False]) == pytest.approx(0.0)
    assert ece([], []) is None
    with pytest.raises(ValueError):
        ece([1.2], [True])
