"""English word stems (Snowball): one stemmer for retrieval, grounding and table detection."""

from __future__ import annotations

import functools
import threading

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")
_LOCK = threading.Lock()  # the Snowball stemmer object is not thread-safe


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball stem (memoised: the same label words recur across questions and tables)."""
    with _LOCK:
        return str(_STEMMER.stemWord(word))
