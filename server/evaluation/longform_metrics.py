"""Long-form answer metrics as TaPERA reports them (methods.md §3.3) and the LLM judge's verdict parser."""

import unicodedata

import sacrebleu
from rouge_score import rouge_scorer


def _check(preds: list[str], refs: list[str]) -> None:
    if len(preds) != len(refs):
        raise ValueError(f"{len(preds)} predictions but {len(refs)} references")
    if not preds:
        raise ValueError("no predictions to score")


def rouge_l(preds: list[str], refs: list[str]) -> float:
    """ROUGE-L: rouge-score's ``rougeL`` key (not ``rougeLsum``), no stemmer, mean F-measure × 100.

    One reference per prediction; ValueError on a length mismatch or empty input.
    """
    _check(preds, refs)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    scores = [scorer.score(r, p)["rougeL"].fmeasure for p, r in zip(preds, refs, strict=True)]
    return 100 * sum(scores) / len(scores)


def bleu(preds: list[str], refs: list[str]) -> float:
    """sacreBLEU corpus BLEU (default tokenizer and smoothing), one reference per prediction, 0-100.

    ValueError on a length mismatch or empty input.
    """
    _check(preds, refs)
    return sacrebleu.corpus_bleu(preds, [refs]).score


def _strip_edges(word: str) -> str:
    """Drop leading/trailing punctuation (Unicode category P) and markdown ``*``, ``_``, backticks."""
    keep = [not unicodedata.category(ch).startswith("P") and ch not in "*_`" for ch in word]
    if True not in keep:
        return ""
    return word[keep.index(True) : len(keep) - keep[::-1].index(True)]


def yes_no_verdict(text: str) -> bool | None:
    """Strict first-token parse of a yes/no judge reply: True for yes, False for no, None otherwise.

    The first whitespace-separated word, NFKC, case-folded and stripped of surrounding punctuation and
    markdown emphasis (``**Yes**,`` counts), must be exactly ``yes`` or ``no``; anything else (empty
    text, ``Yesterday``, ``Answer: yes``, ``yes/no``) is None.
    """
    words = unicodedata.normalize("NFKC", text).split(maxsplit=1)
    if not words:
        return None
    return {"yes": True, "no": False}.get(_strip_edges(words[0]).casefold())
