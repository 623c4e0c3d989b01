"""Quality flags of statistics tables: a figure shown as `16.5E` where the notes under the table say
`E use with caution` (`F too unreliable to be published`, `r revised`, `p preliminary`, `* …`).

`legend(notes)` reads the flags the notes define; `flagged(text, flags)` splits a cell's text into
the figure and its flag when the flag is one of them (a unit such as `18.4 t` is not a flag unless
the notes define it). The answer is the figure; the flag's meaning goes to the result's warnings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from celltrace.shared.numbers import parse_number_info

__all__ = ["Flagged", "flagged", "legend"]

_LEGEND = re.compile(
    r"^\s*(?P<flag>[A-Za-z]|[*†‡§¶]|\.{2,3})(?:\s*[-–—:=]\s*|\s+)(?P<meaning>[A-Za-z][^\n]{2,})$")
_FLAGGED = re.compile(r"^(?P<figure>.*?[\d)%])\s?(?P<flag>[A-Za-z]|[*†‡§¶])$")


@dataclass(frozen=True)
class Flagged:
    """A figure with its quality flag and what the notes say the flag means."""

    figure: str
    flag: str
    meaning: str


def legend(notes: Iterable[str]) -> dict[str, str]:
    """Flag → meaning for each note line that defines one (`E use with caution`, `x: suppressed`,
    `... not applicable`)."""
    out: dict[str, str] = {}
    for line in notes:
        m = _LEGEND.match(line)
        if m:
            out.setdefault(m["flag"], m["meaning"].strip().rstrip("."))
    return out


def flagged(text: str, flags: dict[str, str]) -> Flagged | None:
    """`16.5E` → the figure `16.5` flagged `E` when `flags` defines `E`; None otherwise."""
    m = _FLAGGED.match(text.strip())
    if m is None or m["flag"] not in flags or parse_number_info(m["figure"]) is None:
        return None
    return Flagged(m["figure"], m["flag"], flags[m["flag"]])
