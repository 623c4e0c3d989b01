"""uvicorn's h11 protocol with a header-read timeout: a connection that has not sent a complete
request head within `timeout` seconds of connecting (or of its previous response) is closed, so a
slow client (slowloris) cannot hold connections open; uvicorn itself has a keep-alive timeout only.
`celltrace serve` sets `timeout` from `CELLTRACE_HEADER_TIMEOUT`; the body has its own timeout
(`RequestLimitsMiddleware`, 408)."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


class HeaderTimeoutH11Protocol(H11Protocol):
    """H11Protocol that closes a connection whose request head is not complete in time."""

    timeout = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._disarm()  # a request head arrived: the body timeout (RequestLimitsMiddleware) rules now

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.timeout, self._expire)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _expire(self) -> None:
        self._header_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()
