"""Tests for the evaluation metrics: strict/lenient EM, evidence scores, percentiles, long-form metrics."""

import json
import random

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from celltrace.server.evaluation.devdata import dev_data_dir
from celltrace.server.evaluation.longform_metrics import bleu, rouge_l, yes_no_verdict
from celltrace.server.evaluation.metrics import (
    em_lenient,
    em_strict,
    evidence_scores,
    median,
    percentile,
    scored_answer,
)

DEV_DATA = dev_data_dir()


# --- strict EM ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        (["1,234"], ["1234"]),
        (["1234"], ["1,234"]),
        (["(7.8)"], ["-7.8"]),
        (["($7.8)"], ["-7.8"]),
        (["$(7.8)"], ["-7.8"]),
        (["−7.8"], ["-7.8"]),  # U+2212 minus sign
        (["24.5%"], ["24.5"]),
        (["0.245"], ["24.5%"]),  # a fraction equals a percent-marked gold (x% = x/100)
        (["3.8283%"], ["0.038283"]),  # and a percent-marked prediction a fraction gold
        (["38.8%"], ["0.388"]),
        (["(13.8%)"], ["-0.138"]),
        (["24.5 %"], ["24.5"]),
        (["24.5 per cent"], ["24.5"]),
        (["12.5 percent"], ["12.5"]),
        (["$2,143"], ["2143"]),
        (["2143 €"], ["2,143"]),
        (["2017"], ["2017"]),
        (["2017.0"], ["2017"]),
        (["154983."], ["154983"]),
        (["+5"], ["5"]),
        (["0.50"], [".5"]),
        (["52.14"], ["52.1"]),  # rounds to the gold's displayed precision
        (["52.05"], ["52.1"]),  # boundary, inclusive
        (["52.15"], ["52.1"]),  # boundary, inclusive
        (["154983.4"], ["154983"]),
        (["1234567.9"], ["1234567"]),  # relative 1e-6
        (["1 234"], ["1234"]),  # the shared classifier (shared/numbers.py): thousands in groups of three
        (["USD 5"], ["5"]),
        (["1.2E+05"], ["120000"]),
        (["₹1,234"], ["1234"]),
        (["12.5*"], ["12.5"]),  # a footnote marker
        (["The Netherlands."], ["netherlands"]),
        (["an apple"], ["apple"]),
        (["Department of the Interior"], ["department of interior"]),
        (["  Women  "], ["women"]),
        (["ligue  1"], ["Ligue 1"]),
        (['"yes"'], ["yes"]),
        (["ｗｏｍｅｎ"], ["women"]),  # NFKC full-width
        (["b", "a"], ["a", "b"]),
        (["5", "5"], ["5", "5.0"]),
        ([], []),
        (["", " "], []),
        (["4:11.64"], ["4:11.64"]),
        (["12- to 14-year-olds"], ["12- to 14-year-olds"]),
    ],
)
def test_strict_accepts(pred: list[str], gold: list[str]) -> None:
    assert em_strict(pred, gold)


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        (["-5"], ["5"]),  # sign matters
        (["(7.8)"], ["7.8"]),
        (["0.245"], ["24.5"]),  # two unmarked numbers are never rescaled
        (["3.8%"], ["0.038283"]),  # x% = x/100, judged at the gold's shown precision
        (["52.16"], ["52.1"]),
        (["52.04"], ["52.1"]),
        (["52.13"], ["52.12"]),  # no flat 0.01 tolerance
        (["52"], ["52.1"]),  # a less precise prediction does not round to the gold
        (["55.009"], ["55.00"]),
        (["2017"], ["2018"]),
        (["five"], ["5"]),
        (["true"], ["yes"]),
        (["12.5 million"], ["12.5"]),  # scale words are not units we strip
        (["12,34"], ["1234"]),
        (["12 34"], ["1234"]),
        (["(-5)"], ["-5"]),  # sign inside parentheses is ambiguous: text
        (["5", "5"], ["5"]),  # multisets: duplicates count
        (["5"], ["5", "5"]),
        (["a"], ["a", "b"]),
        (["a", "b", "c"], ["a", "b"]),
        (["x"], []),
        ([], ["x"]),
        (["france (paris)"], ["france"]),
        (["women's"], ["women"]),
    ],
)
def test_strict_rejects(pred: list[str], gold: list[str]) -> None:
    assert not em_strict(pred, gold)


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        (["a, b and c"], ["c", "b", "a"]),
        (["a; b; c"], ["a", "b", "c"]),
        (["1998, 2000, and 2003"], ["1998", "2000", "2003"]),
        (["england, france"], ["france", "england"]),
        (["England and France"], ["france", "england"]),
        (["5,813 and 1,234"], ["5813", "1234"]),
        (["$5,813, $1,234"], ["5813", "1234"]),
        (["65.9%, 38.9%"], ["65.9", "38.9"]),
        # gold items containing the word "and" and commas (HiTab dev)
        (
            [
                "health care and social assistance, administrative and support, waste management and "
                "remediation services and real estate and rental and leasing"
            ],
            [
                "health care and social assistance",
                "administrative and support, waste management and remediation services",
                "real estate and rental and leasing",
            ],
        ),
        (
            ["1,000 and above, between 100 and 249 and between 20 and 49"],
            ["1,000 and above", "between 100 and 249", "between 20 and 49"],
        ),
    ],
)
def test_strict_splits_a_single_prediction_string(pred: list[str], gold: list[str]) -> None:
    assert em_strict(pred, gold)


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        (["5,813"], ["5", "813"]),  # a thousands separator is not a list separator
        (["england"], ["eng", "land"]),
        (["a, b", "c"], ["a", "b", "c"]),  # several predicted items are never re-split
        (["a, b"], ["a"]),  # a single gold item is never matched by a part of the prediction
        (["10, 20"], ["1", "2"]),
    ],
)
def test_strict_split_limits(pred: list[str], gold: list[str]) -> None:
    assert not em_strict(pred, gold)


