"""A real MCP server behind OAuth 2.1, with its own authorization server on the same origin,
and every fault the tests need to be able to switch on.

    python oauth_server.py STATE_DIR PORT

The MCP endpoint is ``/mcp`` (the official SDK's streamable HTTP), guarded by bearer tokens
this server issued; a request without one gets 401 with ``resource_metadata`` and ``scope``.
The protected resource metadata (RFC 9728) is at ``/.well-known/oauth-protected-resource/mcp``,
the authorization server's (RFC 8414) at ``/.well-known/oauth-authorization-server``, with
``/register`` (RFC 7591), ``/authorize`` (approves at once: the test's browser follows the
redirect to Foehn's loopback) and ``/token`` (authorization code with PKCE S256, refresh).
Redirect URIs must match the registered one exactly, and ``resource`` must name ``/mcp``.

Tools: ``whoami`` (read-only: says which client the token is of) and ``admin`` (read-only, but
its call needs the ``admin`` scope: without it, 403 ``insufficient_scope``).

``STATE_DIR/faults.json`` is read at each request (the tests change it between steps):
``prm`` (``missing``, ``mismatch``, ``http_as``, ``other_origin``: the authorization server
named as ``localhost``, another origin than the resource's ``127.0.0.1``), ``as``
(``missing``, ``redirect``, ``wrong_issuer``, ``no_pkce``), ``authorize`` (``deny``),
``token`` (``hang``, ``garbage``), ``refresh`` (``refuse``), ``expires_in`` (seconds),
``registration`` (``none``: no dynamic registration), ``clients`` (pre-registered:
``{id: {"secret", "redirect_uri"}}``) and ``mcp`` (``forbid``: every request to ``/mcp`` gets a
plain 403).
``POST /test/revoke`` revokes every access token (``?refresh=1``: refresh tokens too);
``POST /test/reset`` forgets every client, code and token.
``STATE_DIR/events.jsonl`` gets one line per request of interest (``kind``: ``prm``, ``as``,
``register``, ``authorize``, ``token``, ``mcp``) for the tests to count.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import secrets
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

STATE = Path(sys.argv[1])
PORT = int(sys.argv[2])
BASE = f"http://127.0.0.1:{PORT}"
RESOURCE = f"{BASE}/mcp"
PRM_URL = f"{BASE}/.well-known/oauth-protected-resource/mcp"

clients: dict[str, dict[str, Any]] = {}
codes: dict[str, dict[str, Any]] = {}
access: dict[str, dict[str, Any]] = {}
refresh: dict[str, dict[str, Any]] = {}


def faults() -> dict[str, Any]:
    try:
        found = json.loads((STATE / "faults.json").read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def note(kind: str, **details: Any) -> None:
    with (STATE / "events.jsonl").open("a") as log:
        log.write(json.dumps({"kind": kind, **details}) + "\n")


def error(status: int, code: str, description: str) -> JSONResponse:
    return JSONResponse({"error": code, "error_description": description}, status_code=status)


async def protected_resource(request: Request) -> Response:
    fault = faults().get("prm")
    note("prm", path=request.url.path)
    if fault == "missing":
        return Response(status_code=404)
    return JSONResponse(
        {
            "resource": "https://evil.example/mcp" if fault == "mismatch" else RESOURCE,
            "authorization_servers": [
                {"http_as": "http://203.0.113.9", "other_origin": f"http://localhost:{PORT}"}.get(
                    fault or "", BASE
                )
            ],
            "scopes_supported": ["mcp", "admin"],
        }
    )


async def server_metadata(request: Request) -> Response:
    fault = faults().get("as")
    note("as", path=request.url.path)
    if fault == "missing":
        return Response(status_code=404)
    if fault == "redirect":
        return RedirectResponse(f"http://localhost:{PORT}{request.url.path}", status_code=302)
    base = f"http://{request.headers['host']}"  # the origin the metadata was asked at
    document: dict[str, Any] = {
        "issuer": "http://127.0.0.1:1/someone-else" if fault == "wrong_issuer" else base,
        "authorization_endpoint": f"{base}/authorize",
        "token_endpoint": f"{base}/token",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
        "scopes_supported": ["mcp", "admin"],
    }
    if fault != "no_pkce":
        document["code_challenge_methods_supported"] = ["S256"]
    if faults().get("registration") != "none":
        document["registration_endpoint"] = f"{base}/register"
    return JSONResponse(document)


async def register(request: Request) -> Response:
    body = await request.json()
    client_id = f"client-{secrets.token_hex(4)}"
    clients[client_id] = {"redirect_uris": body.get("redirect_uris") or [], "secret": None}
    note("register", client_id=client_id, redirect_uris=clients[client_id]["redirect_uris"])
    return JSONResponse(
        {
            "client_id": client_id,
            "redirect_uris": clients[client_id]["redirect_uris"],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
        },
        status_code=201,
    )


def known_client(client_id: str | None) -> dict[str, Any] | None:
    preregistered = faults().get("clients", {})
    if client_id in preregistered:
        entry = preregistered[client_id]
        return {"redirect_uris": [entry["redirect_uri"]], "secret": entry.get("secret")}
    return clients.get(client_id or "")


async def authorize(request: Request) -> Response:
    query = request.query_params
    client = known_client(query.get("client_id"))
    note(
        "authorize",
        client_id=query.get("client_id"),
        scope=query.get("scope"),
        resource=query.get("resource"),
        method=query.get("code_challenge_method"),
    )
    redirect = query.get("redirect_uri", "")
    if client is None or redirect not in client["redirect_uris"]:
        return error(400, "invalid_request", "unknown client or redirect_uri")
    if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
        return error(400, "invalid_request", "PKCE S256 is required")
    if query.get("resource") != RESOURCE:
        return error(400, "invalid_target", f"resource must be {RESOURCE}")
    state = query.get("state", "")
    if faults().get("authorize") == "deny":
        target = f"{redirect}?{urllib.parse.urlencode({'error': 'access_denied', 'state': state})}"
        return RedirectResponse(target, status_code=302)
    code = secrets.token_urlsafe(16)
    codes[code] = {
        "client_id": query["client_id"],
        "redirect_uri": redirect,
        "challenge": query["code_challenge"],
        "scope": query.get("scope") or "mcp",
    }
    target = f"{redirect}?{urllib.parse.urlencode({'code': code, 'state': state})}"
    return RedirectResponse(target, status_code=302)


def client_of(request: Request, form: Any) -> tuple[str | None, bool]:
    """The client a token request is from, and whether it authenticated as it must."""
    header = request.headers.get("authorization", "")
    if header.startswith("Basic "):
        client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
        client_id = urllib.parse.unquote(client_id)
        client = known_client(client_id)
        return client_id, client is not None and client["secret"] == urllib.parse.unquote(secret)
    client_id = form.get("client_id")
    client = known_client(client_id)
    return client_id, client is not None and client["secret"] is None


def issue(client_id: str, scope: str) -> dict[str, Any]:
    token = secrets.token_urlsafe(24)
    renewal = secrets.token_urlsafe(24)
    lifetime = int(faults().get("expires_in", 3600))
    access[token] = {"client_id": client_id, "scope": scope, "expires": time.time() + lifetime}
    refresh[renewal] = {"client_id": client_id, "scope": scope}
    return {
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": lifetime,
        "refresh_token": renewal,
        "scope": scope,
    }


async def token(request: Request) -> Response:
    form = await request.form()
    grant = form.get("grant_type")
    note("token", grant=grant, resource=form.get("resource"))
    fault = faults().get("token")
    if fault == "hang":
        await asyncio.sleep(3600)
    if fault == "garbage":
        return Response("<html>the token service is down</html>", media_type="text/html")
    client_id, authenticated = client_of(request, form)
    if not authenticated or client_id is None:
        return error(401, "invalid_client", "client authentication failed")
    if form.get("resource") != RESOURCE:
        return error(400, "invalid_target", f"resource must be {RESOURCE}")
    if grant == "authorization_code":
        granted = codes.pop(str(form.get("code")), None)
        verifier = str(form.get("code_verifier", ""))
        challenge = (
            base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            .decode()
            .rstrip("=")
        )
        if (
            granted is None
            or granted["client_id"] != client_id
            or granted["redirect_uri"] != form.get("redirect_uri")
            or granted["challenge"] != challenge
        ):
            return error(400, "invalid_grant", "bad code, redirect_uri or code_verifier")
        return JSONResponse(issue(client_id, granted["scope"]))
    if grant == "refresh_token":
        old = refresh.pop(str(form.get("refresh_token")), None)
        if old is None or old["client_id"] != client_id or faults().get("refresh") == "refuse":
            return error(400, "invalid_grant", "the refresh token is not valid")
        return JSONResponse(issue(client_id, old["scope"]))
    return error(400, "unsupported_grant_type", str(grant))


async def reset(request: Request) -> Response:
    for held in (clients, codes, access, refresh):
        held.clear()
    return Response(status_code=204)


async def revoke(request: Request) -> Response:
    access.clear()
    if request.query_params.get("refresh"):
        refresh.clear()
    return Response(status_code=204)


def mcp_server() -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        read_only = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
        empty = {"type": "object", "properties": {}}
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name="whoami",
                    description="Who the token is of.",
                    input_schema=empty,
                    annotations=read_only,
                ),
                types.Tool(
                    name="admin",
                    description="Needs the admin scope.",
                    input_schema=empty,
                    annotations=read_only,
                ),
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{params.name}: ok")]
        )

    return Server("guarded", on_list_tools=list_tools, on_call_tool=call_tool)


def guarded(app: Any) -> Any:
    """Bearer tokens on ``/mcp``; ``admin`` needs the admin scope."""

    async def check(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/mcp":
            await app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        presented = headers.get(b"authorization", b"").decode()
        granted = access.get(presented.removeprefix("Bearer "))
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        note("mcp", authorized=granted is not None, method=scope["method"])
        if faults().get("mcp") == "forbid":
            await _send(send, 403, None, b"forbidden")
            return
        if granted is None or granted["expires"] < time.time():
            challenge = 'Bearer scope="mcp"'
            if faults().get("prm") != "missing":
                challenge += f', resource_metadata="{PRM_URL}"'
            await _send(send, 401, challenge, b'{"error":"invalid_token"}')
            return
        if b'"admin"' in body and b"tools/call" in body and "admin" not in granted["scope"]:
            challenge = (
                f'Bearer error="insufficient_scope", scope="mcp admin", '
                f'resource_metadata="{PRM_URL}"'
            )
            await _send(send, 403, challenge, b'{"error":"insufficient_scope"}')
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope, replay, send)

    return check


async def _send(send: Any, status: int, challenge: str | None, body: bytes) -> None:
    headers = [(b"content-type", b"application/json")]
    if challenge is not None:
        headers.append((b"www-authenticate", challenge.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    routes = [
        Route("/.well-known/oauth-protected-resource/mcp", protected_resource),
        Route("/.well-known/oauth-protected-resource", protected_resource),
        Route("/.well-known/oauth-authorization-server", server_metadata),
        Route("/.well-known/openid-configuration", server_metadata),
        Route("/register", register, methods=["POST"]),
        Route("/authorize", authorize),
        Route("/token", token, methods=["POST"]),
        Route("/test/revoke", revoke, methods=["POST"]),
        Route("/test/reset", reset, methods=["POST"]),
    ]
    app = mcp_server().streamable_http_app(custom_starlette_routes=routes)
    config = uvicorn.Config(guarded(app), host="127.0.0.1", port=PORT, log_level="warning")
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
