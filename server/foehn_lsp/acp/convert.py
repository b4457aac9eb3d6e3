"""The one module that knows both the Agent Client Protocol's schema and Foehn's own types.

Everything here converts and changes nothing (the only look at the disk is resolving a call's
paths for its locations): run events become ``session/update`` payloads, a prompt's content
blocks become a task and its context, an approval request becomes permission options and the
person's choice becomes a decision, a saved conversation becomes the updates that replay it,
the client's MCP servers become Foehn's server entries. The agent (``acp/agent.py``) only moves
these values over the connection.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, cast, get_args
from urllib.parse import unquote, urlparse

from acp import schema
from acp.helpers import (
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_available_commands,
    update_user_message_text,
)
from pydantic import SecretStr, ValidationError

from foehn_lsp.agent.execution import shown_arguments
from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.events import (
    ApprovalEvent,
    Compacted,
    NetworkEvent,
    PlanEvent,
    StopReason,
    TextDelta,
    TodoEvent,
    ToolCallEvent,
    ToolProgress,
    ToolResultEvent,
    TurnEvent,
    UsageEvent,
)
from foehn_lsp.policy.approval import (
    ApprovalDecision,
    ApprovalRequest,
    Approved,
    Denied,
    reaching,
)
from foehn_lsp.policy.plans import ProposedPlan
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.sessions.commands import CustomCommands
from foehn_lsp.sessions.history import is_redo
from foehn_lsp.sessions.session import RestoreReport
from foehn_lsp.sessions.store import SessionSummary, TurnRecord
from foehn_lsp.slash import SESSION_COMMANDS, parse
from foehn_lsp.tools.discovery import ServerCommand
from foehn_lsp.tools.plans import FilePreview
from foehn_lsp.tools.tasks import TaskStatus
from foehn_lsp.workspace import Workspace

Update = (
    schema.AgentMessageChunk
    | schema.AgentThoughtChunk
    | schema.UserMessageChunk
    | schema.ToolCallStart
    | schema.ToolCallProgress
    | schema.UsageUpdate
    | schema.AvailableCommandsUpdate
    | schema.AgentPlanUpdate
    | schema.ConfigOptionUpdate
    | schema.CurrentModeUpdate
)
"""The ``session/update`` payloads Foehn sends."""

STOP_REASONS: Mapping[StopReason, schema.StopReason] = {
    "answer": "end_turn",
    "max_iterations": "max_turn_requests",
    "budget": "max_tokens",
    # ACP has no reason for "the model kept repeating itself"; the turn ends normally and the
    # message before the response says why (see ``stop_note``).
    "repeated_call": "end_turn",
    "cancelled": "cancelled",
}

MAX_SHOWN_OUTPUT = 20_000
"""Characters of a tool's output shown in the client (the model gets its own, larger cut)."""


def tool_kind(kind: str | None, tool: str, risk: str) -> schema.ToolKind:
    """What a call does, for the client's icon: the kind its tool declares (``Tool.kind``),
    else a guess from its name and risk for a tool that declares none (a read-only tool reads;
    anything else is 'other', never a guess at edit or delete)."""
    if kind in get_args(schema.ToolKind) and kind != "other":
        return cast(schema.ToolKind, kind)
    if any(word in tool for word in ("fetch", "http", "url", "web")):
        return "fetch"
    return "read" if risk == "read_only" else "other"


def tool_title(tool: str, arguments: Any) -> str:
    """One line naming the call: 'edit_file app.py', 'run_command: pytest -q'."""
    if not isinstance(arguments, Mapping):
        return tool
    command = arguments.get("command") or arguments.get("args")
    if isinstance(command, list) and command:
        title = f"{tool}: {' '.join(str(part) for part in command)}"
    elif isinstance(arguments.get("source"), str) and isinstance(arguments.get("destination"), str):
        title = f"{tool} {arguments['source']} → {arguments['destination']}"
    elif isinstance(arguments.get("path"), str):
        title = f"{tool} {arguments['path']}"
    elif isinstance(arguments.get("pattern"), str):
        title = f"{tool} {arguments['pattern']!r}"
    else:
        title = tool
    return title if len(title) <= 200 else title[:199] + "…"


