"""How MCP servers are configured: ``[mcp.servers.NAME]`` in the user's ``config.toml``, and a
trusted workspace's ``.vscode/mcp.json`` (only as the person approved its content).

A server is either a program Foehn starts and talks to over stdio (``command``, ``args``,
``env``) or an endpoint it reaches over streamable HTTP (``url``, ``headers``); an HTTP server
that asks for authorization is signed in to with OAuth 2.1 (``[mcp.servers.NAME.oauth]`` says
how, when the defaults do not fit; the tokens never go into the config). What runs and
where requests go is decided at user level only: the ``mcp`` key is never read from a
workspace's own editor settings, and a workspace's ``mcp.json`` counts only once the person
trusts the workspace. Header and environment values are secrets: they are ``SecretStr`` so no
repr, log line or settings report shows them.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

RiskOverride = Literal["read_only", "write", "destructive"]
"""A risk a person pins for a server or a tool, overriding what its annotations say."""

StartMode = Literal["lazy", "startup"]


class _Section(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


class McpOAuthConfig(_Section):
    """How Foehn signs in to an HTTP server that answers 401 (``[mcp.servers.NAME.oauth]``).
    By default Foehn registers itself with the server's authorization server (dynamic client
    registration); a server that does not allow that needs a client registered by hand."""

    client_id: str | None = None
    """A client registered with the authorization server by hand (no dynamic registration)."""
    client_secret: SecretStr | None = None
    """That client's secret, if it was given one; never logged."""
    client_metadata_url: str | None = None
    """An https URL where Foehn's client metadata document is published, used as the client id
    where the authorization server accepts such documents (client ID metadata documents)."""
    redirect_port: int | None = Field(default=None, ge=1, le=65535)
    """The port of the loopback address the browser is sent back to
    (``http://127.0.0.1:PORT/callback``); default: one the system picks, kept with the
    registration. A client registered by hand usually needs it fixed."""
    request_timeout_seconds: float = Field(default=30.0, gt=0)
    """How long one request to the metadata, registration or token endpoints may take."""
    consent_timeout_seconds: float = Field(default=300.0, gt=0)
    """How long Foehn waits for the person to sign in in their browser."""

    @model_validator(mode="after")
    def _consistent(self) -> McpOAuthConfig:
        if self.client_secret is not None and self.client_id is None:
            raise ValueError("oauth.client_secret needs oauth.client_id")
        if self.client_metadata_url is not None:
            parts = urllib.parse.urlsplit(self.client_metadata_url)
            if parts.scheme != "https" or not parts.hostname or parts.path in ("", "/"):
                raise ValueError(
                    "oauth.client_metadata_url must be an https URL with a path, got "
                    f"{self.client_metadata_url!r}"
                )
        return self


