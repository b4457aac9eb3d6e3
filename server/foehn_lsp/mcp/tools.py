"""MCP servers' tools as Foehn tools, in the same registry as the built-in ones.

Each server tool becomes a ``Tool.from_schema`` named by ``naming.tool_name``: its input schema
is checked when it is listed and the model's arguments are validated against it before
anything is sent; its risk comes from ``risk.assess``. From there on it is a tool like any
other: the registry's chain assesses, asks, audits and records it, so approval, the audit log,
transcripts and sessions need to know nothing about MCP.

A tool that cannot be used (a schema that is not a schema, a name that clashes with a tool
already registered) is reported as a problem of its server and left out; the server's other
tools and the other servers keep working.

A server's lists are read again when it says they changed (``notifications/*/list_changed``).
A tool whose definition (description, schema, annotations) differs from the one the server
first listed in this process, or that was not in that first list, is trusted again only as
the person's rules say: each of its calls is asked about, with a note saying it changed, and
no approval remembered before covers it; an allow rule in the person's config still lets it
run. A server's resources become one read-only tool (``resources``); its prompts become slash
commands (``prompts``).
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import logging
import threading
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import ClientSession

from foehn_lsp.config import Settings
from foehn_lsp.config.folders import cache_folder
from foehn_lsp.config.mcp import (
    WORKSPACE_SERVERS,
    McpServerConfig,
    McpSettings,
    workspace_servers,
)
from foehn_lsp.errors import CommandError, ToolDefinitionError
from foehn_lsp.mcp import cache as listings
from foehn_lsp.mcp import elicitation, resources
from foehn_lsp.mcp.client import (
    BadAnswerError,
    ConnectionLostError,
    Listing,
    McpHub,
    ServerStatus,
    ServerUnavailableError,
    TransientError,
    describe,
)
from foehn_lsp.mcp.consent import SignIn
from foehn_lsp.mcp.cut import CUT_META
from foehn_lsp.mcp.naming import tool_name
from foehn_lsp.mcp.prompts import PromptCommand, prompt_commands, prompt_text
from foehn_lsp.mcp.risk import AssessedRisk, assess
from foehn_lsp.mcp.stores import default_store
from foehn_lsp.mcp.writes import WRITE_SHAPES, preview_write
from foehn_lsp.risk import RiskLevel
from foehn_lsp.sandbox.network import Report
from foehn_lsp.secrets import Scrubber
from foehn_lsp.slash import parse as parse_slash
from foehn_lsp.tools.contract import (
    CallPaths,
    CallScope,
    Change,
    ScopeOf,
    Tool,
    ToolContext,
    ToolResult,
)
from foehn_lsp.tools.discovery import LoadedTools, PluginProblem
from foehn_lsp.tools.registry import ToolRegistry, check_tool
from foehn_lsp.workspace.trust import approved_text

log = logging.getLogger(__name__)

MAX_OUTPUT_CHARS = 60_000
"""What one result may put in front of the model, the note saying what was cut included: the
turn's own cap (``agent.execution.MAX_RESULT_CHARS``, the same number) then never cuts it
again, and the note stays true."""
RETRIES = 2
"""Extra attempts for a read-only or idempotent call after a transient failure."""
RETRY_BACKOFF = 0.5


@dataclass(frozen=True, kw_only=True)
class McpToolOrigin:
    """Where an MCP tool in the registry came from, for ``foehn tools`` and the editor."""

    server: str
    tool: str
    """The server's own name for the tool."""
    risk: RiskLevel
    risk_source: str
    open_world: bool
    asks_each_call: bool
    """Open-world and not allowed unasked in the person's config (``allow_open_world``), or
    changed since the server first listed it."""
    idempotent: bool
    changed: str | None = None
    """How the tool differs from the server's first listing in this process, if it does."""


@dataclass(frozen=True, kw_only=True)
class ServerProblem:
    """A server that did not start, or a tool of it that was left out."""

    server: str
    problem: str

    def __str__(self) -> str:
        return f"MCP server {self.server}: {self.problem}"