def tool_locations(arguments: Any, workspace: Workspace) -> list[schema.ToolCallLocation]:
    """The files a call names, as absolute paths inside the workspace (others are left out:
    the resolver refuses them anyway, and the client must not be sent looking for them)."""
    if not isinstance(arguments, Mapping):
        return []
    names: list[str] = []
    for key in ("path", "source", "destination"):
        if isinstance(value := arguments.get(key), str):
            names.append(value)
    if isinstance(paths := arguments.get("paths"), list):
        names += [p for p in paths if isinstance(p, str)]
    found: list[schema.ToolCallLocation] = []
    for name in names:
        try:
            path = workspace.resolve(name)
        except (PathRefusedError, OSError):
            continue
        found.append(schema.ToolCallLocation(path=str(path)))
    return found


def tool_call_start(event: ToolCallEvent, workspace: Workspace) -> schema.ToolCallStart:
    return schema.ToolCallStart(
        session_update="tool_call",
        tool_call_id=event.id,
        title=tool_title(event.tool, event.arguments),
        kind=tool_kind(event.tool_kind, event.tool, event.risk),
        status="pending",
        locations=tool_locations(event.arguments, workspace),
        raw_input=event.arguments,
    )


def diff_content(files: Sequence[FilePreview]) -> list[schema.FileEditToolCallContent]:
    """Whole before/after texts, which clients show as a reviewable diff."""
    return [tool_diff_content(str(file.path), file.after, file.before) for file in files]


def tool_call_running(call_id: str) -> schema.ToolCallProgress:
    """The call was allowed and runs now."""
    return schema.ToolCallProgress(
        session_update="tool_call_update", tool_call_id=call_id, status="in_progress"
    )


def tool_call_progress(event: ToolProgress) -> schema.ToolCallProgress:
    """What a running call says of its progress, as the call's content so far."""
    return schema.ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=event.id,
        status="in_progress",
        content=[tool_content(text_block(event.message))],
    )


def tool_call_abandoned(call_id: str, why: str) -> schema.ToolCallProgress:
    """A call the turn ended without finishing (cancelled while it ran or waited)."""
    return schema.ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=call_id,
        status="failed",
        content=[tool_content(text_block(why))],
    )


def tool_call_done(
    event: ToolResultEvent, files: Sequence[FilePreview] = ()
) -> schema.ToolCallProgress:
    """The end of a call: its status, the edit it made (if any) and its output."""
    output = event.output
    if len(output) > MAX_SHOWN_OUTPUT:
        output = output[:MAX_SHOWN_OUTPUT] + f"\n… ({len(output) - MAX_SHOWN_OUTPUT} more)"
    content: list[Any] = [*diff_content(files)]
    if output:
        content.append(tool_content(text_block(output)))
    return schema.ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=event.id,
        status="completed" if event.ok else "failed",
        content=content,
        raw_output={"ok": event.ok, "output": event.output},
    )


def usage_update(event: UsageEvent) -> schema.UsageUpdate | None:
    """The token meter: what the context holds now out of the model's window, and the cost
    when known. ``None`` while the window is unknown (a turn's spend against its budget is a
    different number, and the client would show it as context)."""
    if event.window is None or event.context_tokens is None:
        return None
    return schema.UsageUpdate(
        session_update="usage_update",
        used=max(event.context_tokens, 0),
        size=max(event.window, 0),
        cost=schema.Cost(amount=event.cost, currency="USD") if event.cost is not None else None,
    )


