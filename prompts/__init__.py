"""Prompt templates, one text file per stage; see `celltrace.server.infra.prompting` for rendering."""

from importlib.resources import files


def load(name: str) -> str:
    """Return the text of template `name` (without the .txt suffix)."""
    return (files(__package__) / f"{name}.txt").read_text(encoding="utf-8")
