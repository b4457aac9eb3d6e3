"""The one place Foehn talks HTTP to a model: timeouts, retries, SSE, and error mapping.

Retries (``max_retries``, exponential backoff with jitter, ``Retry-After`` honoured) cover 429,
5xx, timeouts and connection errors, and for streams only what happens before the first event:
once text has reached the person, a cut-off stream is an error, never a half answer passed off
as complete. 400/401/403/404/422 are not retried, nor are a base URL that cannot work (no
``http://`` or ``https://``), a failed TLS handshake, or a web page where JSON was expected.
Every message names the URL and says what to check. ``httpx.HTTPError`` is caught here and nowhere
else, and turned into Foehn's ``ProviderError``s ``from`` it. The API key never appears in a
message: anything echoing it is scrubbed.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import ssl
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx_sse

from foehn_lsp.errors import (
    ConfigError,
    ProviderAuthError,
    ProviderError,
    ProviderProtocolError,
    ProviderRequestError,
    ProviderUnavailableError,
)
from foehn_lsp.secrets import Scrubber

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_RETRY_AFTER = 60.0
BASE_URL_HINT = "set it with --base-url, FOEHN_BASE_URL or baseUrl"


def check_base_url(base_url: str) -> None:
    """Refuse, before any request, a base URL that cannot work, naming it and the fix."""
    try:
        url = httpx.URL(base_url)
    except httpx.InvalidURL as exc:
        raise ConfigError(
            f"the base URL {base_url!r} is not a URL ({exc}); {BASE_URL_HINT}"
        ) from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ConfigError(
            f"the base URL {base_url!r} needs http:// or https:// and a host, e.g. "
            f"'http://{base_url.split('://')[-1]}'; {BASE_URL_HINT}"
        )


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
        check_base_url(base_url)
        self.label = label
        self.max_retries = max_retries
        self.backoff = backoff
        self._scrubber = Scrubber([secret] if secret else [], min_length=1)
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
        return self._scrubber.text(text)

    async def post_json(self, path: str, body: Mapping[str, Any]) -> Any:
        """POST ``body`` and return the parsed JSON answer, retrying what can be retried."""
        return await self._json("POST", path, body)

    async def get_json(self, path: str) -> Any:
        """GET ``path`` and return the parsed JSON answer, retrying what can be retried."""
        return await self._json("GET", path, None)

    async def _json(self, method: str, path: str, body: Mapping[str, Any] | None) -> Any:
        async def attempt() -> Any:
            try:
                response = await self._client.request(method, path, json=body)
                await response.aread()
            except httpx.TransportError as exc:
                raise self._unreachable(exc) from exc
            self._check(response)
            try:
                return response.json()
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise self._not_json(response) from None

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
                kind = source.response.headers.get("content-type", "")
                if "text/event-stream" not in kind:
                    await source.response.aread()
                    raise self._not_json(source.response, stream=True)
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

    def _where(self, request: httpx.Request | None = None) -> str:
        return str(request.url) if request is not None else str(self._client.base_url)

    def _unreachable(self, exc: httpx.TransportError) -> Exception:
        """A transport failure, classified: what can pass with time is retried; a URL that
        cannot work or a failed TLS handshake is not."""
        try:
            where = self._where(exc.request)
        except RuntimeError:
            where = self._where()
        if isinstance(exc, httpx.TimeoutException):
            return _Retryable(
                f"{self.label} at {where} did not answer in time ({type(exc).__name__})"
            )
        if isinstance(exc, httpx.UnsupportedProtocol):
            return ProviderRequestError(
                f"the base URL {where} needs http:// or https://; {BASE_URL_HINT}"
            )
        causes = _causes(exc)
        tls = next((c for c in causes if isinstance(c, ssl.SSLError)), None)
        if tls is not None:
            return ProviderRequestError(
                f"the TLS handshake with {where} failed ({tls.reason or tls}); check the "
                "URL's scheme (a plain-HTTP server needs http://) and the server's certificate"
            )
        text = self.scrub(str(exc)) or repr(exc)
        if any(isinstance(c, ConnectionRefusedError) for c in causes) or "refused" in text:
            return _Retryable(
                f"cannot reach {self.label} at {where}: connection refused; is the server "
                f"running and listening on that port? ({BASE_URL_HINT})"
            )
        return _Retryable(f"cannot reach {self.label} at {where}: {text}")

    def _not_json(self, response: httpx.Response, *, stream: bool = False) -> ProviderError:
        """A body that is not the wire format; a web page usually means a wrong base URL."""
        where = self._where(response.request)
        body = response.text.lstrip()
        kind = response.headers.get("content-type", "")
        if "html" in kind or body[:15].lower().startswith(("<!doctype", "<html")):
            return ProviderProtocolError(
                f"{self.label} at {where} answered with a web page (HTML, status "
                f"{response.status_code}), not the API's JSON; check the base URL (API paths "
                "often end in /v1)"
            )
        expected = "an event stream" if stream else "JSON"
        return ProviderProtocolError(
            f"{self.label} at {where} answered {response.status_code} with a body that is not "
            f"{expected} ({kind or 'no content type'}): {self.scrub(body[:200])!r}"
        )

    def _check(self, response: httpx.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        where = self._where(response.request)
        detail = self.scrub(_error_detail(response))
        if status == 401:
            raise ProviderAuthError(
                f"{self.label} at {where} rejected the API key (401): {detail}; check the key "
                "(FOEHN_API_KEY or the provider's own variable)"
            )
        if status == 403:
            raise ProviderAuthError(
                f"{self.label} at {where} rejected the API key (403, not allowed): {detail}; "
                "check that the key may use this model"
            )
        if status == 429:
            raise _Retryable(
                f"{self.label} at {where} is rate-limiting requests (429): {detail}; wait a "
                "moment or check the account's limits",
                _retry_after(response.headers.get("retry-after")),
            )
        if status in RETRY_STATUSES or status >= 500:
            raise _Retryable(
                f"{self.label} at {where} is unavailable ({status}): {detail}",
                _retry_after(response.headers.get("retry-after")),
            )
        if status == 404:
            raise ProviderRequestError(
                f"{self.label} answered 404 for {where}: {detail}; check the base URL and the "
                "model name (--base-url, --model)"
            )
        raise ProviderRequestError(
            f"{self.label} at {where} refused the request ({status}): {detail}"
        )

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


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from, innermost last."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


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
