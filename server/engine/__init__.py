"""The graph reasoning engine (GraphOTTER): policies, the step loop and the `answer_question` API."""
