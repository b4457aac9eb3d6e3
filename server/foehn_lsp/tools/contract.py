"""The tool contract: what every tool is, what it does, what it returns, and what it may touch.

A tool is a frozen record plus one async callable (``execute``, or ``plan`` for a tool that
changes files: the host applies the planned edits). The host (``agent.chain``) validates the
model's arguments against ``parameters``, assesses the risk, asks for approval where policy says
so, enforces the timeout, and turns any exception into a failed result. Tools never talk to the
editor or the person.

What a tool does is part of the record, not of a list of names kept elsewhere: its ``kind``
(what the front ends show), whether its calls change files (``changes_files``), and which
paths a call names (``paths``). The host reads them for every tool alike, first-party,
plugin or MCP: the edit checks, the claim checks, the read ledger, the compaction note and the
front ends' icons follow from them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import pydantic

from foehn_lsp.config.network import Domain
from foehn_lsp.errors import ToolDefinitionError
from foehn_lsp.risk import RiskLevel, raise_risk
from foehn_lsp.sandbox.network import Connection
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.tools.validation import ModelValidator, SchemaValidator, check_schema

if TYPE_CHECKING:
    from foehn_lsp.tools.elicitation import Elicit
    from foehn_lsp.tools.tasks import TaskList
    from foehn_lsp.workspace.edits import EditPlan
    from foehn_lsp.workspace.files import FileAccess
    from foehn_lsp.workspace.paths import Workspace


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What a call produced. Expected failures are ``ok=False`` with an actionable message."""

    ok: bool
    """Whether the call did what was asked."""
    output: str
    """The text the model reads."""
    data: Mapping[str, Any] | None = None
    """Optional structured detail for the editor (diffs, paths); the model does not see it."""

    @classmethod
    def success(cls, output: str, data: Mapping[str, Any] | None = None) -> ToolResult:
        return cls(ok=True, output=output, data=data)

    @classmethod
    def failure(cls, output: str, data: Mapping[str, Any] | None = None) -> ToolResult:
        return cls(ok=False, output=output, data=data)


@dataclass(frozen=True, kw_only=True)
class CallScope:
    """What one call would do beyond its arguments: shown to the person, and the most that an
    approval 'for this session/run' may remember."""

    program: str | None = None
    """For calls that start a program: the program (argv[0] as the model wrote it)."""
    sandbox: SandboxPolicy | None = None
    """The OS sandbox policy the call runs under; ``None`` for calls that start no program."""
    argv: tuple[str, ...] | None = None
    """For calls that start a program: the whole argument list (argv[0] as written), which
    rules match on."""
    outside: str | None = None
    """For a call whose arguments may leave this computer (an MCP tool that does not declare
    itself closed-world): where they go, in words. Such a call is asked about every time, with
    its arguments in full, unless the person allowed it in their own config."""
    note: str | None = None
    """What the person must know about the call beyond its arguments, in one line (that it
    runs the repository's own code); shown when they are asked."""
    preview: str | None = None
    """For a call whose tool writes a file itself (an MCP server's): the unified diff of that
    write, computed read-only from the file as it is now; shown when the person is asked."""
    writes: tuple[Path, ...] | None = None
    """For a call whose tool may change files itself (an MCP server's tool that is not
    read-only): the files it is known to write (from its arguments; may be none). Their content
    goes into the turn's checkpoint before the call, and the workspace is watched during it as
    for a program that may write, so the change can be undone and counts as the turn's."""
    network: tuple[Domain, ...] = ()
    """The domains the call may reach (``[sandbox] network``, an allow rule's ``network``, or
    the one site a ``fetch`` names); empty: none. A call that may reach any is at least a
    write, shown with them when asked, and never allowed unasked by the policy alone."""
    granted: str | None = None
    """For a call that starts no program (``fetch``): where the person granted every domain
    in ``network`` (``FILE:LINE``), which lets it run unasked; ``None``: it is asked."""


class ProgressSink(Protocol):
    def __call__(self, message: str, /) -> None: ...


def _no_progress(message: str, /) -> None:
    """Progress goes nowhere unless the host passes a sink."""


ConnectionSink = Callable[[Connection], None]


def _unheard(connection: Connection, /) -> None:
    """Connection attempts go only into the call's own result unless the host listens."""


