"""HTTP client of the add-in for the local `celltrace serve` API (httpx, explicit timeouts).

Settings (environment or `.env`, prefix `CELLTRACE_`): `CELLTRACE_URL` (default
http://127.0.0.1:8765), `CELLTRACE_TOKEN` (sent as `Authorization: Bearer …` when set),
`CELLTRACE_ENGINE` (auto, llm or offline), `CELLTRACE_CLIENT_TIMEOUT` (seconds to wait for an
answer; a little over the server's own 300 s deadline) and `CELLTRACE_RECORD_DIR` (see `record`).
"""

from __future__ import annotations

from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from celltrace.shared.api_models import AskResponse, ErrorBody, HealthResponse, LongformResponse
from celltrace.shared.errors import UserError
from celltrace.shared.schemas import Engine, TablePayload

START_COMMAND = "celltrace serve"
CONNECT_TIMEOUT = 3.0
M = TypeVar("M", bound=BaseModel)


class ClientSettings(BaseSettings):
    """Where the add-in finds the server and how long it waits."""

    model_config = SettingsConfigDict(env_prefix="CELLTRACE_", env_file=".env", extra="ignore")

    url: str = "http://127.0.0.1:8765"
    token: SecretStr | None = None
    engine: Engine = "auto"
    client_timeout: float = Field(default=330.0, gt=0, description="seconds to wait for one answer")
    record_dir: str | None = None


class ServerUnavailable(UserError):
    """Nothing answers at the server URL: the message says how to start it."""


class Client:
    """One connection pool to the local server; use as a context manager or call `close()`."""

    def __init__(self, settings: ClientSettings | None = None, transport: httpx.BaseTransport | None = None):
        self.settings = settings or ClientSettings()
        token = self.settings.token.get_secret_value() if self.settings.token else ""
        self._http = httpx.Client(
            base_url=self.settings.url.rstrip("/"),
            headers={"Authorization": f"Bearer {token}"} if token else {},
            timeout=httpx.Timeout(self.settings.client_timeout, connect=CONNECT_TIMEOUT),
            transport=transport,
            trust_env=False,  # a system proxy must never see a loopback request
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def health(self) -> HealthResponse:
        return self._call("GET", "/v1/health", None, HealthResponse, timeout=CONNECT_TIMEOUT * 2)

    def ask(self, table: TablePayload, question: str, engine: Engine | None = None) -> AskResponse:
        body = {"question": question, "table": table.model_dump(), "engine": engine or self.settings.engine}
        return self._call("POST", "/v1/ask", body, AskResponse)

    def longform(self, table: TablePayload, question: str) -> LongformResponse:
        body = {"question": question, "table": table.model_dump()}
        return self._call("POST", "/v1/longform", body, LongformResponse)

    def _call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        model: type[M],
        timeout: float | None = None,
    ) -> M:
        url = self.settings.url
        try:
            response = self._http.request(
                method, path, json=body, timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT
            )
        except (httpx.ConnectError, httpx.ConnectTimeout):
            raise ServerUnavailable(
                f"The celltrace server is not running at {url}.\n\n"
                f"Start it in a terminal with:\n\n    {START_COMMAND}\n\nthen try again."
            ) from None
        except httpx.TimeoutException:
            raise UserError(f"the celltrace server at {url} did not answer in time") from None
        except httpx.HTTPError as exc:
            raise UserError(f"cannot talk to the celltrace server at {url}: {exc}") from None
        if response.status_code >= 400:
            raise UserError(_error_message(response))
        try:
            return model.model_validate(response.json())
        except (ValueError, ValidationError) as exc:
            raise UserError(f"unexpected answer from the celltrace server at {url}: {exc}") from None


def _error_message(response: httpx.Response) -> str:
    try:
        message = ErrorBody.model_validate(response.json()).error.message
    except (ValueError, ValidationError):
        message = response.text[:300] or response.reason_phrase
    if response.status_code == 401:
        return (
            f"the celltrace server refused the token ({message}); set CELLTRACE_TOKEN to the server's token"
        )
    return f"celltrace server: {message} (HTTP {response.status_code})"