def event_updates(
    event: TurnEvent, workspace: Workspace, applied: Sequence[FilePreview] = ()
) -> list[Update]:
    """The updates one run event becomes (often none). ``applied``: for a tool result, the
    files the call changed, shown as diffs."""
    match event:
        case TextDelta(text=text) if text:
            return [update_agent_message_text(text)]
        case ToolCallEvent():
            return [tool_call_start(event, workspace)]
        case ApprovalEvent(id=call_id, decision="allow"):
            return [tool_call_running(call_id)]
        case ToolProgress():
            return [tool_call_progress(event)]
        case ToolResultEvent():
            return [tool_call_done(event, applied)]
        case UsageEvent():
            update = usage_update(event)
            return [update] if update is not None else []
        case Compacted(summary=summary):
            return [update_agent_thought_text(f"Compacted the conversation: {summary}")]
        case TodoEvent(items=items):
            return [plan_update([(i.text, PLAN_STATUS[i.status]) for i in items])]
        case PlanEvent(status="proposed" | "edited", steps=steps):
            return [plan_update([(step, "pending") for step in steps])]
        case PlanEvent(status="rejected", reason=reason):
            return [update_agent_thought_text(f"The plan was rejected: {reason}")]
        case NetworkEvent(allowed=False, reason=reason):
            return [update_agent_thought_text(f"Network: refused: {reason}")]
        case _:
            return []


PLAN_STATUS: Mapping[TaskStatus, schema.PlanEntryStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "done": "completed",
}


def plan_update(entries: Sequence[tuple[str, schema.PlanEntryStatus]]) -> schema.AgentPlanUpdate:
    """A ``plan`` update: the whole list, each step with its status (ACP clients replace the
    plan they show with every update)."""
    return schema.AgentPlanUpdate(
        session_update="plan",
        entries=[
            schema.PlanEntry(content=text, priority="medium", status=status)
            for text, status in entries
        ],
    )


def plan_permission(plan: ProposedPlan, call_id: str) -> schema.ToolCallUpdate:
    """The plan as the call the person is asked to allow: its steps and the files it names."""
    steps = "\n".join(f"{n}. {step}" for n, step in enumerate(plan.steps, 1))
    files = ", ".join(plan.files) or "none named"
    return schema.ToolCallUpdate(
        tool_call_id=call_id,
        title="Carry out this plan?",
        kind="think",
        status="pending",
        content=[tool_content(text_block(f"{steps}\n\nFiles: {files}"))],
        raw_input={"plan": plan.text, "steps": list(plan.steps), "files": list(plan.files)},
    )


PLAN_OPTIONS = [
    schema.PermissionOption(option_id="allow_once", name="Approve the plan", kind="allow_once"),
    schema.PermissionOption(option_id="reject_once", name="Keep planning", kind="reject_once"),
]


def stop_reason(reason: StopReason) -> schema.StopReason:
    """Foehn's reason a turn ended, as ACP's (``error`` is not one: it is an error response)."""
    if reason not in STOP_REASONS:
        raise ValueError(f"no ACP stop reason for {reason!r}")
    return STOP_REASONS[reason]


def stop_note(reason: StopReason, answer: str) -> str | None:
    """What to tell the person when a limit ended the turn, before the response says so.

    The loop's answer for a limit starts with 'Stopped: <why>.'; the model's summary that may
    follow has already been streamed, so only that first line is sent."""
    if reason not in ("max_iterations", "budget", "repeated_call"):
        return None
    first = answer.split("\n\n", 1)[0].strip()
    return f"\n\n{first}" if first else None


@dataclass(frozen=True, kw_only=True)
class PromptInput:
    """A ``session/prompt`` as Foehn's ``Session.prompt`` takes it."""

    text: str
    """What the person typed."""
    context: str
    """What the client attached: files and selections, each labelled."""


class UnsupportedContent(ValueError):
    """A prompt block of a kind Foehn did not advertise."""