class McpServerConfig(_Section):
    """One server. Exactly one of ``command`` (stdio) and ``url`` (streamable HTTP)."""

    command: str | None = None
    """The program to start; its stdin/stdout speak MCP."""
    args: tuple[str, ...] = ()
    env: dict[str, SecretStr] = Field(default_factory=dict)
    """Added to the environment allowlist the program gets (nothing else is inherited)."""
    cwd: str | None = None
    """Working directory of the program (default: the workspace root)."""
    sandbox: Literal["read-only", "workspace-write"] | None = None
    """Run the program in Foehn's OS sandbox with this policy (home hidden; the workspace
    read-only and no network, or writable and the domains of ``[sandbox] network``); ``None``:
    not sandboxed."""
    url: str | None = None
    """A streamable-HTTP endpoint, e.g. ``http://127.0.0.1:3001/mcp``."""
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    """Sent with every HTTP request (``Authorization`` and the like); never logged. With an
    ``Authorization`` header of its own, the server is never signed in to with OAuth."""
    oauth: McpOAuthConfig = Field(default_factory=McpOAuthConfig)
    """How to sign in when the server asks for it (HTTP servers only)."""
    risk: RiskOverride | None = None
    """Every tool of this server at this risk, whatever its annotations say."""
    tools: dict[str, RiskOverride] = Field(default_factory=dict)
    """Per-tool risk by the server's own tool name; wins over ``risk``."""
    allow_open_world: bool | tuple[str, ...] = False
    """Tools that may reach outside this computer (``openWorldHint`` absent or true) but run
    as their risk says, without asking each time: ``true`` for every tool of the server, or
    the server's own names of the tools. Otherwise each call of such a tool is asked about,
    with its arguments in full. Only the person's own config can set this."""
    start: StartMode | None = None
    """``lazy`` or ``startup``; default: the ``mcp.start`` setting."""
    startup_timeout_seconds: float = Field(default=30.0, gt=0)
    """How long starting (spawn, initialize, list tools) may take."""
    call_timeout_seconds: float | None = Field(default=None, gt=0)
    """How long one call may take (default: the ``toolTimeoutSeconds`` setting)."""
    enabled: bool = True

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (stdio) or url (streamable HTTP), not both")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url must start with http:// or https://, got {self.url!r}")
        if self.command is not None and (self.headers or not self.command.strip()):
            raise ValueError("a stdio server takes command, args and env (headers are for url)")
        if self.url is not None and (self.args or self.env or self.sandbox or self.cwd):
            raise ValueError(
                "an HTTP server takes url and headers (args, env, cwd and sandbox are for command)"
            )
        if self.command is not None and self.oauth != McpOAuthConfig():
            raise ValueError("oauth is for HTTP servers (url)")
        return self

    def allows_open_world(self, tool: str) -> bool:
        """Whether the person let ``tool`` (the server's name for it) reach outside unasked."""
        if isinstance(self.allow_open_world, bool):
            return self.allow_open_world
        return tool in self.allow_open_world

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"

    @property
    def signs_in(self) -> bool:
        """Whether Foehn may sign in with OAuth when the server asks: an HTTP server without an
        ``Authorization`` header of the person's own."""
        return self.url is not None and not any(k.lower() == "authorization" for k in self.headers)

    def secrets(self) -> list[str]:
        """Values that must never appear in logs, transcripts or results."""
        values = [v.get_secret_value() for v in (*self.env.values(), *self.headers.values())]
        if self.oauth.client_secret is not None:
            values.append(self.oauth.client_secret.get_secret_value())
        return values


class McpSettings(_Section):
    """The ``mcp`` section of the settings."""

    servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    start: StartMode = "lazy"
    """``lazy``: a server starts when its tools are first needed (a run, ``foehn tools``);
    ``startup``: as soon as Foehn starts (the language server's initialisation)."""

    @field_validator("servers")
    @classmethod
    def _names(cls, servers: dict[str, McpServerConfig]) -> dict[str, McpServerConfig]:
        for name in servers:
            if not name or len(name) > 64 or any(c in name for c in "\x00/\\"):
                raise ValueError(f"server name {name!r}: 1-64 characters, no slashes")
        return servers

    def secrets(self) -> list[str]:
        return [secret for server in self.servers.values() for secret in server.secrets()]


WORKSPACE_SERVERS = ".vscode/mcp.json"
"""Where a workspace lists its own MCP servers (VS Code's file), relative to its root."""


def workspace_servers(text: str, path: str) -> tuple[dict[str, McpServerConfig], list[str]]:
    """The servers a workspace's ``mcp.json`` (its approved ``text``, read from ``path``) lists
    (VS Code's shape: ``servers`` with ``command``/``args``/``env`` or ``url``/``headers``), and
    a problem per entry that does not fit. Call only with the approved text of a trusted
    workspace's file."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, [f"{path}: not readable JSON ({exc})"]
    listed = document.get("servers") if isinstance(document, Mapping) else None
    if not isinstance(listed, Mapping):
        return {}, [f"{path}: expected an object with a 'servers' object"]
    servers: dict[str, McpServerConfig] = {}
    problems = []
    for name, entry in listed.items():
        if not isinstance(entry, Mapping):
            problems.append(f"{path}: server {name!r}: expected an object")
            continue
        fields: dict[str, Any] = {
            key: entry[key] for key in ("command", "args", "env", "url", "headers") if key in entry
        }
        try:
            servers[str(name)] = McpServerConfig.model_validate(fields)
        except ValidationError as exc:
            details = "; ".join(error["msg"] for error in exc.errors())
            problems.append(f"{path}: server {name!r}: {details}")
    return servers, problems
