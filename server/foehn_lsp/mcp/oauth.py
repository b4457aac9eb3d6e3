"""Signing in to an HTTP MCP server with OAuth 2.1, as the MCP authorization spec defines it.

The flow is the official SDK's (``OAuthClientProvider``): on a 401 it finds the protected
resource metadata (RFC 9728: the ``resource_metadata`` of ``WWW-Authenticate``, then the
well-known paths), checks that its ``resource`` is this server (RFC 8707), finds the
authorization server's metadata (RFC 8414, then OpenID discovery) and checks its ``issuer``,
registers Foehn (dynamic client registration, RFC 7591; or a client ID metadata document, or
the client registered by hand in ``[mcp.servers.NAME.oauth]``), sends the person to the
authorization page with PKCE (S256) and the ``resource`` indicator, exchanges the code, and
refreshes the token when it expires. On a 403 ``insufficient_scope`` it asks again for the
scopes it had plus the ones the server names (scope step-up).

``ServerAuth`` adds Foehn's own rules around every request the flow makes:

- each goes only where metadata says: a registration or token request is sent only to the
  ``registration_endpoint`` or ``token_endpoint`` of the authorization server metadata that was
  found and checked, and the person is sent only to its ``authorization_endpoint`` (the SDK
  would otherwise fall back to ``/register``, ``/token`` and ``/authorize`` of the server's own
  address: refused, with what was tried);
- over https, or plain http to this computer only; an authorization server that does not
  offer PKCE with S256 is refused;
- a redirect of a metadata request to another origin or to plain http is not followed, and is
  named when the flow fails for want of metadata;
- nothing is kept unless the server then accepts the token (``tokens.Credentials``), and an
  endpoint that hangs fails after ``oauth.request_timeout_seconds``
  (``http.CappedTransport``).

Without a way to ask the person (``show`` is ``None``), a flow that needs them raises
``SignInRequired`` at once, naming the command that signs in.
"""

from __future__ import annotations

import contextlib
import logging
import urllib.parse
from collections.abc import AsyncGenerator, Callable

import httpx2
import pydantic
from mcp.client.auth import (
    OAuthClientProvider,
    OAuthFlowError,
    OAuthRegistrationError,
    OAuthTokenError,
)
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    ProtectedResourceMetadata,
)
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER

import foehn_lsp
from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.mcp.consent import HOST, ConsentError, ShowUrl, free_port, redirect_uri
from foehn_lsp.mcp.loopback import Loopback
from foehn_lsp.mcp.tokens import Credentials

log = logging.getLogger(__name__)

CLIENT_NAME = "Foehn"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


class SignInRequired(Exception):
    """The server needs the person to sign in, and they cannot be asked here (or declined to
    be asked again); the message says how to sign in."""


class SignInFailed(Exception):
    """Signing in went wrong (metadata, registration, tokens, the person's answer); the message
    says what, and where."""


def secure_enough(url: httpx2.URL | str) -> bool:
    """https, or plain http to this computer (a loopback address or ``localhost``)."""
    parsed = httpx2.URL(str(url))
    return parsed.scheme == "https" or (
        parsed.scheme == "http" and parsed.host.strip("[]") in LOOPBACK_HOSTS
    )


def _origin(url: httpx2.URL) -> str:
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme}://{url.host}{port}"


def _shown(url: httpx2.URL | str) -> str:
    return str(httpx2.URL(str(url)).copy_with(query=None, fragment=None, userinfo=b""))


