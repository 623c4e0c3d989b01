"""The offline (no-LLM) question answering engine: grounding, operations and the solver."""
