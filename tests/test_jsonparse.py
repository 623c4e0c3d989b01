"""Tolerant parsing of model replies."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from celltrace.server.infra.jsonparse import ParseError, parse_loose, parse_model


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
        ("Sure! Here it is: [1, 2] -- hope this helps [3]", [1, 2]),
        ("{'a': (1, 'x'), 'b': True, 'c': None}", {"a": [1, "x"], "b": True, "c": None}),
        (
            '{"flag": true, "none": null, "text": "true story"}',
            {"flag": True, "none": None, "text": "true story"},
        ),
        ("{'q': \"it's (a) [b]\", 'n': false}", {"q": "it's (a) [b]", "n": False}),
        ('[{"a": 1,},]', [{"a": 1}]),
        ("((2, 3, 'percent'), (6, 0, 'food service'))", [[2, 3, "percent"], [6, 0, "food service"]]),
        ("55.0", 55.0),
    ],
)
def test_parse_loose(text: str, expected: object) -> None:
    assert parse_loose(text) == expected


@pytest.mark.parametrize("text", ["", "no json here", "[1, 2", "{'a': }"])
def test_parse_loose_rejects(text: str) -> None:
    with pytest.raises(ParseError):
        parse_loose(text)


class _M(BaseModel):
    answer: list[str]


def test_parse_model_reports_validation_errors() -> None:
    assert parse_model('{"answer": ["55.0"]}', _M).answer == ["55.0"]
    with pytest.raises(ParseError, match="answer: Field required"):
        parse_model('{"cells": []}', _M)
