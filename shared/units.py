"""Units written in words: unit rows (`percent`, `acres`, `$ thousands`), unit labels (`income ($)`)
and captions (`(in millions, except per share data)`, `(dollars in thousands)`).

`parse_unit(text)` reads a phrase that is *only* a unit and returns its canonical form: `percent`,
`percentage points`, a currency sign with an optional scale (`$ millions`, `$`), a scale alone
(`thousands`), or a scale with a measure (`thousand acres`). `label_unit` also reads a unit in
parentheses at the end of a header label; `caption_unit` reads the unit line or parenthesis of a
table caption together with its `except ...` clause. The vocabulary is general statistics and
finance wording, never a dataset's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from celltrace.shared.graph import normalise_text

PERCENT = {"percent", "percentage", "percentages", "per cent", "pct", "%"}
PERCENT_POINTS = {"percentage points", "percentage point", "percent points", "pp"}
SCALES = {
    "thousand": "thousand", "thousands": "thousand", "000": "thousand", "000s": "thousand",
    "'000": "thousand", "'000s": "thousand", "k": "thousand",
    "million": "million", "millions": "million", "mn": "million", "mil": "million",
    "billion": "billion", "billions": "billion", "bn": "billion",
    "trillion": "trillion", "trillions": "trillion",
}  # fmt: skip
SCALE_FACTORS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
SCALE_UNITS = frozenset(f"{scale}s" for scale in SCALES.values())
"""Units that are a scale alone (`(in millions)`): a currency label under them takes the scale."""
CURRENCIES = {
    "$": "$", "dollar": "$", "dollars": "$", "usd": "$", "us$": "$", "c$": "$", "cad": "$",
    "€": "€", "euro": "€", "euros": "€", "eur": "€", "£": "£", "gbp": "£", "sterling": "£",
    "¥": "¥", "yen": "¥", "jpy": "¥",
}  # fmt: skip
MEASURES = {
    "number": "number", "count": "number", "acre": "acres", "acres": "acres",
    "hectare": "hectares", "hectares": "hectares", "ha": "hectares",
    "tonne": "tonnes", "tonnes": "tonnes", "ton": "tons", "tons": "tons",
    "kilogram": "kg", "kilograms": "kg", "kg": "kg", "gram": "g", "grams": "g",
    "pound": "lb", "pounds": "lb", "lb": "lb", "lbs": "lb",
    "litre": "litres", "litres": "litres", "liter": "litres", "liters": "litres",
    "kilometre": "km", "kilometres": "km", "kilometer": "km", "kilometers": "km", "km": "km",
    "mile": "miles", "miles": "miles", "metre": "m", "metres": "m", "meter": "m", "meters": "m",
    "year": "years", "years": "years", "month": "months", "months": "months",
    "week": "weeks", "weeks": "weeks", "day": "days", "days": "days",
    "hour": "hours", "hours": "hours", "minute": "minutes", "minutes": "minutes",
    "person": "persons", "persons": "persons", "people": "persons",
    "kwh": "kWh", "mwh": "MWh", "gwh": "GWh", "twh": "TWh", "kw": "kW", "mw": "MW", "gw": "GW",
    "kt": "kt", "barrels": "barrels", "units": "units", "head": "head", "bushel": "bushels",
    "bushels": "bushels", "bu": "bushels", "cwt": "cwt", "gallon": "gallons", "gallons": "gallons",
    "cents": "cents", "pence": "pence",
}  # fmt: skip
PERIOD_UNITS = frozenset({"years", "months", "weeks", "days", "hours"})
"""Time units; a header stating one above period labels (`Year` over `2022 | 2023`) names them."""
FILLER = {"in", "of", "current", "constant", "nominal", "real", "u.s.", "us", "canadian", "and", "the",
          "numbers", "amounts", "figures", "values", "annual", "annualized", "yearly", "column", "row",
          "metric"}
"""Words a unit phrase may hold besides units (`in millions of current dollars`, `Numbers in
thousands`, `Amounts in thousands of dollars`, `annual %`, `column percentages`, `Thousand metric
tonnes`); alone they name no unit."""
COUNTED = frozenset({"employees", "headcount", "staff", "people", "persons", "workers", "customers",
                     "members", "stores", "locations", "branches", "restaurants", "outlets", "qty",
                     "quantity", "units"})
"""Nouns of a count of people, places or items (`Qty`): a caption's currency (`$ in millions`) never
measures them."""
_COUNT_QUALIFIERS = frozenset({"number", "of", "total", "average", "full", "part", "time", "active", "at",
                               "end", "year", "period", "the", "in", "thousands", "thousand", "millions",
                               "million"})
"""Words a count's label may hold besides its noun (`Number of employees at year-end`); any other
word makes it something else (`Employee benefits`, `Compensation of employees`, `Members' equity`)."""
RELATIVE_KINDS = (("average", "mean"), ("median",), ("rate", "rates", "ratio", "ratios", "per", "capita",
                                                 "prevalence", "incidence"), ("index",), ("margin",))
"""The words of relative figures by kind (a `rate` is also said `per 100,000`)."""
RELATIVE_WORDS = frozenset(word for kind in RELATIVE_KINDS for word in kind)
"""Words of a label whose figures are relative (`Average income`, `Rate per 100,000`, `Median age`,
`Gross margin`): they do not add up over classes, and a caption's scale or currency (`Numbers in
thousands`) does not measure them (`Unemployment rate` is no number of thousands)."""
_SAMPLE_NOUNS = frozenset({"n", "sample", "base", "count", "number"})
_SAMPLE_WORDS = _SAMPLE_NOUNS | {"size", "unweighted", "weighted", "of", "respondents", "cases",
                                 "observations"}
"""A sample size's label (`n`, `Unweighted base`, `Number of respondents`): counts, whatever percent a
caption states."""
_EXEMPT_FILLER = {"data", "amounts", "amount", "figures", "items", "information", "and", "the", "noted"}
"""Words of an `except ...` clause that do not name the exempted items."""

_WORD = re.compile(r"'?\d+s?|[^\W\d_]+(?:\.[^\W\d_]+\.?)*|[$€£¥%]")
_PAREN = re.compile(r"\(([^()]*)\)")
_BRACKETED = re.compile(r"[(\[]([^()\[\]]*)[)\]]")
_EXCEPT = re.compile(r"[,;]?\s*\b(?:except|excluding)\b([^;]*)")
_PER = re.compile(r"\s+per\s+(?!cent\b)([^\W\d_][\w ,.-]*)$")


_MULTIPLIER = re.compile(r"(?<![\w.])[x×]\s*1(?:[ ,]?000){1,4}\b|^1(?:[ ,]?000){1,4}(?=\s+[a-z])")
"""A scale written as a multiplier (`x 1,000`, `× 1 000 000`), as statistics agencies title tables, or
as the number before the unit (`1,000 head`, `1000 acres`)."""
_MULTIPLIED = {1: "thousands", 2: "millions", 3: "billions", 4: "trillions"}


def parse_unit(text: str) -> str | None:
    """The canonical unit when `text` is nothing but a unit phrase, else None."""
    t = normalise_text(text).strip(" ()[]:,.")
    t = _MULTIPLIER.sub(lambda m: _MULTIPLIED[m.group().count("000")], t)
    t = re.sub(r"([$€£¥])\s*m\b", r"\1 millions", t)  # `€m`, `£m`: millions (`m` alone is metres)
    if not t:
        return None
    if t in PERCENT_POINTS:
        return "percentage points"
    per = ""
    if m := _PER.search(t):
        per, t = f" per {m.group(1).strip()}", t[: m.start()]
    words = _WORD.findall(t.replace("per cent", "percent"))
    if not words or "".join(words).replace("'", "") != re.sub(r"[\s,'()]", "", t).replace("'", ""):
        return None
    scale = currency = measure = ""
    percent = False
    for w in words:
        if w in PERCENT:
            percent = True
        elif w in SCALES:
            scale = SCALES[w]
        elif w in CURRENCIES:
            currency = CURRENCIES[w]
        elif w in MEASURES:
            measure = MEASURES[w]
        elif w not in FILLER:
            counted = _SCALE_OF.fullmatch(t)  # `thousands of enplaned and deplaned passengers`
            return f"{SCALES[counted.group(1)]}s" if counted and not (currency or measure) else None
    if percent:
        return None if scale or currency or measure else "percent"
    return _compose(scale, currency, measure, per)


_SCALE_OF = re.compile(rf"(?:in\s+)?({'|'.join(SCALES)})\s+of\s+[a-z]+(?:[\s-]+[a-z]+){{0,4}}")
"""A count in a scale (`thousands of passengers`): the scale is its unit."""


def _compose(scale: str, currency: str, measure: str, per: str) -> str | None:
    if currency:
        unit = f"{currency} {scale}s" if scale else currency
    elif measure:
        unit = f"{scale} {measure}" if scale else measure
    elif scale:
        unit = f"{scale}s"
    else:
        return None
    return unit + per


_YEAR_THEN = re.compile(r"^[^\d]*(?:\d{1,2}\s+[^\d]+)?(?:1[89]|20)\d\d\s+(.+)$")


def label_unit(text: str) -> str | None:
    """The unit a header label states: the whole label (`percent`), what follows a year (`2023 €m`)
    or a closing `in …` (`Change in %`) or parenthesis (`median income ($)`, `revenue (in millions)`,
    `GDP growth (annual %)`, `Unemployment (% of labor force)`)."""
    unit = parse_unit(text)
    if unit is not None:
        return unit
    dated = _YEAR_THEN.match(normalise_text(text))  # `2023 €m`, `31 December 2023 £'000`
    if dated:
        return parse_unit(dated.group(1))
    said_in = _SAID_IN.search(normalise_text(text))  # `Change in %`, `Sales in € million`
    if said_in and (unit := parse_unit(said_in.group(1))) is not None:
        return unit
    groups = _PAREN.findall(text)
    if not groups or not text.rstrip().endswith(")"):
        return None
    return parse_unit(groups[-1]) or (  # `Unemployment, total (% of total labor force)`
        "percent" if _LEADING_PERCENT.match(normalise_text(groups[-1]).strip()) else None)