def prompt_input(blocks: Sequence[Any], workspace: Workspace) -> PromptInput:
    """Text blocks become the task; resources (embedded or linked) become labelled context.

    Images and audio were not advertised, so a client that sends them gets
    ``UnsupportedContent`` naming the block."""
    texts: list[str] = []
    context: list[str] = []
    for index, block in enumerate(blocks):
        match block:
            case schema.TextContentBlock(text=text):
                texts.append(text)
            case schema.EmbeddedResourceContentBlock(resource=schema.TextResourceContents() as r):
                name = _display_uri(r.uri, workspace)
                context.append(f"Attached {name}:\n```\n{r.text}\n```")
            case schema.EmbeddedResourceContentBlock(resource=resource):
                name = _display_uri(resource.uri, workspace)
                context.append(f"Attached {name} (binary content, not included)")
            case schema.ResourceContentBlock(uri=uri, name=name):
                shown = _display_uri(uri, workspace)
                context.append(f"Referenced: {shown}" + (f" ({name})" if name != shown else ""))
            case _:
                kind = getattr(block, "type", type(block).__name__)
                raise UnsupportedContent(
                    f"prompt[{index}]: {kind} content is not supported; send text or resources"
                )
    return PromptInput(text="\n\n".join(texts).strip(), context="\n\n".join(context))


def _display_uri(uri: str, workspace: Workspace) -> str:
    """A ``file://`` URI inside the workspace as the model's relative path; others as given."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = Path(unquote(parsed.path))
    if workspace.contains(path):
        return workspace.display(path)
    return uri


PermissionChoice = Literal["allow_once", "allow_always", "reject_once", "reject_always"]


def permission_options(request: ApprovalRequest) -> list[schema.PermissionOption]:
    """The four choices, the 'always' ones labelled with exactly what they cover: the rule that
    'always allow' saves (the narrowest that covers the call), or where no rule is proposed the
    approval gate's ``remember`` text for the session. For a call in the ``full`` sandbox,
    'always' says plainly that it remembers full access: choosing it is the explicit choice the
    gate requires.

    Option ids are the kinds themselves, so an answer maps back without a lookup table."""
    scope = (request.remember or f"{request.tool} calls at risk {request.risk}") + ", this session"
    always = f"Always allow {scope}"
    if request.proposed_rule is not None:
        always = f"Always allow: save the rule {request.proposed_rule.describe()} to your config"
    elif request.sandbox == "full":
        always = f"Always allow with FULL ACCESS (network, your files): {scope}"
    if request.outside is not None and request.proposed_rule is None:
        # Each call that sends data out is asked: there is no "always" to offer.
        return [
            schema.PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
            schema.PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
            schema.PermissionOption(
                option_id="reject_always", name=f"Always reject {scope}", kind="reject_always"
            ),
        ]
    return [
        schema.PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
        schema.PermissionOption(option_id="allow_always", name=always, kind="allow_always"),
        schema.PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
        schema.PermissionOption(
            option_id="reject_always", name=f"Always reject {scope}", kind="reject_always"
        ),
    ]


def permission_choice(response: schema.RequestPermissionResponse) -> PermissionChoice | None:
    """The option the person picked, or ``None`` when the request was cancelled or the answer
    names no option Foehn offered."""
    outcome = response.outcome
    if not isinstance(outcome, schema.AllowedOutcome):
        return None
    match outcome.option_id:
        case "allow_once" | "allow_always" | "reject_once" | "reject_always" as choice:
            return choice
        case _:
            return None


def decision_for(choice: PermissionChoice | None, request: ApprovalRequest) -> ApprovalDecision:
    """A choice as Foehn's decision; no choice (cancelled, unknown) is a denial."""
    match choice:
        case "allow_once":
            return Approved(scope="once")
        case "allow_always":
            return Approved(
                scope="run",
                full_access=request.sandbox == "full",
                save_rule=request.proposed_rule is not None,
            )
        case "reject_once":
            return Denied(reason="rejected in the editor")
        case "reject_always":
            return Denied(reason="rejected in the editor, for the rest of the session")
        case None:
            return Denied(reason="the permission request was cancelled")


