"""Short-answer exact match (strict and lenient), evidence precision/recall and summary statistics.

Every item is first put in *basic form*: Unicode NFKC, case-folded, whitespace runs collapsed to one
space, stripped. Blank items are dropped from both lists. Both scorers compare order-free multisets:
duplicates count, ``[]`` equals ``[]``.

**Numbers** (both scorers). An item is a number when, after dropping surrounding quotes and trailing
``.,;:!?`` and reading ``percent`` / ``per cent`` as ``%``, it is one displayed number to the shared
classifier (:func:`celltrace.shared.numbers.parse_number_info`): an optional sign (``+ - −``; an en
dash reads as minus), an optional currency symbol or code (``$ € £ ¥ ₹ us$ usd``, before or after),
digits with optional decimals (``.5`` allowed) and thousands separators only in valid groups of three
(``1,234``, ``1 234``; ``12,34`` is not a number), an optional exponent (``1.2e+05``), an optional
``%`` (which marks the number as a percent), a footnote marker (``12.5*``), and optionally one pair of
parentheses, which means negative (``(7.8)`` = ``($7.8)`` = ``-7.8``; a sign inside parentheses is
rejected as ambiguous). Other units and scale words (``million``) are not numbers.

**Percent and fraction** (both scorers). Numbers are first compared as written (``24.5%`` = ``24.5``,
as before). When that fails and exactly one side is percent-marked, ``x%`` is also read as the
fraction ``x/100`` with two more decimals shown (``38.7578%`` = ``0.387578``; ``3.8%`` vs gold
``0.038283`` is then judged at the gold's six decimals and fails, while the full-precision number
``3.8283%`` matches). Two unmarked numbers are never rescaled: ``0.245`` is *not* ``24.5``.

**Strict EM** (:func:`em_strict`).

* Two numbers match when ``|p - g| <= 0.5 * 10**-d``, ``d`` being the number of decimals shown in the
  gold, i.e. the prediction rounds to the gold's displayed value (gold ``52.1`` accepts 52.05 to 52.15
  inclusive; gold ``154983`` accepts 154982.5 to 154983.5), or when they agree to a relative 1e-6.
  There is no flat absolute tolerance (gold ``52.12`` rejects ``52.13``). Sign matters. Exact decimal
  arithmetic. A year is just a number (``2017`` = ``2017.0``).
* Text items: surrounding punctuation (Unicode category P) removed, the articles a/an/the removed as
  words anywhere, whitespace collapsed, then compared for equality; inner punctuation is kept.
  A number never equals a text item.
* List splitting: when the prediction is one string and the gold has several items, the string may
  be cut at list separators: a comma that is not a thousands separator (``5,813`` stays one number),
  a semicolon, or the whitespace-delimited word ``and`` (never inside ``england``), including
  ``", and"``. Every separator is optional, so gold items that contain ``and`` or commas themselves
  still match: the answer is correct when *some* cut matches the gold multiset. A prediction with
  several items is never re-split, and gold items are never split.

**Which text is scored** (:func:`scored_answer`). A result that carries its number (``value``, full
precision) with one answer item is scored by that number, written in the answer's own scale (as a
percent when the answer text is percent-marked): a rendered ``3.35`` whose value is 3.354167 is the
same answer as the gold ``3.354167``. Other results are scored by their ``answer`` text.

**Lenient EM** (:func:`em_lenient`): the semantics of GraphOTTER's scorer (methods.md §3.1), for
comparability with published numbers, without its bugs.

* The prediction list is joined with ``", "``; it and every gold item are split at list commas (never
  at thousands separators). When the gold has several items the prediction may also be cut at the
  word ``and`` (an optional cut, never the substring). Pieces are compared as a multiset.
* Number pieces match when their *absolute values* differ by at most 0.01: sign and percent are
  ignored (``-5`` = ``5``, ``55%`` = ``55.0``, ``55.009`` = ``55``). Unlike the reference this also holds
  inside lists, in place of its ``strip('.0')`` (which made ``10, 20`` match ``1|2``).
* Text pieces: parenthesised text removed, punctuation (category P) deleted, articles removed, number
  words zero to nineteen become digits, true/false become yes/no, whitespace collapsed; a piece that
  then reads as a number (``five``) is compared as a number.
* Lenient is not a superset of strict: its flat 0.01 tolerance rejects gold ``52`` vs ``52.4``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from celltrace.shared.numbers import parse_number_info


@dataclass(frozen=True)
class _Number:
    """A parsed number: exact value, the count of decimals it was written with, percent-marked."""

    value: Decimal
    decimals: int
    percent: bool = False

    def as_fraction(self) -> _Number:
        """A percent-marked number as the fraction it means (``38.8%`` → 0.388, 3 decimals)."""
        return _Number(self.value / 100, self.decimals + 2) if self.percent else self


_Key = _Number | str
_Eq = Callable[[_Key, _Key], bool]

_QUOTES = " \"'`“”‘’«»"

_LIST_COMMA = r"(?:(?<!\d),|,(?!\d{3}(?!\d)))"
_AND = r"(?<!\S)and(?!\S)"
_STRICT_SEP = re.compile(rf"((?:\s*(?:{_LIST_COMMA}|;|{_AND})\s*)+)")
_COMMA_SEP = re.compile(rf"((?:\s*{_LIST_COMMA}\s*)+)")
_COMMA_AND_SEP = re.compile(rf"((?:\s*(?:{_LIST_COMMA}|{_AND})\s*)+)")

_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_PARENTHESISED = re.compile(r"\([^()]*\)")
_NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
_WORDS = {
    **{w: str(i) for i, w in enumerate(_NUMBER_WORDS.split())},
    "true": "yes",
    "false": "no",
    "a": "",
    "an": "",
    "the": "",
}
_LENIENT_ABS_TOL = Decimal("0.01")
_REL_TOL = Decimal("1e-6")


def _basic(text: str) -> str:
    """NFKC, case-fold, collapse whitespace, strip."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _parse_number(text: str) -> _Number | None:
    """Parse a basic-form item as a number (rules in the module docstring), or None."""
    s = text.strip(_QUOTES).rstrip(".,;:!?").replace("per cent", "%").replace("percent", "%")
    info = parse_number_info(s)
    if info is None or not math.isfinite(info.value):
        return None
    return _Number(Decimal(repr(info.value)), info.decimals, info.is_percent)