_SAID_IN = re.compile(r"\bin\s+([^()]+)$")


_LEADING_PERCENT = re.compile(r"(?:percent(?:age)?|per cent|%)(?:\s+(?:of|change|distribution|share)\b)")


def label_unit_of_values(text: str) -> str | None:
    """The unit of the values under a label: what `label_unit` reads, or a percent the label opens
    with (`Percent of labor force`, `percentage change`, `% of total`)."""
    unit = label_unit(text)
    if unit is None and _LEADING_PERCENT.match(normalise_text(text).strip()):
        return "percent"
    return unit


@dataclass(frozen=True)
class CaptionUnit:
    """A caption's unit and the words of its `except ...` clause (labels holding them are exempt)."""

    unit: str
    exempt: tuple[str, ...] = ()

    @property
    def exempt_unit(self) -> str | None:
        """The unit of the exempted items: amounts per something (`except per share data`) keep the
        caption's currency without its scale (`$ millions` → `$`); other exemptions have none."""
        currency = self.unit.split()[0]
        return currency if "per" in self.exempt and currency in CURRENCIES.values() else None

    def applies_to(self, labels: list[str]) -> bool:
        """False when one of `labels` names the exempted items: it holds every exempted word, in
        any inflection and with other words between (`per share` in `Earnings per common share`)."""
        if not self.exempt:
            return True
        wanted = {_base(w) for w in self.exempt}
        return not any(wanted <= {_base(w) for w in _label_words(label)} for label in labels)

    def leaves_out(self, labels: list[str]) -> bool:
        """One of `labels` names a figure the caption's unit does not measure: a count of people or
        places under a currency (`Employees` under `($ in millions, except per share data)`), a
        relative figure under a scale or currency (`Unemployment rate` under `Numbers in thousands`),
        a sample size under a percent (`n`, `Sample size` under `Percent of respondents`)."""
        def count(label: str) -> bool:
            words = set(_label_words(label))
            return bool(words & COUNTED) and words <= COUNTED | _COUNT_QUALIFIERS

        if self.unit == "percent":
            return any(is_sample_size(label) for label in labels)
        money = self.unit.split()[0] in CURRENCIES.values()
        return ((money or self.unit in SCALE_UNITS) and any(is_relative(label) for label in labels)) or (
            money and any(count(label) for label in labels))


