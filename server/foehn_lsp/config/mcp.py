"""How MCP servers are configured: ``[mcp.servers.NAME]`` in the user's ``config.toml``, and a
trusted workspace's ``.vscode/mcp.json`` (only as the person approved its content).

A server is either a program Foehn starts and talks to over stdio (``command``, ``args``,
``env``) or an endpoint it reaches over streamable HTTP (``url``, ``headers``). What runs and
where requests go is decided at user level only: the ``mcp`` key is never read from a
workspace's own editor settings, and a workspace's ``mcp.json`` counts only once the person
trusts the workspace. Header and environment values are secrets: they are ``SecretStr`` so no
repr, log line or settings report shows them.
"""

from __future__ import annotations

import json
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
    """Sent with every HTTP request (``Authorization`` and the like); never logged."""
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
        return self

    def allows_open_world(self, tool: str) -> bool:
        """Whether the person let ``tool`` (the server's name for it) reach outside unasked."""
        if isinstance(self.allow_open_world, bool):
            return self.allow_open_world
        return tool in self.allow_open_world

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"

    def secrets(self) -> list[str]:
        """Values that must never appear in logs, transcripts or results."""
        return [v.get_secret_value() for v in (*self.env.values(), *self.headers.values())]


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
