"""English word stems (Snowball): one stemmer for retrieval, grounding and table detection."""

from __future__ import annotations

import functools
import threading

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")
_LOCK = threading.Lock()  # the Snowball stemmer object is not thread-safe


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball stem (memoised: the same label words recur across questions and tables); a noun in
    `-al` loses the consonant Snowball leaves doubled, as its verb does (`acquittal` → `acquit`, as
    `acquitted`)."""
    with _LOCK:
        out = str(_STEMMER.stemWord(word))
    if word.endswith("al") and len(out) > 4 and out[-1] == out[-2] and out[-1] not in "lsfz":
        return out[:-1]
    return out
