"""The Table model: validation, merge normalisation, records, addresses, hashing."""

from __future__ import annotations

import pytest

from celltrace.shared.table import Origin, Table, TableError, normalise_merges


def test_values_default_from_text() -> None:
    t = Table(text=[["a", ""], ["1", "2"]])
    assert t.values == [["a", None], ["1", "2"]]
    assert (t.n_rows, t.n_cols) == (2, 2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"text": [["a", "b"], ["c"]]}, r"^table\.cells: rows must have equal length \(found \[1, 2\]\)$"),
        ({"text": [["a"]], "values": [[1], [2]]}, r"^table\.values: must have the same shape as table"),
        ({"text": [["a", "b"]], "merges": [(0, 0, 0, 2)]}, "outside"),
        ({"text": [["a", "b", "c"]], "merges": [(0, 0, 0, 1), (0, 1, 0, 2)]}, "overlaps"),
        ({"text": [["a"]], "merges": [(0, 0, 0)]}, "4 integers"),
        ({"text": [["a"]], "origin": Origin("S", "A1:??")}, r"^table\.origin\.address: "),
    ],
)
def test_invalid_tables(kwargs: dict, message: str) -> None:
    with pytest.raises(TableError, match=message):
        Table(**kwargs)


def test_normalise_merges_drops_single_cells_and_sorts() -> None:
    assert normalise_merges([[1, 0, 2, 0], [0, 0, 0, 0], [0, 1, 0, 2]], 3, 3) == [(0, 1, 0, 2), (1, 0, 2, 0)]


def test_address_uses_the_origin() -> None:
    t = Table(text=[["a", "b"], ["c", "d"]], origin=Origin("S", "C5:D6", "book.xlsx"))
    assert t.origin.top_left == (5, 3)
    assert t.address(0, 0) == "C5"
    assert t.address(0, 0, 1, 1) == "C5:D6"
    assert Table(text=[["a"]]).address(0, 0) == "A1"
    assert t.sheet == "S"


def test_from_record_and_content_hash() -> None:
    record = {"table": {"title": "T", "cells": [["x", ""], ["1", None]], "merges": [[0, 0, 0, 1]]}}
    t = Table.from_record(record)
    assert t.text == [["x", ""], ["1", ""]] and t.merges == [(0, 0, 0, 1)] and t.title == "T"
    assert t.content_hash() == Table.from_record(record).content_hash()
    assert t.content_hash() != Table.from_record({"cells": [["x", ""], ["1", ""]]}).content_hash()
    with pytest.raises(TableError, match="list of rows"):
        Table.from_record({"cells": "nope"})
