"""Infrastructure under the engines: the LLM client and its errors, settings, retrieval and
embeddings, the program sandbox, token estimates, TLS, JSON repair, prompts rendering, concurrency
limits and cancellation. Imports `shared` and nothing above it (entry points, engines)."""
