"""The one place Foehn talks HTTP to a model: timeouts, retries, SSE, and error mapping.

Retries (``max_retries``, exponential backoff with jitter, ``Retry-After`` honoured) cover 429,
5xx, timeouts and connection errors, and for streams only what happens before the first event:
once text has reached the person, a cut-off stream is an error, never a half answer passed off
as complete. 400/401/403/404/422 are not retried. ``httpx.HTTPError`` is caught here and nowhere
else, and turned into Foehn's ``ProviderError``s ``from`` it. The API key never appears in a
message: anything echoing it is scrubbed.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx_sse

from foehn_lsp.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderProtocolError,
    ProviderRequestError,
    ProviderUnavailableError,
)

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_RETRY_AFTER = 60.0


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class HttpClient:
    """An httpx client bound to one provider's base URL, headers and retry policy."""

    def __init__(
        self,
        *,
        label: str,
        base_url: str,
        headers: Mapping[str, str],
        secret: str | None,
        timeout: float,
        max_retries: int,
        backoff: float = 0.5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.label = label
        self.max_retries = max_retries
        self.backoff = backoff
        self._secret = secret
        self._client = httpx.AsyncClient(
            base_url=base_url,
            headers=dict(headers),
            timeout=httpx.Timeout(timeout, connect=min(timeout, 15.0)),
            transport=transport,
        )

    def __repr__(self) -> str:
        return f"HttpClient({self.label!r}, {str(self._client.base_url)!r})"

    async def aclose(self) -> None:
        await self._client.aclose()

    def scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    async def post_json(self, path: str, body: Mapping[str, Any]) -> Any:
        """POST ``body`` and return the parsed JSON answer, retrying what can be retried."""

        async def attempt() -> Any:
            try:
                response = await self._client.post(path, json=body)
                await response.aread()
            except httpx.TransportError as exc:
                raise self._unreachable(exc) from exc
            self._check(response)
            try:
                return response.json()
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise ProviderProtocolError(
                    f"{self.label} answered with a body that is not JSON: "
                    f"{self.scrub(response.text[:200])!r}"
                ) from None

        return await self._with_retries(attempt)

    @asynccontextmanager
    async def stream_events(
        self, path: str, body: Mapping[str, Any]
    ) -> AsyncIterator[AsyncIterator[httpx_sse.ServerSentEvent]]:
        """POST ``body`` and yield the server-sent events. Connecting is retried; once the
        first event has arrived, a broken stream raises ``ProviderProtocolError``."""
        context = None

        async def connect() -> Any:
            nonlocal context
            context = httpx_sse.aconnect_sse(self._client, "POST", path, json=body)
            try:
                source = await context.__aenter__()
            except httpx.TransportError as exc:
                raise self._unreachable(exc) from exc
            try:
                if source.response.status_code >= 400:
                    await source.response.aread()
                    self._check(source.response)
            except BaseException:
                await context.__aexit__(None, None, None)
                raise
            return source

        source = await self._with_retries(connect)
        assert context is not None
        try:
            yield self._events(source)
        finally:
            await context.__aexit__(None, None, None)

    async def _events(
        self, source: httpx_sse.EventSource
    ) -> AsyncIterator[httpx_sse.ServerSentEvent]:
        try:
            async for event in source.aiter_sse():
                yield event
        except httpx.TimeoutException as exc:
            raise ProviderUnavailableError(
                f"{self.label} stopped sending mid-answer ({type(exc).__name__})"
            ) from exc
        except (httpx.TransportError, httpx_sse.SSEError) as exc:
            raise ProviderProtocolError(
                f"the answer from {self.label} was cut off mid-stream ({type(exc).__name__})"
            ) from exc

    def _unreachable(self, exc: httpx.TransportError) -> _Retryable:
        if isinstance(exc, httpx.TimeoutException):
            return _Retryable(f"{self.label} did not answer in time ({type(exc).__name__})")
        return _Retryable(f"cannot reach {self.label}: {self.scrub(str(exc)) or repr(exc)}")

    def _check(self, response: httpx.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        detail = self.scrub(_error_detail(response))
        if status in (401, 403):
            raise ProviderAuthError(f"{self.label} rejected the API key ({status}): {detail}")
        if status in RETRY_STATUSES or status >= 500:
            raise _Retryable(
                f"{self.label} is unavailable ({status}): {detail}",
                _retry_after(response.headers.get("retry-after")),
            )
        if status == 404:
            raise ProviderRequestError(
                f"{self.label} answered 404 (check the base URL and model name): {detail}"
            )
        raise ProviderRequestError(f"{self.label} refused the request ({status}): {detail}")

    async def _with_retries(self, attempt: Any) -> Any:
        for number in range(self.max_retries + 1):
            try:
                return await attempt()
            except _Retryable as exc:
                if number == self.max_retries:
                    tries = f"{number + 1} attempt{'s' if number else ''}"
                    raise ProviderUnavailableError(f"{exc} (gave up after {tries})") from None
                delay = exc.retry_after
                if delay is None:
                    delay = self.backoff * (2**number) * random.uniform(0.5, 1.0)
                log.warning("%s; retrying in %.1f s", exc, delay)
                await asyncio.sleep(delay)
            except ProviderError:
                raise
        raise AssertionError("unreachable")


def _error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return response.text[:300].strip() or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            message = error.get("message") or error.get("detail") or json.dumps(error)[:300]
            return str(message)
        if isinstance(body.get("message"), str):
            return str(body["message"])
        if isinstance(body.get("detail"), str | list):
            return json.dumps(body["detail"])[:300]
        return str(error)[:300]
    return json.dumps(body)[:300]


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)
