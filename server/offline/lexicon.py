"""Word-level matching of question words against label words (general English, no dataset terms).

A label matches a question word when they share a stem, when one abbreviates the other (`yds` ~
`yards`, `td` ~ `touchdown`: same first letter and a subsequence), when one is the initials of
consecutive words of the other (`asm` ~ `available seat miles`), by an English derivational ending
(`canada` ~ `canadian`), or when one is the other with one typo (`goverment` ~ `government`).
Abbreviation-like matches count 0.8. Words the vocabulary file lists as the same word (`men` ~
`male`) share one stem.
"""

from __future__ import annotations

import functools
import re
import tomllib
from importlib import resources

from celltrace.server.infra.retrieval import STOPWORDS, tokens
from celltrace.shared.graph import normalise_text, words
from celltrace.shared.numbers import MONTH_BY_SHORT
from celltrace.shared.units import parse_unit

UNIT_CANON = {"percentag": "percent", "proport": "percent", "pct": "percent", "fraction": "percent",
              "count": "number", "oz": "ounc", "lb": "pound", "lbs": "pound", "bbl": "barrel",
              "bbls": "barrel", "kg": "kilogram"}
"""General quantity words folded together (`percentage`/`proportion`/`fraction`/`%`/`per cent` ~
`percent`), and units written as their symbols (`$/oz` ~ `per ounce`, `lb`, `bbl`, `kg`)."""


NEGATION_WORDS = frozenset({"not", "non", "without", "neither", "nor", "never"})
"""English negations: kept (as the token `not`) although function words, since they flip a label."""