# --- lenient EM: documented quirks of the reference, kept ---------------------------------------------


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        (["-5"], ["5"]),  # sign ignored
        (["(7.8)"], ["7.8"]),
        (["55.009"], ["55.00"]),  # flat absolute tolerance 0.01
        (["55.01"], ["55.00"]),
        (["five"], ["5"]),  # number words up to nineteen
        (["nineteen"], ["19"]),
        (["True"], ["yes"]),  # true/false -> yes/no
        (["false"], ["no"]),
        (["france (paris)"], ["france"]),  # parenthesised text
        (["women's"], ["womens"]),  # punctuation deleted
        (["U.S."], ["us"]),
        (["b, a"], ["a, b"]),  # both sides split on list commas
        (["a", "b"], ["a, b"]),
        (["-5", "55%"], ["5", "55.0"]),  # numeric comparison also inside lists
    ],
)
def test_lenient_accepts_what_strict_rejects(pred: list[str], gold: list[str]) -> None:
    assert em_lenient(pred, gold)
    assert not em_strict(pred, gold)


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        (["55%"], ["55.0"]),  # percent ignored
        (["55.009"], ["55"]),  # within 0.01 (and, for strict, rounds to the integer gold)
        (["the netherlands"], ["netherlands"]),  # articles
        (["ｗｏｍｅｎ"], ["women"]),  # NFKC
        (["b", "a"], ["a", "b"]),  # order-free
    ],
)
def test_lenient_quirks_strict_shares(pred: list[str], gold: list[str]) -> None:
    assert em_lenient(pred, gold)
    assert em_strict(pred, gold)


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        (["55.02"], ["55"]),
        (["52.4"], ["52"]),  # flat 0.01: not a superset of strict
        (["twenty"], ["20"]),  # number words stop at nineteen
        (["5", "5"], ["5"]),
        (["x"], []),
    ],
)
def test_lenient_rejects(pred: list[str], gold: list[str]) -> None:
    assert not em_lenient(pred, gold)


def test_lenient_is_not_a_superset_of_strict() -> None:
    assert em_strict(["52.4"], ["52"])
    assert not em_lenient(["52.4"], ["52"])


# --- lenient EM: reference bugs, not repeated ---------------------------------------------------------


def test_lenient_has_no_strip_dot_zero() -> None:
    assert not em_lenient(["10, 20"], ["1", "2"])
    assert not em_lenient(["100, 200"], ["1", "2"])
    assert not em_lenient(["10"], ["1"])


def test_lenient_splits_on_the_word_and_only() -> None:
    assert em_lenient(["england, france"], ["france", "england"])
    assert em_lenient(["england and france"], ["france", "england"])
    assert em_lenient(["Sandy and Andrew"], ["andrew", "sandy"])


def test_lenient_splits_on_and_only_for_several_gold_items() -> None:
    assert not em_lenient(["a and b"], ["a"])
    assert em_lenient(["between 100 and 249"], ["between 100 and 249"])


