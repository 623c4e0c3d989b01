"""Groups of lines and what a question says of them: a group named by its adjective (`European`), its
`Subtotal` read as its total, sections that end where the indentation goes back, rankings within
or outside a named group (`lost the most` within one), a count of a group's members, sums over a
group of rows or columns (`total renewable generation`) under a count unit, shares whose whole the
question names (`of all job vacancies in Canada`, `of employed men`) or that a heading's rows make
up (`surgical departments`), a rate's change in points that is no percentage change, a label the
question negates, a share the question defines (`operating income as a percent of revenues`), a
column of units beside the row labels, a comparison after a leading period; and, as a guard, a
group showing its own total or measures repeated under each heading (no sum)."""

from __future__ import annotations

from tables import run

from celltrace.shared.table import Table

MARKETS = Table(text=[
    ["", "", "2023", "", "2022", ""],
    ["Region", "Market", "Beauty", "Total", "Beauty", "Total"],
    ["North America", "United States", "2,845", "6,265", "2,710", "5,988"],
    ["", "Canada", "412", "895", "398", "865"],
    ["", "Subtotal", "3,257", "7,160", "3,108", "6,853"],
    ["Europe", "Germany", "538", "1,211", "512", "1,186"],
    ["", "France", "611", "1,053", "583", "1,026"],
    ["", "Italy", "289", "607", "276", "594"],
    ["", "Subtotal", "1,438", "2,871", "1,371", "2,806"],
    ["Latin America", "Brazil", "347", "739", "318", "683"],
    ["", "Mexico", "263", "581", "249", "551"],
    ["", "Subtotal", "610", "1,320", "567", "1,234"],
    ["Total net sales", "", "5,305", "11,351", "5,046", "10,893"],
], merges=[(0, 2, 0, 3), (0, 4, 0, 5), (2, 0, 4, 0), (5, 0, 8, 0), (9, 0, 11, 0),
           (12, 0, 12, 1)])  # fmt: skip


def test_a_ranking_among_the_markets_of_a_region_named_by_its_adjective() -> None:
    """`European` names `Europe` (a derived word): its markets are ranked, not every market."""
    plan, _ = run(MARKETS, "Which European market had the highest Beauty sales in 2023?")
    assert plan.answer == ["France"]


def test_a_groups_total_is_its_subtotal_and_the_grand_total_closes_no_group() -> None:
    """`Latin America's total net sales` is its `Subtotal`; `Total net sales` after that subtotal
    totals every region, not Latin America."""
    plan, _ = run(MARKETS, "By what percentage did Latin America's total net sales change from 2022 to 2023?")
    assert plan.operation == "growth" and plan.answer == ["7.0%"]
    plan, _ = run(MARKETS, "What were Beauty sales in Germany in 2022?")
    assert plan.answer == ["512"]


VACANCIES = Table(text=[
    ["Geography", "2024 Q2", "2024 Q3"],
    ["Canada", "573,195", "503,910"],
    ["Atlantic provinces", "", ""],
    ["    Nova Scotia", "15,740", "13,325"],
    ["    New Brunswick", "11,860", "10,215"],
    ["  Quebec", "131,480", "113,210"],
    ["  Ontario", "178,260", "160,575"],
    ["Prairie provinces", "", ""],
    ["    Manitoba", "21,330", "18,440"],
    ["    Saskatchewan", "18,735", "16,020"],
    ["    Alberta", "81,025", "72,640"],
    ["  British Columbia", "103,560", "89,915"],
], merges=[])  # fmt: skip


def test_a_section_ends_where_a_row_is_less_indented_than_its_first() -> None:
    """`  Quebec` (two spaces) follows the Atlantic provinces (four): it is no Atlantic province, so
    the Prairie provinces altogether are Manitoba, Saskatchewan and Alberta; Quebec's share of all
    vacancies in Canada is of the `Canada` line the share's whole names."""
    plan, _ = run(VACANCIES, "How many job vacancies did the Prairie provinces have altogether in Q3 2024?")
    assert plan.operation == "sum" and plan.answer == ["107,100"]
    plan, _ = run(VACANCIES, "What percentage of all job vacancies in Canada in Q2 2024 were in Quebec?")
    assert plan.operation == "percent_of" and plan.answer == ["22.9%"]


CONNECTIONS = Table(text=[
    ["Segment", "Q3 2024", "Q4 2024"],
    ["Postpaid", "", ""],
    ["    Consumer", "14,630", "14,688"],
    ["    Business", "3,095", "3,140"],
    ["Total postpaid", "17,725", "17,828"],
    ["Prepaid", "5,698", "5,655"],
    ["Wholesale / MVNO", "2,315", "2,391"],
    ["IoT / M2M", "5,702", "5,931"],
    ["Total mobile connections", "31,440", "31,805"],
], merges=[])  # fmt: skip