@dataclass
class McpCatalogue:
    """The MCP servers behind one registry: their connections, their tools' origins, and what
    went wrong. ``close()`` stops the servers."""

    hub: McpHub
    registry: ToolRegistry
    configs: Mapping[str, McpServerConfig]
    default_timeout: float
    origins: dict[str, McpToolOrigin] = field(default_factory=dict)
    problems: list[ServerProblem] = field(default_factory=list)
    prompts: dict[str, list[PromptCommand]] = field(default_factory=dict)
    """Each server's prompts, as slash commands."""
    _first: dict[str, dict[str, str]] = field(default_factory=dict)
    """Each server's first live listing in this process: its tools' fingerprints."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def statuses(self) -> list[ServerStatus]:
        return self.hub.statuses()

    def catalogue_fields(self, name: str) -> dict[str, Any]:
        """``{"mcp": {server, tool, risk_source, open_world}}`` for an MCP tool's entry in the
        catalogue (``foehn tools --json``), ``{}`` for any other tool."""
        origin = self.origins.get(name)
        if origin is None:
            return {}
        return {
            "mcp": {
                "server": origin.server,
                "tool": origin.tool,
                "risk_source": origin.risk_source,
                "open_world": origin.open_world,
                "asks_each_call": origin.asks_each_call,
                **({"changed": origin.changed} if origin.changed else {}),
            }
        }

    def prompt_commands(self) -> list[PromptCommand]:
        """Every server's prompts, as slash commands."""
        with self._lock:
            return [command for commands in self.prompts.values() for command in commands]

    async def expand(self, text: str) -> str | None:
        """The task ``text`` stands for when it is an MCP prompt's slash command (the server's
        ``prompts/get``), else ``None``. Raises ``CommandError`` (``PromptUsageError`` for
        arguments that do not fit) when it cannot be had."""
        typed = parse_slash(text)
        if typed is None:
            return None
        command = next((c for c in self.prompt_commands() if c.name == typed.name), None)
        if command is None:
            return None
        arguments = command.bind(typed.arguments)
        config = self.configs[command.server]
        within = config.call_timeout_seconds or self.default_timeout

        async def get(session: ClientSession) -> types.GetPromptResult:
            result = await session.get_prompt(command.prompt, arguments)
            if not isinstance(result, types.GetPromptResult):
                raise BadAnswerError(f"MCP server {command.server!r} answered the prompt oddly")
            return result

        try:
            result = await self.hub.request(command.server, get, within=within)
        except (ServerUnavailableError, BadAnswerError, ConnectionLostError) as exc:
            raise CommandError(f"/{command.name}: {exc}") from None
        except TimeoutError:
            raise CommandError(
                f"/{command.name}: MCP server {command.server!r} did not answer within {within:g} s"
            ) from None
        return self._scrubbers(command.server).text(prompt_text(result))

    def _scrubbers(self, server: str) -> Scrubber:
        return Scrubber.from_environment(self.configs[server].secrets())

    def login(self, server: str) -> str:
        """``foehn mcp login``: sign in to ``server`` again and start it."""
        return self.hub.login(server)

    def logout(self, server: str) -> bool:
        return self.hub.logout(server)

    def close(self) -> None:
        self.hub.close()

    def update(self, server: str, listing: Listing, *, live: bool = True) -> None:
        """Make the registry hold exactly ``listing``'s tools (and its resource tool) for
        ``server``, and its prompts the server's commands (on the hub thread at each live
        listing; ``live`` is false for a stored one)."""
        config = self.configs[server]
        changes = self._changes(server, listing.tools, live=live)
        adapted: list[tuple[Tool, McpToolOrigin]] = []
        left_out: list[str] = []
        for listed in listing.tools:
            try:
                adapted.append(self._adapt(server, config, listed, changes.get(listed.name)))
            except ToolDefinitionError as exc:
                left_out.append(f"tool {listed.name!r} left out: {exc}")
        if listing.resources or listing.templates:
            adapted.append(self._resource_tool(server, config, listing))
        # Adapted first, so the server's tools are missing from the registry only for the
        # moment of the swap (a model's call may look them up from another thread).
        with self._lock:
            for name in [n for n, o in self.origins.items() if o.server == server]:
                del self.origins[name]
                if name in self.registry:
                    self.registry.unregister(name)
            self.prompts[server] = prompt_commands(server, listing.prompts)
            for tool, origin in adapted:
                if tool.name in self.registry:
                    left_out.append(
                        f"tool {origin.tool!r} left out: its name {tool.name!r} is already "
                        "taken by another tool"
                    )
                    continue
                self.registry.register(tool)
                self.origins[tool.name] = origin
            self._replace(server, left_out)

    def _changes(self, server: str, tools: tuple[types.Tool, ...], *, live: bool) -> dict[str, str]:
        """How each tool differs from the server's first live listing in this process."""
        prints = {tool.name: _fingerprint(tool) for tool in tools}
        if not live:
            return {}
        first = self._first.setdefault(server, prints)
        changed = {}
        for tool in tools:
            before = first.get(tool.name)
            if before is None:
                changed[tool.name] = "it was not in the server's first list"
            elif before != prints[tool.name]:
                changed[tool.name] = "its description, schema or annotations changed"
        return changed

    def failed(self, server: str, why: str) -> None:
        """A start of ``server`` failed (at load, or later: a sign-in that was waited for):
        its problem says why now."""
        with self._lock:
            self._replace(server, [f"did not start: {why}"])

    def unstarted(self, server: str, why: str) -> None:
        """The first start of ``server`` did not end in a listing: ``why`` is its problem,
        unless a failure that came meanwhile has said more, or a listing came meanwhile (a
        sign-in the person finished before the start's outcome reached here)."""
        with self._lock:
            listed = server in self._first
            if not listed and not any(p.server == server for p in self.problems):
                self._replace(server, [why])

    def _replace(self, server: str, texts: list[str]) -> None:
        """``server``'s problems become ``texts``, in one assignment: ``problems`` is read
        without the lock, and a reader sees the old list or the new one, never one between."""
        found = [ServerProblem(server=server, problem=text) for text in texts]
        for problem in found:
            log.warning("%s", problem)
        self.problems = [*(p for p in self.problems if p.server != server), *found]

    def _adapt(
        self, server: str, config: McpServerConfig, listing: types.Tool, changed: str | None
    ) -> tuple[Tool, McpToolOrigin]:
        name = tool_name(server, listing.name)
        assessed = assess(listing.name, listing.annotations, config)
        origin = McpToolOrigin(
            server=server,
            tool=listing.name,
            risk=assessed.risk,
            risk_source=assessed.source,
            open_world=assessed.open_world,
            asks_each_call=assessed.asks_each_call or changed is not None,
            idempotent=assessed.idempotent,
            changed=changed,
        )
        call_timeout = config.call_timeout_seconds or self.default_timeout
        attempts = 1 + (RETRIES if assessed.idempotent else 0)
        changes_files = assessed.risk is not RiskLevel.READ_ONLY and _on_this_computer(config)
        writes = changes_files and listing.name in WRITE_SHAPES
        tool = Tool.from_schema(
            name=name,
            description=_description(server, listing, assessed),
            parameters=dict(listing.input_schema),
            risk=assessed.risk,
            kind="read" if assessed.risk is RiskLevel.READ_ONLY else "edit" if writes else "other",
            paths=_written if writes else None,
            scope=_scope_of(
                server,
                listing.name,
                config,
                reaching_outside=assessed.asks_each_call,
                changes_files=changes_files,
                changed=changed,
            ),
            execute=_Caller(
                hub=self.hub,
                origin=origin,
                timeout=call_timeout,
                scrubber=Scrubber.from_environment(config.secrets()),
            ),
            timeout=self._backstop(config, call_timeout * attempts),
        )
        if problems := check_tool(tool):
            raise ToolDefinitionError(name, problems)
        return tool, origin

    @staticmethod
    def _backstop(config: McpServerConfig, working: float) -> float:
        """The registry's bound on one call: the server's own time, its start, and the time
        the person may take to sign in and to answer its questions (the connection's clock
        stops for those; this bound is the backstop)."""
        person = config.oauth.consent_timeout_seconds + elicitation.ASK_TIMEOUT
        return working + config.startup_timeout_seconds + RETRIES * 2 + person

    def _resource_tool(
        self, server: str, config: McpServerConfig, listing: Listing
    ) -> tuple[Tool, McpToolOrigin]:
        asks = not config.allows_open_world(resources.TOOL)
        origin = McpToolOrigin(
            server=server,
            tool=resources.TOOL,
            risk=RiskLevel.READ_ONLY,
            risk_source="resources are read",
            open_world=True,
            asks_each_call=asks,
            idempotent=True,
        )
        within = config.call_timeout_seconds or self.default_timeout
        tool = Tool.from_schema(
            name=resources.resource_tool_name(server),
            description=resources.description(server, listing.resources, listing.templates),
            parameters=resources.parameters(),
            risk=RiskLevel.READ_ONLY,
            kind="read",
            scope=_scope_of(
                server, resources.TOOL, config, reaching_outside=asks, changes_files=False
            ),
            execute=_Reader(
                hub=self.hub, server=server, within=within, scrubber=self._scrubbers(server)
            ),
            timeout=self._backstop(config, within),
        )
        return tool, origin


