"""The one way a front end gets its tools and its sessions.

The CLI (``foehn run``, ``chat``, ``replay``, ``tools``), the language server, and the ACP and
MCP front ends each say who they are (``FrontEnd``: how approval is asked, how edits are
applied, where open buffers come from), and the builder assembles the rest the same way for all
of them:

    load_tools      the tools: plugins, and the MCP servers' (``foehn tools`` lists them)
    build_toolbox   what every call goes through: the tools, approval (policy, rules, hooks, who
                    is asked), where edits go, the scrubber, the audit log and the checkpoints
    build_session   a conversation on top: the provider, the session store and its file
    open_saved      a saved conversation opened for what needs no model nor tools (undo, redo)

None of them assembles its own, nor makes a provider: those come from here too
(``ProviderCache``, ``replaying``; ``providers.nomodel.NoModel`` where none is needed).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from foehn_lsp.checks.checking import ProblemSource
from foehn_lsp.config import Settings, user_config_file
from foehn_lsp.policy.approval import Approver, PendingPolicy
from foehn_lsp.policy.guards import Guards
from foehn_lsp.policy.remember import RememberedScope
from foehn_lsp.providers import Provider, create_provider
from foehn_lsp.providers.messages import (
    ModelResponse,
)
from foehn_lsp.providers.nomodel import NoModel
from foehn_lsp.secrets import Scrubber
from foehn_lsp.sessions.audit import NetworkRecorder, audit_path
from foehn_lsp.sessions.session import Session, SessionParts
from foehn_lsp.sessions.store import SessionNotFound, SessionStore
from foehn_lsp.sessions.toolbox import Toolbox
from foehn_lsp.tools.discovery import LoadedTools, discover
from foehn_lsp.tools.registry import Middleware, ToolRegistry
from foehn_lsp.workspace.edits import DiskApplier, EditApplier
from foehn_lsp.workspace.files import BufferSource
from foehn_lsp.workspace.paths import Workspace
from foehn_lsp.workspace.trust import approved_plugins

if TYPE_CHECKING:
    from foehn_lsp.mcp.consent import SignIn

log = logging.getLogger(__name__)

__all__ = [
    "FrontEnd",
    "ProviderCache",
    "build_session",
    "build_toolbox",
    "catalogue_json",
    "load_tools",
    "open_saved",
    "replaying",
    "scrubber_for",
]


def _no_buffers(path: Path) -> str | None:
    return None


class ProviderCache:
    """Providers kept across sessions by a front end that serves many (the language server):
    one per provider setting, so that the embedded model is loaded once."""

    def __init__(self) -> None:
        self._made: dict[tuple[Any, ...], Provider] = {}

    def provider(self, settings: Settings) -> Provider:
        """The provider for ``settings``, made at the first call for its provider settings."""
        key = (
            settings.provider,
            settings.model,
            settings.base_url,
            settings.api_key.get_secret_value() if settings.api_key else None,
            settings.timeout_seconds,
            settings.max_retries,
        )
        if key not in self._made:
            self._made[key] = create_provider(settings)
        return self._made[key]


@dataclass(frozen=True, kw_only=True)
class FrontEnd:
    """What differs between front ends."""

    name: Literal["cli", "lsp", "acp", "mcp"]
    approver: Approver
    """Asks the person (terminal, editor, ACP client) or answers for them."""
    applier: EditApplier | None = None
    """Applies edits (the editor's ``workspace/applyEdit``); ``None``: atomic disk writes."""
    buffers: BufferSource | None = None
    """The text of open, unsaved editor buffers, if any."""
    problems: ProblemSource | None = None
    """Where the problems of files come from to check a turn's edits (the editor's language
    servers); ``None``: the workspace's own checkers in the sandbox."""
    checks: tuple[Middleware, ...] = ()
    """The front end's own steps in the call chain, before approval (``foehn mcp``: the risk
    it was started for)."""
    remembered: set[RememberedScope] | None = None
    """Where "allow for this run" is remembered across turns (``foehn mcp``: for the client's
    connection); ``None``: each turn remembers its own."""
    pending_policy: PendingPolicy | None = None
    """The approval policy still on its way (the language server's settings, while the
    editor has not answered ``workspace/configuration``): calls are decided with it."""
    sign_in: SignIn | None = None
    """How the person signs in to MCP servers here, and where the tokens are kept; ``None``:
    nobody can be asked, tokens in the OS keyring or the state folder."""


def load_tools(
    settings: Settings,
    root: Path | None,
    *,
    lazy: bool = True,
    servers: bool = True,
    sign_in: SignIn | None = None,
) -> LoadedTools:
    """The tools for ``root``: entry-point plugins, ``pluginPaths``, and the workspace's own
    plugins if it is trusted; broken plugins are listed in ``problems``, never raised. Then,
    unless not ``servers``, the MCP servers' tools (started here, or at their first call if
    ``lazy`` and their settings allow; ``tools.servers.close()`` stops them), with each server
    that failed to start in ``problems`` too; one that waits for the person to sign in
    (``sign_in``) is in ``problems`` until they have."""
    found = discover(
        folders=settings.plugin_folders(),
        approved=approved_plugins(settings.trusted_root(root)),
        default_timeout=settings.tool_timeout_seconds,
    )
    if servers and (settings.mcp.servers or settings.trust_workspace):
        from foehn_lsp.mcp.tools import add_servers  # loads the MCP SDK only when needed

        recorder = NetworkRecorder(audit_path(root or Path.cwd()), scrubber_for(settings))
        add_servers(found, settings, root, lazy=lazy, sign_in=sign_in, report=recorder)
    return found


def catalogue_json(tools: LoadedTools) -> dict[str, Any]:
    """The catalogue as ``foehn tools --json`` prints it and ``foehn.tools`` returns it: the
    tools the model is offered, ``investigate`` included (added to each model's turn), and
    ``offered`` where a tool depends on the model."""
    from foehn_lsp.agent.investigate import NAME, OFFERED, catalogue_entry
    from foehn_lsp.providers.local.provider import LEFT_OUT

    listed = list(tools.registry)
    if not any(tool.name == NAME for tool in listed):
        listed.append(catalogue_entry())

    def offered(name: str) -> dict[str, str]:
        notes = [OFFERED] if name == NAME else []
        if name in LEFT_OUT:
            notes.append("not offered to the embedded model (provider local)")
        return {"offered": "; ".join(notes)} if notes else {}

    return {
        "tools": [
            {
                "name": tool.name,
                "risk": tool.risk.value,
                "risk_per_call": tool.assess is not None,
                "description": tool.description,
                "parameters": tool.parameters,
                **offered(tool.name),
                **(tools.servers.catalogue_fields(tool.name) if tools.servers else {}),
            }
            for tool in listed
        ],
        "problems": [{"plugin": p.plugin, "problems": list(p.problems)} for p in tools.problems],
    }


def scrubber_for(settings: Settings) -> Scrubber:
    """The scrubber every record goes through: the configured key, MCP servers' headers and
    environment, secrets in the environment, and anything shaped like a token."""
    secrets = [settings.api_key.get_secret_value()] if settings.api_key else []
    return Scrubber.from_environment([*secrets, *settings.mcp.secrets()])


def replaying(responses: Sequence[ModelResponse]) -> Provider:
    """A provider that answers with recorded ``responses``, in order (``foehn replay``)."""
    from foehn_lsp.providers.scripted import ScriptedProvider

    return ScriptedProvider(responses)


def build_toolbox(
    settings: Settings,
    root: Path | Workspace,
    front: FrontEnd,
    *,
    tools: LoadedTools | None = None,
    guards: Guards | None = None,
    state: Path | None = None,
) -> Toolbox:
    """What every tool call in ``root`` goes through, for ``front``: the tools (loaded here
    unless passed in, as a front end that keeps them does), the approval policy of
    ``settings``, the person's rules and hooks (their config file, and a trusted workspace's
    approved ``.foehn/rules.toml``), the front end's applier (else atomic disk writes), the
    scrubber and the audit log (under ``state``, by default the user's state directory)."""
    workspace = root if isinstance(root, Workspace) else Workspace([root])
    guards = guards or Guards(user_config_file(), workspace.root, trusted=settings.trust_workspace)
    toolbox = Toolbox(
        workspace=workspace,
        tools=tools or load_tools(settings, workspace.root, sign_in=front.sign_in),
        settings=settings,
        approver=front.approver,
        applier=front.applier or DiskApplier(workspace),
        buffers=front.buffers or _no_buffers,
        scrubber=scrubber_for(settings),
        audit_path=audit_path(workspace.root, state),
        guards=guards,
        checks=front.checks,
        remembered=front.remembered,
        problems=front.problems,
        pending_policy=front.pending_policy,
    )
    risks = {tool.name: tool.risk for tool in toolbox.tools.registry}
    for warning in guards.rules.warnings(risks):
        _warn_once(warning)
    return toolbox


def build_session(
    settings: Settings,
    root: Path | Workspace,
    front: FrontEnd,
    *,
    session_id: str | None = None,
    continue_latest: bool = False,
    transcript: Path | None = None,
    provider: Provider | None = None,
    tools: LoadedTools | None = None,
    guards: Guards | None = None,
    state: Path | None = None,
) -> Session:
    """A new session in ``root``, or a saved one (``session_id``, or the latest with
    ``continue_latest``), over the toolbox ``build_toolbox`` makes for ``front``. A front end
    that keeps a provider or tools across sessions (the language server) passes them in;
    otherwise they are made here and the session owns the provider (``Session.aclose`` releases
    it). Sessions are kept under ``state`` (by default the user's state directory). Raises
    ``SessionNotFound`` and ``ConfigError`` (no usable provider) for the person to read."""
    workspace = root if isinstance(root, Workspace) else Workspace([root])
    store = SessionStore(workspace.root, base=state)
    if continue_latest and session_id is None:
        session_id = store.latest()
        if session_id is None:
            raise SessionNotFound(f"no saved session in {workspace.root} to continue")
    data = store.load(session_id) if session_id else None
    owns_provider = provider is None
    provider = provider or create_provider(settings)
    if data is None:
        data = store.create()
    toolbox = build_toolbox(settings, workspace, front, tools=tools, guards=guards, state=state)
    parts = SessionParts(
        toolbox=toolbox, provider=provider, transcript=transcript, owns_provider=owns_provider
    )
    return Session(data=data, store=store, parts=parts)


def open_saved(
    settings: Settings,
    root: Path | Workspace,
    front: FrontEnd,
    session_id: str,
    *,
    state: Path | None = None,
) -> Session:
    """The saved session ``session_id`` opened for what needs no model, no tools and no rules
    (undo, redo): nothing is loaded but its file; its turns are recorded like any other's."""
    return build_session(
        settings,
        root,
        front,
        session_id=session_id,
        provider=NoModel("an undo does not ask the model"),
        tools=LoadedTools(registry=ToolRegistry()),
        guards=Guards.none(),
        state=state,
    )


@functools.cache
def _warn_once(message: str) -> None:
    """A rule's warning, once per process (the language server builds a session per run)."""
    log.warning("rules: %s", message)