def _is_punct(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch).startswith("P")


def _strip_punct(text: str) -> str:
    """Remove leading and trailing punctuation and whitespace."""
    i, j = 0, len(text)
    while i < j and _is_punct(text[i]):
        i += 1
    while j > i and _is_punct(text[j - 1]):
        j -= 1
    return text[i:j]


def _strict_key(text: str) -> _Key:
    """Strict normal form of a basic-form item: a number, or text without edge punctuation/articles."""
    number = _parse_number(text)
    if number is not None:
        return number
    return " ".join(_ARTICLES.sub(" ", _strip_punct(text)).split())


def _lenient_key(text: str) -> _Key:
    """Lenient normal form of a basic-form piece (GraphOTTER-style text rewrites)."""
    number = _parse_number(text)
    if number is not None:
        return number
    text = "".join(ch for ch in _PARENTHESISED.sub(" ", text) if not _is_punct(ch) or ch.isspace())
    text = " ".join(w for w in (_WORDS.get(w, w) for w in text.split()) if w)
    number = _parse_number(text)
    return text if number is None else number


def _strict_eq(p: _Key, g: _Key) -> bool:
    """Numbers: within half a unit of the gold's last shown digit or relative 1e-6, as written or
    with one percent-marked side read as a fraction; text: equal."""
    if isinstance(p, _Number) and isinstance(g, _Number):
        if _strict_numbers(p, g):
            return True
        return p.percent != g.percent and _strict_numbers(p.as_fraction(), g.as_fraction())
    return isinstance(p, str) and isinstance(g, str) and p == g


