"""Pessimistic offline token estimate for context budgeting (reported usage comes from API responses).

Real BPE tokenisers average about 4 characters per token on English but as few as 1.5-2 on
digit-heavy tables (numbers split into single digits or short groups). Budgets must hold for
tables, so the estimate is one token per 2 characters, rounded up: a prompt kept under a budget
by this measure is under it for real. When the server offers a tokenizer (llama.cpp `/tokenize`),
`celltrace.server.infra.llm_probe.count_tokens` counts exactly instead.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 2


def estimate_tokens(text: str) -> int:
    """Pessimistic token count of `text` (ceil(len / 2))."""
    return -(-len(text) // CHARS_PER_TOKEN)
