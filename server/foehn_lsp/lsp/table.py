"""Every custom message of Foehn's language server, one table per direction, and its errors
mapped to JSON-RPC in one place. The TypeScript mirror is ``vscode-extension/src/protocol.ts``.

    the client asks (workspace/executeCommand)   ``COMMANDS``: what each takes and returns
    the server asks the client                   ``REQUESTS``
    the server tells the client                  ``NOTIFICATIONS``

``create_server`` registers every command of ``COMMANDS`` through ``answered``: a handler
raises ``BadArguments`` for arguments of the wrong shape (InvalidParams, naming what was
expected) or a ``FoehnError`` the person should read (RequestFailed, with its message); nothing
else maps errors. Palette calls send ``arguments: []``, so every handler takes ``*args``. Objects
may name a session ``session`` instead of ``sessionId``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from foehn_lsp.errors import FoehnError
from foehn_lsp.lsp.arguments import BadArguments

if TYPE_CHECKING:
    from foehn_lsp.lsp.server import FoehnServer

REQUEST_FAILED = -32803
"""LSP 3.17's RequestFailed: the request was well formed but cannot be served."""

CONFIRM = "foehn/confirm"
RUN_EVENT = "foehn/runEvent"
DIAGNOSTICS = "foehn/diagnostics"
DEFINITION = "foehn/definition"
REFERENCES = "foehn/references"
WORKSPACE_SYMBOLS = "foehn/workspaceSymbols"
RENAME = "foehn/rename"
TRUST_WAITING = "foehn/trustWaiting"
ELICIT = "foehn/elicit"
MCP_SIGN_IN = "foehn/mcpSignIn"
SECRETS_GET = "foehn/secretsGet"
SECRETS_STORE = "foehn/secretsStore"
SECRETS_DELETE = "foehn/secretsDelete"

REQUESTS: Mapping[str, str] = {
    CONFIRM: "{runId, tool, arguments, risk, preview?, ...} -> {decision: allow | allowRun | "
    "deny, reason?}; only to a client that said initializationOptions.confirmRequest",
    DIAGNOSTICS: "{runId, paths} -> {diagnostics: {path: [diagnostic]}}: the editor's language "
    "servers' problems of files a turn changed; initializationOptions.diagnostics",
    DEFINITION: "{runId, uri, position} -> [location]: the editor's go to definition; "
    "initializationOptions.languageTools",
    REFERENCES: "{runId, uri, position} -> [location]; initializationOptions.languageTools",
    WORKSPACE_SYMBOLS: "{runId, query} -> [symbol]; initializationOptions.languageTools",
    RENAME: "{runId, uri, position, newName} -> a WorkspaceEdit, planned, not applied; "
    "initializationOptions.languageTools",
    ELICIT: "{runId, server, tool, message, url?, fields: [{name, title, description?, kind, "
    "required, default?, options?: [{value, label}], format?, minimum?, maximum?}], schema} -> "
    "{action: accept | decline | cancel, content?}: an MCP server's question during a call; "
    "initializationOptions.elicitation (else message buttons where they fit)",
    MCP_SIGN_IN: "{server, url} -> {opened: boolean}: show an MCP server's sign-in page (the "
    "browser comes back to Foehn's loopback listener); initializationOptions.mcpSignIn (else "
    "window/showMessageRequest, then window/showDocument external)",
    SECRETS_GET: "{key} -> {value: string | null}: a sign-in kept in the editor's secret "
    "storage; initializationOptions.secretStorage (else the OS keyring or the state folder)",
    SECRETS_STORE: "{key, value} -> {}; initializationOptions.secretStorage",
    SECRETS_DELETE: "{key} -> {}; initializationOptions.secretStorage",
}
"""Requests the server sends, besides LSP's own (``workspace/applyEdit``,
``window/showMessageRequest``, ``window/workDoneProgress/create``, ``workspace/configuration``)."""

NOTIFICATIONS: Mapping[str, str] = {
    RUN_EVENT: "{runId, event, ...}: each event of a turn, as ``foehn run --json`` prints it "
    "(schema/events-v1.json)",
    TRUST_WAITING: "{workspace, waiting: [entry]}: files of a trusted workspace that wait for "
    "the person's approval (foehn.trust.list's entries)",
}
"""Notifications the server sends."""


@dataclass(frozen=True, kw_only=True)
class Command:
    """One command a client may run."""

    name: str
    handler: str
    """``MODULE:FUNCTION`` in ``foehn_lsp.lsp``: imported when the server registers it, so
    that the handlers' modules may name the messages above."""
    takes: str
    """Its arguments, as the client sends them."""
    returns: str

    def function(self) -> Callable[..., Any]:
        module, _, name = self.handler.partition(":")
        found: Callable[..., Any] = getattr(
            importlib.import_module(f"foehn_lsp.lsp.{module}"), name
        )
        return found