def _strict_numbers(p: _Number, g: _Number) -> bool:
    diff = abs(p.value - g.value)
    return diff <= Decimal(5).scaleb(-(g.decimals + 1)) or diff <= _REL_TOL * max(abs(p.value), abs(g.value))


def _lenient_eq(p: _Key, g: _Key) -> bool:
    """Numbers: absolute values within 0.01, as written or with the unmarked side of a percent /
    fraction pair read as a percent (×100); text: equal."""
    if isinstance(p, _Number) and isinstance(g, _Number):
        if abs(abs(p.value) - abs(g.value)) <= _LENIENT_ABS_TOL:
            return True
        if p.percent != g.percent:
            pv, gv = (p.value, g.value * 100) if p.percent else (p.value * 100, g.value)
            return abs(abs(pv) - abs(gv)) <= _LENIENT_ABS_TOL
        return False
    return isinstance(p, str) and isinstance(g, str) and p == g


def scored_answer(answer: list[str], value: float | None) -> list[str]:
    """The items scored for a result: its full-precision number in the answer's own scale when it
    has one (``value`` 0.0382831 with answer ``3.8%`` → ``3.82831%``), else the answer text."""
    if value is None or len(answer) != 1 or not math.isfinite(value):
        return answer
    shown = _parse_number(_basic(answer[0]))
    if shown is None:
        return answer
    number = Decimal(repr(float(value))) * (100 if shown.percent else 1)
    return [format(number.normalize(), "f") + ("%" if shown.percent else "")]


def _cut(text: str, sep: re.Pattern[str]) -> tuple[list[str], list[str]]:
    """Split ``text`` at ``sep`` (one capturing group) into non-blank atoms and the separators between."""
    parts = sep.split(text)
    atoms, seps = parts[0::2], parts[1::2]
    if atoms and not atoms[0].strip():
        atoms, seps = atoms[1:], seps[1:]
    if atoms and not atoms[-1].strip():
        atoms, seps = atoms[:-1], seps[:-1]
    return atoms, seps


def _perfect_matching(pred: list[_Key], gold: list[_Key], eq: _Eq) -> bool:
    """Whether ``pred`` and ``gold`` pair up one to one under ``eq`` (Kuhn's augmenting paths)."""
    if len(pred) != len(gold):
        return False
    owner: list[int | None] = [None] * len(gold)

    def augment(p: int, seen: set[int]) -> bool:
        for g, gk in enumerate(gold):
            if g not in seen and eq(pred[p], gk):
                seen.add(g)
                taken = owner[g]
                if taken is None or augment(taken, seen):
                    owner[g] = p
                    return True
        return False

    return all(augment(p, set()) for p in range(len(pred)))


def _match(
    n: int, segment: Callable[[int, int], _Key], mandatory: Sequence[bool], gold: list[_Key], eq: _Eq
) -> bool:
    """Whether atoms ``0..n-1`` can be grouped into consecutive segments matching ``gold`` one to one.

    ``segment(i, j)`` is the key of atoms ``i..j-1`` joined; ``mandatory[k]`` forbids a segment to
    span the boundary between atoms ``k`` and ``k + 1``. Without optional boundaries this is a bipartite
    matching; otherwise a memoised search over cuts, at most ``len(gold)`` deep.
    """
    if n < len(gold) or (n and 1 + sum(mandatory) > len(gold)):
        return False
    if all(mandatory):
        return _perfect_matching([segment(i, i + 1) for i in range(n)], gold, eq)
    full = (1 << len(gold)) - 1
    key = cache(segment)

    @cache
    def solve(i: int, used: int) -> bool:
        if i == n:
            return used == full
        for j in range(i + 1, n + 1):
            k = key(i, j)
            tried: set[_Key] = set()
            for g, gk in enumerate(gold):
                if used >> g & 1 or gk in tried:
                    continue
                tried.add(gk)
                if eq(k, gk) and solve(j, used | 1 << g):
                    return True
            if j < n and mandatory[j - 1]:
                break
        return False

    return solve(0, 0)