def permission_tool_call(request: ApprovalRequest, workspace: Workspace) -> schema.ToolCallUpdate:
    """The call the person is asked about, with the diff of what it would change."""
    content: list[Any] = [*diff_content(request.files)]
    if request.network:
        content.insert(0, tool_content(text_block(f"It may reach {reaching(request.network)}.")))
    if request.outside is not None:
        where = f"These arguments go to {request.outside}: all of it may leave this computer."
        content.insert(0, tool_content(text_block(where)))
    if request.preview and not request.files:
        # A diff without files is one a tool makes itself (an MCP server's write): its summary
        # says which file, and whether it is outside the workspace.
        if request.summary:
            content.append(tool_content(text_block(request.summary)))
        content.append(tool_content(text_block(f"```diff\n{request.preview}\n```")))
    return schema.ToolCallUpdate(
        tool_call_id=request.call_id,
        title=tool_title(request.tool, request.arguments),
        kind=tool_kind(request.kind, request.tool, request.risk),
        status="pending",
        content=content or None,
        locations=tool_locations(request.arguments, workspace) or None,
        raw_input=dict(request.arguments),
    )


def history_updates(
    messages: Sequence[Message],
    workspace: Workspace,
    turns: Sequence[TurnRecord] = (),
    kinds: Mapping[str, str] | None = None,
) -> Iterator[Update]:
    """The updates that replay a saved conversation: what the person said, what Foehn
    answered, every tool call with its outcome, and each ``/undo`` and ``/redo`` where it
    happened (they leave no message; ``turns`` places them before the next task, and any the
    messages cannot place, after compaction say, come last). ``kinds``: what each tool does
    (``Tool.kind``, by name). The system message is not replayed."""
    waiting = _restores_by_task(turns)
    asked = 0
    for message in messages:
        match message:
            case UserMessage(content=text):
                yield from waiting.pop(asked, [])
                asked += 1
                yield update_user_message_text(text)
            case AssistantMessage(content=text, tool_calls=calls):
                if text:
                    yield update_agent_message_text(text)
                for call in calls:
                    arguments = shown_arguments(call.arguments)
                    yield schema.ToolCallStart(
                        session_update="tool_call",
                        tool_call_id=call.id,
                        title=tool_title(call.name, arguments),
                        kind=tool_kind((kinds or {}).get(call.name), call.name, ""),
                        status="pending",
                        locations=tool_locations(arguments, workspace),
                        raw_input=arguments,
                    )
            case ToolResultMessage(call_id=call_id, content=output, is_error=failed):
                yield tool_call_done(
                    ToolResultEvent(id=call_id, tool=message.name, ok=not failed, output=output)
                )
            case _:
                continue
    for remaining in sorted(waiting):
        yield from waiting[remaining]


def _restores_by_task(turns: Sequence[TurnRecord]) -> dict[int, list[Update]]:
    """The undo and redo turns, replayed as the person's command and Foehn's answer, keyed by
    how many asked turns came before each."""
    placed: dict[int, list[Update]] = {}
    asked = 0
    for turn in turns:
        if not turn.undo_of:
            asked += 1
            continue
        redo = is_redo(turn, turns)
        files = ", ".join(f.path for f in turn.files) or "no file needed it"
        done = turn.task.removeprefix("redo ").removeprefix("undo ")
        said = f"{'Redid' if redo else 'Undid'} {done}: put back {files}."
        placed.setdefault(asked, []).extend(
            [
                update_user_message_text("/redo" if redo else "/undo"),
                update_agent_message_text(said),
            ]
        )
    return placed


def mcp_servers(servers: Sequence[Any]) -> tuple[dict[str, McpServerConfig], list[str]]:
    """The MCP servers a client passes with ``session/new`` as Foehn's own server entries
    (stdio and streamable HTTP), and a line for each one that cannot be used and why."""
    configs: dict[str, McpServerConfig] = {}
    refused: list[str] = []
    for server in servers:
        name = getattr(server, "name", "")
        try:
            match server:
                case schema.McpServerStdio(command=command, args=args, env=env):
                    config = McpServerConfig(
                        command=command,
                        args=tuple(args),
                        env={v.name: SecretStr(v.value) for v in env},
                    )
                case schema.HttpMcpServer(url=url, headers=headers):
                    config = McpServerConfig(
                        url=url, headers={h.name: SecretStr(h.value) for h in headers}
                    )
                case _:
                    kind = getattr(server, "type", type(server).__name__)
                    refused.append(f"{name}: {kind} servers are not supported (stdio and http are)")
                    continue
        except ValidationError as exc:
            refused.append(f"{name}: {exc.errors()[0]['msg']}")
            continue
        if not name or len(name) > 64 or any(c in name for c in "\x00/\\"):
            refused.append(f"{name!r}: a server name has 1-64 characters and no slashes")
            continue
        configs[name] = config
    return configs, refused


