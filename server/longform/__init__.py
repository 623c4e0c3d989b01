"""TaPERA-style long-form answers: plan → programs in the sandbox → grounded sub-answers → answer.

Entry point: `celltrace.server.longform.engine.answer_longform`.
"""
