"""Evaluation for ``celltrace eval``: answer and evidence metrics (``metrics``), long-form metrics."""
