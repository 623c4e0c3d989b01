"""HTTP API of `celltrace serve`: routes, dependencies, limits and error handling.

Routes (JSON; OpenAPI at `/openapi.json`, docs at `/docs`):

- `GET /v1/health` (never needs the token): status, version, engines, models per stage, sandbox.
- `POST /v1/graph` `{"table"}`: the `graph --json` shape (LRU-cached per table content).
- `POST /v1/ask` `{"question", "table", "engine"}`: the `ask --json` shape plus `actions`.
- `POST /v1/longform` `{"question", "table", "plan"}`: the `longform --json` shape plus `actions`.
- `POST /v1/ask/stream`, `POST /v1/longform/stream`: SSE `step`… then `result` (or `error`).

Errors are `{"error": {"code", "message"}}`: 401 unauthorized, 409 engine_unavailable, 413
body_too_large / too_many_cells, 422 invalid_request, 429 busy (+ Retry-After), 502 llm_unreachable /
llm_timeout / llm_unauthorized / llm_error (the result's `error_code`), 504 timeout (+ `steps`),
500 internal. Settings: `ServerSettings`.
"""
