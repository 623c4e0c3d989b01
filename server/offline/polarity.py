"""Yes/no lines: which of them a question names by saying a characteristic with or without a
negation (`people who experienced X` → `Yes` under X, `those who did not` → `No`)."""

from __future__ import annotations

import itertools
import re

from celltrace.shared.graph import normalise_text

POLAR_LABELS = frozenset({"yes", "no"})
"""Labels answering a yes/no characteristic."""
_NEGATIONS = frozenset({"not", "no", "without", "never", "non", "neither", "nor"})
_TOKEN = re.compile(r"[\w'-]+")


def _negates(token: str) -> bool:
    """`not`, `without`, `didn't`, `non-victims` …"""
    return token in _NEGATIONS or token.endswith("n't") or token.startswith("non-")


_CONTRAST = re.compile(
    r"\b(?:or|than|versus|vs|compared\s+(?:with|to)|and\s+(?:those|people|persons|individuals|that\s+of))\b")
"""Words between the two sides of a comparison: each side says a characteristic with or without a
negation."""


def polar_positions(question: str, labels: list[str]) -> dict[str, int]:
    """Where the question names each polar label (`yes`, `no`): the start of its first clause that
    says the characteristic without a negation (`yes`), and the first negation (`no`); clauses are
    split at the words of a contrast (`or`, `than`, `compared with`, `and those`). A negation a
    label words together with the word after it (`could not afford`, `non-victims`) is that label's,
    not one of the question's."""
    q = normalise_text(question)
    negations = _negations(q, labels)
    found: dict[str, int] = {}
    start = 0
    for end in [m.start() for m in _CONTRAST.finditer(q)] + [len(q)]:
        neg = next((pos for pos in negations if start <= pos < end), None)
        if neg is not None:
            found.setdefault("no", neg)
        else:
            found.setdefault("yes", start)
        start = end
    return found


def _negations(q: str, labels: list[str]) -> list[int]:
    """Where the question negates: each negating word but those a label holds with the word after
    it, or whole when it is more than the bare negation (`non-victims`)."""
    label_words = [_TOKEN.findall(normalise_text(text)) for text in labels]
    worded = {w for ws in label_words for w in ws} | {p for ws in label_words for p in itertools.pairwise(ws)}
    tokens = [m.group() for m in _TOKEN.finditer(q)]
    starts = [m.start() for m in _TOKEN.finditer(q)]
    out = []
    for i, token in enumerate(tokens):
        own = token not in _NEGATIONS and token in worded
        if _negates(token) and not own and tuple(tokens[i:i + 2]) not in worded:
            out.append(starts[i])
    return out


_ANSWERED = re.compile(
    r"\b(?:say|said|says|saying|answer(?:ed|s|ing)?|respond(?:ed|s|ing)?|repl(?:y|ied|ies))\s+(yes|no)\b")


def answered(question: str) -> set[str]:
    """The yes/no answers the question quotes (`women who said no`)."""
    return set(_ANSWERED.findall(normalise_text(question)))


_YES_NO_QUESTION = re.compile(
    r"^(?:q?\d+[.:)]?\s+)?(?:do|does|did|are|is|was|were|have|has|had|would|should|will|can|could)\b.*\?$")


def asks_yes_or_no(text: str) -> bool:
    """A yes/no question (`Q12. Do you support the proposed transit expansion?`): a survey's caption
    over its answers."""
    return _YES_NO_QUESTION.match(normalise_text(text).strip()) is not None


def polar_label(text: str) -> str | None:
    """`yes` or `no` for a label that is one of them."""
    t = normalise_text(text).strip(" .")
    return t if t in POLAR_LABELS else None