def test_a_ranking_outside_a_named_group_leaves_its_members_out() -> None:
    question = "Outside postpaid, which segment had the most connections at the end of Q4 2024?"
    plan, _ = run(CONNECTIONS, question)
    assert plan.answer == ["IoT / M2M"]


PRODUCTION = Table(text=[
    ["Area", "Crude oil (kb/d)", "NGL (kb/d)"],
    ["United States", "697", "223"],
    ["    Permian Basin", "412", "168"],
    ["    Gulf of Mexico", "188", "14"],
    ["    Other U.S.", "97", "41"],
    ["Canada", "38", "22"],
    ["Europe", "61", "6"],
    ["Africa", "214", "17"],
    ["Asia", "327", "58"],
    ["Australia/Oceania", "29", "11"],
    ["Worldwide", "1,366", "337"],
], merges=[])  # fmt: skip


def test_a_ranking_within_a_group_whose_label_heads_a_line_of_its_own() -> None:
    """`United States` shows figures of its own over its areas: `within the United States` ranks
    the areas, not the countries beside it."""
    plan, _ = run(PRODUCTION, "Within the United States, which area had the lowest crude oil production?")
    assert plan.answer == ["Other U.S."]


FIELDS = Table(text=[
    ["Basin", "Field", "May 2024", "Jun 2024"],
    ["Williston Basin", "Bakken", "790.6", "793.2"],
    ["", "Three Forks", "415.2", "418.6"],
    ["", "Other Williston", "63.7", "64.2"],
    ["", "Total Williston", "1,269.5", "1,276.0"],
    ["Eagle Ford Basin", "Eagle Ford", "1,031.9", "1,037.4"],
    ["", "Austin Chalk", "91.8", "92.5"],
    ["", "Total Eagle Ford", "1,123.7", "1,129.9"],
], merges=[(1, 0, 4, 0), (5, 0, 7, 0)],
   title="Crude oil production by field (thousand barrels per day)")  # fmt: skip


def test_a_count_of_a_groups_members_named_by_the_groups_word() -> None:
    """`Other Williston` is named only by its group's word: it is counted, not asked alone."""
    question = "How many fields in the Williston Basin produced over 400 thousand barrels a day in June 2024?"
    plan, _ = run(FIELDS, question)
    assert plan.operation == "count" and plan.answer == ["2"]


PAYROLLS = Table(text=[
    ["", "July 2024", "August 2024"],
    ["Canada", "18,117,805", "18,151,925"],
    ["Provinces", "", ""],
    ["    Alberta", "2,139,660", "2,145,870"],
    ["    Ontario", "6,890,540", "6,902,315"],
    ["Territories", "", ""],
    ["    Yukon", "24,610", "24,735"],
    ["    Northwest Territories", "26,880", "26,790"],
    ["    Nunavut", "15,230", "15,310"],
], merges=[],
   title="Number of employees and average weekly earnings by province and territory\n(number)")  # fmt: skip


def test_a_sum_over_a_named_group_of_counts_whatever_else_the_title_names() -> None:
    """The title names an average too, but the figures are counts (`(number)`): they add up."""
    question = "What was the combined number of payroll employees in the three territories in July 2024?"
    plan, _ = run(PAYROLLS, question)
    assert plan.operation == "sum" and plan.answer == ["66,720"]


WARDS = Table(text=[
    ["Department", "Beds", "Admissions"],
    ["Medical", "", ""],
    ["    Cardiology", "48", "4,120"],
    ["    General medicine", "96", "7,385"],
    ["Surgical", "", ""],
    ["    General surgery", "62", "5,410"],
    ["    Orthopaedics", "54", "3,870"],
    ["Women & Children", "", ""],
    ["    Obstetrics", "44", "5,930"],
    ["    Paediatrics", "38", "4,460"],
    ["Hospital total", "342", "31,175"],
], merges=[])  # fmt: skip


def test_a_total_and_a_share_of_the_departments_under_a_heading() -> None:
    plan, _ = run(WARDS, "Total admissions across the Women & Children departments?")
    assert plan.operation == "sum" and plan.answer == ["10,390"]
    plan, _ = run(WARDS, "What percentage of the hospital's admissions were to surgical departments?")
    assert plan.operation == "percent_of" and plan.answer == ["29.8%"]