def _written(arguments: Mapping[str, Any]) -> CallPaths:
    """The file a server's write (in a shape ``mcp.writes`` knows) names."""
    path = str(arguments["path"])
    return CallPaths(changes=(Change(before=path, after=path),))


def _on_this_computer(config: McpServerConfig) -> bool:
    """Whether the server runs on this computer, so that its tools can change its files: one
    Foehn starts, or one whose URL names a loopback address (127.0.0.0/8, ::1) or
    ``localhost``. Any other host, even one that is this computer's own, counts as elsewhere."""
    if config.url is None:
        return True
    host = (urllib.parse.urlsplit(config.url).hostname or "").rstrip(".")
    if host == "localhost":  # hostname is lower-cased
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def _scope_of(
    server: str,
    tool: str,
    config: McpServerConfig,
    *,
    reaching_outside: bool,
    changes_files: bool,
    changed: str | None = None,
) -> ScopeOf | None:
    """The scope of each call: for an open-world tool, that its arguments go to ``server``,
    which may pass them on beyond this computer; for a tool that changed since the server first
    listed it, that too (so that each call is asked), with a note saying how it changed; for a
    tool that may change this computer's files (``changes_files``), that it may (so the turn's
    checkpoint sees what it changes) and, for a file write in a shape ``writes`` knows, the
    file, the diff it would make and whether its path is outside the workspace."""
    outside = (
        f"the MCP server {server!r}, which may send them beyond this computer"
        if reaching_outside or changed
        else None
    )
    note = (
        f"the MCP server changed this tool since it first listed it ({changed}): each call "
        "is asked about"
        if changed
        else None
    )
    writes: tuple[Path, ...] | None = () if changes_files else None
    if tool not in WRITE_SHAPES or not changes_files:
        if outside is None and writes is None:
            return None
        fixed = CallScope(outside=outside, writes=writes, note=note)
        return lambda arguments, ctx: fixed

    def scope(arguments: object, ctx: ToolContext) -> CallScope:
        shown = (
            preview_write(tool, arguments, ctx.workspace, cwd=config.cwd)
            if isinstance(arguments, Mapping)
            else None
        )
        if shown is None:
            return CallScope(outside=outside, writes=writes, note=note)
        said = f"{note}; {shown.note}" if note else shown.note
        return CallScope(outside=outside, note=said, preview=shown.diff, writes=(shown.path,))

    return scope


