"""Backend: engines, LLM client, CLI and the local HTTP server."""

__version__ = "0.1.0"
