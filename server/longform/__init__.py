"""TaPERA-style long-form answers: plan → programs in the sandbox → grounded sub-answers → answer.

Public API:

* `engine.answer_longform(table, question, plan=None, settings=None, on_step=None) -> LongformResult`
  (never raises; `plan` is a user-edited list of sub-questions; `on_step` gets a `LongformStep` for
  the initial plan, each executed plan item and each plan check, e.g. for SSE);
* `schemas.LongformResult`, `schemas.PlanItem`, `schemas.LongformStep` (the `--json` contract);
* `planner.user_plan(json_value)` to read a `--plan` file;
* `TABLE_API.md`: what generated programs can use.
"""