LABOUR = Table(text=[
    ["Sex", "Characteristic", "Unit", "September 2024", "October 2024"],
    ["Men", "Population", "thousands", "6,509.4", "6,521.0"],
    ["", "Labour force", "thousands", "4,395.1", "4,394.2"],
    ["", "Employment", "thousands", "4,056.9", "4,064.7"],
    ["", "Part-time employment", "thousands", "559.8", "556.1"],
    ["", "Participation rate", "%", "67.5", "67.4"],
    ["", "Employment rate", "%", "62.3", "62.3"],
], merges=[(1, 0, 6, 0)])  # fmt: skip


def test_a_unit_column_states_units_and_a_share_of_a_line_the_whole_names() -> None:
    """`%` in the `Unit` column is no label naming a line: `what percentage of employed men worked
    part time` is part-time employment over employment, not the participation rate."""
    plan, _ = run(LABOUR, "What percentage of employed men worked part time in October 2024?")
    assert plan.operation == "percent_of" and plan.answer == ["13.7%"]


def test_a_label_the_question_negates_is_not_trusted() -> None:
    plan, _ = run(LABOUR, "How many men were not in the labour force in October 2024?")
    assert plan.confidence <= 0.5


PROVINCES = Table(text=[
    ["", "Employment", "", "", "Employment rate", "", ""],
    ["Province", "September 2024", "October 2024", "Change", "September 2024", "October 2024", "Change"],
    ["", "thousands", "thousands", "thousands", "%", "%", "percentage points"],
    ["Canada", "20,448.4", "20,484.7", "36.3", "61.1", "61.1", "0.0"],
    ["Quebec", "4,519.6", "4,517.3", "-2.3", "60.9", "60.8", "-0.1"],
    ["Saskatchewan", "596.3", "598.7", "2.4", "63.8", "64.1", "0.3"],
], merges=[(0, 1, 0, 3), (0, 4, 0, 6)])  # fmt: skip


def test_a_percentage_change_is_computed_where_the_change_shown_is_a_rates_points() -> None:
    plan, _ = run(PROVINCES, "By what percentage did employment in Saskatchewan change from September to "
                             "October 2024?")  # fmt: skip
    assert plan.operation == "growth" and plan.answer == ["0.40%"]


def test_a_share_of_a_line_is_not_read_as_another_measures_rate() -> None:
    plan, _ = run(PROVINCES, "What share of Canada's October 2024 employment was in Quebec, in percent?")
    assert plan.operation == "percent_of" and plan.answer == ["22.1%"]


SEGMENT = Table(text=[
    ["", "Nine months 2024", "Nine months 2023"],
    ["Revenues", "30,416", "32,987"],
    ["Cost of products sold", "26,733", "27,512"],
    ["Operating expenses", "1,874", "1,803"],
    ["Segment operating income (loss)", "957", "2,863"],
], merges=[])  # fmt: skip


def test_a_share_the_question_defines_by_two_lines() -> None:
    plan, _ = run(SEGMENT, "Operating income as a percent of revenues for the nine months of 2023?")
    assert plan.operation == "percent_of" and plan.answer == ["8.7%"]


STATEMENT = Table(text=[
    ["", "FY2023", "FY2024"],
    ["Streaming revenues", "", ""],
    ["  UCAN", "14,873", "17,362"],
    ["  EMEA", "10,556", "12,387"],
    ["Total revenues", "25,429", "29,749"],
    ["Operating expenses", "", ""],
    ["  Cost of revenues", "15,715", "17,039"],
    ["  Marketing", "2,658", "2,918"],
    ["Operating income", "7,056", "9,792"],
], merges=[])  # fmt: skip


def test_a_margin_reads_the_revenue_line_not_a_cost_under_a_heading_sharing_its_word() -> None:
    """`operating margin` names no `Operating expenses` over `Cost of revenues`: it is operating
    income over total revenues."""
    plan, _ = run(STATEMENT, "What was the operating margin in FY2024?")
    assert plan.operation == "measure" and plan.answer == ["32.9%"]


GENERATION = Table(text=[
    ["Province", "Renewable", "", "Non-renewable", "", "Total all sources"],
    ["", "Hydro", "Wind", "Nuclear", "Natural gas", ""],
    ["Ontario", "34,128", "11,963", "81,563", "15,247", "142,901"],
    ["Quebec", "197,684", "11,247", "—", "289", "209,220"],
    ["Alberta", "1,893", "13,472", "—", "55,362", "70,727"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 0, 1, 0), (0, 5, 1, 5)])  # fmt: skip


def test_a_total_over_a_named_column_group_is_its_columns_sum() -> None:
    """`total renewable generation`: the sources under `Renewable`, not `Total all sources`."""
    plan, _ = run(GENERATION, "What was Ontario's total renewable generation?")
    assert plan.operation == "sum" and plan.answer == ["46,091"]
    plan, _ = run(GENERATION, "What was Ontario's total generation from all sources?")
    assert plan.answer == ["142,901"]