def test_lenient_keeps_gold_items_containing_and() -> None:
    gold = ["1,000 and above", "between 100 and 249", "between 20 and 49", "between 1 and 4"]
    assert em_lenient([", ".join(gold)], gold)
    assert em_lenient(gold[::-1], gold)


def test_lenient_does_not_split_thousands_separators() -> None:
    assert em_lenient(["$5,813"], ["5813"])
    assert em_lenient(["5813"], ["$5,813"])
    assert em_lenient(["5,813 and 1,234"], ["1234", "5813"])
    assert not em_lenient(["5,813"], ["5", "813"])


def test_lenient_handles_percent_words() -> None:
    assert em_lenient(["12.5 percent"], ["12.5"])


# --- real answer formats from the dev data ------------------------------------------------------------


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        (["$2,143"], ["2,143"]),  # AIT-QA
        (["2143"], ["$2,143"]),
        (["83.6"], ["83.6%"]),
        (["$151.73"], ["$151.73"]),
        (["108035133"], ["108,035,133"]),
        (["tammy romo"], ["Tammy Romo"]),
        (["Andrew M. Watterson"], ["Andrew M. Watterson"]),
        (["endeavor air flight attendants (1)"], ["Endeavor Air Flight Attendants (1)"]),
        (["154983"], ["154983"]),  # HiTab
        (["52.1"], ["52.1"]),
        (["-9030"], ["-9030"]),
        (["1998", "2000", "2003"], ["1998", "2000", "2003"]),
        (
            ["Coupe de France, Ligue 1 and Coupe de la Ligue"],
            ["ligue 1", "coupe de la ligue", "coupe de france"],
        ),
    ],
)
def test_dev_answer_formats(pred: list[str], gold: list[str]) -> None:
    assert em_strict(pred, gold)
    assert em_lenient(pred, gold)


def test_dev_answer_sign_is_checked() -> None:
    assert not em_strict(["9030"], ["-9030"])
    assert em_lenient(["9030"], ["-9030"])


def _dev_answers() -> list[list[str]]:
    files = [DEV_DATA / "hitab_dev.jsonl", DEV_DATA / "aitqa_dev.jsonl"]
    if not all(f.exists() for f in files):
        pytest.skip("dev data not available")
    return [json.loads(line)["answers"] for f in files for line in f.open(encoding="utf-8")]


def test_every_dev_gold_matches_itself_and_its_joined_forms() -> None:
    for answers in _dev_answers():
        assert em_strict(answers, answers), answers
        assert em_lenient(answers, answers), answers
        assert em_strict(answers[::-1], answers), answers
        if len(answers) > 1:
            assert em_strict([", ".join(answers)], answers), answers
            assert em_strict([" and ".join(answers)], answers), answers
            assert em_lenient([", ".join(answers)], answers), answers


# --- properties -------------------------------------------------------------------------------------

_items = st.lists(st.text(max_size=12), max_size=5)


@given(_items)
@example(["0", "AND"])  # an item that is the word `and` itself is no separator
def test_strict_and_lenient_are_reflexive(items: list[str]) -> None:
    assert em_strict(items, items)
    assert em_lenient(items, items)


@given(_items, st.randoms())
def test_scores_ignore_order(items: list[str], rnd: random.Random) -> None:
    shuffled = list(items)
    rnd.shuffle(shuffled)
    assert em_strict(shuffled, items)
    assert em_lenient(shuffled, items)


# --- evidence ---------------------------------------------------------------------------------------


def test_evidence_scores() -> None:
    areas = [(0, 0, 1, 1), (5, 5, 5, 5), (3, 0, 3, 2)]
    gold = [(1, 1), (3, 2), (9, 9)]
    precision, recall = evidence_scores(areas, gold)
    assert precision == pytest.approx(2 / 3)
    assert recall == pytest.approx(2 / 3)


def test_evidence_scores_merged_area_hit_by_covered_cell() -> None:
    assert evidence_scores([(2, 1, 4, 1)], [(3, 1)]) == (1.0, 1.0)


def test_evidence_scores_undefined_sides() -> None:
    assert evidence_scores([], [(0, 0)]) == (None, 0.0)
    assert evidence_scores([(0, 0, 0, 0)], []) == (0.0, None)
    assert evidence_scores([], []) == (None, None)


def test_evidence_scores_ignore_duplicates_and_accept_lists() -> None:
    assert evidence_scores([[0, 0, 0, 0], (0, 0, 0, 0), (1, 1, 1, 1)], [[0, 0], (0, 0)]) == (0.5, 1.0)