def _match_text(
    text: str,
    sep: re.Pattern[str],
    mandatory_comma: bool,
    gold: list[_Key],
    key: Callable[[str], _Key],
    eq: _Eq,
) -> bool:
    """Match ``text`` cut at ``sep`` against ``gold``; cuts at commas are forced if ``mandatory_comma``."""
    atoms, seps = _cut(text, sep)

    def segment(i: int, j: int) -> _Key:
        return key("".join(a + s for a, s in zip(atoms[i:j], [*seps[i : j - 1], ""], strict=True)).strip())

    return _match(len(atoms), segment, [mandatory_comma and "," in s for s in seps], gold, eq)


def _clean(items: list[str]) -> list[str]:
    """Basic form of every item, blanks dropped."""
    return [b for b in map(_basic, items) if b]


def em_strict(pred: list[str], gold: list[str]) -> bool:
    """Strict exact match: equal multisets after strict normalisation (see the module docstring)."""
    pred, gold = _clean(pred), _clean(gold)
    gold_keys = [_strict_key(g) for g in gold]
    if len(pred) == 1 and len(gold) > 1:
        return _match_text(pred[0], _STRICT_SEP, False, gold_keys, _strict_key, _strict_eq)
    keys = [_strict_key(p) for p in pred]
    return _match(len(keys), lambda i, _j: keys[i], [True] * max(len(keys) - 1, 0), gold_keys, _strict_eq)


def em_lenient(pred: list[str], gold: list[str]) -> bool:
    """GraphOTTER-comparable lenient exact match without the reference bugs (see the module docstring)."""
    pred, gold = _clean(pred), _clean(gold)
    if sorted(pred) == sorted(gold):  # the same items (an item `AND` is no separator of itself)
        return True
    gold_keys = [_lenient_key(a.strip()) for g in gold for a in _cut(g, _COMMA_SEP)[0]]
    sep = _COMMA_AND_SEP if len(gold) > 1 else _COMMA_SEP
    return _match_text(", ".join(pred), sep, True, gold_keys, _lenient_key, _lenient_eq)


Area = tuple[int, int, int, int]
Cell = tuple[int, int]


def evidence_scores(
    pred_areas: Sequence[Area], gold_cells: Sequence[Cell]
) -> tuple[float | None, float | None]:
    """Evidence (precision, recall) of predicted areas against gold cells.

    An area is a 0-based inclusive rectangle ``(r0, c0, r1, c1)`` (a merged node is one area); a gold
    cell ``(r, c)`` is hit when it lies inside a predicted area. Duplicates are ignored on both sides.
    Precision is the fraction of predicted areas containing at least one gold cell (None without
    predictions); recall is the fraction of gold cells inside some predicted area (None without gold).
    Raises ValueError for an area with negative or reversed bounds.
    """
    areas = {tuple(a) for a in pred_areas}
    cells = {tuple(c) for c in gold_cells}
    for r0, c0, r1, c1 in areas:
        if min(r0, c0) < 0 or r1 < r0 or c1 < c0:
            raise ValueError(f"malformed area {(r0, c0, r1, c1)}")

    def inside(cell: tuple[int, ...], area: tuple[int, ...]) -> bool:
        return area[0] <= cell[0] <= area[2] and area[1] <= cell[1] <= area[3]

    precision = sum(any(inside(c, a) for c in cells) for a in areas) / len(areas) if areas else None
    recall = sum(any(inside(c, a) for a in areas) for c in cells) / len(cells) if cells else None
    return precision, recall


def percentile(xs: Sequence[float], p: float) -> float | None:
    """The ``p``-th percentile (0-100) by linear interpolation between closest ranks (numpy's default).

    None for an empty sequence; ValueError when ``p`` is outside [0, 100].
    """
    if not 0 <= p <= 100:
        raise ValueError(f"percentile {p} outside [0, 100]")
    s = sorted(xs)
    if not s:
        return None
    pos = (len(s) - 1) * p / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def median(xs: Sequence[float]) -> float | None:
    """The median (50th percentile, linear interpolation); None for an empty sequence."""
    return percentile(xs, 50)