ORDINALS = {w: str(i) for i, w in enumerate(
    ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"), start=1)}
"""English ordinal words, read as their number so that `second quarter` ~ `2nd quarter`."""
CARDINALS = {w: str(i) for i, w in enumerate(
    ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), start=2)}
"""Number words read as their digits (`three or more` ~ `3 or more`); not `one`, mostly a pronoun."""


@functools.lru_cache(maxsize=1)
def vocabulary() -> dict[str, dict]:
    """The offline engine's vocabulary data file (`vocabulary.toml`)."""
    text = resources.files("celltrace.server.offline").joinpath("vocabulary.toml").read_text()
    return tomllib.loads(text)


@functools.lru_cache(maxsize=1)
def category_members() -> dict[str, frozenset[str]]:
    """Category stem → the stems its members are labelled with (`[categories]`: `sex` → male,
    female)."""
    return {st: frozenset(t for w in members for t in label_tokens(w))
            for name, members in vocabulary()["categories"].items() for st in tokens(name)[:1]}


@functools.lru_cache(maxsize=1)
def _same_words() -> dict[str, str]:
    """Stem → the stem it reads as, from the `[same_words]` table of the vocabulary file."""
    return {st: first for canon, words in vocabulary()["same_words"].items()
            for first in tokens(canon)[:1] for w in words for st in tokens(w)}


@functools.lru_cache(maxsize=1)
def _same_phrases() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(phrase pattern, the word it reads as), from the `[same_phrases]` table of the vocabulary file."""
    return tuple((re.compile(r"\b" + r"\W+".join(map(re.escape, re.findall(r"\w+", p))) + r"\b"), canon)
                 for canon, phrases in vocabulary()["same_phrases"].items() for p in phrases)


def same_phrases(text: str) -> str:
    """Normalised `text` with each `[same_phrases]` phrase written as the word it reads as."""
    for pattern, canon in _same_phrases():
        text = pattern.sub(canon, text)
    return text


@functools.lru_cache(maxsize=1)
def _precision() -> re.Pattern[str]:
    labels = sorted(vocabulary()["precision"]["labels"], key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, labels)) + r")(?!\w)")


PRECISION_WORDS = frozenset(
    {"error", "errors", "interval", "intervals", "deviation", "variation", "precision"})
"""Question words that ask about a figure's precision (`what was the margin of error …`)."""


def names_precision(text: str) -> bool:
    """Whether `text` names a measure of a figure's precision (`Margin of Error`, `95% CI`, `SE`)."""
    return _precision().search(normalise_text(text)) is not None


def asks_precision(question: str) -> bool:
    """Whether a question names a precision measure or its words (`error`, `interval`)."""
    return names_precision(question) or not PRECISION_WORDS.isdisjoint(words(question))


_DOTTED = re.compile(r"\b(?:[a-z]\.)+[a-z]\b")
"""`b.c`, `p.e.i`, `u.s`: single letters joined by dots."""
_AMPERSAND = re.compile(r"\b[a-z]{1,3}(?:&[a-z]{1,3})+\b")
"""Initials joined by `&` (`r&d`, `sg&a`, `pp&e`, `m&a`)."""


_SHORT_FISCAL = re.compile(r"\bfy\s*['’]?(\d\d)\b")
"""A fiscal year written short (`FY23`, `Q4 FY'23`): read as its year (`fy 2023`)."""

_CAPITALS = re.compile(r"\b[A-Z]{2,}\b")
"""A word written in capitals (`IT`, `OR`)."""

_WORD_OR_NUMBER = re.compile(r"(?<=(?:19|20)\d\d[-/])(?P<range_end>\d\d)(?!\d)|\d[\d,]*(?:\.\d+)?|[^\W\d_]+")


_SAMPLE_SIZE = re.compile(r"\(\s*n\s*=\s*[\d,]+\s*\)|\bn\s*=\s*[\d,]+\b")
"""A group's sample size written beside its name (`(N=152)`, `n = 1,204`)."""


@functools.lru_cache(maxsize=65536)
def _stem_pairs(text: str) -> tuple[tuple[str, str], ...]:
    """(raw word, canonical stem) pairs; `%` (or `per cent`) reads as `percent` unless it follows a
    number (`95% ci`); ordinals and number words read as numbers (`2nd`, `second`, `two` → `2`);
    dotted initials read as one word (`b.c.` → `bc`, the initials of `british columbia`), so do
    initials joined by `&` (`r&d` → `rd`: `research and development`, `sg&a`); a `[same_phrases]`
    phrase reads as its word (`before seasonal adjustment` → `unadjusted`); a short fiscal year
    reads as its year (`FY23` → `fy`, `2023`); `grand total` is
    `total` (a pivot table's total of its group totals); a sample size (`(N=152)`) is no word; the end of
    a year range (`2004-05`) is a stem of its own, `-05`. A function word written in capitals in
    mixed-case text or alone is a name (`IT`, `OR`: information technology, operating room)."""
    mixed = re.search(r"[a-z]", text) or len(text.split()) == 1  # not a label written all in capitals
    names = {w.lower() for w in _CAPITALS.findall(text)} & STOPWORDS if mixed else set()
    t = _DOTTED.sub(lambda m: m.group(0).replace(".", ""), same_phrases(normalise_text(text)))
    t = _AMPERSAND.sub(lambda m: m.group(0).replace("&", ""), t)
    t = re.sub(r"\bgrand\s+(?=totals?\b)", "", t)  # the total of the totals is the total asked
    t = _SAMPLE_SIZE.sub(" ", t)  # `Placebo (N=152)` is named by `placebo`
    t = re.sub(r"\bper\s+cent\b", "%", t)
    t = re.sub(r"(\d)\s*%", r"\1", t).replace("%", " percent ")
    t = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1", t)
    t = _SHORT_FISCAL.sub(lambda m: f"fy {'19' if int(m.group(1)) >= 50 else '20'}{m.group(1)}", t)
    t = re.sub(r"\b[a-z]+\b", lambda m: ORDINALS.get(m.group(0), m.group(0)), t)
    t = re.sub(r"\b[a-z]+\b(?!-)", lambda m: CARDINALS.get(m.group(0), m.group(0)), t)  # not `five-year`
    out = []
    for m in _WORD_OR_NUMBER.finditer(t):
        raw = m.group(0)
        if m.group("range_end"):  # `2004-05` ends in 2005, not in the number 5
            out.append((raw, f"-{raw}"))
            continue
        if raw in NEGATION_WORDS:
            out.append((raw, "not"))
            continue
        if raw in names:
            out.append((raw, raw))
            continue
        if raw in STOPWORDS:
            continue
        st = tokens(raw)
        if st:
            canon = UNIT_CANON.get(st[0], st[0])
            out.append((raw, _same_words().get(canon, canon)))
    return tuple(out)


def content_words(question: str) -> list[tuple[str, str]]:
    """(raw word, canonical stem) of the question's content words, first occurrence order."""
    seen: dict[str, tuple[str, str]] = {}
    for raw, st in _stem_pairs(question):
        seen.setdefault(st, (raw, st))
    return list(seen.values())


PER_CAPITA = re.compile(r"\bper\s+\d[\d,]*(?:\s+\w+)?")
"""`per 100,000 population`, `per 1,000 people`: a count relative to a base, i.e. a rate."""


@functools.lru_cache(maxsize=1)
def _measured_by() -> dict[str, str]:
    """Adjective (as written) → the quantity it measures (`[measured_by]`: `oldest` → `age`)."""
    return {adj: quantity for quantity, adjectives in vocabulary()["measured_by"].items()
            for adj in adjectives}


def quantity_words(qnorm: str, qwords: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Add the quantity the question asks for: what an adjective measures (`the oldest` → `age`,
    `[measured_by]`); a percent for a share or proportion (`vote share` under `Votes | %`; not
    `per share`, `shares`, nor `the share of all households` that names its whole) and for
    `how many`, a percent (`how many percentage points`, also written without the space) when a
    percent word is present, a rate when it counts per a base (`how many officers
    per 100,000 population`), else a count (`number`)."""
    stems = {st for _, st in qwords}
    for raw, _ in list(qwords):
        quantity = _measured_by().get(raw)
        if quantity is not None and (st := tokens(quantity)[0]) not in stems:
            qwords = [*qwords, (quantity, st)]
            stems.add(st)
    if re.search(r"\bhow\s*many\s*percent|(?<!\bper )\b(?:share|proportion)\b(?!\s+(?:price|repurchase|count"
                 r"|capital|of\s+(?:all|total|the\s+total)\b))", qnorm) and all(
            st != "percent" for _, st in qwords):  # `vote share`: a percentage (`Votes | %`)
        return [*qwords, ("percent", "percent")]
    if PER_CAPITA.search(qnorm) and all(st != "rate" for _, st in qwords):
        return [*qwords, ("rate", "rate")]
    if re.search(r"\bhow many\b", qnorm) and all(st != "percent" for _, st in qwords):
        return [*qwords, ("number", "number")]
    return qwords


def label_tokens(text: str) -> list[str]:
    return list(dict.fromkeys(word_stems(text)))


def word_stems(text: str) -> list[str]:
    """The stems of a text's content words in order, repeats kept."""
    return [st for _, st in _stem_pairs(text)]


def abbreviates(short: str, long: str) -> bool:
    """`att` ~ `attempts`, `yds` ~ `yards`, `td` ~ `touchdown`: `short` (alphabetic, 2-5 letters,
    shorter) is a truncation of `long` (a prefix of 3+ letters) or a contraction: its first letter,
    then only consonants, in order (abbreviations drop vowels, so `ci` is not `canadian`)."""
    if not (2 <= len(short) <= 5 and short.isalpha() and len(long) > len(short) and short[0] == long[0]):
        return False
    if len(short) >= 3 and long.startswith(short):
        return True
    if any(ch in VOWELS for ch in short[1:]):
        return False
    it = iter(long)
    return all(ch in it for ch in short)


VOWELS = frozenset("aeiou")
"""English vowel letters (a contraction keeps consonants only after its first letter)."""


SUBTOTAL_STEMS = frozenset(label_tokens("subtotal subtotals"))
"""A group's total line (`Subtotal`, `Subtotal Europe`): a question's `total` names it, and its group
names the rest (a question's `subtotal` names no `Total` of every group)."""


def match_words(label: str, qwords: list[tuple[str, str]]) -> dict[str, float]:
    """Question stems matched by a label → strength (1.0 same stem, also under a footnote letter
    glued on; 0.8 abbreviation/initials)."""
    pairs = _stem_pairs(label)
    lstems = {st for _, st in pairs}
    lraw = [raw for raw, _ in pairs]
    initials = {m.replace(".", "") for m in _DOTTED.findall(normalise_text(label))}  # never contractions
    out: dict[str, float] = {}
    qraw = [raw for raw, _ in qwords]
    coded = set(_CODED.findall(normalise_text(label)))  # `05HG001`: a code's letters abbreviate nothing
    every = re.findall(r"[a-z]+", normalise_text(label))
    bases = [base for lr in lraw if (base := _without_footnote_letter(lr, set(qraw)))]
    lstems |= {st for base in bases for _, st in _stem_pairs(base)}  # the word itself
    for raw, st in qwords:
        if st in lstems or (st == "total" and SUBTOTAL_STEMS & lstems):  # `Europe's total`: its `Subtotal`
            out[st] = 1.0  # (a question's `subtotal` names no `Total` of every group)
            continue
        if any(_derived(st, ls) or _derived(ls, st) for ls in lstems) or any(
                raw in (lr + "ment", lr + "ments") or lr in (raw + "ment", raw + "ments")
                for lr in lraw):  # `disagreement` ~ `Disagree`, `pay` ~ `Payments`
            out[st] = 0.8
            continue
        if not _is_unit(raw) and raw not in _RANKING and any(
                ((abbreviates(short, raw) and lr not in initials and lr not in STOPWORDS
                  and (lr not in _MONTH_SHORT or raw.startswith(_MONTH_SHORT[lr])))  # `Mar` is no `margin`
                 or abbreviates(raw, lr)) and not _superlative(lr, raw)
                for lr in lraw if lr not in coded for short in {lr, _singular(lr)}):  # `acres` ~ acreage
            out[st] = 0.8
            continue
        if raw.isalpha() and 2 <= len(raw) <= 6 and not _is_unit(raw) and any(  # `MW` is no `municipal
                _initials_in(a, lraw) or (len(a) >= 3 and a not in STOPWORDS and _initials_in(a, every))
                for a in {raw, _singular(raw)}):  # waste`; `YTD` of `Year-to-Date`, its `to` too (no `not`
            # of `no one to`)
            out[st] = 0.8
            continue
        if any(one_typo(raw, lr) for lr in lraw):
            out[st] = 0.8
    plurals = [m.lower() for m in _PLURAL_INITIALS.findall(label)]  # `ASMs`: initials made plural
    for lr in lraw + plurals:  # label initials of consecutive question words: `asm` ~ available seat miles
        if lr.isalpha() and 2 <= len(lr) <= 5:
            for i in range(len(qraw) - len(lr) + 1):
                words = qraw[i : i + len(lr)]  # `men employed number` is not m-e-n: the word is asked itself
                if "".join(w[0] for w in words) == lr and lr not in words:
                    for _, st in qwords[i : i + len(lr)]:
                        out.setdefault(st, 0.8)
    return out


_MONTH_SHORT = {short: name for short, name in MONTH_BY_SHORT.items() if short not in ("dec", "may")}
"""Months' short names (not `dec`, also `Inc./(Dec.)`): they shorten their month and no other word."""
_PLURAL_INITIALS = re.compile(r"\b([A-Z]{2,5})s\b")
"""Initials in capitals made plural by a small `s` (`ASMs`, `RPMs`)."""
_RANKING = frozenset(("most", "least", "more", "less"))
"""Words of a ranking's direction: no label abbreviates them (`Mt. Ardent` is no `most`)."""
_CODED = re.compile(r"(?<=\d)[^\W\d_]+(?=\d)")
"""Letters between digits: a code's part (`05HG001`), no word."""


@functools.lru_cache(maxsize=4096)
def _is_unit(word: str) -> bool:
    """A unit symbol (`MW`, `kg`): it abbreviates no label (`MW` is no `Midwest`); unit words do
    (`years` ~ `Yrs`)."""
    return len(word) <= 3 and parse_unit(word) is not None


TYPO_MIN = 7
"""Shortest word (letters) read through one typo: shorter words are too often other words
(`states` ~ `stated`). On a hitab_train sample (3,553 questions) 6 letters: 52.18 %, 7: 52.27 %."""


def one_typo(a: str, b: str) -> bool:
    """`a` and `b` (alphabetic, `TYPO_MIN`+ letters, same first letter) differ by one edit: a letter
    left out, added, changed, or two neighbours swapped (`goverment`, `goverrnment`, `govermnent`)."""
    if a == b or a[:1] != b[:1] or min(len(a), len(b)) < TYPO_MIN or abs(len(a) - len(b)) > 1:
        return False
    if not (a.isalpha() and b.isalpha()):
        return False
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:] or (a[i + 2:] == b[i + 2:] and a[i:i + 2] == b[i:i + 2][::-1])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return short[i:] == long[i + 1:]


DERIVATION_SUFFIXES = ("i", "n", "al", "an", "ean", "ian", "er", "ern", "or", "ion", "ic", "pt", "ur")
"""English derivational endings (on Snowball stems) relating two words: `guilt` ~ `guilty`,
`withdraw` ~ `withdrawn`/`withdrawal`, `canada` ~ `canadian`, `europ` ~ `european`, `employ` ~
`employer`, `west` ~ `western`, `consum` ~ `consumpt` (consumed, consumption), `depart` ~ `departur`,
`produc` ~ `product`
(produced, production); a base's silent `e` goes (`close` ~ `closur`: closed, closures; `smoke` ~
`smoker`)."""


def same_word(a: str, b: str) -> bool:
    """Two stems of one word (`withdrawn` ~ `withdraw`): equal, or one derived from the other."""
    return a == b or _derived(a, b) or _derived(b, a)


def _superlative(a: str, b: str) -> bool:
    """One word is the other's superlative (`high` ~ `highest`, `big` ~ `biggest`): no abbreviation
    of it (`highest` names no `High Dependency Unit`; a comparative still names its base: `lower` the
    option `Low` of a choice)."""
    short, long = sorted((a, b), key=len)
    return long in (short + "est", short + short[-1:] + "est", short[:-1] + "iest")


def _derived(base: str, stem: str) -> bool:
    """`stem` is `base` plus a derivational ending (the base has at least 4 letters)."""
    if base.endswith("e") and stem in (base[:-1] + "ur", base + "r"):  # `closur`, `smoker`
        return len(base) >= 5 and base.isalpha()
    if base.endswith("uc") and stem == base + "t":  # `produc` ~ `product` (produced, production)
        return len(base) >= 5 and base.isalpha()
    return (len(base) >= 4 and base.isalpha() and stem.startswith(base)
            and stem[len(base):] in DERIVATION_SUFFIXES)


def acronym(text: str) -> set[str]:
    """Stems of a parenthesised acronym of the words before it: `available seat miles (asms)` →
    {`asm`}, `land use, land-use change and forestry (lulucf)` (its `and` may go without an initial).
    The acronym names the whole label, so a question using it mentions the label fully."""
    out: set[str] = set()
    for m in re.finditer(r"\(([a-z]{2,6})\)", text):
        before = re.findall(r"[a-z]+", text[: m.start()])
        content = [w for w in before if w not in _JOINING]
        if _initials_in(_singular(m.group(1)), before) or _initials_in(_singular(m.group(1)), content):
            out.update(tokens(m.group(1)) + tokens(_singular(m.group(1))))
    return out


_JOINING = frozenset({"and", "of", "the", "for", "in", "on", "to"})
"""Words an acronym may leave out (`Bank of Canada (BoC)` keeps its `of`; `LULUCF` drops `and`)."""


def _singular(abbr: str) -> str:
    """`gars` → `gar`, `acres` → `acre`: a plural `s` dropped (kept when it is one of only two
    letters)."""
    return abbr[:-1] if len(abbr) > 2 and abbr.endswith("s") else abbr


def _without_footnote_letter(word: str, asked: set[str]) -> str | None:
    """A label word with a footnote letter glued on (`companiesd`, `employeesa`, `otherc`): the word
    without it, when the question says that word. Past tenses and a silent `e` stay (`rated`,
    `care`): a `d`/`e`…`h` counts only after a plural."""
    base = word[:-1]
    if len(word) >= 5 and word[-1] in "abcdefgh" and base in asked and (
            base.endswith("s") or word[-1] in "abcf"):
        return base
    return None


def _initials_in(abbr: str, words: list[str]) -> bool:
    n = len(abbr)
    return any("".join(w[0] for w in words[i : i + n]) == abbr for i in range(len(words) - n + 1))


def tok_hits(label_tok: str, q: str, strength: float) -> bool:
    return label_tok == q or strength < 1.0