@dataclass(frozen=True, kw_only=True)
class ToolContext:
    """Everything a tool may touch during one call."""

    workspace: Workspace
    """Path resolution confined to the workspace roots."""
    files: FileAccess
    """Reads (the editor's unsaved buffer first) and edits applied by the host."""
    progress: ProgressSink = _no_progress
    """Short status lines for the person ("Searching 3,000 files…")."""
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("foehn_lsp.tools"))
    """The host's log; never shown to the model."""
    scope: CallScope = CallScope()
    """The scope of the call being run, as the registry fixed it (and the person saw it): a
    tool that starts a program runs it under exactly ``scope.sandbox``."""
    tasks: TaskList | None = None
    """The session's task list (``todo``); ``None`` outside a session (``foehn mcp``)."""
    window: int | None = None
    """The model's context window in tokens, when known: tools that can return much (a long
    file, a test run's output) fit what they return to it. ``None``: a large window."""
    call_id: str = ""
    """The id of the call being run, as the registry fixed it (what its records name)."""
    connections: ConnectionSink = _unheard
    """Where the call's connection attempts go (the turn's ``network`` events and audit log);
    call it on the turn's own loop."""
    elicit: Elicit | None = None
    """Puts an MCP server's question to the person, through the front end that asks for
    approvals (``tools.elicitation``); ``None`` where nobody can be asked."""


ToolKind = Literal["read", "search", "edit", "move", "delete", "execute", "think", "fetch", "other"]
"""What a tool does, in the words ACP uses for its icons."""
CHANGING_KINDS: frozenset[ToolKind] = frozenset({"edit", "move", "delete"})
"""The kinds whose calls change the workspace's files."""


@dataclass(frozen=True, kw_only=True)
class Change:
    """One file a call changes, as its arguments name it (workspace-relative or as written)."""

    before: str | None
    """Where the file is before the call; ``None`` for a file or folder the call creates."""
    after: str | None
    """Where the call leaves it; ``None`` for one it deletes."""


@dataclass(frozen=True, kw_only=True)
class CallPaths:
    """The paths one call names."""

    reads: tuple[str, ...] = ()
    """Files the call reads."""
    changes: tuple[Change, ...] = ()
    """Files the call changes."""
    whole: bool = False
    """The call reads or writes the whole of the files it names (the model has seen all of
    them), rather than a part."""

    @property
    def changed(self) -> tuple[str, ...]:
        """Where the changed files are after the call (or were, for deleted ones)."""
        return tuple(
            dict.fromkeys(c.after or c.before or "" for c in self.changes if c.after or c.before)
        )


PathsOf = Callable[[Mapping[str, Any]], CallPaths]
"""The paths one call names, from its arguments as the model sent them (parsed JSON). Pure: it
may be asked of calls long past (a conversation's history)."""

Execute = Callable[[Any, ToolContext], Awaitable[ToolResult]]
"""Runs a call with already-validated arguments (a pydantic model or a dict)."""

Validate = Callable[[Mapping[str, Any]], Any]
"""Turns a JSON object into the arguments ``execute`` takes, or raises ``InvalidArguments``."""

Assess = Callable[[Any, "ToolContext"], RiskLevel]
"""Risk of one call from its validated arguments (and the workspace they name); it can only
raise the declared level."""

Plan = Callable[[Any, ToolContext], Awaitable["EditPlan | ToolResult"]]
"""For tools that change files: the edits a call would make, without making them."""

ScopeOf = Callable[[Any, "ToolContext"], CallScope]
"""The scope of one call, a pure function of its validated arguments (and the workspace)."""