def session_info(summary: SessionSummary, root: Path) -> schema.SessionInfo:
    """A saved session as ``session/list`` shows it."""
    updated = datetime.fromtimestamp(summary.updated, UTC).isoformat().replace("+00:00", "Z")
    return schema.SessionInfo(
        session_id=summary.id, cwd=str(root), title=summary.title or None, updated_at=updated
    )


SlashCommand = Literal["undo", "redo", "compact"]

COMMANDS: tuple[schema.AvailableCommand, ...] = (
    schema.AvailableCommand(
        name="undo",
        description="Put back the files the last turn changed (again: one turn further back), "
        "or every turn from N on",
        input=schema.AvailableCommandInput(root=schema.UnstructuredCommandInput(hint="[turn]")),
    ),
    schema.AvailableCommand(
        name="redo", description="Take the last undo back: its turn's changes return"
    ),
    schema.AvailableCommand(
        name="compact",
        description="Shorten the conversation so far to fit the model's context window",
    ),
)


BUILT_IN = SESSION_COMMANDS
"""ACP keeps the session's own commands, and no other."""


def available_commands(
    custom: CustomCommands | None = None, prompts: Sequence[ServerCommand] = ()
) -> schema.AvailableCommandsUpdate:
    """Foehn's own commands, then the person's custom ones (``/NAME``, with their hint), then
    the MCP servers' prompts (``/mcp__SERVER__PROMPT``)."""
    offered: list[tuple[str, str, str | None]] = [
        (c.name, c.description, c.hint) for c in (custom.commands if custom else ())
    ]
    offered += [(p.name, p.description, p.hint) for p in prompts]
    more = [
        schema.AvailableCommand(
            name=name,
            description=description,
            input=schema.AvailableCommandInput(
                root=schema.UnstructuredCommandInput(hint=hint or "arguments")
            ),
        )
        for name, description, hint in offered
    ]
    return update_available_commands([*COMMANDS, *more])


@dataclass(frozen=True, kw_only=True)
class Command:
    name: SlashCommand
    turn: int | None = None
    """For ``/undo N``: undo every turn from N on."""


def slash_command(text: str) -> Command | None:
    """``/undo``, ``/undo N``, ``/redo`` or ``/compact`` as a command; anything else (a custom
    command too) is a prompt. A command with an argument it does not take is
    ``UnsupportedContent`` naming it."""
    slash = parse(text)
    if slash is None or slash.name not in BUILT_IN:
        return None
    words = slash.words
    if slash.name in ("compact", "redo"):
        if words:
            raise UnsupportedContent(f"prompt: /{slash.name} takes no argument")
        return Command(name="compact" if slash.name == "compact" else "redo")
    if not words:
        return Command(name="undo")
    if len(words) == 1 and words[0].isdigit():
        return Command(name="undo", turn=int(words[0]))
    raise UnsupportedContent("prompt: /undo takes an optional turn number, e.g. /undo 2")


def undo_message(report: RestoreReport, *, redo: bool = False) -> str:
    """What an undo or a redo did, in words for the person, and what the next one does."""
    if not report.applied:
        return f"Nothing was {'redone' if redo else 'undone'}: {report.reason}."
    done = report.redone if redo else report.undone
    turns = ", ".join(str(t) for t in done)
    verb = "Redid" if redo else "Undid"
    restored = f"put back {', '.join(report.restored)}" if report.restored else report.reason
    text = f"{verb} turn{'s' if len(done) > 1 else ''} {turns}: {restored}."
    if report.unrestorable:
        text += f" Could not put back (a program changed them): {', '.join(report.unrestorable)}."
    if report.turn is not None:
        text += (
            " /redo again for the undo before it."
            if redo
            else " /undo again goes one turn further back; /redo puts it back."
        )
    return text