def is_relative(label: str) -> bool:
    """The label names a relative figure (`RELATIVE_WORDS`: a rate, a ratio, an average; a price per
    share or unit: `Stock price`, `Price range`, `($/troy oz)`)."""
    return not RELATIVE_WORDS.isdisjoint(_label_words(label)) or _UNIT_PRICE.search(label.lower()) is not None


_UNIT_PRICE = re.compile(
    r"\b(?:stock|share|unit|market)\s+prices?\b|\bprices?\s+(?:range|per)\b|[$€£¥]\s*/\s*\w")


def without_exemptions(caption: str) -> str:
    """A caption without its `except ...` clauses: `(US$ millions, except ratios)` says nothing of the
    table's other figures."""
    return _EXCEPT_CLAUSE.sub("", normalise_text(caption))


_EXCEPT_CLAUSE = re.compile(r"[,;]?\s*\b(?:except|excluding)\b[^;\n)]*")


def is_sample_size(label: str) -> bool:
    """A sample size's label (`n`, `Sample size`, `Unweighted base`, `Number of respondents`)."""
    words = set(_label_words(label))
    return bool(words & _SAMPLE_NOUNS) and words <= _SAMPLE_WORDS


_SPELLED_OUT = {"eps": ("earnings", "per", "share")}
"""Abbreviations read as their words when an exemption is matched (`Diluted EPS` is per share)."""


