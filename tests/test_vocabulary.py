"""Every entry of the offline vocabulary data file (`server/offline/vocabulary.toml`) does its job."""

from __future__ import annotations

import pytest

from celltrace.server.engine.api import answer_question
from celltrace.server.offline.lexicon import one_typo, vocabulary
from celltrace.server.offline.measures import measures
from celltrace.server.offline.solver import UNSUPPORTED, composed, solve
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table


def _statement(lines: list[tuple[str, str, str]]) -> CellGraph:
    cells = [["", "2017", "2016"], *([label, a, b] for label, a, b in lines)]
    return CellGraph(Table(text=cells, merges=[]))


EXPECTED = {"percent_of": "25%", "ratio": "0.25", "diff": "(750)"}
"""Each kind of measure on a first line of 250 and a second of (1,000) (a size shown negative)."""


@pytest.mark.parametrize("measure", sorted(measures()))
def test_each_derived_measure_computes_its_kind_over_its_lines(measure: str) -> None:
    first, second, op = measures()[measure]
    graph = _statement([
        ("Operating expenses", "300", "280"),
        (second.capitalize(), "(1,000)" if op == "diff" else "1,000", "900"),
        (first.capitalize(), "250", "200"),
    ])
    plan = solve(f"What was the {measure} in 2017?", graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("measure", [EXPECTED[op]])
    assert plan.parts == [f"What was the {line.capitalize()} in 2017?" for line in (first, second)]


def test_a_measures_confidence_is_the_lesser_of_its_operand_lookups() -> None:
    """No train question asks a derived measure: its probability comes from its two lookups'."""
    graph = _statement([("Revenue", "1,000", "900"), ("Gross profit", "426", "380")])
    headers = infer_headers(graph)
    plan = solve("What was the gross margin in 2017?", graph, headers, None)
    assert plan.parts == ["What was the Gross profit in 2017?", "What was the Revenue in 2017?"]
    parts = [solve(q, graph, headers, None) for q in plan.parts]
    assert [p.answer_nodes for p in parts] == [[n] for n in plan.answer_nodes]
    assert plan.confidence == pytest.approx(min(parts[0].confidence, parts[1].confidence), abs=1e-4)
    assert plan.confidence > 0.5
    plan.answer_nodes.reverse()  # an operand its lookup answers from another cell counts 0
    assert composed(plan, graph, headers, None) == 0.0
    unsure = solve("What was the gross margin?", graph, headers, None)  # which year: as unsure
    assert unsure.parts == ["What was the Gross profit?", "What was the Revenue?"]
    assert unsure.confidence < plan.confidence


@pytest.mark.parametrize(("question", "parts"), [
    ("What was the net income margin in 2017?",
     ["What was the Net income in 2017?", "What was the Revenue in 2017?"]),
    ("What were the gross margins in 2017?",
     ["What were the Gross profit in 2017?", "What were the Revenue in 2017?"]),
])
def test_a_measure_said_with_words_between_or_in_the_plural_asks_its_operands(
        question: str, parts: list[str]) -> None:
    graph = _statement([("Revenue", "1,000", "900"), ("Gross profit", "426", "380"),
                        ("Net income", "120", "90")])
    plan = solve(question, graph, infer_headers(graph), None)
    assert (plan.operation, plan.parts) == ("measure", parts)


@pytest.mark.parametrize("measure", sorted(measures()))
def test_a_measure_whose_lines_the_table_lacks_is_never_answered_with_confidence(measure: str) -> None:
    """Whatever line the lookup reads (`Revenue` for `free cash flow`), it is not that measure."""
    graph = _statement([("Revenue", "1,000", "900"), ("Operating expenses", "300", "280")])
    result = answer_question(graph.table, f"What was the {measure} in 2017?", engine="offline")
    assert result.status == "abstained" and result.answer  # the best guess is kept
    assert result.confidence is not None and result.confidence <= UNSUPPORTED
    assert f"no {measure} can be computed from this table" in (result.error or "")


def test_only_a_measure_named_outright_makes_every_answer_unsupported() -> None:
    """`effective marginal tax rates` holds the words of `effective tax rate` but names another thing."""
    graph = _statement([("Revenue", "1,000", "900"), ("Marginal tax rate", "30", "31")])
    plan = solve("What was the effective marginal tax rate in 2017?", graph, infer_headers(graph), None)
    assert (plan.answer, plan.unsupported) == (["30"], "")
    plan = solve("What was the effective tax rate in 2017?", graph, infer_headers(graph), None)
    assert plan.unsupported and plan.confidence <= UNSUPPORTED


def test_a_measure_the_table_already_has_is_looked_up() -> None:
    graph = _statement([
        ("Revenue", "1,000", "900"), ("Net income", "250", "200"), ("Net margin", "24.9%", "22%"),
    ])
    plan = solve("What was the net margin in 2017?", graph, infer_headers(graph), None)
    assert plan.answer == ["24.9%"]


def test_revenue_is_the_total_line_not_a_member() -> None:
    graph = _statement([
        ("Passenger revenue", "800", "700"),
        ("Cargo revenue", "200", "200"),
        ("Total revenue", "1,000", "900"),
        ("Operating income", "100", "90"),
    ])
    plan = solve("What was the operating margin in 2016?", graph, infer_headers(graph), None)
    assert plan.answer == ["10%"]


def test_the_measure_sides_are_two_different_lines_when_one_label_holds_both_phrases() -> None:
    # `income tax` is also inside `Income before income taxes`: the numerator is the other line
    graph = _statement([
        ("Income before income taxes", "400", "300"),
        ("Income tax provision (benefit)", "100", "60"),
        ("Net income", "300", "240"),
    ])
    plan = solve("What was the effective tax rate in 2017?", graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("measure", ["25%"])


@pytest.mark.parametrize(("side", "name"), [
    (side, name) for side, names in vocabulary()["line_names"].items() for name in names])
def test_each_other_line_name_stands_for_its_measure_side(side: str, name: str) -> None:
    measure, (num, den, op) = next((m, found) for m, found in sorted(measures().items()) if side in found[:2])
    graph = _statement([
        ("Operating expenses", "300", "280"),
        ((name if den == side else den).capitalize(), "1,000", "900"),
        ((name if num == side else num).capitalize(), "250", "200"),
    ])
    plan = solve(f"What was the {measure} in 2017?", graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("measure", [{"diff": "-750"}.get(op, EXPECTED[op])])


@pytest.mark.parametrize(("side", "name"), [
    (side, name) for table in ("line_names", "other_names") for side, names in vocabulary()[table].items()
    for name in names])
def test_a_line_asked_by_another_of_its_names_is_looked_up(side: str, name: str) -> None:
    """The question says one name of a line (`capital expenditures`), the statement another
    (`Purchases of property and equipment`): that line is read, as surely as by its own name."""
    def decoy(asked: str) -> str:  # a line sharing a word with the name asked, not the whole name
        return f"{asked.split()[-1].capitalize()} adjustments" if " " in asked else "Other items"

    graph = _statement([(decoy(side), "40", "35"), (name.capitalize(), "1,000", "900")])
    plan = solve(f"What was the {side} in 2017?", graph, infer_headers(graph), None)
    assert plan.answer == ["1,000"]
    graph = _statement([(decoy(name), "40", "35"), (side.capitalize(), "1,000", "900")])
    plan = solve(f"What was the {name} in 2016?", graph, infer_headers(graph), None)
    assert plan.answer == ["900"]


@pytest.mark.parametrize("word", vocabulary()["magnitudes"]["words"])
def test_a_change_in_a_size_shown_negative_is_a_change_in_its_size(word: str) -> None:
    graph = _statement([(f"Net {word}", "(150)", "(200)")])
    plan = solve(f"How much did net {word} decrease from 2016 to 2017?", graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("diff", ["50"])  # 200 − 150, not (−200) − (−150)


@pytest.mark.parametrize("word", vocabulary()["magnitudes"]["opposite"])
def test_a_line_naming_the_opposite_of_a_size_keeps_its_signs(word: str) -> None:
    graph = _statement([(f"Net {word} (loss)", "(150)", "(200)")])
    plan = solve(f"How much did net {word} decrease from 2016 to 2017?", graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("diff", ["(50)"])  # it rose from (200) to (150)


@pytest.mark.parametrize("word", vocabulary()["magnitudes"]["presented_negative"])
def test_a_share_of_a_line_presented_negative_is_of_its_size(word: str) -> None:
    graph = _statement([("Revenue", "2,055", "1,900"), (f"Operating {word}", "(494)", "(410)")])
    question = f"What percentage of revenue was operating {word} in 2017?"
    plan = solve(question, graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("percent_of", ["24.0%"])  # not −24.0 %


@pytest.mark.parametrize(("word", "same"), [
    (w, canon) for canon, words in vocabulary()["same_words"].items() for w in words])
def test_each_same_word_finds_the_label_it_names(word: str, same: str) -> None:
    cells = [["", "2017"], ["Senior employees", "25"], [f"{same.capitalize()} employees", "40"]]
    graph = CellGraph(Table(text=cells, merges=[]))
    plan = solve(f"How many {word} employees were there in 2017?", graph, infer_headers(graph), None)
    assert plan.answer == ["40"]


@pytest.mark.parametrize(("phrase", "same"), [
    (p, canon) for canon, phrases in vocabulary()["same_phrases"].items() for p in phrases])
def test_each_same_phrase_finds_the_label_it_names(phrase: str, same: str) -> None:
    """`before seasonal adjustment` reads the `Unadjusted` column, not `Seasonally adjusted`."""
    cells = [["Month", "Seasonally adjusted", same.capitalize()], ["September 2024", "2,068.2", "2,088.1"]]
    graph = CellGraph(Table(text=cells, merges=[]))
    question = f"How many hours were worked in September 2024, {phrase}?"
    plan = solve(question, graph, infer_headers(graph), None)
    assert plan.answer == ["2,088.1"]
    plan = solve("How many hours were worked in September 2024, seasonally adjusted?", graph,
                 infer_headers(graph), None)
    assert plan.answer == ["2,068.2"]


@pytest.mark.parametrize(("a", "b", "same"), [
    ("goverment", "government", True),    # a letter left out
    ("governnment", "government", True),  # a letter added
    ("govermnent", "government", True),   # two neighbours swapped
    ("goverbment", "government", True),   # a letter changed
    ("stated", "states", False),          # short words: too often other words
    ("government", "governments", True),
    ("government", "movernment", False),  # another first letter
    ("government", "govermnetn", False),  # two edits
])
def test_one_typo(a: str, b: str, same: bool) -> None:
    assert one_typo(a, b) is same and one_typo(b, a) is same


def test_a_question_with_a_typo_finds_the_line() -> None:
    graph = _statement([("Cargo revenue", "300", "280"), ("Passenger revenue", "500", "450")])
    plan = solve("What was passanger revenue in 2016?", graph, infer_headers(graph), None)
    assert plan.answer == ["450"]


@pytest.mark.parametrize("label", vocabulary()["precision"]["labels"])
def test_a_precision_column_is_read_only_when_the_question_names_it(label: str) -> None:
    """The precision first and the estimate after it: an unqualified question asks the estimate."""
    shown = label.upper() if len(label) <= 4 else label.capitalize()
    cells = [["", "2017", ""], ["", shown, "Estimate"], ["Median income", "474", "73,035"],
             ["Households", "31,245", "11,087,708"]]
    graph = CellGraph(Table(text=cells, merges=[(0, 1, 0, 2)]))
    headers = infer_headers(graph)
    assert solve("What was the median income in 2017?", graph, headers, None).answer == ["73,035"]
    assert solve(f"What was the {label} of households in 2017?", graph, headers, None).answer == ["31,245"]


@pytest.mark.parametrize("category", sorted(vocabulary()["categories"]))
def test_each_category_ranks_its_members_not_another_axis(category: str) -> None:
    """`which gender …` on rows of age groups and of sexes: the sexes are compared (their labels
    never say `gender`), by row or by a column group above `percent`; the same for each category
    with two of its members (`which province`: Newfoundland and Labrador, B.C.)."""
    members = vocabulary()["categories"][category]
    low, high = members[0], members[-1]
    rows = Table(text=[["characteristic", "arthritis"], ["15 to 54", "12.0"], ["55 and older", "41.5"],
                       [low, "15.2"], [high, "22.9"]])
    graph = CellGraph(rows)
    plan = solve(f"in 2012, which {category} had a higher proportion with arthritis?", graph,
                 infer_headers(graph), None)
    assert plan.answer == [high]
    cols = Table(text=[["group", low, "", high, ""], ["", "percent", "from", "percent", "from"],
                       ["donors", "40.1", "38.0", "45.3", "43.1"],
                       ["volunteers", "38.0", "36.2", "36.4", "34.0"]],
                 merges=[(0, 1, 0, 2), (0, 3, 0, 4)])
    graph = CellGraph(cols)
    plan = solve(f"which {category} was more likely to be donors?", graph, infer_headers(graph), None)
    assert plan.answer == [high]


def test_a_category_reads_its_members_through_same_words() -> None:
    """`which gender`: `women` is `female` (`[same_words]`)."""
    rows = Table(text=[["characteristic", "arthritis"], ["15 to 54", "12.0"], ["55 and older", "41.5"],
                       ["men", "15.2"], ["women", "22.9"]])
    graph = CellGraph(rows)
    plan = solve("in 2012, which gender had a higher proportion with arthritis?", graph, infer_headers(graph),
                 None)
    assert plan.answer == ["women"]


MEASURED_BY = [(quantity, word) for quantity, words in vocabulary()["measured_by"].items() for word in words]


@pytest.mark.parametrize(("quantity", "word"), MEASURED_BY)
def test_an_adjective_reads_the_quantity_it_measures(quantity: str, word: str) -> None:
    """`which aircraft type is the oldest` ranks by `Age`, `how old is …` reads it (not the first
    figure column): each adjective implies its quantity's word; a comparative or superlative
    gives the direction."""
    cells = [["type", "Seats", quantity.title(), "Owned"], ["first", "175", "11.2", "112"],
             ["second", "150", "17.5", "41"], ["third", "196", "1.9", "22"]]
    graph = CellGraph(Table(text=cells))
    lower = word.startswith(("young", "short", "cheap"))
    if word.endswith("est"):
        question, want = f"Which type is the {word}?", "third" if lower else "second"
    elif word.endswith("er"):
        question, want = f"Which type is {word}, first or third?", "third" if lower else "first"
    else:
        question, want = f"How {word} is the third type?", "1.9"
    assert solve(question, graph, infer_headers(graph), None).answer == [want]


@pytest.mark.parametrize(("question", "answer"), [
    ("By how much did contracted services exceed the budget?", "$35,900"),
    ("How much was underspent on supplies?", "$7,700"),
])
def test_a_budget_variance_is_actual_against_budget(question: str, answer: str) -> None:
    cells = [["Expense category", "Budget", "Actual"], ["Contracted services", "$420,000", "$455,900"],
             ["Supplies", "$96,000", "$88,300"]]
    graph = CellGraph(Table(text=cells, merges=[]))
    plan = solve(question, graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("measure", [answer])


@pytest.mark.parametrize(("question", "operation", "answer"), [
    ("Which department was most over budget?", "argmax", "IT"),
    ("Which department was furthest under budget?", "argmax", "Sales"),
    ("How many departments were over budget?", "count", "2"),
    ("By how much was IT over budget?", "measure", "$37,300"),
])
def test_members_are_ranked_and_counted_by_a_derived_measure(question: str, operation: str,
                                                              answer: str) -> None:
    """`most over budget` ranks the departments by actual less budget (IT, not Operations, whose
    budget and spending are largest); `how many … over budget` counts those where it is positive."""
    cells = [["Department", "Budget", "Actual"], ["Sales", "$410,000", "$398,200"],
             ["IT", "$365,000", "$402,300"], ["Operations", "$520,000", "$547,800"],
             ["Legal", "$95,000", "$88,350"], ["Total", "$1,390,000", "$1,436,650"]]
    graph = CellGraph(Table(text=cells))
    plan = solve(question, graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == (operation, [answer])


def test_a_segment_ranked_by_a_margin_computed_for_each() -> None:
    """The highest operating margin is the Cloud segment's 25 %, not Consumer's largest income."""
    cells = [["Segment", "Revenue", "Operating income"], ["Consumer", "5,000", "600"],
             ["Enterprise", "3,000", "540"], ["Cloud", "2,000", "500"], ["Total", "10,000", "1,640"]]
    graph = CellGraph(Table(text=cells))
    headers = infer_headers(graph)
    for question, answer in (("Which segment had the highest operating margin?", "Cloud"),
                             ("Which segment had the lowest operating margin?", "Consumer")):
        assert solve(question, graph, headers, None).answer == [answer]


def test_a_count_by_a_derived_measure_that_none_meet_shows_the_members_counted() -> None:
    cells = [["Department", "Budget", "Actual"], ["Sales", "$410,000", "$398,200"],
             ["Legal", "$95,000", "$88,350"]]
    graph = CellGraph(Table(text=cells))
    plan = solve("How many departments were over budget?", graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("count", ["0"])
    assert sorted((graph.node(i).r0, graph.node(i).c0) for i in plan.answer_nodes) == [(1, 2), (2, 2)]


def test_net_finance_costs_net_a_cost_shown_negative_against_income() -> None:
    """IFRS shows `Finance income 85` and `Finance costs (310)`: net finance costs are 225."""
    cells = [["", "2023", "2022"], ["Operating profit", "2,280", "1,960"], ["Finance income", "85", "42"],
             ["Finance costs", "(310)", "(265)"], ["Profit before tax", "2,055", "1,737"]]
    graph = CellGraph(Table(text=cells))
    plan = solve("What were net finance costs in 2023?", graph, infer_headers(graph), None)
    assert (plan.operation, plan.answer) == ("measure", ["225"])


@pytest.mark.parametrize("header", vocabulary()["who"]["headers"])
def test_who_reads_the_name_under_a_header_naming_who(header: str) -> None:
    """`Who …` on a list whose row labels are a code, a place and a name: the name under the header
    naming who (`[who]`), not the code nor the place the question does not say."""
    table = Table(text=[
        ["Ref.", "Project", "County", header.capitalize(), "Amount"],
        ["C-24-0102", "Bridge deck rehabilitation", "Harford", "Kiewit Infrastructure Co.", "12,500"],
        ["C-24-0117", "Road resurfacing", "Baltimore", "Allan Myers MD, Inc.", "7,200"],
        ["C-24-0131", "Interchange reconstruction", "Howard", "Granite Construction Co.", "45,900"],
    ])
    result = answer_question(table, "Who was awarded the road resurfacing?", engine="offline")
    assert result.answer == ["Allan Myers MD, Inc."]
