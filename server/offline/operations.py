"""Operation detection from general question wording, and arithmetic on displayed numbers.

The vocabulary below is general English for comparisons and aggregates (no dataset-specific
terms). Detection is ordered: pair choice ("A or B") → argmax/argmin ("which … highest") →
ratio/percent → difference → average → sum → max/min → count → lookup.

Computed values are shown in the user's terms (`compute`, `celltrace.shared.numstyle`): sums,
differences, means and extremes in the inputs' display style (`$31,000` + `$56,000` → `$87,000`);
a share `what percent of the whole was the part` and a growth rate `how many percent did X increase
from A to B`, (B − A) / A, as a percent (`3.8%`, the fraction kept as the value); ratios and counts
as plain numbers. Decimals come from the inputs and the magnitude, never from a data set. A lookup
returns the cell's displayed text; a decrease asked as an amount (`how much did X decline`,
`DECREASE_WORDS`) on a negative cell returns the magnitude in the cell's style.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Literal, NamedTuple

from celltrace.server.offline.intervals import interval
from celltrace.server.offline.lexicon import CARDINALS, ORDINALS, names_precision
from celltrace.shared.numbers import is_year_text, parse_number_info
from celltrace.shared.numstyle import (
    MAX_DECIMALS,
    Kind,
    NumStyle,
    combine,
    decimals_for,
    percent_to_fraction,
)
from celltrace.shared.units import CURRENCIES, MEASURES, PERCENT, SCALES


def _vocab(text: str) -> frozenset[str]:
    return frozenset(text.split())


Op = Literal[
    "lookup", "pair", "argmax", "argmin", "max", "min", "sum", "diff", "ratio", "percent_of",
    "percent_of_all", "growth", "cagr", "average", "count",
]

MORE_WORDS = _vocab(
    """
    more most higher highest larger largest greater greatest bigger biggest maximum max top
    increase increased better best likelier likeliest older oldest longer longest taller tallest
    heavier heaviest pricier priciest farther farthest furthest stronger strongest peak peaked
    warmer warmest hotter hottest wetter wettest sunnier sunniest snowier snowiest windier windiest
    busier busiest
    """
)
LESS_WORDS = _vocab(
    """
    less least lower lowest smaller smallest fewer fewest minimum min bottom decrease decreased
    worse worst younger youngest shorter shortest cheaper cheapest weaker weakest
    colder coldest cooler coolest drier driest quieter quietest calmer calmest
    """
)
CHANGE_WORDS = (
    "change", "changed", "increase", "increased", "decrease", "decreased", "grow", "grew", "grown", "growth",
    "rise", "rose", "risen", "fall", "fell", "fallen", "drop", "dropped", "decline", "declined",
    "add", "added", "gain", "gained", "lose", "lost", "shed", "improve", "improved", "worsen", "worsened",
    "deteriorate", "deteriorated",
)
"""Words that ask how much a figure changed (`how much did the rate fall from 2019 to 2023`); not the
plural nouns (`all sources showed increases from 2015 to 2016, how much in total …` is a lookup)."""
DIFF_PHRASES = (
    "difference", "how much more", "how many more", "how much less", "how many fewer", "how much higher",
    "how much lower", "how much larger", "how much smaller", "how much greater", "gap", "minus",
    "lead over", "margin over", *CHANGE_WORDS,
)
MINUS = re.compile(r"\bminus\b|\([^()]*\w\s+less\s+\w[^()]*\)")
"""A difference asked outright between two named figures (`receipts minus payments`, `(Tier 1 capital
less CET1 capital)` set apart as a definition), not a label's own `less` (`Taxes less subsidies`,
`(less resps)`) nor a comparison (`how much less`, `less concentrated`)."""
RATIO_PHRASES = (
    "how many times", "times as", "times more", "times higher", "ratio", "fold", "the times",
    "multiple relationship",
)
PERCENT_WORDING = re.compile(r"\bpercent|\bpercentage|\bproportion|%")
"""The question speaks of percentages (in lower case): a change it asks may be relative."""
PERCENT_OF_PHRASES = ("what percent", "what percentage", "what proportion", "what share", "what fraction")
SHARE_OF_WHOLE = re.compile(r"\b(?:percent|percentage|proportion|share)s?\b.*\baccount(?:s|ed|ing)?\b")
"""`how many percentage points did X account for (of Y)`: a share asked without `what percent`."""
AS_A_SHARE = re.compile(r"\bas an? (?:percent(?:age)?|proportion|share|fraction) of\b")
SHARE_WHOLE = re.compile(
    r"\b(?:percent(?:age)?|proportion|share|fraction)s? of (?:the |all |total )*(.+?)"
    r"(?=\s(?:was|were|is|are|did|do|does|in|on|to|into|among|across|through|for|at|during|by|from"
    r"|that|who|which|had|has|have"
    r"|comes?|came|go|goes|went|works?|lives?|belongs?|receives?|received|falls?|fell|rises?|rose"
    r"|takes?|took|says?|said|spends?)\b|[,?.;]|$)")
"""The whole a share names (`what percentage of revenue was …` → `revenue`), up to a verb (`of total
headcount works remotely` → `headcount`; never its first word)."""
DECREASE_WORDS = _vocab(
    """
    decrease decreased decreases decreasing decline declined declines declining drop dropped drops
    dropping fall fell fallen falls falling down reduce reduced reduces reducing reduction recede receded
    receding shrink shrank shrunk shrinking less lower fewer contract contracted contracts contracting
    contraction retract retracted retreat retreated lose loses losing lost shed sheds shedding
    """
)
"""Words asking how much something fell; `difference` and `gap` are not among them: a table's signed
difference (`A minus B`) is answered with its sign."""
_CHANGE_VERB = r"\b(?:increas|decreas|declin|grow|grew|rise|rose|fell|fall|drop|chang)\w*\b"
GROWTH = re.compile(
    r"\b(?:how\s*many|what|by\s+what)\s+percent(?:age)?s?\s+(?:did|does|do|has|have|had|was|were|is)\b"
    rf".*{_CHANGE_VERB}"
    r"|(?:\bpercent(?:age)?|%)\s+(?:change|increase|decrease|growth|decline|rise|drop)\b"
    r"|\bgrowth\s+rate\b|\brate\s+of\s+(?:growth|increase|decrease|decline|change)\b"
    rf"|{_CHANGE_VERB}\s+(?:by\s+)?(?:what|how\s+many)\s+percent(?:age)?\b(?!\s+points?\b)"
    rf"|{_CHANGE_VERB}.*"
    r"\b(?:in\s+percent(?:age)?(?:\s+terms)?|as\s+a\s+percent(?:age)?|in\s+relative\s+terms)\b"
    r"|\bby\s+(?:what|how\s+many)\s+percent(?:age)?\s+(?!points?\b).*\b(?:higher|lower|more|less|greater|larger"
    r"|smaller|bigger)\s+(?:[a-z]+\s+){0,3}?than\b"
)
"""A relative change (growth rate) between two named operands: `how many percent did X decline from
A to B`, `the percentage change in X from A to B`, `the growth rate of X`, `how much did X grow
from A to B in percent`, `by what percent is A higher than B` → (B − A) / A, a fraction like the
other ratios (`percentage points` is a difference)."""
COMPOUND = re.compile(r"\bcagr\b|\bcompound(?:ed)?\s+(?:annual\s+|yearly\s+)?(?:growth|rate)")
"""A compound annual growth rate: (B / A) ** (1 / years between) − 1."""
AVERAGE_WORDS = frozenset({"average", "mean", "averaged", "averaging"})
SUM_WORDS = frozenset({"total", "combined", "altogether", "sum", "together", "overall", "all"})
_QUANTITY_NOUNS = (r"(?:rates?|percent(?:age)?|share|proportion|fraction|amount|number|value|price|level|"
                   r"ratio|total|sum|cost|figure|yield|margin|average|mean|median|size|count|score|balance)")
LABEL_QUESTION = re.compile(
    rf"^\s*(?:in\s+)?(?:which|who|whom|where|what\s+(?!{_QUANTITY_NOUNS}\s)\w+\s+(?:had|has|was|were|is|are))\b")
"""A question opening on the name it asks: which/who/where …, `what country had …` (not `what rate
was paid …`: a quantity's noun asks a figure)."""


MEASURE_LABELS = _vocab(
    """
    % percent percentage percentages number numbers count counts rate rates rank ranking coefficient
    coefficients ratio ratios estimate estimates mean median share proportion distribution from to
    lower upper confidence interval standard error deviation value values total frequency
    """
)
"""Words of a column/row label that names a measure, not a member (`95% confidence interval: from`)."""


def is_measure_label(text: str) -> bool:
    """The label only names a measure or an interval bound (`%`, `number`, `from`, `coefficient`) or
    a figure's precision (`high 95% confidence interval`, `CV`); a class (`18 to 29`) is a member."""
    toks = re.findall(r"[a-z]+|%", text.lower())
    measure = all(t in MEASURE_LABELS for t in toks) or names_precision(text)
    return bool(toks) and measure and interval(text) is None


def words(question: str) -> list[str]:
    """Lower-case words and numbers (`1,234`, `3.5`); a comma after a word ends it (`lower,2013`)."""
    return re.findall(r"[a-z0-9]*[a-z][a-z0-9]*|[0-9]+(?:[.,][0-9]+)*", question.lower())


def has_phrase(question: str, phrases: tuple[str, ...]) -> bool:
    q = " " + " ".join(words(question)) + " "
    return any(f" {p} " in q for p in phrases)


LARGEST_DECREASE = re.compile(
    r"\b(?:largest|biggest|greatest|most|sharpest|steepest|strongest|fastest)\s+"
    r"(?:(?:[a-z-]+\s+){0,3}?(?:decrease|decline|drop|fall|reduction)|loss)e?s?\b"
    r"|\b(?:fell|fallen|declined|decreased|dropped|shrank|shrunk)\s+(?:\w+\s+)?(?:the\s+)?(?:most|fastest)\b"
    r"|\b(?:largest|biggest|greatest|most)\s+negative\b"
)
"""`the largest decrease(s)`, `the largest employment decline`, `prices fell the most`, `the largest
negative variance`: the most negative change, a minimum over signed changes (`the largest net loss` is
the largest loss)."""
_PACE = r"(fastest|faster|quickest|slowest|slower|most\s+quickly|most\s+slowly)"
_PACED_GROWTH = re.compile(rf"\b{_PACE}[- ]+(?:[a-z]+\s+){{0,2}}?"
                           r"(?:growth|growing|increase|rise|rising|gain|turn\w*)"
                           r"|\b(?:grew|grown|grows|growing|increased|rose|risen|gained|turned|turns|turn)\s+"
                           rf"(?:(?!than\b)[a-z]+\s+){{0,2}}?(?:the\s+)?{_PACE}\b")
"""`the fastest population growth`, `fastest-growing`, `the slowest increase`, `grew the fastest`,
`turned its inventory most slowly`: a pace of growth or turnover ranks the rates; `fast`/`slow`
alone say nothing of the direction (`the fastest time` is the lowest)."""
_PACED_TIME = re.compile(r"\b(slowest|slower|fastest|faster|quickest|quicker)\b(?:\s+[\w-]+){0,4}?\s+"
                         r"(?:times?|durations?|minutes|hours|days|seconds)\b")
"""`the slowest average response time`, `the fastest delivery time`: a time, the slowest the longest."""


QUANTILE_GROUP = re.compile(r"\b(?:top|bottom)\s*\d+(?:\.\d+)?\s*(?:%|percent|per\s*cent)")
"""`the top 1%`, `the bottom 90 percent`: a group of a distribution, not a direction."""


THRESHOLD = re.compile(
    r"\bat\s+(?:least|most)\b|\b(?:or|and)\s+(?:more|less|fewer|older|younger|greater|higher|lower)\b"
    r"|\bno\s+(?:more|less|fewer|later|earlier)\s+than\b"
    r"|\b(?:more|less|fewer|greater|longer|shorter|older|younger)\s+than\s+(?:\$?\d|a\b|an\b|one\b|two\b"
    r"|three\b|four\b|five\b|six\b|seven\b|eight\b|nine\b|ten\b|half\b)"
)
"""A threshold inside a group's name (`at least one`, `65 or older`, `more than 10 employees`), not
a direction of comparison."""


def direction(question: str) -> Literal["max", "min"] | None:
    """`max` for more/higher/… wording, `min` for less/lower/…, None without either (first wins);
    `the largest decrease` is a `min` (the most negative change); `top 1%` and thresholds
    (`at least one`, `three or more`) name a group."""
    if LARGEST_DECREASE.search(question.lower()):
        return "min"
    paced = _PACED_GROWTH.search(question.lower())  # `the fastest population growth`; not `the fastest
    if paced:  # time`, which is the lowest
        pace = paced.group(1) or paced.group(2)
        return "max" if pace.startswith(("fast", "quick", "most quickly")) else "min"
    timed = _PACED_TIME.search(question.lower())  # `which … the slowest response time`: the longest
    if timed and asks_label(question):  # (`list the fastest time` asks the time itself)
        return "max" if timed.group(1).startswith("slow") else "min"
    found = [w for w in words(THRESHOLD.sub(" ", QUANTILE_GROUP.sub(" ", question.lower())))
             if w in MORE_WORDS or w in LESS_WORDS]
    if found[:1] == ["top"] and len(found) > 1:  # `the top 3 … least likely`: the ranking's size only
        found = found[1:]
    return None if not found else "max" if found[0] in MORE_WORDS else "min"


_OUTRAN = (r"(?:exceeds?|exceeded|fell\s+short\s+of|beat|beats|outperform(?:ed|s)?|underperform(?:ed|s)?"
           r"|trail(?:ed|s)?|lag(?:ged|s)?)\b")
"""How one operand compares with the other in `by how many … beat …`, `how much did … lag … by`."""
_LESS_END = re.compile(r"(?:below|short\s+of|underperform\w*|trail\w*|lag\w*)$")
"""The comparison's last words say the compared operand is the smaller one (`fell short of`, `lag`)."""
_HOW_MUCH_MORE = r"(?:more|fewer|less|higher|lower|larger|smaller|greater)"
"""The comparatives that follow `how many` / `how much` in a comparison."""
COMPARATIVE_THAN = re.compile(
    r"\b(?:higher|lower|more|less|fewer|greater|larger|smaller|bigger|older|younger|longer|shorter)\s+"
    r"(?:\w+\s+){0,3}?than\b"
    r"|(?:(?<=\bhow many |\bhow much )|(?<=\bmany points )|(?<=\bpercentage points )|(?<=\bmany percent ))"
    rf"{_HOW_MUCH_MORE}\s+"
    r"(?:\S+\s+){0,10}?than\b"
    r"|(?<=\bmany points )(?:\S+\s+){1,8}?(?:above|below|exceeds?|exceeded)\b"
    r"|(?<=\bpercentage points )(?:\S+\s+){1,8}?(?:above|below|exceeds?|exceeded)\b"
    rf"|(?<=\bby how many )(?:\S+\s+){{1,10}}?{_OUTRAN}"
    rf"|(?<=\bby how much )(?:\S+\s+){{1,10}}?{_OUTRAN}"
    rf"|(?<=\bhow much )(?:\S+\s+){{1,10}}?{_OUTRAN}(?=.*\bby\b)"
)
"""`… of A lower than that of B`, `more likely … than`: a comparison of two named operands; after
`how many more` or `how much higher` (also `how many percentage points higher`) the compared noun
and verb may come first (`how many more households did California have than Texas`, `how much
higher was median income in California than in Texas`); a gap in points is also worded `above`,
`below` or `exceeded` (`how many percentage points was Canada above the OECD average`), and any
gap asked `by how many … exceeded` (`by how many inmates did Northfield exceed its rated capacity`,
`by how many votes did A beat B`, `how much did the fund lag its benchmark by`)."""
AMOUNT_OPENING = re.compile(r"^\s*(?:what(?:'s| is| was| were| are)?|(?:by )?how (?:many|much))\b")


def asks_comparison_amount(question: str) -> bool:
    """An amount asked by comparing two operands (`what was the rate of A lower than that of B`,
    `how many … fewer than the previous year`): their difference, not a choice between them (nor a
    threshold: `more than one partner`)."""
    q = re.sub(r"\([^)]*\)", " ", question.lower()).strip()  # a parenthesis quotes a label
    q = _LEADING_CONTEXT.sub("", q)  # `in october 2024, how many points higher …`
    return (bool(AMOUNT_OPENING.match(q)) and bool(COMPARATIVE_THAN.search(THRESHOLD.sub(" ", q)))
            and not asks_ranked_label(q) and " or " not in q)


_LEADING_CONTEXT = re.compile(
    r"^(?:(?:in|for|during|as\s+of|at|by|on)\s+(?=[^,?]*\b(?:19|20)\d\d\b)[^,?]{1,40},|[^:?]{1,60}:)\s*")
"""A period said before the question proper (`In October 2024, …`; a place there, `In LoDo, how much
higher is …`, may be what the comparison is of), or a topic before a colon (`Gonorrhea: how many
more cases …`)."""
COMPARED_BY = re.compile(rf"^\s*how (?:many|much) (?:(?:percentage )?points? |percent )?({_HOW_MUCH_MORE})\b")
"""The comparative word opening `how many more … than …`."""


def comparison_phrase(question: str) -> str:
    """The comparative words of a comparison (`lower than`, `more medical care use than`), or ''."""
    m = COMPARATIVE_THAN.search(question.lower())
    return m.group(0) if m else ""


def comparison_is_less(question: str) -> bool:
    """The compared operand is the smaller one (`lower than`, `how much less … than`): B − A."""
    m = COMPARATIVE_THAN.search(question.lower())
    return m is not None and (m.group(0).split()[0] in LESS_WORDS or bool(_LESS_END.search(m.group(0))))


def asks_share(question: str) -> bool:
    """The question asks for the part of a whole (`what percent of …`, `… percent … account for`,
    `X as a percentage of Y`)."""
    q = question.lower()
    return has_phrase(question, PERCENT_OF_PHRASES) or bool(SHARE_OF_WHOLE.search(q) or AS_A_SHARE.search(q))


def share_whole(question: str) -> str | None:
    """The whole a share question names after `percent of`, without `the`/`all`/`total`."""
    m = SHARE_WHOLE.search(question.lower())
    return m.group(1) if m else None


_SHARE_CLAUSE = re.compile(
    r"\b(?:percent(?:age)?|proportion|share|fraction)s? of (.+?)(?=\s(?:was|were|is|are|came|come|comes"
    r"|went|belonged|belongs?|lived|lives?|worked|works?)\b|[?.;]|$)")


def share_clause(question: str) -> str | None:
    """The words a share question says of its whole, up to its verb: `what percentage of all job
    vacancies in Canada in Q2 2024 were in Quebec` → `all job vacancies in canada in q2 2024`."""
    m = _SHARE_CLAUSE.search(question.lower())
    return m.group(1) if m else None


AMOUNT_QUESTION = re.compile(
    r"^\s*(?:what(?:'s| is| was)?(?: the)? (?:percent|percentage|proportion|share|number)\b"
    r"|how (?:many|much)\b)"
)
"""A question that opens by asking for one amount (`what percent …`, `how many …`)."""


def asks_union(question: str) -> bool:
    """An amount asked for alternatives together (`what percent … either A or B`): their sum.

    With more/less wording (`was it higher for A or B`) the alternatives are a choice instead; an
    open range (`8 hours or more`) is no alternative.
    """
    q = without_open_ranges(question.lower())
    return (bool(AMOUNT_QUESTION.match(q)) and " or " in q and direction(q) is None
            and "respectively" not in words(q))


_NOT_PLURAL = r"(?!(?:was|has|does|is|this|its|as|us|less)\b)"
_MODIFIER = r"(?!(?:more|fewer|less|times|percent|percentage|of|the|other)\b)[a-z-]+(?:['’]s)?"
_COUNT = re.compile(r"^\s*(?:(?:in|during|for|as\s+of|at|by|within|among|outside(?:\s+of)?|excluding|"
                    r"except(?:\s+for)?|other\s+than|apart\s+from|aside\s+from|leaving\s+(?:out|aside))"
                    r"\s+[^,?]{1,40},\s*)?(?:(?:in|with|for)\s+)?"
                    r"how\s+many\s+(?:of\s+(?:the|these|those)\s+(?:(?:top|bottom|first|last|largest)\s+)?(?:\d+\s+)?)?"
                    r"(?:(?:fy\s*|fiscal\s+)?(?:19|20)\d\d\s+)?"  # `in how many FY2024 quarters`
                    r"(?:(?:listed|selected|major|individual|individually\s+(?:listed|named|shown))\s+)?"
                    rf"(?:(?P<modifier>{_MODIFIER}(?:\s+{_MODIFIER}){{0,2}}?)\s+)??"
                    rf"{_NOT_PLURAL}([a-z]+s)\b(?:\s+{_NOT_PLURAL}([a-z]+s)\b)?")
"""`how many provinces`, `in how many years`, `with how many of the individual countries`, `In
2022, how many stations`, `Outside the United States, how many areas`: members counted (a
plural that is no unit: `how many percent`, `how many million dollars`, `how many percentage
points` ask a figure); after a word or two or a plural (`how many partner countries`, `how many
commercial lending sectors`, `how many sales reps`, `how many master's entry cohorts`, `how many
accrued liability line items`) the last plural is the head noun."""
_COUNT_FIRST = re.compile(
    r"^\s*(?:of|among)\s+(?:the|these|those|all)\s+(?:(?:\d+|[a-z]+)\s+)??(?:(?:listed|selected|major)\s+)?"
    rf"(?:(?P<modifier>{_MODIFIER})\s+)?{_NOT_PLURAL}([a-z]+s)\b(?:\s+{_NOT_PLURAL}([a-z]+s)\b)?"
    r"\s*(?:\([^)]*\)\s*)?,\s*how\s+many\s+"
    r"(?!of\b|[a-z]+s\b)")
"""`Of the five major occupation groups, how many had …`: the members named before `how many`."""
_UP = ("above", "over", "more", "greater", "higher", "exceed", "longer", "larger", "bigger", "surpass",
       "beat")
_FIGURE_ASKED = re.compile(r"\bper\s+(?:\d|capita\b)|\bby\s+-?\d(?![\d,.]*\s*(?:%|percent|(?:percentage\s+)?"
                           r"points?)?\s+or\s+(?:more|less|higher|lower|greater|above|below|over|under)\b)")
"""`how many homicides per 100,000 population`, `… increased by 32%`: a rate or a change's size is
asked, not a count (`rise by 0.3 percent or more` states a bound)."""
_STATED_BOUND = re.compile(
    r"\b(above|over|more\s+than|greater\s+than|higher\s+than|exceed(?:ed|s|ing)?|below|under|less\s+than|"
    r"lower\s+than|fewer\s+than)\s+(?:[$€£¥]\s*|(?:usd|us\$|cad|eur|gbp|aud)\s*)?(-?\d[\d,]*(?:\.\d+)?)"
    r"(?:\s*(thousand|million|billion|trillion|bn|mn|k|m)\b)?")
_BOUND_SCALES = {**SCALES, "m": "million"}
"""A bound's scale word or letter (`more than £3m`)."""
_OR_BEYOND = re.compile(r"(?<![\d.])\$?(-?\d[\d,]*(?:\.\d+)?)\s*(?:percent|%)?(?:\s+[a-z]+)?\s+or\s+"
                        r"(higher|more|above|greater|over|lower|less|below|fewer|under)\b")
"""`3.8 percent or higher`, `100 or more`, `84 years or more`: a bound the members may equal."""
_AT_LEAST = re.compile(r"\bat\s+(least|most)\s+\$?(-?\d[\d,]*(?:\.\d+)?)"
                       r"|\bat\s+or\s+(above|over|below|under)\s+\$?(-?\d[\d,]*(?:\.\d+)?)"
                       r"|\b(reach(?:ed|es)?|met|meet|meets|hit)\s+(?:the\s+|an?\s+)?\$?(-?\d[\d,]*(?:\.\d+)?)")
"""`at least 19.0`, `at most 5`, `at or above 85%`, `reached the 0.7% target`: a bound the members
may equal."""
_AGGREGATE_BOUND = re.compile(
    r"\b(above|over|higher\s+than|exceed(?:ed|s|ing)?|below|under|lower\s+than|faster\s+than|more\s+quickly\s+than"
    r"|slower\s+than)\s+(?:that\s+of\s+)?(?:the\s+)?"
    r"(?:[a-z/&-]+\s+){0,4}?(average|total|overall|whole|benchmark|target|norm|median|mean|all[- ]items)\b")
_PERCENT_NEXT = re.compile(r"\s*(?:%|percent\b|per\s+cent\b)")
SPENT = re.compile(r"\b(?:spen[dt]|spending|paid|pay)\b")
"""Wording of money going out: figures shown negative are sizes (`spent the most on acquisitions`)."""
_LINE_BOUND = re.compile(r"\b(more|higher|longer|greater|larger|bigger|lower|less|shorter|fewer|smaller)\b"
                         r"[^?]*?\bthan\s+(?!\$?-?\d)"
                         r"|\b(surpass(?:ed|es)?|beat)\s+(?!\$?-?\d)"
                         r"|\b(exceed(?:ed|s)?|above|below)\s+(?:their|its)\b"
                         r"|\b(f[ae]ll(?:s|ing)?\s+short\s+of)\s+(?!\$?-?\d)")
"""A member's figure against its own figure on another line (`than the male one`, `a lower assessed
value on the 2024 roll than on the 2023 roll`, `their revised budget`, `beat budget`); the words after
it name that line (`Count.reference`)."""
_MET_OR = re.compile(r"\b(?:met|meet|meets|matched|match|equall?ed|equals?)\s+or\s+(?:beat|exceed|surpass)")
"""`met or beat their target`: a figure equal to the other line's counts too."""
_IN_HOW_MANY = re.compile(r"^\s*in\s+how\s+many\b")
_THAN_EARLIER = re.compile(
    r"\b(?:(more|higher|greater|larger|bigger|lower|less|fewer|smaller)\b[^?]*?\bthan|(above|below|under))"
    r"\s+(?P<ref>(?:a|one|the)\s+(?:year|quarter|month)\s+(?:earlier|before|ago|previously)"
    r"|(?:in\s+)?(?:the\s+)?(?:(?:previous|prior|preceding|last)\s+(?:year|quarter|month|period)|same\s+"
    r"(?:period|quarter|month)\s+(?:a\s+year\s+ago|last\s+year))|(?:a\s+)?year\s+ago)\b")
"""Each member's figure against its own a period earlier (`fewer jobs … than a year earlier`, `sales
below the prior year`)."""
_SIGNED = re.compile(r"\ban?\s+(?:[a-z-]+\s+){0,2}(surplus|profit|deficit|loss)\b")
"""A figure's sign said as a result (`a trade surplus`, `a merchandise trade surplus`, `an operating
loss`; not `hearing loss`)."""
_SIGNED_WORD = re.compile(r"\b(?:had|have|has|with|showed|show|posted|reported|recorded|saw)\s+(?:an?\s+)?"
                          r"(negative|positive)\b")
"""A figure's sign said outright (`had negative comparable sales`)."""
_FELL = re.compile(r"\b(?:fell|falls?|fallen|declin(?:e|ed|es)|decreas(?:e|ed|es)|dropped|drops?|shrank|"
                   r"shrunk|lost|lose|(?:go|goes|went|gone)\s+down)\b")
_ROSE = re.compile(r"\b(?:rose|rises?|risen|increas(?:e|ed|es)|grew|grows?|gain(?:s|ed)?|added|climbed|"
                   r"(?:go|goes|went|gone)\s+up)\b")
class Count(NamedTuple):
    """What a `how many <members> …` question counts: the members' noun, the side of the bound, the
    bound a figure states (`stated`), or the line it names (`aggregate`: its word in `reference`,
    `average`, `national benchmark`), or zero on a change line, or each member's figure on another
    line (`line`: `longer than the male one`, `surpassed their 2019 level`)."""

    noun: str
    way: Literal["above", "below"]
    bound: float
    against: Literal["stated", "aggregate", "change", "line"]
    reference: str = ""
    scale: str = ""
    """The scale a stated bound is said in (`above $6 billion`: `billion`)."""
    inclusive: bool = False
    """The members may equal the bound (`3.8 percent or higher`)."""
    percent: bool = False
    """The bound is a percentage (`more than 40%`): percentages are compared."""


def count_condition(question: str) -> Count | None:
    """The count a `how many <members> …` question asks: members above/below a stated figure (`above
    2 percent`, `more than 100`), above/below an average or total line (`exceeded the national
    average`), above/below zero (`had a trade surplus`, `reported an operating loss`), or
    rising/falling on a change line (`saw employment fall`); None otherwise (`how many people lived
    in Ontario` asks a figure)."""
    q = question.lower()
    noun = counted_noun(q)
    if noun is None:
        return None
    if m := _AT_LEAST.search(q):  # `at least 19.0 years`: the bound is met too
        word, figure = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
        return Count(noun, "below" if word in ("most", "below", "under") else "above",
                     float(figure.replace(",", "")), "stated", inclusive=True,
                     percent=bool(_PERCENT_NEXT.match(q, m.end())))
    if m := _STATED_BOUND.search(q):
        return Count(noun, _side(m.group(1)), float(m.group(2).replace(",", "")), "stated",
                     scale=_BOUND_SCALES.get(m.group(3) or "", ""),
                     percent=bool(_PERCENT_NEXT.match(q, m.end())))
    if m := _OR_BEYOND.search(q):
        return Count(noun, _side(m.group(2)), float(m.group(1).replace(",", "")), "stated", inclusive=True,
                     percent=bool(re.search(r"%|percent", m.group(0))))
    if m := _AGGREGATE_BOUND.search(q):  # (`rose faster than the all-items CPI`: above it)
        way = "above" if m.group(1).startswith(("faster", "more")) else _side(m.group(1))
        return Count(noun, way, 0.0, "aggregate", m.group(2))
    if m := _SIGNED.search(q) or _SIGNED_WORD.search(q):  # `how many partner countries had a trade
        return Count(noun, "below" if m.group(1).startswith(("deficit", "loss", "negative")) else "above",
                     0.0, "stated")  # surplus`: above zero; `negative comparable sales`: below
    if m := _THAN_EARLIER.search(q):  # `had fewer jobs in September 2024 than a year earlier`
        return Count(noun, _side(m.group(1) or m.group(2)), 0.0, "change", q[m.start("ref"):])
    if (m := _LINE_BOUND.search(q)) and (noun not in MEASURES or _IN_HOW_MANY.match(q)):  # `female stays
        # longer than the male one`: against that line (`how many minutes … more than women` asks a
        # difference; `in how many months … beat budget` counts months)
        way = m.group(1) or m.group(2) or m.group(3) or m.group(4)
        return Count(noun, _side(way), 0.0, "line", q[m.end():], inclusive=bool(_MET_OR.search(q)))
    if _FELL.search(q):
        return Count(noun, "below", 0.0, "change")
    if _ROSE.search(q):
        return Count(noun, "above", 0.0, "change")
    return None


_MONEY_ASKED = re.compile(r"\bhow\s+many\s+(?:(\w+)\s+)?(\w+)")


def counts_where(question: str) -> bool:
    """`in how many wards did …`: the members where something happened are counted."""
    return bool(_IN_HOW_MANY.match(question.lower()))


def asks_money(question: str) -> bool:
    """The question asks an amount of money or in a scale (`by how many thousand dollars`, `how many
    millions`): no percentage answers it."""
    m = _MONEY_ASKED.search(question.lower())
    return m is not None and bool({m.group(1), m.group(2)} & {*SCALES, *CURRENCIES}) and not (
        {m.group(1), m.group(2)} & set(PERCENT))


def counted_also(question: str) -> str | None:
    """The noun after `and`/`or` in `how many provinces and territories`: its members are counted too."""
    m = _COUNTED_ALSO.search(question.lower())
    return m.group(1) if m else None


_COUNTED_ALSO = re.compile(r"\bhow\s+many\s+(?:of\s+the\s+)?\w+\s+(?:and|or)\s+(\w+)")


def counted_noun(question: str) -> str | None:
    """The members `how many <members> …` counts (a plural that is no unit: not `how many percent`,
    `how many million dollars`, nor a rate or change's size: `how many homicides per 100,000`)."""
    q = question.lower()
    counted = _COUNT.match(q) or _COUNT_FIRST.match(q)
    figure, bound = _FIGURE_ASKED.search(q), _STATED_BOUND.search(q)  # `above 8.0 per 1,000`: the
    if figure and bound and bound.end() <= figure.start():  # bound's rate, no rate asked
        figure = None
    if counted is None or {counted.group(2), *(counted.group("modifier") or "").split()} & {
            *PERCENT, *SCALES, *CURRENCIES, "points", "times", *_DURATIONS} or figure:
        return None  # `how many thousand students`: a figure in thousands; `how many minutes`: a time
    return counted.group(3) or counted.group(2)


_DURATIONS = ("seconds", "minutes", "hours")
"""Units of a time spent (`how many minutes did fathers spend`): a figure, never members counted."""


def count_modifier(question: str) -> str | None:
    """The words before the counted noun (`police` of `how many police officers were there`): such a
    count is a figure the table shows, not a section's members counted (`how many properties are in
    …`); in a count against a condition they say which members (`commercial lending sectors`)."""
    q = question.lower()
    counted = _COUNT.match(q) or _COUNT_FIRST.match(q)
    return None if counted is None else counted.group("modifier")


def _side(word: str) -> Literal["above", "below"]:
    return "above" if word.startswith(_UP) else "below"


def asks_growth(question: str) -> bool:
    """The question asks for a relative change (`how many percent did X increase …`), not a change in
    points (`by how many percentage points did the victimization percentage change`)."""
    q = question.lower()
    return bool(GROWTH.search(q)) and not asks_compound(question) and not POINTS.search(q)


POINTS = re.compile(r"\bpoints?\b|\bpp\b")
"""A change asked in (percentage) points."""


def asks_compound(question: str) -> bool:
    """The question asks a compound annual growth rate (`CAGR`, `compound annual growth rate`)."""
    return bool(COMPOUND.search(question.lower()))


OUTFLOW = re.compile(r"\bhow\s+much\b.*\b(?:spen[dt]|paid|pay|used|invested|repurchased|bought|"
                     r"return(?:ed)?\s+to\s+(?:shareholders|stockholders|investors|owners))\b")
"""`how much was spent on …`, `how much did the company pay in …`, `how much … return to shareholders`:
the size of an outflow."""


def asks_outflow(question: str) -> bool:
    """The question asks how much went out (spent, paid, used, invested): a positive amount."""
    return bool(OUTFLOW.search(question.lower()))


UNSIGNED_CHANGE = re.compile(r"\b(?:improv(?:e[ds]?|ing)|worsen(?:s|ed|ing)?|deteriorat(?:e[ds]?|ing))\b")
"""A change said as better or worse (`the combined ratio improved`): whether that is up or down
depends on the figure, so its size is asked."""


def asks_fall_size(question: str) -> bool:
    """A percentage change asked as a fall (`the percentage decrease`, `by what percent did … decline`,
    not a comparison's `lower`): a fall is answered by its size."""
    return any(w in DECREASE_WORDS - _COMPARATIVES for w in words(_BOUND.sub(" ", question.lower())))


_COMPARATIVES = frozenset({"less", "lower", "fewer", "down"})


def asks_decrease(question: str) -> bool:
    """The question asks how much something fell (decrease/decline/drop/less … wording); `or less`
    and `less than 5` bound a group (`high school diploma or less`), they ask no decrease; nor does
    `did it rise or fall` (the change, signed), nor the season `fall 2019`."""
    q = _SEASON.sub(" ", question.lower())
    return not _EITHER_WAY.search(q) and any(w in DECREASE_WORDS for w in words(_BOUND.sub(" ", q)))


_SEASON = re.compile(r"(?:(?<=\bin )|(?<=\bbetween )|(?<=\band )|(?<=\bfrom )|(?<=\bto )|(?<=\bsince )"
                     r"|(?<=\bthe ))fall\s+(?:of\s+)?(?:19|20)\d\d\b")
"""The season (`between fall 2019 and fall 2023`), no decrease."""


_UPS = r"(?:rise|rose|increase[ds]?|grow|grew|go up|went up)"
_DOWNS = r"(?:fall|fell|decrease[ds]?|decline[ds]?|drop|dropped|go down|went down)"
_EITHER_WAY = re.compile(rf"\b(?:{_UPS}\s+or\s+{_DOWNS}|{_DOWNS}\s+or\s+{_UPS})\b")
"""`did it rise or fall`, `increase or decrease`: the direction is asked with the size."""


_BOUND = re.compile(r"\bor (?:less|fewer|lower)\b|\b(?:less|fewer) than (?=\$?\d)")


SEVERAL = re.compile(r"\b(?:what|how many|how much)\s+(?:were|are)\b.*\band\b|\brespectively\b|\beach of\b")
"""Wording that asks for several values at once: a plural question (`what were the rates of A and
B`), `respectively`, `each of`."""
SEVERAL_YEARS = re.compile(
    r"\b(?:in|for)\s+(?:19|20)\d\d\s*(?:,\s*(?:19|20)\d\d\s*)*,?\s*and\s+(?:19|20)\d\d\b")
"""An amount asked for several years (`revenue in 2018 and 2019`): one value per year."""


def asks_several(question: str) -> bool:
    """The question asks one value per listed item (plural wording with a list, `respectively`, an
    amount in several years)."""
    q = question.lower()
    return bool(SEVERAL.search(q)) or (bool(SEVERAL_YEARS.search(q)) and not asks_label(q))


def asks_label(question: str) -> bool:
    """The question asks for a name (which/who …), not a quantity."""
    q = question.lower().strip()
    return bool(LABEL_QUESTION.match(q)) or " which " in f" {q} " or q.startswith(("who ", "whom "))


RANKED_LABEL = re.compile(r"(?:^|[,;:])\s*(?:which|where|who|whom)\b|\bmost (?:common|frequent)\b|^\s*list\b")
"""Wording that, with a more/less direction, asks which member ranks first: a clause opening with
which/where/who (`…, where were people more likely to …`), `most common`, or a `list …` request."""
QUANTITY = re.compile(r"\bhow (?:many|much)\b|\b(?:percent|percentage|proportion|number|rate)\s+of\b"
                      r"|\bwhat (?:percent|percentage|proportion|share|fraction)\b")
"""Wording that asks for an amount (the question then wants a value, not a label): `by what
percentage would families skip or delay a payment` asks a figure, its `or` is no choice."""


def amount_before_name(question: str) -> bool:
    """An amount is asked before a which/who clause: `what was the rate of manitoba, which had the
    highest rate?` wants the rate (the clause only describes the item), not the item's name."""
    q = question.lower()
    amount = QUANTITY.search(q)
    name = re.search(r"\b(?:which|who|whom)\b", q)
    return amount is not None and name is not None and amount.start() < name.start()


EXTREME_VALUE = re.compile(
    r"^\s*(?:in\s+\w+\s*,\s*)?what(?:'s|\s+(?:is|was|were|are))?\s+(?:the\s+)?(?:single\s+)?"
    r"(?:highest|lowest|largest|smallest|greatest|biggest|maximum|minimum|max|min|cheapest|priciest)\b")
"""`what was the highest unemployment rate …`, `what is the lowest vacancy rate`, `what was the
cheapest average price per gallon`: the extreme figure itself, not the member holding it."""


def asks_extreme_value(question: str) -> bool:
    return EXTREME_VALUE.search(question.lower()) is not None


AMOUNT_ASKED = re.compile(
    r"^\s*what\s+(?:was|is|were|are)\s+the\s+(?:\w+\s+)?"
    r"(?:percent|percentage|proportion|number|rate|share|prevalence|amount|value)s?\b")
"""`what was the (…) percentage …`: a question opening on the amount it wants."""


def asks_amount_not_choice(question: str) -> bool:
    """The question asks for an amount, names no direction and no which/who: an `A or B` in it is
    part of a label (`what percentage reported "quite a bit" or "extremely" stressful`), not a choice
    between two items (a hitab_train sample of 3,553 questions: 14 more right, none lost). Amounts
    asked `respectively` are several amounts, whatever other words the question has."""
    q = question.lower()
    amount = QUANTITY.search(q) is not None or AMOUNT_ASKED.match(q) is not None
    return (amount and not asks_label(q) and direction(q) is None) or "respectively" in words(q)


ASKED_CATEGORY = re.compile(
    r"\b(?:which|what)\s+(?:(?:fy\s*|fiscal\s+)?(?:19|20)?\d\d\s+)?([^\W\d_]+)(?:\s+or\s+([^\W\d_]+))?")
"""`which gender …`, `what province …`, `which FY2024 quarter`: the noun names the category of the
answer, not a cell constraint (an embedding of it matches the category's members unevenly: `gender` ~
`males`)."""


def asked_category(question: str) -> str | None:
    """The noun right after which/what (None without one, or when it is a function word), or the
    members named before `which one` or `which had …` (`Among the Northern region districts, which
    one …`)."""
    q = question.lower()
    m = ASKED_CATEGORY.search(q)
    if m and m.group(1) in _FUNCTION_AFTER_WH | {"one", "ones"} and (
            before := _MEMBERS_BEFORE.match(q[:m.start()])):  # `Among the top 15 institutions, which had …`
        return before.group(1)
    if m and (period := _PERIOD_HEAD.match(q, m.end(1))):  # `which marketing year`: a year
        return period.group(1)
    return m.group(1) if m and m.group(1) not in _FUNCTION_AFTER_WH | {"one", "ones"} else None


_PERIOD_HEAD = re.compile(r"\s+(year|quarter|month|season)\b")
"""The period a qualifier before it names (`which marketing year`, `which fiscal quarter`)."""
_MEMBERS_BEFORE = re.compile(
    r"^\s*(?:among|of)\s+(?:the|these|those|all)\s+(?:[\w'’-]+\s+){0,4}?([a-z]+s)\s*,\s*$")
"""`Among the Northern region districts, `: the members a `which one` after it asks among."""


def asked_alternative(question: str) -> str | None:
    """The noun after `or` in `which province or territory`: its members are asked too."""
    m = ASKED_CATEGORY.search(question.lower())
    return m.group(2) if m and m.group(1) not in _FUNCTION_AFTER_WH else None


_FUNCTION_AFTER_WH = frozenset({"is", "was", "were", "are", "had", "has", "have", "did", "does", "do",
                                "the", "a", "an", "of", "in", "to", "for", "kind", "type", "group"})


def asks_ranked_label(question: str) -> bool:
    """The question asks for the label of the top- or bottom-ranked member, not for its value."""
    q = question.lower().strip()
    return asks_label(q) or (bool(RANKED_LABEL.search(q)) and not QUANTITY.search(q))


TOP_K = re.compile(
    r"\b(?:top|first|list(?: the)?|highest|lowest|largest|smallest|(?:which|what)(?: \w+)?)\s*"
    rf"(\d+|{'|'.join(CARDINALS)})\b"
    r"(?!\s*(?:%|percent|per\s*cent|(?:years?|months?|weeks?|days?|hours?|quarters?|seasons?|times?)\b))"
)
"""`list the top 3 …`, `top4 …`, `which two classes …`, `the lowest three rates`: the question asks
for several ranked members (`the top 10 percent` is a population share, `the first 3 years` a
period, not a ranking)."""


def top_k(question: str) -> int | None:
    """How many top-ranked members a ranking question asks for (`list the top 3 …` → 3), else None."""
    m = TOP_K.search(question.lower())
    if m is None:
        return None
    k = int(m.group(1)) if m.group(1).isdigit() else int(CARDINALS[m.group(1)])
    return k if 2 <= k <= 10 else None


_STATED_MEMBERS = re.compile(
    rf"\b(?:of|among|across)\s+(?:the|these|those|all)\s+(\d+|{'|'.join(CARDINALS)})\s+(?:[a-z-]+\s+){{0,2}}?[a-z]+s\b")
"""`which of the four regions`, `among the 3 arms`: how many members the question says there are."""


def stated_members(question: str) -> int | None:
    """How many members the question says it ranks or counts (`of the four regions` → 4), else None."""
    m = _STATED_MEMBERS.search(question.lower())
    if m is None:
        return None
    n = int(m.group(1)) if m.group(1).isdigit() else int(CARDINALS[m.group(1)])
    return n if n >= 2 else None


_ORDINALS = "|".join([w for w, n in ORDINALS.items() if n != "1"] + [r"\d*(?:2nd|3rd)", r"\d+th", r"\d+1st"])
ORDINAL_RANK = re.compile(
    rf"\b({_ORDINALS})[\s-]+(most|largest|highest|greatest|biggest|busiest|leading|lowest|smallest|least|fewest"
    r"|quietest)\b")
"""`the second largest`, `third-lowest`, `fourth leading`: one member at that place of the ranking."""
_ORDINAL_LIST = re.compile(rf"\b(?:first|{_ORDINALS})\s*(?:,|and|or)\s*(?:{_ORDINALS})\b")
"""`the second and third most …`: several places at once."""


Place = tuple[int, Literal["max", "min"]]
"""A place in a ranking and its direction (`the third largest` → `(3, "max")`)."""


def ordinal_rank(question: str) -> Place | None:
    """The place and direction of `the third largest …` (`(3, "max")`); None without one, or when
    the question asks two places (`the second and third most …`)."""
    q = question.lower()
    found = ORDINAL_RANK.findall(q)
    if len(found) != 1 or _ORDINAL_LIST.search(q):
        return None
    word, superlative = found[0]
    place = int(ORDINALS.get(word) or re.sub(r"\D", "", word))
    return place, "min" if superlative in ("lowest", "smallest", "least", "fewest", "quietest") else "max"


OPEN_RANGE = re.compile(
    r"((?<![\w.])(?:\$?\d[\d,.]*%?|one|two|three|four|five|six|seven|eight|nine|ten)(?:\s+[^\W\d_]+)?)"
    r"\s+or\s+(?:more|less|fewer|older|younger|over|under|above|below|greater|higher|lower|longer|later)\b")
"""`two or more`, `$500 or more`, `65 or older`, `3 years or more`: one open-ended group after a
number, not a choice (`younger or older` stays one) nor a direction."""


def without_open_ranges(question: str) -> str:
    """The question with its open-ended ranges (`two or more`) reduced to their bound (`two`)."""
    return OPEN_RANGE.sub(r"\1", question)


def pair_options(question: str) -> tuple[str, str] | None:
    """The two alternatives of an `A or B` question, around the last ` or `.

    B runs to the next punctuation; A is taken with as many words as B (parallel structure:
    `higher for men or women` → (`men`, `women`)), never crossing punctuation. Without an `or`, the
    two items of `between A and B, which …` (`_named_before_which`).
    """
    q = question.lower().strip().rstrip("?. ")
    if " or " not in q:
        return _named_before_which(q)
    left, _, right = q.rpartition(" or ")
    right = re.split(r"[,:;?]", right)[0].strip()
    if len(right.split()) > 8:  # `agreed or strongly agreed that prices were …`: B ends at its clause
        right = _CLAUSE_AFTER.split(right)[0].strip()
    left_words = re.split(r"[,:;?]", left)[-1].split()
    n = len(right.split())
    if not right or not left_words or n > 8:
        return None
    return " ".join(left_words[-n:]), right


_CLAUSE_AFTER = re.compile(r"\s(?:that|who|which|whether|because|when|while)\s")
"""A clause after the second alternative (`strongly agreed that prices were good value`)."""


NAMED_BEFORE_WHICH = re.compile(
    r"\b(?:between|among|compared with)\s+(?:the\s+)?([^,?;]+)\s+and\s+(?:the\s+)?([^,?;]+?)"
    r"\s*,\s*(?:which|who)\b")
"""`between A and B, which had a higher …`: two items named before the which-question."""


def _named_before_which(q: str) -> tuple[str, str] | None:
    """The two items of `between A and B, which …` (not two years: that is a period)."""
    m = NAMED_BEFORE_WHICH.search(q)
    if m is None or direction(q) is None or any(is_year_text(x.strip()) for x in m.groups()):
        return None
    a, b = m.group(1).split(), m.group(2).split()
    if len(a) > 8 or len(b) > 8:
        return None
    return " ".join(a), " ".join(b)


def alternatives(question: str) -> list[str]:
    """The alternatives of an `either A, B or C` list (`either` up to the next `?`/`;`), else the
    two `pair_options`; [] when the question lists none."""
    q = question.lower().strip().rstrip("?. ")
    m = re.search(r"\beither\s+([^?;]+)", q)
    if m and " or " in m.group(1):
        items = [x.strip() for x in re.split(r",|\bor\b", m.group(1).rstrip(", "))]
        items = [" ".join(x.split()[:8]) for x in items if x]
        if len(items) >= 2:
            return items
    left, _, right = q.rpartition(" or ")
    last = re.split(r"[,:;?]", right)[0].strip()
    pieces = [x.strip() for x in left.rstrip(", ").split(",")]
    listed = len(pieces) >= 3 or (len(pieces) == 2 and left.rstrip().endswith(","))  # `A, B, or C`
    if last and listed and all(0 < len(x.split()) <= 4 for x in pieces[1:]):
        # `moderately, quite a bit, or extremely`: the listed pieces, the first one cut like `A`
        return [" ".join(pieces[0].split()[-len(last.split()):]), *pieces[1:], last]
    pair = pair_options(question)
    return list(pair) if pair else []


@dataclass(frozen=True)
class Num:
    """A parsed cell value with its displayed precision and display style."""

    value: float
    decimals: int
    percent: bool
    style: NumStyle | None = None


def parse(text: str) -> Num | None:
    info = parse_number_info(text)
    if info is None:
        return None
    return Num(info.value, info.decimals, info.is_percent, NumStyle.of(text))


@dataclass(frozen=True)
class Computed:
    """A computed answer: `value` in Excel terms (a fraction when the style is a percent), `text`
    as the style shows it, and whether it is the same kind of quantity as its inputs (`same_unit`:
    sums, differences, means, extremes keep the inputs' unit; ratios, shares and counts do not);
    `difference`: it is one input minus another (of percentages: percentage points)."""

    value: float
    text: str
    style: NumStyle
    same_unit: bool
    difference: bool = False


def negated(computed: Computed) -> Computed:
    """The same result with the opposite sign, in its style."""
    return dataclasses.replace(computed, value=-computed.value, text=computed.style.render(-computed.value))


KINDS: dict[str, Kind] = {
    "sum": "additive", "diff": "additive", "max": "additive", "min": "additive", "average": "mean",
    "ratio": "ratio", "percent_of": "percent", "percent_of_all": "percent", "growth": "percent",
    "cagr": "percent", "count": "count",
}
"""How each operation's result is displayed (`numstyle.decimals_for`)."""


def compute(op: Op, nums: list[Num], table_grouping: bool | None = None, periods: int = 1) -> Computed | None:
    """Apply an arithmetic op to ordered inputs; None when the inputs do not fit the op.

    Arithmetic runs on the displayed numbers; the result is shown in the inputs' style (currency,
    grouping, parentheses, percent) for sums, differences, means and extremes, as a percent for
    shares and growth rates, and as a plain number for ratios and counts. Inputs under 1,000 do not
    show grouping: the table's (`numstyle.grouping`) decides (`(520)` + `(935)` → `(1,455)` where
    the table shows `1,210`). `periods`: the years a compound growth rate runs over.
    """
    shown = _arithmetic(op, [n.value for n in nums], periods) if nums else None
    if shown is None:
        return None
    kind = KINDS[op]
    source = combine((n.style for n in nums), table_grouping)
    dec = max(n.decimals for n in nums)
    if kind in ("additive", "mean"):
        style, value = source, percent_to_fraction(shown) if source.percent else shown
    elif kind == "percent":
        style, value, shown = NumStyle(percent=True), shown, shown * 100
    else:
        style, value = NumStyle(thousands=source.thousands), shown
    decimals = decimals_for(kind, shown, dec)
    if kind == "mean" and source.currency and dec >= 2:  # money in cents stays in cents ($190.58)
        decimals = dec
    if kind != "additive":  # an exact result needs no padding zeros (a ratio of 2 → `2`)
        decimals = min(decimals, _needed_decimals(shown))
    style = style.with_decimals(decimals)
    return Computed(value, style.render(value), style, kind in ("additive", "mean"), op == "diff")


def _arithmetic(op: Op, vals: list[float], periods: int = 1) -> float | None:
    if op == "sum":
        return sum(vals)
    if op == "diff" and len(vals) == 2:
        return vals[0] - vals[1]
    if op == "average":
        return sum(vals) / len(vals)
    if op == "ratio" and len(vals) == 2 and vals[1] != 0:
        return vals[0] / vals[1]
    if op == "percent_of" and len(vals) >= 2 and vals[-1] != 0:  # the parts together of the whole
        return sum(vals[:-1]) / vals[-1]
    if op == "percent_of_all" and len(vals) >= 2 and sum(vals) != 0:  # the first of all of them
        return vals[0] / sum(vals)
    if op == "growth" and len(vals) == 2 and vals[1] != 0:
        return (vals[0] - vals[1]) / vals[1]
    if op == "cagr" and len(vals) == 2 and vals[0] > 0 and vals[1] > 0 and periods >= 1:
        return float((vals[0] / vals[1]) ** (1 / periods) - 1)
    if op == "max":
        return max(vals)
    if op == "min":
        return min(vals)
    if op == "count":
        return float(len(vals))
    return None


def _needed_decimals(x: float) -> int:
    """Decimals of `x` rounded to `MAX_DECIMALS` places, trailing zeros dropped (`2.50` → 1)."""
    text = f"{x:.{MAX_DECIMALS}f}".rstrip("0")
    return len(text.partition(".")[2])


def magnitude(num: Num) -> str:
    """The absolute value of a parsed cell in the cell's own style (`(25)` → `25`, `-3.2%` → `3.2%`)."""
    style = num.style or NumStyle(decimals=num.decimals)
    return style.render(percent_to_fraction(abs(num.value)) if style.percent else abs(num.value))
