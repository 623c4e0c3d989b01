"""Shared pytest fixtures."""

from collections.abc import Iterator

import pytest
from llm_server import ScriptedLLM


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLM]:
    """A started loopback ``ScriptedLLM`` (empty script), stopped after the test."""
    with ScriptedLLM() as server:
        yield server