def _description(server: str, listing: types.Tool, assessed: AssessedRisk) -> str:
    text = (listing.description or "").strip() or f"The {listing.name} tool."
    notes = [f"From the MCP server {server!r} (its name for it: {listing.name})."]
    if assessed.open_world:
        notes.append("It may reach systems outside this computer.")
    return f"{text}\n{' '.join(notes)}"


@dataclass(frozen=True, kw_only=True)
class _Caller:
    """``execute`` of one MCP tool: send the call, turn the answer into a result, retry only
    what is safe to send twice."""

    hub: McpHub
    origin: McpToolOrigin
    timeout: float
    scrubber: Scrubber
    """Foehn's scrubber with the server's own header and env values: a server that echoes them
    back (``get-env``) must not put them in front of the model."""

    async def __call__(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        origin = self.origin
        attempts = 1 + (RETRIES if origin.idempotent else 0)
        for attempt in range(1, attempts + 1):
            try:
                result = await self.hub.call(
                    origin.server,
                    origin.tool,
                    arguments,
                    within=self.timeout,
                    progress=ctx.progress,
                    elicit=ctx.elicit,
                )
            except ServerUnavailableError as exc:
                return ToolResult.failure(f"{exc}; the call was not sent.")
            except BadAnswerError as exc:
                return ToolResult.failure(str(exc))
            except (ConnectionLostError, TransientError, TimeoutError) as exc:
                why = str(exc) or f"no answer within {self.timeout:g} s"
                if attempt < attempts:
                    ctx.log.warning("%s: %s; retrying (attempt %d)", origin.tool, why, attempt + 1)
                    await asyncio.sleep(RETRY_BACKOFF * attempt)
                    continue
                if attempts > 1:
                    return ToolResult.failure(f"{why}. Tried {attempts} times.")
                return ToolResult.failure(
                    f"{why}. It was not retried: it may have had effects. Check before "
                    "calling it again."
                )
            except RuntimeError as exc:
                # The SDK checks structuredContent against the tool's outputSchema.
                return ToolResult.failure(
                    f"MCP server {origin.server!r} answered {origin.tool} with a result that "
                    f"does not match the tool's own outputSchema: {exc}"
                )
            except Exception as exc:
                return ToolResult.failure(
                    f"MCP server {origin.server!r} refused the call: {describe(exc)}"
                )
            converted = convert_result(origin.server, result)
            return ToolResult(
                ok=converted.ok,
                output=self.scrubber.text(converted.output),
                data=self.scrubber.data(converted.data),
            )
        raise AssertionError("unreachable")  # pragma: no cover


@dataclass(frozen=True, kw_only=True)
class _Reader:
    """``execute`` of a server's ``read_resource`` tool."""

    hub: McpHub
    server: str
    within: float
    scrubber: Scrubber

    async def __call__(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        uri = str(arguments["uri"])

        async def read(session: ClientSession) -> types.ReadResourceResult:
            found = await session.read_resource(uri)
            if not isinstance(found, types.ReadResourceResult):
                raise BadAnswerError(f"MCP server {self.server!r} answered the read oddly")
            return found

        try:
            result = await self.hub.request(self.server, read, within=self.within)
        except (ServerUnavailableError, BadAnswerError, ConnectionLostError) as exc:
            return ToolResult.failure(str(exc))
        except TimeoutError:
            return ToolResult.failure(f"no answer within {self.within:g} s")
        text = _capped(resources.contents_text(result, _size))
        return ToolResult.success(self.scrubber.text(text), {"server": self.server, "uri": uri})


def _fingerprint(tool: types.Tool) -> str:
    shown = tool.model_dump(
        mode="json", include={"description", "input_schema", "annotations", "output_schema"}
    )
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()


def convert_result(server: str, result: types.CallToolResult) -> ToolResult:
    """What the model reads: text as is; images, audio and binary resources as a line with
    their type and size; the structured content as JSON only when no text carries the result
    (the spec asks servers to send it as text too, so it is never shown twice). At most
    ``MAX_OUTPUT_CHARS`` in all, the note saying how much was cut included. A result the
    transport cut (``cut.CUT_META``) says so and fails."""
    parts = [_content(block) for block in result.content]
    structured = result.structured_content
    data: dict[str, Any] = {"server": server}
    if structured is not None:
        data["structured"] = structured
        if not any(isinstance(block, types.TextContent) for block in result.content):
            parts.append(json.dumps(structured, ensure_ascii=False))
    text = _capped("\n".join(parts) if parts else "(no content)")
    if result.meta and CUT_META in result.meta:
        data["cut"] = result.meta[CUT_META]
        return ToolResult.failure(text, data)
    if result.is_error:
        return ToolResult.failure(f"MCP server {server!r} reported an error: {text}", data)
    return ToolResult.success(text, data)


def _capped(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    note = (
        f"\n... the result was {len(text):,} characters; the first {{kept:,}} are shown and "
        f"{{cut:,}} were cut. Ask for less if you need the rest."
    )
    kept = MAX_OUTPUT_CHARS - len(note.format(kept=MAX_OUTPUT_CHARS, cut=len(text)))
    return text[:kept] + note.format(kept=kept, cut=len(text) - kept)


def _content(block: types.ContentBlock) -> str:
    match block:
        case types.TextContent():
            return block.text
        case types.ImageContent() | types.AudioContent():
            kind = "image" if isinstance(block, types.ImageContent) else "audio"
            return f"[{kind} {block.mime_type}, {_size(block.data):,} bytes]"
        case types.EmbeddedResource():
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                return (
                    f"[resource {resource.uri} ({resource.mime_type or 'text'})]\n{resource.text}"
                )
            return (
                f"[resource {resource.uri} ({resource.mime_type or 'binary'}), "
                f"{_size(resource.blob):,} bytes]"
            )
        case types.ResourceLink():
            size = f", {block.size:,} bytes" if block.size is not None else ""
            return f"[resource link {block.uri} ({block.mime_type or 'unknown type'}){size}]"
    return f"[{getattr(block, 'type', 'unknown')} content]"


def _size(data: str) -> int:
    """Bytes encoded in base64 ``data``, without decoding it all."""
    padding = data[-2:].count("=")
    return max(0, len(data) * 3 // 4 - padding) if data else 0


def connect_servers(
    settings: McpSettings,
    registry: ToolRegistry,
    *,
    root: Path,
    default_timeout: float,
    extra: Mapping[str, McpServerConfig] | None = None,
    cache: Path | None = None,
    start_all: bool = False,
    sign_in: SignIn | None = None,
    report: Report | None = None,
) -> McpCatalogue | None:
    """Put the configured servers' tools (plus ``extra``'s, e.g. a trusted workspace's own)
    into ``registry``; ``None`` when there are none. A ``startup`` server is started now; a
    ``lazy`` one too unless ``cache`` holds its last listing, in which case it starts at its
    first call (``start_all`` starts every one now). Each listing is stored in ``cache``.
    Servers that fail are in the catalogue's ``problems``; this never raises for them.
    ``report`` hears of every connection a server attempts (``mcp.egress``)."""
    configs = {n: c for n, c in {**settings.servers, **(extra or {})}.items() if c.enabled}
    if not configs:
        return None
    holder: list[McpCatalogue] = []

    def on_listing(server: str, listing: Listing) -> None:
        if cache is not None:
            listings.store(listings.listing_path(cache, server, configs[server]), listing)
        holder[0].update(server, listing)

    def on_failure(server: str, why: str) -> None:
        if holder:
            holder[0].failed(server, why)

    hub = McpHub(
        configs,
        root=root,
        on_listing=on_listing,
        sign_in=sign_in or SignIn(store=default_store()),
        on_failure=on_failure,
        workspace=[name for name in extra or {} if name in configs],
        report=report,
    )
    catalogue = McpCatalogue(
        hub=hub, registry=registry, configs=configs, default_timeout=default_timeout
    )
    holder.append(catalogue)
    now = []
    for name, config in configs.items():
        stored = None
        if cache is not None and not start_all and (config.start or settings.start) == "lazy":
            stored = listings.load(listings.listing_path(cache, name, config))
        if stored is None:
            now.append(name)
        else:
            catalogue.update(name, stored, live=False)
    for server, error in hub.start(now).items():
        if error is not None:
            catalogue.unstarted(server, error)
    return catalogue


def add_servers(
    found: LoadedTools,
    settings: Settings,
    root: Path | None,
    *,
    lazy: bool = True,
    sign_in: SignIn | None = None,
    report: Report | None = None,
) -> None:
    """The one way in: the MCP servers ``settings`` configures (and, in a trusted workspace,
    those of its ``.vscode/mcp.json`` as the person approved it), their tools added to
    ``found``'s registry. ``lazy=False`` starts every server now whatever its ``start``
    setting (``foehn tools`` reports on them).
    Servers that fail and tools left out become problems in ``found.problems`` (the live list
    is ``found.servers.problems``); nothing here raises for them."""
    extra: dict[str, McpServerConfig] = {}
    if root is not None and settings.trust_workspace:
        text = approved_text(root, WORKSPACE_SERVERS)
        if text is not None:
            extra, problems = workspace_servers(text, str(root / WORKSPACE_SERVERS))
        else:
            problems = []
        found.problems.extend(
            PluginProblem(plugin="MCP servers of the workspace", problems=(p,)) for p in problems
        )
        for name in [n for n in extra if n in settings.mcp.servers]:
            found.problems.append(
                PluginProblem(
                    plugin=f"MCP server {name}",
                    problems=("the workspace's mcp.json entry is ignored: your own config wins",),
                )
            )
            del extra[name]
    catalogue = connect_servers(
        settings.mcp,
        found.registry,
        root=root or Path.cwd(),
        default_timeout=settings.tool_timeout_seconds,
        extra=extra,
        cache=cache_folder(),
        start_all=not lazy,
        sign_in=sign_in,
        report=report,
    )
    if catalogue is None:
        return
    found.servers = catalogue
    found.problems.extend(
        PluginProblem(plugin=f"MCP server {p.server}", problems=(p.problem,))
        for p in catalogue.problems
    )


__all__ = [
    "McpCatalogue",
    "McpToolOrigin",
    "ServerProblem",
    "add_servers",
    "connect_servers",
    "convert_result",
]