BROADBAND = Table(text=[
    ["Region", "Technology", "2022", "2023", "2024"],
    ["Northeast", "Fibre", "3,412", "3,795", "4,188"],
    ["", "DSL", "1,887", "1,041", "822"],
    ["", "Cable", "6,120", "6,044", "5,931"],
    ["Midwest", "Fibre", "6,005", "6,100", "6,300"],
    ["", "DSL", "1,966", "1,650", "1,381"],
    ["", "Cable", "5,874", "5,815", "5,102"],
], merges=[(1, 0, 3, 0), (4, 0, 6, 0)])  # fmt: skip


def test_which_member_of_a_named_group_lost_the_most() -> None:
    """`lost the most` is the largest fall within the Midwest (Cable's 772, DSL's 585), not the
    Northeast's."""
    question = "Within the Midwest, which technology lost the most subscriptions between 2022 and 2024?"
    plan, _ = run(BROADBAND, question)
    assert plan.answer == ["Cable"]


def test_a_comparison_after_a_leading_period_is_a_difference() -> None:
    question = "In 2024, how many more DSL subscriptions did the Midwest have than the Northeast?"
    plan, _ = run(BROADBAND, question)
    assert plan.operation == "diff" and plan.answer == ["559"]


CAREER = Table(text=[
    ["Club", "Season", "League", "", "Cup", "", "Total", ""],
    ["", "", "Apps", "Goals", "Apps", "Goals", "Apps", "Goals"],
    ["Ajax", "1996-97", "33", "0", "1", "0", "34", "0"],
    ["", "1997-98", "33", "1", "5", "0", "38", "1"],
    ["", "Total", "66", "1", "6", "0", "72", "1"],
    ["Inter", "1998-99", "30", "2", "2", "0", "32", "2"],
    ["", "Total", "30", "2", "2", "0", "32", "2"],
], merges=[(0, 2, 0, 3), (0, 4, 0, 5), (0, 6, 0, 7), (2, 0, 4, 0), (5, 0, 6, 0)])  # fmt: skip


def test_a_groups_own_total_and_measures_under_a_heading_are_no_sum() -> None:
    """`League > Apps | Goals` are measures (again under `Cup`), and `Ajax` shows its own `Total`:
    the total league appearances for Ajax is read, not summed."""
    plan, _ = run(CAREER, "What was the total number of league appearances made for Ajax?")
    assert plan.operation == "lookup" and plan.answer == ["66"]


CAPACITY = Table(text=[
    ["Technology", "2019", "2020"],
    ["Wind energy", "13,584", "15,121"],
    ["Bioenergy", "3,302", "3,425"],
    ["    Solid biofuels", "1,702", "1,735"],
    ["    Biogas", "1,004", "1,037"],
    ["    Renewable municipal waste", "596", "611"],
    ["    Liquid biofuels", "..", "42"],
    ["Total renewable capacity", "16,886", "18,546"],
], merges=[], title="Installed capacity (MW)")  # fmt: skip


def test_a_count_of_a_groups_members_whose_initials_spell_the_unit() -> None:
    """`MW` is a unit, no initials of `municipal waste`: that member is counted, not asked alone."""
    plan, _ = run(CAPACITY, "How many bioenergy technologies had more than 1,000 MW installed in 2020?")
    assert plan.operation == "count" and plan.answer == ["2"]


def test_a_count_outside_a_named_group_leaves_its_members_out() -> None:
    """`Outside the United States`: neither the United States nor its areas are counted, and no
    complement (the world less the United States) is computed."""
    question = "Outside the United States, how many areas produced more than 30 kb/d of crude oil?"
    plan, _ = run(PRODUCTION, question)
    assert plan.operation == "count" and plan.answer == ["4"]


DEATHS = Table(text=[
    ["", "Hospital", "", "Non-hospital", "", "All"],
    ["", "number", "row %", "number", "row %", ""],
    ["2010", "78,775", "59.1", "54,495", "40.9", "133,270"],
    ["2011", "106,665", "58.7", "74,920", "41.3", "181,585"],
], merges=[(0, 1, 0, 2), (0, 3, 0, 4), (0, 5, 1, 5)])  # fmt: skip


def test_measures_under_a_heading_are_no_parts_of_a_share() -> None:
    """`Hospital > number | row %`: the same labels recur under `Non-hospital`, so the share of
    deaths in hospital is the number over all deaths, not the number and the percent added up."""
    plan, _ = run(DEATHS, "What percentage of deaths occurred in hospital in 2010?")
    assert plan.answer in (["59.1%"], ["59.1"])
