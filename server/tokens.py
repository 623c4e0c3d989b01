"""Offline token estimate for context budgeting (reported usage comes from API responses).

tiktoken cannot download its encodings here, so prompts are measured with a conservative
approximation: one token per 3 characters, rounded up. Real BPE tokenisers average about 4
characters per token on English and table text, so the estimate over-counts and a prompt kept
under the budget by this measure is under it for real, too.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 3


def estimate_tokens(text: str) -> int:
    """Conservative token count of `text` (ceil(len / 3))."""
    return -(-len(text) // CHARS_PER_TOKEN)