def _label_words(label: str) -> list[str]:
    """A label's words, abbreviations spelled out (`_SPELLED_OUT`)."""
    return [v for w in _WORD.findall(normalise_text(label)) for v in _SPELLED_OUT.get(w, (w,))]


def _base(word: str) -> str:
    """A word without its plural ending (`shares` → `share`, `ratios` → `ratio`)."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def caption_unit(caption: str | None) -> CaptionUnit | None:
    """The unit of a caption: a line, a parenthesis or bracket, or a `;` clause that is a unit phrase,
    maybe with an `except ...` clause (`(in millions, except per share data)` → millions, exempt
    `per share`; `[Billions of dollars] Seasonally adjusted`; `Thousands of persons; not adjusted`),
    else a comma clause of one (`(Unaudited, in thousands)`, `(in thousands, unless otherwise noted)`)."""
    if not caption:
        return None
    lines = caption.splitlines()
    clauses = [p for line in lines if ";" in line for p in line.split(";")]
    bracketed = _BRACKETED.findall(caption)
    commas = [p for part in (*bracketed, *lines) if "," in part for p in part.split(",")]
    parts = [*bracketed, *lines, *clauses, *commas]
    for part in parts:
        text = normalise_text(part)
        exempt: tuple[str, ...] = ()
        if m := _EXCEPT.search(text):
            words = [w for w in re.findall(r"[^\W\d_]+", m.group(1)) if w not in _EXEMPT_FILLER]
            exempt, text = tuple(words), text[: m.start()]
        keyed = _UNIT_KEY.match(text)  # `Unit of measure: Percentage of population`
        unit = (label_unit_of_values(text[keyed.end():]) if keyed
                else parse_unit(text) or _percent_line(part, lines))
        if unit is not None:
            return CaptionUnit(unit, exempt)
    return None


def _percent_line(line: str, lines: list[str]) -> str | None:
    """`Percent of respondents, by demographic group`: a line under the title opening with percent
    (the title itself, `percentage distribution of workers by sector`, names what the table shows)."""
    under_title = line in lines[1:]
    return "percent" if under_title and _LEADING_PERCENT.match(normalise_text(line).strip()) else None


_UNIT_KEY = re.compile(r"^\s*units?(?:\s+of\s+measure(?:ment)?)?\s*:?\s+")
"""A caption line that names the unit outright (`Unit of measure: Percent`, `Units: $ thousands`)."""

