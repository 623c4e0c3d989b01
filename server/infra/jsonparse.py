"""Tolerant parsing of model output into JSON-like values, then pydantic validation.

Accepted: code fences, leading/trailing prose, single-quoted strings, Python tuples (→ lists),
Python literals `True/False/None` as well as JSON `true/false/null`, trailing commas.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_JSON_NAMES = {"true": "True", "false": "False", "null": "None"}
_CLOSE = {"[": "]", "{": "}", "(": ")"}


class ParseError(ValueError):
    """The text holds no parseable JSON-like value, or it does not validate; the message says why."""


def parse_loose(text: str) -> Any:
    """The first JSON-like value in `text` (fenced blocks first), tuples turned into lists."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)]
    candidates.append(text)
    for candidate in candidates:
        value = _parse_value(candidate.strip())
        if value is not _MISSING:
            return value
        for span in _bracket_spans(candidate):
            value = _parse_value(span)
            if value is not _MISSING:
                return value
    raise ParseError("no JSON value found in the reply")


def parse_model(text: str, model: type[M]) -> M:
    """`parse_loose` then validate against `model`; ParseError carries the validation message."""
    value = parse_loose(text)
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        errors = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise ParseError(f"reply does not match the schema: {errors}") from exc


_MISSING = object()


def _parse_value(text: str) -> Any:
    if not text or text[0] not in "[{(\"'-0123456789tfnTFN":
        return _MISSING
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return _lists(ast.literal_eval(_python_literals(text)))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, tokenize.TokenError):
        return _MISSING


def _python_literals(text: str) -> str:
    """Rewrite JSON names (true/false/null) as Python literals, leaving string contents alone."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    out = []
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in _JSON_NAMES:
            tok = tok._replace(string=_JSON_NAMES[tok.string])
        out.append(tok)
    return tokenize.untokenize(out)


def _lists(value: Any) -> Any:
    """Tuples (and sets) become lists, recursively; dict keys are kept."""
    if isinstance(value, tuple | list | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [_lists(v) for v in items]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


def _bracket_spans(text: str) -> Iterator[str]:
    """Balanced `[...]`/`{...}` spans, each starting at an opening bracket, in text order."""
    for start, ch in enumerate(text):
        if ch in "[{":
            end = _matching_close(text, start)
            if end is not None:
                yield text[start : end + 1]


def _matching_close(text: str, start: int) -> int | None:
    stack: list[str] = []
    quote: str | None = None
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in _CLOSE:
            stack.append(_CLOSE[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return i
        i += 1
    return None