@dataclass(frozen=True, kw_only=True)
class Tool:
    """A tool the model can call. Build one with ``@tool``, ``Tool.from_model`` or
    ``Tool.from_schema`` rather than by hand: they derive ``validate`` from the schema."""

    name: str
    """Unique snake_case name the model calls."""
    description: str
    """What it does, what it returns, and its limits: the model reads this."""
    parameters: Mapping[str, Any]
    """JSON Schema of the arguments (an object schema)."""
    risk: RiskLevel
    """Declared risk of every call."""
    validate: Validate
    """Checks arguments against ``parameters``; derived, not written by hand."""
    execute: Execute | None = None
    """Runs one call; a tool that changes files gives ``plan`` instead (or as well)."""
    kind: ToolKind = "other"
    """What the tool does (``read``, ``search``, ``edit``, ``move``, ``delete``, ``execute``,
    ``think``, ``fetch``, ``other``)."""
    paths: PathsOf | None = None
    """Which paths a call names (files it reads, files it changes)."""
    assess: Assess | None = None
    """Optional per-call risk assessment from the arguments."""
    plan: Plan | None = None
    """For tools that change files: the edits a call would make, without making them; the
    host applies them once approved."""
    scope: ScopeOf | None = None
    """Optional scope of a call (the program and sandbox policy), for tools that start programs."""
    timeout: float | None = None
    """Seconds before the host cancels a call; ``None`` uses the host's default."""
    sequential: bool = False
    """Never run concurrently with other calls of the same turn."""
    open_world: bool = False
    """Its calls may reach the web beyond this computer (``fetch``): what ``foehn mcp``
    tells its clients (``openWorldHint``)."""

    @property
    def changes_files(self) -> bool:
        """Whether the tool's calls change the workspace's files (it plans edits, or its kind
        says so)."""
        return self.plan is not None or self.kind in CHANGING_KINDS

    def paths_of(self, arguments: Mapping[str, Any]) -> CallPaths:
        """The paths a call with ``arguments`` names (none known: empty)."""
        if self.paths is None:
            return CallPaths()
        try:
            return self.paths(arguments)
        except (KeyError, TypeError, ValueError, AttributeError):
            return CallPaths()

    def risk_of(self, arguments: Any, ctx: ToolContext) -> RiskLevel:
        """The risk of one call with validated ``arguments``."""
        if self.assess is None:
            return self.risk
        return raise_risk(self.risk, self.assess(arguments, ctx))

    @classmethod
    def from_model(
        cls,
        *,
        name: str,
        description: str,
        model: type[pydantic.BaseModel],
        execute: Execute | None = None,
        risk: RiskLevel = RiskLevel.UNDEFINED,
        kind: ToolKind = "other",
        paths: PathsOf | None = None,
        assess: Assess | None = None,
        plan: Plan | None = None,
        scope: ScopeOf | None = None,
        timeout: float | None = None,
        sequential: bool = False,
        open_world: bool = False,
    ) -> Tool:
        """A typed tool: the schema is derived from ``model`` and the same model validates.

        ``execute`` receives an instance of ``model``. Unknown properties are refused whatever
        the model's own ``extra`` setting, so the model learns the real parameter names.
        """
        if model.model_config.get("extra") != "forbid":
            namespace = {
                "model_config": pydantic.ConfigDict(extra="forbid"),
                "__module__": model.__module__,
                "__doc__": model.__doc__,
            }
            model = type(model.__name__, (model,), namespace)
        validator = ModelValidator(model)
        return cls(
            name=name,
            description=description,
            parameters=tidy_schema(validator.schema),
            risk=risk,
            execute=execute,
            kind=kind,
            paths=paths,
            validate=validator,
            assess=assess,
            plan=plan,
            scope=scope,
            timeout=timeout,
            sequential=sequential,
            open_world=open_world,
        )

    @classmethod
    def from_schema(
        cls,
        *,
        name: str,
        description: str,
        parameters: Mapping[str, Any],
        execute: Execute | None = None,
        risk: RiskLevel = RiskLevel.UNDEFINED,
        kind: ToolKind = "other",
        paths: PathsOf | None = None,
        assess: Assess | None = None,
        plan: Plan | None = None,
        scope: ScopeOf | None = None,
        timeout: float | None = None,
        sequential: bool = False,
        open_world: bool = False,
    ) -> Tool:
        """An untyped tool: a hand-written JSON Schema for dynamic shapes, validated by
        jsonschema-rs. ``execute`` receives the arguments as a dict."""
        if problems := check_schema(parameters):
            raise ToolDefinitionError(name, problems)
        return cls(
            name=name,
            description=description,
            parameters=dict(parameters),
            risk=risk,
            execute=execute,
            kind=kind,
            paths=paths,
            validate=SchemaValidator(parameters),
            assess=assess,
            plan=plan,
            scope=scope,
            timeout=timeout,
            sequential=sequential,
            open_world=open_world,
        )


def tidy_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` without pydantic's ``title`` keys, which cost the model tokens and say nothing
    the property names do not."""
    node = {key: value for key, value in schema.items() if key != "title"}
    if isinstance(props := node.get("properties"), Mapping):
        node["properties"] = {key: tidy_schema(value) for key, value in props.items()}
    if isinstance(defs := node.get("$defs"), Mapping):
        node["$defs"] = {key: tidy_schema(value) for key, value in defs.items()}
    for key in ("items", "additionalProperties"):
        if isinstance(child := node.get(key), Mapping):
            node[key] = tidy_schema(child)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(children := node.get(key), list):
            node[key] = [tidy_schema(c) if isinstance(c, Mapping) else c for c in children]
    return node