class ServerAuth(OAuthClientProvider):
    """The SDK's OAuth flow for one server, with Foehn's rules (see the module docstring)."""

    def __init__(
        self,
        server: str,
        config: McpServerConfig,
        credentials: Credentials,
        *,
        port: int,
        show: ShowUrl | None,
        hint: str,
        on_waiting: Callable[[float], None] = lambda seconds: None,
    ) -> None:
        assert config.url is not None
        oauth = config.oauth
        self.server = server
        self.config = config
        self.credentials = credentials
        self.show = show
        self.hint = hint
        """How the person signs in here (``SignIn.how``), for the messages."""
        self.on_waiting = on_waiting
        """Told, with the consent timeout, when the flow starts waiting for the person."""
        self.loopback = Loopback(port)
        self.redirect = redirect_uri(port)
        self.state: str | None = None
        self.notes: list[str] = []
        """What the metadata requests of the current flow found, for its error message."""
        self.authorized = False
        """A sign-in (the person's consent) happened in this flow."""
        metadata = OAuthClientMetadata(
            client_name=CLIENT_NAME,
            redirect_uris=[pydantic.AnyUrl(self.redirect)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            software_id="foehn",
            software_version=foehn_lsp.__version__,
        )
        super().__init__(
            server_url=config.url,
            client_metadata=metadata,
            storage=credentials,
            redirect_handler=self._send_person,
            callback_handler=self._person_back,
            client_metadata_url=oauth.client_metadata_url,
        )

    # What the flow reads and writes --------------------------------------------------------

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = await self.credentials.expires_at()
        # The metadata the tokens were got with: a refresh goes to its token endpoint.
        found, resource = await self.credentials.get_metadata()
        if found is not None and self.context.oauth_metadata is None:
            self.context.oauth_metadata = found
            self.context.auth_server_url = str(found.issuer)
        if resource is not None and self.context.protected_resource_metadata is None:
            self.context.protected_resource_metadata = resource
        configured = self.config.oauth
        if configured.client_id is not None:
            secret = configured.client_secret
            self.context.client_info = OAuthClientInformationFull(
                client_id=configured.client_id,
                client_secret=secret.get_secret_value() if secret else None,
                token_endpoint_auth_method="client_secret_basic" if secret else "none",
                redirect_uris=[pydantic.AnyUrl(self.redirect)],
            )

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        await super()._handle_token_response(response)
        await self.credentials.set_metadata(
            self.context.oauth_metadata, self.context.protected_resource_metadata
        )

    async def _perform_authorization(self) -> httpx2.Request:
        metadata = self.context.oauth_metadata
        client = self.context.client_info
        if metadata is not None and client is not None and client.client_secret:
            # A client registered by hand sends its secret the way the server takes it.
            offered = metadata.token_endpoint_auth_methods_supported or ["client_secret_basic"]
            if client.token_endpoint_auth_method not in offered:
                for method in ("client_secret_basic", "client_secret_post"):
                    if method in offered:
                        client.token_endpoint_auth_method = method
                        break
        return await super()._perform_authorization()

    # The person ----------------------------------------------------------------------------

    async def _send_person(self, url: str) -> None:
        """The SDK's redirect handler: the authorization page, shown to the person."""
        metadata = self._checked_metadata()
        endpoint = str(metadata.authorization_endpoint)
        if not url.startswith(endpoint):
            raise SignInFailed(f"the sign-in page {_shown(url)} is not the metadata's {endpoint}")
        if self.show is None:
            raise SignInRequired(
                f"it needs you to sign in, and nobody can be asked here: {self.hint}"
            )
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        self.state = (query.get("state") or [""])[0]
        await self.loopback.open(self.state)
        timeout = self.config.oauth.consent_timeout_seconds
        self.on_waiting(timeout)
        try:
            await self.show(self.server, url)
        except BaseException:
            await self.loopback.close()
            raise

    async def _person_back(self) -> AuthorizationCodeResult:
        """The SDK's callback handler: the code the browser brings back to the loopback."""
        answer = await self.loopback.answer(self.config.oauth.consent_timeout_seconds)
        self.authorized = True
        return answer

    # Foehn's rules around each request of the flow -----------------------------------------

    def _checked_metadata(self) -> OAuthMetadata:
        metadata = self.context.oauth_metadata
        if metadata is None:
            raise SignInFailed(self._no_metadata())
        insecure = [
            str(url)
            for url in (
                metadata.authorization_endpoint,
                metadata.token_endpoint,
                metadata.registration_endpoint,
            )
            if url is not None and not secure_enough(str(url))
        ]
        if insecure:
            raise SignInFailed(
                f"the authorization server {metadata.issuer} names endpoints over plain http "
                f"({', '.join(insecure)}); Foehn signs in over https only"
            )
        if "S256" not in (metadata.code_challenge_methods_supported or []):
            raise SignInFailed(
                f"the authorization server {metadata.issuer} does not offer PKCE with S256 "
                "(code_challenge_methods_supported), which MCP requires"
            )
        return metadata

    def _no_metadata(self) -> str:
        tried = "; ".join(self.notes) if self.notes else "nothing answered"
        return (
            "no authorization server metadata was found, so Foehn does not know where it may "
            f"send credentials (tried: {tried})"
        )

    def _check(self, request: httpx2.Request) -> None:
        """Refuse a request of the flow that goes where no checked metadata says."""
        if not secure_enough(request.url):
            raise SignInFailed(
                f"{_shown(request.url)} is plain http to another computer; Foehn signs in "
                "over https only"
            )
        if request.method == "GET":
            return
        registering = request.headers.get("content-type", "").startswith("application/json")
        if registering and self.show is None:
            raise SignInRequired(
                f"it needs you to sign in, and nobody can be asked here: {self.hint}"
            )
        metadata = self._checked_metadata()
        allowed = {str(metadata.token_endpoint)}
        if metadata.registration_endpoint is not None:
            allowed.add(str(metadata.registration_endpoint))
        if str(request.url) not in allowed:
            what = (
                "registers"
                if request.headers.get("content-type", "").startswith("application/json")
                else "asks for a token"
            )
            raise SignInFailed(
                f"the sign-in {what} at {_shown(request.url)}, which the authorization "
                f"server's metadata ({metadata.issuer}) does not name"
                + (
                    "; the server allows no dynamic registration: register Foehn by hand and "
                    "give oauth.client_id"
                    if what == "registers" and metadata.registration_endpoint is None
                    else ""
                )
            )

    async def _note(self, request: httpx2.Request, response: httpx2.Response) -> None:
        """Remember what a metadata request found, for the error message if none is usable."""
        if request.method != "GET":
            return
        where = _shown(request.url)
        if response.next_request is not None and 300 <= response.status_code < 400:
            target = response.next_request.url
            why = (
                "plain http"
                if target.scheme == "http" and request.url.scheme == "https"
                else "another origin"
                if _origin(target) != _origin(request.url)
                else "a redirect"
            )
            self.notes.append(f"{where} redirects to {_shown(target)} ({why}; not followed)")
            return
        if response.status_code != 200:
            self.notes.append(f"{where}: HTTP {response.status_code}")
            return
        body = await response.aread()
        model = ProtectedResourceMetadata if "protected-resource" in where else OAuthMetadata
        try:
            model.model_validate_json(body)
        except pydantic.ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            field = ".".join(str(part) for part in first["loc"]) or "the document"
            self.notes.append(f"{where}: not valid metadata ({field}: {first['msg']})")

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """A request goes out with the token it has (or none), without the SDK's flow, which
        holds one lock for the whole exchange (a slow answer would hold up every other
        request). Only a challenge (401, or 403 ``insufficient_scope``), or a token to refresh
        first, runs the SDK's flow; without a way to ask the person, a challenge that a refresh
        cannot answer goes back as it came (the client names it)."""
        if not self._initialized:
            async with self.context.lock:
                if not self._initialized:
                    await self._initialize()
        self.context.protocol_version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
        refresh_first = not self.context.is_token_valid() and self.context.can_refresh_token()
        if not refresh_first:
            if self.context.is_token_valid():
                self._add_auth_header(request)
            response = yield request
            challenge = _challenge(response)
            if challenge is None:
                return
            refreshable = challenge == 401 and self.context.can_refresh_token()
            if self.show is None and not refreshable:
                return
            if refreshable:
                self.context.token_expiry_time = 1.0  # refused: refresh before anything else
        self.notes = []
        flow = super().async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is not request:
                    self._check(outgoing)
                response = yield outgoing
                if outgoing is not request:
                    await self._note(outgoing, response)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except (SignInRequired, SignInFailed, ConsentError):
            raise
        except OAuthRegistrationError as exc:
            raise SignInFailed(f"registering Foehn failed: {_first_line(exc)}") from None
        except OAuthTokenError as exc:
            raise SignInFailed(f"getting a token failed: {_first_line(exc)}") from None
        except OAuthFlowError as exc:
            raise SignInFailed(_first_line(exc)) from None
        except httpx2.TimeoutException as exc:
            if exc.request is request:
                raise
            raise SignInFailed(
                f"{_shown(exc.request.url)} did not answer within "
                f"{self.config.oauth.request_timeout_seconds:g} s"
            ) from None
        except pydantic.ValidationError as exc:
            raise SignInFailed(
                f"an answer of the authorization server is not valid: {exc}"
            ) from None
        finally:
            with contextlib.suppress(Exception):
                await flow.aclose()


def _challenge(response: httpx2.Response) -> int | None:
    """401 or 403 when ``response`` asks for (more) authorization, else ``None``."""
    if response.status_code == 401:
        return 401
    challenge = response.headers.get("www-authenticate", "")
    if response.status_code == 403 and _challenge_field(challenge, "error") == "insufficient_scope":
        return 403
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


async def server_auth(
    server: str,
    config: McpServerConfig,
    credentials: Credentials,
    *,
    show: ShowUrl | None,
    hint: str,
    on_waiting: Callable[[float], None] = lambda seconds: None,
) -> ServerAuth:
    """The OAuth flow for ``server``: its loopback port is the configured one, else the one its
    kept registration was made with, else one the system picks."""
    port = config.oauth.redirect_port or await _registered_port(credentials) or free_port()
    return ServerAuth(
        server, config, credentials, port=port, show=show, hint=hint, on_waiting=on_waiting
    )


async def _registered_port(credentials: Credentials) -> int | None:
    client = await credentials.get_client_info()
    for uri in (client.redirect_uris or []) if client else []:
        parsed = urllib.parse.urlsplit(str(uri))
        if parsed.hostname == HOST and parsed.port:
            return parsed.port
    return None


def describe_refusal(server: str, response: httpx2.Response, *, signs_in: bool, hint: str) -> str:
    """Why a server answered 401 or 403, and what to do, in one line that follows the server's
    name ("MCP server 'x' answered HTTP 401 Unauthorized: …")."""
    status = response.status_code
    reason = {401: "Unauthorized", 403: "Forbidden"}.get(status, "")
    challenge = response.headers.get("www-authenticate", "")
    error = _challenge_field(challenge, "error")
    said = f" ({error})" if error else ""
    if status == 401 and signs_in:
        fix = hint
    elif status == 401:
        fix = "the Authorization header in its [mcp.servers] entry was refused: renew it"
    elif error == "insufficient_scope":
        needed = _challenge_field(challenge, "scope") or "more scope"
        fix = f"the token lacks access ({needed}); {hint} to grant it"
    else:
        fix = "the server refuses this account or address; check your access to it"
    return f"answered HTTP {status} {reason}{said}: {fix}"


def _challenge_field(challenge: str, name: str) -> str | None:
    for part in challenge.replace("Bearer ", "", 1).split(","):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value.strip('"')
    return None


__all__ = [
    "ServerAuth",
    "SignInFailed",
    "SignInRequired",
    "describe_refusal",
    "secure_enough",
    "server_auth",
]