@pytest.mark.parametrize("area", [(1, 0, 0, 0), (0, 1, 0, 0), (-1, 0, 0, 0)])
def test_evidence_scores_reject_malformed_areas(area: tuple[int, int, int, int]) -> None:
    with pytest.raises(ValueError):
        evidence_scores([area], [(0, 0)])


# --- percentiles -------------------------------------------------------------------------------------


def test_percentile_linear_interpolation() -> None:
    xs = [4.0, 1.0, 3.0, 2.0]
    assert percentile(xs, 0) == 1.0
    assert percentile(xs, 100) == 4.0
    assert percentile(xs, 50) == 2.5
    assert percentile(xs, 90) == pytest.approx(3.7)
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([]) is None
    with pytest.raises(ValueError):
        percentile(xs, 101)


# --- long-form metrics --------------------------------------------------------------------------------

_SENTENCES = [
    "The team won the league in 1998 and the cup in 2000.",
    "Revenue grew by 12 percent to 4.2 billion dollars in 2019.",
]


def test_identical_texts_score_100() -> None:
    assert rouge_l(_SENTENCES, _SENTENCES) == pytest.approx(100)
    assert bleu(_SENTENCES, _SENTENCES) == pytest.approx(100)


def test_unrelated_texts_score_low() -> None:
    other = ["Completely different words appear here today.", "Nothing matches at all, friend."]
    assert rouge_l(other, _SENTENCES) < 20
    assert bleu(other, _SENTENCES) < 5


def test_partial_overlap_is_between() -> None:
    pred = ["The team won the league in 1998.", "Revenue grew to 4.2 billion dollars."]
    assert 0 < rouge_l(pred, _SENTENCES) < 100
    assert 0 < bleu(pred, _SENTENCES) < 100


def test_rouge_l_is_mean_f_times_100() -> None:
    # "a b c" vs "a b d": LCS 2, P = R = F = 2/3; identical pair F = 1.
    assert rouge_l(["a b c", "x y"], ["a b d", "x y"]) == pytest.approx(100 * (2 / 3 + 1) / 2)


def test_longform_metrics_reject_bad_input() -> None:
    with pytest.raises(ValueError):
        rouge_l(["a"], ["a", "b"])
    with pytest.raises(ValueError):
        bleu([], [])


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Yes", True),
        ("yes.", True),
        ("**Yes**, the prediction contains every detail.", True),
        ("  `YES`", True),
        ("No", False),
        ("no!", False),
        ("**No**", False),
        ("", None),
        ("Yesterday", None),
        ("Answer: yes", None),
        ("yes/no", None),
        ("Maybe", None),
        ("Not sure", None),
    ],
)
def test_yes_no_verdict(text: str, verdict: bool | None) -> None:
    assert yes_no_verdict(text) is verdict


def test_tolerant_matching_is_one_to_one_not_greedy() -> None:
    # 55.005 is within 0.01 of both gold items, 55.015 only of 55.01: a greedy pairing would fail.
    assert em_lenient(["55.005", "55.015"], ["55.01", "55.0"])
    assert not em_lenient(["55.00", "55.00"], ["55.005", "55.5"])


def test_many_close_numbers_do_not_blow_up() -> None:
    gold = [f"1.00{i % 10}{i}" for i in range(30)]
    assert not em_lenient([*gold[:-1], "99"], gold)
    assert em_lenient(gold[::-1], gold)


# --- percent and fraction, scored numbers --------------------------------------------------------


def test_lenient_reads_a_percent_against_a_fraction() -> None:
    assert em_lenient(["38.76%"], ["0.387578"])
    assert em_lenient(["0.387578"], ["38.76%"])
    assert not em_lenient(["38.76"], ["0.387578"])  # unmarked: no rescaling
    assert not em_lenient(["3.8%"], ["0.038283"])  # 0.03 points off in the percent scale


def test_scored_answer_is_the_full_precision_number_in_the_answers_scale() -> None:
    assert scored_answer(["3.8%"], 0.0382831) == ["3.82831%"]
    assert scored_answer(["$87,000"], 87000.0) == ["87000"]
    assert scored_answer(["3.35"], 3.354167) == ["3.354167"]
    assert em_strict(scored_answer(["3.35"], 3.354167), ["3.354167"])
    assert em_strict(scored_answer(["3.8%"], 0.0382831), ["0.038283"])
    assert scored_answer(["quebec"], None) == ["quebec"]
    assert scored_answer(["5", "7"], 5.0) == ["5", "7"]  # several items: the text
    assert scored_answer(["about five"], 5.0) == ["about five"]  # text that is not a number