COMMANDS: tuple[Command, ...] = (
    Command(
        name="foehn.run",
        handler="commands:run",
        takes="[task] or [{task, uri?, range?, diagnostic?, session?, runId?, context?, mode?}]",
        returns="{runId, answer, stopReason, iterations, session, turn} when the turn ends",
    ),
    Command(
        name="foehn.cancel",
        handler="commands:cancel",
        takes="[] or [runId]",
        returns="{cancelled}",
    ),
    Command(
        name="foehn.tools",
        handler="commands:tools",
        takes="[]",
        returns="{tools: [{name, risk, risk_per_call, description, parameters}], problems, "
        "auditLog}",
    ),
    Command(
        name="foehn.session.new",
        handler="sessions:new",
        takes="[{title?}]",
        returns="{sessionId, title}",
    ),
    Command(
        name="foehn.session.prompt",
        handler="sessions:prompt",
        takes="[{sessionId, task, context?, runId?, uri?, range?, mode?}]",
        returns="as foehn.run",
    ),
    Command(
        name="foehn.session.list",
        handler="sessions:list_sessions",
        takes="[]",
        returns="{sessions, problems}",
    ),
    Command(
        name="foehn.session.load",
        handler="sessions:load",
        takes="[sessionId] or [{sessionId}]",
        returns="{id, sessionId, title, turns, messages, todo, meter}",
    ),
    Command(
        name="foehn.session.show",
        handler="sessions:load",
        takes="as foehn.session.load",
        returns="as foehn.session.load",
    ),
    Command(
        name="foehn.session.rename",
        handler="sessions:rename",
        takes="[sessionId, title] or [{sessionId, title}]",
        returns="{sessionId, title}",
    ),
    Command(
        name="foehn.session.undo",
        handler="sessions:undo",
        takes="[{sessionId, toTurn?, paths?, force?}] (no toTurn: one turn further back each "
        "time; paths: only those files) or [{sessionId, redo: true, force?}]",
        returns="{applied, undone, turn, redone, restored, conflicts, unrestorable, reason, "
        "sessionId}",
    ),
    Command(
        name="foehn.session.compact",
        handler="sessions:compact",
        takes="[sessionId] or [{sessionId}]",
        returns="{compacted, note, used, window, cost}",
    ),
    Command(
        name="foehn.session.delete",
        handler="sessions:delete",
        takes="[sessionId] or [{sessionId}]",
        returns="{deleted}",
    ),
    Command(
        name="foehn.chat.status",
        handler="chat:status",
        takes="[]",
        returns="{provider, model, embedded, needsKey, keyless, error}",
    ),
    Command(
        name="foehn.chat.files",
        handler="chat:files",
        takes="[]",
        returns="{files: [workspace-relative paths], truncated}",
    ),
    Command(
        name="foehn.chat.fileDiff",
        handler="chat:file_before",
        takes="[{session, turn, path}]",
        returns="{before: text | null, lost, binary}: the file before that turn",
    ),
    Command(
        name="foehn.explain",
        handler="rules:explain",
        takes="[{tool, arguments}]",
        returns="the explain object (policy.rules.explain)",
    ),
    Command(
        name="foehn.rules.list",
        handler="rules:list_rules",
        takes="[]",
        returns="{file, rules, problems, warnings}",
    ),
    Command(
        name="foehn.rules.add",
        handler="rules:add_rule",
        takes="[{rule: {tool, program?, args?, paths?, decision, sandbox?, message?}}]",
        returns="{rule}",
    ),
    Command(
        name="foehn.rules.remove",
        handler="rules:remove",
        takes="[{number}]",
        returns="{removed}",
    ),
    Command(
        name="foehn.commands.list",
        handler="rules:list_commands",
        takes="[]",
        returns="{commands: [{name, description, hint, source}], problems}",
    ),
    Command(
        name="foehn.trust.list",
        handler="trust:list_waiting",
        takes="[]",
        returns="{workspace, trusted, store, problem, waiting: [entry], approved}",
    ),
    Command(
        name="foehn.trust.approve",
        handler="trust:approve_files",
        takes="[{path, sha256}, ...]",
        returns="{approved, refused: [{path, reason}]}",
    ),
    Command(
        name="foehn.mcp.list",
        handler="mcp_servers:list_servers",
        takes="[]",
        returns="{servers: [{name, transport, state, error, signsIn, signedIn, expiresAt}]}",
    ),
    Command(
        name="foehn.mcp.signIn",
        handler="mcp_servers:sign_in",
        takes="[name]",
        returns="{message}: signed in again (the page shown) and the server started",
    ),
    Command(
        name="foehn.mcp.signOut",
        handler="mcp_servers:sign_out",
        takes="[name]",
        returns="{forgotten}: what was kept of the sign-in deleted",
    ),
)
"""Every command a client may run."""


def answered(handler: Callable[..., Any]) -> Callable[..., Any]:
    """``handler`` with its errors mapped: ``BadArguments`` to InvalidParams, a ``FoehnError``
    to RequestFailed, each with its message."""

    @functools.wraps(handler)
    async def answer(ls: FoehnServer, *args: Any) -> Any:
        try:
            result = handler(ls, *args)
            return await result if inspect.isawaitable(result) else result
        except BadArguments as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        except FoehnError as exc:
            raise JsonRpcException(code=REQUEST_FAILED, message=str(exc)) from None

    return answer
