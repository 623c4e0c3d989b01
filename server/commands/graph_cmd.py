"""`celltrace graph`: print the cell graph of a workbook range."""

from __future__ import annotations


def graph() -> None:
    """Print the cell graph (placeholder until the reader lands)."""
    raise NotImplementedError
