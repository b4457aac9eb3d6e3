"""Hooks: programs the person configures to look at calls and turns.

    [[hooks]]
    event = "pre_tool"            # pre_tool | post_tool | turn_end | session_start
    tools = ["run_command"]       # optional filter by tool name ("*" patterns too)
    command = ["python3", "/home/me/hooks/check.py"]   # argv, run in the sandbox
    timeout_s = 10                # default 30
    sandbox = "read-only"         # optional: read-only (default), workspace-write or full

A hook runs in the sandbox (``read-only`` unless its table says otherwise; where this machine
has no sandbox it runs with the person's own rights, as the person's own commands do) in the
workspace root, with one JSON object on stdin:

    {"event", "session", "turn", "tool", "arguments", "result"?}

plus Claude Code's names for the same things (``hook_event_name``, ``session_id``,
``tool_name``, ``tool_input``, ``tool_response``, ``cwd``), so hooks written for it port. What
it prints (stdout and stderr together) is its answer:

- ``pre_tool``: ``{"decision": "allow" | "ask" | "deny", "message"?}``; Claude Code's
  ``{"hookSpecificOutput": {"permissionDecision", "permissionDecisionReason"}}``, ``{"decision":
  "approve" | "block", "reason"}`` and ``{"continue": false, "stopReason"}`` are read too, and
  exit code 2 denies with the output as the message. Nothing printed: no objection.
- ``post_tool``: ``{"note"?}`` (or ``hookSpecificOutput.additionalContext``, or ``{"decision":
  "block", "reason"}``; exit code 2 makes the output the note): the model reads the note with
  the call's result.
- ``session_start`` and ``turn_end``: ``{"note"?}``, added to the context of the next turn.

A hook that fails (another exit code), is killed at its timeout, or prints anything else fails
closed: before a call it denies the call, after one it withholds the output from the model;
either way it says why. A hook that cannot start (its program is not found or not visible, its
script does not exist, its interpreter cannot open it) is a broken hook: the person is told
which one (its ``FILE:LINE``), what it printed and how to fix it, and the model that the call
was blocked by a hook that failed, never that the person refused it.

A hook's own files are part of its sandbox, read-only, for its run alone: every existing file
its argv names, and the folder of the script it runs (unless that folder is too wide: the home
folder or above, one holding the workspace, or Foehn's config folder itself; then the script
alone), credential files in it masked. Their documented home is ``HOOK_HOME``.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from foehn_lsp.errors import PathRefusedError
from foehn_lsp.policy.rules.ruleset import DECISIONS, tool_matches
from foehn_lsp.policy.rules.tables import TableAt, array_tables, where
from foehn_lsp.sandbox import SandboxUnavailableError, system_sandbox, toolchains
from foehn_lsp.sandbox import view as viewing
from foehn_lsp.sandbox.policy import SANDBOX_ORDER, SandboxPolicy
from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.registry import Answer
from foehn_lsp.workspace import Workspace

log = logging.getLogger(__name__)

HOOK_HOME = "$XDG_CONFIG_HOME/foehn/hooks/ (usually ~/.config/foehn/hooks/)"
"""Where hook scripts live (any folder works: the script's folder is bound for its run)."""
INTERPRETER = re.compile(
    r"(python|pypy)[0-9.]*|node(js)?|deno|bun|(ba|da|z|k|fi)?sh|ruby|perl|php|lua|Rscript"
)
"""Programs whose first argument that is not an option is the script they run."""
NOT_STARTED = re.compile(
    r"can't open file|Cannot find module|No such file or directory|cannot open|Can't open perl "
    r"script|not found|Permission denied",
    re.IGNORECASE,
)
"""What an interpreter says when it cannot open the script it was given."""

HookEvent = Literal["pre_tool", "post_tool", "turn_end", "session_start"]
EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
HOOK_KEYS = ("event", "tools", "command", "timeout_s", "sandbox")
DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0
BLOCK_EXIT = 2
"""Claude Code's exit code for "block this call"."""
MAX_MESSAGE = 2000
CLAUDE_EVENTS = {
    "pre_tool": "PreToolUse",
    "post_tool": "PostToolUse",
    "turn_end": "Stop",
    "session_start": "SessionStart",
}


@dataclass(frozen=True, kw_only=True)
class Hook:
    """One ``[[hooks]]`` table, checked."""

    event: HookEvent
    command: tuple[str, ...]
    tools: tuple[str, ...] | None = None
    timeout_s: float = DEFAULT_TIMEOUT
    sandbox: SandboxPolicy = "read-only"
    source: str = ""
    """``FILE:LINE`` of the table's header."""

    def applies(self, event: HookEvent, tool: str | None) -> bool:
        if event != self.event:
            return False
        if self.tools is None or tool is None:
            return True
        return any(tool_matches(pattern, tool) for pattern in self.tools)


@dataclass(frozen=True, kw_only=True)
class HookSet:
    hooks: tuple[Hook, ...] = ()
    problems: tuple[str, ...] = ()

    def of(self, event: HookEvent, tool: str | None = None) -> list[Hook]:
        return [hook for hook in self.hooks if hook.applies(event, tool)]


def parse_hooks(text: str, file: str, *, workspace: bool = False) -> tuple[list[Hook], list[str]]:
    """The hooks of one TOML text and the problems of the malformed ones (each ignored
    whole)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [], [f"{file}: cannot read the hooks: {exc}"]
    tables = data.get("hooks", [])
    if not isinstance(tables, list):
        return [], [f"{file}: hooks must be written as [[hooks]] tables"]
    positions = array_tables(text, "hooks")
    hooks: list[Hook] = []
    problems: list[str] = []
    for index, table in enumerate(tables):
        at = positions[index] if index < len(positions) else TableAt(line=1)
        hook, wrong = _check(table, file, at, workspace=workspace)
        problems.extend(wrong)
        if hook is not None:
            hooks.append(hook)
    return hooks, problems


def _check(table: Any, file: str, at: TableAt, *, workspace: bool) -> tuple[Hook | None, list[str]]:
    problems: list[str] = []

    def problem(key: str, message: str) -> None:
        problems.append(f"{where(file, at.line_of(key))}: hooks.{key}: {message}")

    if not isinstance(table, Mapping):
        return None, [f"{where(file, at.line)}: a hook must be a table"]
    for key in table:
        if key not in HOOK_KEYS:
            close = difflib.get_close_matches(key, HOOK_KEYS, n=1, cutoff=0.6)
            problem(key, "unknown key" + (f"; did you mean {close[0]!r}?" if close else ""))
    event = table.get("event")
    if event not in EVENTS:
        problem("event", f"required: one of {', '.join(EVENTS)}, got {event!r}")
    command = table.get("command")
    if not (
        isinstance(command, list) and command and all(isinstance(w, str) and w for w in command)
    ):
        problem("command", 'required: the program and its arguments as a list, ["python3", "…"]')
    elif "/" in command[0] and not os.path.isabs(command[0]):
        problem("command", "the program is a name on PATH or an absolute path")
    tools = table.get("tools")
    if tools is not None and not (
        isinstance(tools, list) and tools and all(isinstance(t, str) and t for t in tools)
    ):
        problem("tools", 'a list of tool names ("*" patterns allowed)')
    if tools is not None and event in ("turn_end", "session_start"):
        problem("tools", f"a {event} hook sees no tool call; leave tools out")
    timeout = table.get("timeout_s", DEFAULT_TIMEOUT)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not (0 < timeout <= MAX_TIMEOUT)
    ):
        problem("timeout_s", f"seconds, more than 0 and at most {MAX_TIMEOUT:g}")
    sandbox = table.get("sandbox", "read-only")
    if sandbox not in SANDBOX_ORDER:
        problem("sandbox", f"one of {', '.join(SANDBOX_ORDER)}, got {sandbox!r}")
    elif sandbox == "full" and workspace:
        problem("sandbox", 'a workspace\'s hooks cannot run with "full"; only your config can')
    if problems:
        return None, problems
    return (
        Hook(
            event=event,  # type: ignore[arg-type]
            command=tuple(command),  # type: ignore[arg-type]
            tools=tuple(tools) if tools is not None else None,
            timeout_s=float(timeout),
            sandbox=sandbox,
            source=where(file, at.line),
        ),
        [],
    )


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What one hook run said: its answer, or why it failed."""

    answer: Mapping[str, Any] | None = None
    """The JSON object it printed (empty when it printed nothing)."""
    blocked: str | None = None
    """Exit code 2: what it printed."""
    failed: str | None = None
    """Why the hook failed, in words."""
    broken: str | None = None
    """Why the hook could not start (it never ran), with what it printed."""


def payload(
    event: HookEvent,
    *,
    session: str,
    turn: int,
    cwd: Path,
    tool: str | None = None,
    arguments: Any = None,
    result: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The hook's stdin: Foehn's fields, then Claude Code's names for them."""
    data: dict[str, Any] = {"event": event, "session": session, "turn": turn}
    if tool is not None:
        data |= {"tool": tool, "arguments": arguments}
    if result is not None:
        data["result"] = result
    data |= {"hook_event_name": CLAUDE_EVENTS[event], "session_id": session, "cwd": str(cwd)}
    if tool is not None:
        data |= {"tool_name": tool, "tool_input": arguments}
    if result is not None:
        data["tool_response"] = result
    return data


def hook_files(command: Sequence[str], workspace: Workspace) -> tuple[list[Path], str | None]:
    """What the hook ``command`` needs to see besides the view (real paths): every existing file
    its argv names and the folder of the script it runs (see the module's docstring); and why
    it cannot start, when the script it names does not exist."""
    script = _script(command)
    found: list[Path] = []
    if script is not None:
        path = Path(script) if os.path.isabs(script) else workspace.root / script
        if not path.is_file():
            return [], f"its script {script} does not exist"
        folder = Path(os.path.realpath(path.parent))
        if _bindable_folder(folder, workspace):
            found.append(folder)
    for word in command:
        if os.path.isabs(word) and os.path.isfile(word):
            real = Path(os.path.realpath(word))
            if not any(toolchains.within(real, f) for f in found) and real not in found:
                found.append(real)
    return found, None


def _script(command: Sequence[str]) -> str | None:
    """The script ``command`` runs: the program itself when it is a path, or an interpreter's
    first argument that is not an option."""
    program = command[0]
    if "/" in program:
        return program
    if not INTERPRETER.fullmatch(os.path.basename(program)):
        return None
    for word in command[1:]:
        if word in ("-c", "-e", "--eval", "-m"):
            return None  # inline code or a module: no script file
        if not word.startswith("-"):
            return word
    return None


def _bindable_folder(folder: Path, workspace: Workspace) -> bool:
    """Whether a hook's sandbox may show the whole ``folder`` of its script."""
    home = viewing.home_folder(os.environ)
    if toolchains.too_wide(folder, home) or toolchains.is_system(folder):
        return False
    if any(toolchains.within(root, folder) for root in workspace.roots):
        return False  # it would show the workspace's siblings
    return not (folder / "config.toml").exists()  # Foehn's own config folder: its keys


async def run_hook(hook: Hook, data: Mapping[str, Any], workspace: Workspace) -> Outcome:
    """Run ``hook`` with ``data`` on stdin, in the sandbox (its own files bound read-only),
    killed at its timeout."""
    sandbox = system_sandbox()
    policy = sandbox.policy_for(hook.sandbox)
    files, missing = hook_files(hook.command, workspace)
    if missing is not None:
        return _broken(hook, missing)
    try:
        program = _program(hook.command[0], workspace, policy, files)
        finished = await sandbox.run(
            [program, *hook.command[1:]],
            workspace=workspace,
            cwd=workspace.root,
            policy=policy,
            seconds=hook.timeout_s,
            stdin=json.dumps(data, ensure_ascii=False, default=str).encode("utf-8"),
            readable=files,
            # A script's own folder (not the workspace) is first on Python's module path, so
            # it imports the modules beside it.
            env={"PYTHONSAFEPATH": ""} if files and _script(hook.command) else None,
        )
    except (PathRefusedError, SandboxUnavailableError, OSError) as exc:
        return _broken(hook, str(exc))
    output = finished.output.strip()
    if finished.exit_code not in (0, None) and _not_started(hook.command, output):
        return _broken(hook, f"its program could not start it: {output[:MAX_MESSAGE]}")
    if finished.stopped:
        return Outcome(failed=f"was stopped: {finished.stopped}")
    if finished.exit_code == BLOCK_EXIT:
        return Outcome(blocked=output[:MAX_MESSAGE])
    if finished.exit_code != 0:
        shown = f": {output[:MAX_MESSAGE]}" if output else ""
        return Outcome(failed=f"exited with {finished.exit_code}{shown}")
    if not output:
        return Outcome(answer={})
    try:
        answer = json.loads(output)
    except json.JSONDecodeError:
        return Outcome(failed=f"printed something that is not a JSON object: {output[:200]!r}")
    if not isinstance(answer, dict):
        return Outcome(failed=f"printed JSON that is not an object: {output[:200]!r}")
    return Outcome(answer=answer)


def _not_started(command: Sequence[str], output: str) -> bool:
    """Whether ``output`` is an interpreter saying it could not open the hook's script."""
    script = _script(command)
    first = output.splitlines()[0] if output else ""
    named = script is not None and (script in first or os.path.basename(script) in first)
    return named and NOT_STARTED.search(first) is not None


def _broken(hook: Hook, why: str) -> Outcome:
    """A hook that could not start: logged for the person (every front end's log), and its
    outcome."""
    log.warning("%s", broken_line(hook, why))
    return Outcome(broken=why)


def broken_line(hook: Hook, why: str) -> str:
    """What the person reads about a broken hook: which, why, and how to fix it."""
    file = hook.source.rsplit(":", 1)[0] or "your config"
    return (
        f"the {hook.event} hook {hook.source} is broken: {why}. Fix its command in {file} "
        f"(hook scripts belong in {HOOK_HOME}; name them by absolute path), or remove the "
        "hook; until then it blocks every call it applies to"
    )


def _program(name: str, workspace: Workspace, policy: SandboxPolicy, files: Sequence[Path]) -> str:
    sandbox = system_sandbox()
    if os.path.isabs(name):
        if not (os.path.isfile(name) and os.access(name, os.X_OK)):
            raise PathRefusedError(f"{name!r} is not an executable file")
        if sandbox.hides(name, workspace, policy, files):
            raise PathRefusedError(
                f"{name!r} cannot be seen inside the {policy} sandbox; put the hook's program "
                'on PATH or where the sandbox shows it, or give the hook sandbox = "full"'
            )
        return name
    found = sandbox.which(name, workspace, policy)
    if found is None:
        raise PathRefusedError(
            f"program {name!r} was not found on PATH (install it, or name it by absolute path)"
        )
    return found


def pre_tool_answer(hook: Hook, outcome: Outcome) -> Answer:
    """A pre-tool hook's outcome as its answer about the call (failures deny)."""
    label = f"the pre_tool hook {hook.source}"
    if outcome.broken is not None:
        return Answer(
            decision="deny",
            message=f"{label} could not start ({outcome.broken}). {FAILED_HOOK}",
            source=hook.source,
            failed=broken_line(hook, outcome.broken),
        )
    if outcome.failed is not None:
        return Answer(
            decision="deny",
            message=f"{label} {outcome.failed}. {FAILED_HOOK}",
            source=hook.source,
            failed=f"{label} failed: {outcome.failed}",
        )
    if outcome.blocked is not None:
        return Answer(
            decision="deny", message=outcome.blocked or f"{label} blocked it", source=hook.source
        )
    answer = outcome.answer or {}
    decision, message = _decision(answer)
    if decision == "garbage":
        shown = json.dumps(answer, ensure_ascii=False)[:200]
        return Answer(
            decision="deny",
            message=f"{label} answered something Foehn does not understand: {shown}",
            source=hook.source,
        )
    return Answer(
        decision=None if decision in (None, "allow") else decision,  # type: ignore[arg-type]
        message=message,
        source=hook.source,
    )


FAILED_HOOK = (
    "The call was blocked by a hook that failed, not by the person: nobody refused it. Tell the "
    "person the hook needs fixing; do not try to do the same another way"
)
"""What the model reads after a hook's own failure (its details come first)."""


def _decision(answer: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The decision and message of a pre-tool answer, in Foehn's or Claude Code's words;
    ``"garbage"`` for an answer of neither shape."""
    specific = answer.get("hookSpecificOutput")
    if answer.get("continue") is False:
        reason = answer.get("stopReason")
        return "deny", reason if isinstance(reason, str) else None
    if isinstance(specific, Mapping) and "permissionDecision" in specific:
        decision = specific.get("permissionDecision")
        reason = specific.get("permissionDecisionReason")
        if decision in DECISIONS and (reason is None or isinstance(reason, str)):
            return decision, reason
        return "garbage", None
    decision = answer.get("decision")
    message = answer.get("message", answer.get("reason"))
    if message is not None and not isinstance(message, str):
        return "garbage", None
    legacy = {"approve": "allow", "block": "deny"}
    if decision is None:
        known = {"message", "suppressOutput", "systemMessage", "hookSpecificOutput", "continue"}
        return (None, message) if set(answer) <= known else ("garbage", None)
    if decision in DECISIONS or decision in legacy:
        return legacy.get(decision, decision), message
    return "garbage", None


def note_of(outcome: Outcome) -> str | None:
    """The note a post-tool, turn-end or session-start answer carries, or ``None``; raises
    ``ValueError`` for an answer of neither Foehn's nor Claude Code's shape."""
    if outcome.blocked is not None:
        return outcome.blocked or None
    answer = outcome.answer or {}
    note = answer.get("note")
    specific = answer.get("hookSpecificOutput")
    if note is None and isinstance(specific, Mapping):
        note = specific.get("additionalContext")
    if note is None and answer.get("decision") == "block":
        note = answer.get("reason")
    if note is not None and not isinstance(note, str):
        raise ValueError(f"note must be a string, got {json.dumps(note)[:100]}")
    known = {"note", "hookSpecificOutput", "decision", "reason", "suppressOutput", "systemMessage"}
    if not set(answer) <= known:
        raise ValueError(f"unknown keys {sorted(set(answer) - known)}")
    return note or None


async def pre_tool(
    hooks: Sequence[Hook], data: Mapping[str, Any], workspace: Workspace
) -> list[Answer]:
    """Every pre-tool hook's answer, in order, stopping at the first that denies."""
    answers = []
    for hook in hooks:
        answer = pre_tool_answer(hook, await run_hook(hook, data, workspace))
        answers.append(answer)
        if answer.decision == "deny":
            break
    return answers


async def post_tool(
    hooks: Sequence[Hook], data: Mapping[str, Any], workspace: Workspace, result: ToolResult
) -> ToolResult:
    """``result`` with the notes of the post-tool hooks added; if one fails, the output is
    withheld from the model and the result says why."""
    notes = []
    for hook in hooks:
        outcome = await run_hook(hook, data, workspace)
        try:
            if outcome.broken is not None:
                raise ValueError(f"it could not start: {outcome.broken}")
            if outcome.failed is not None:
                raise ValueError(outcome.failed)
            note = note_of(outcome)
        except ValueError as exc:
            return ToolResult.failure(
                f"{data.get('tool')} ran, but the post_tool hook {hook.source} failed ({exc}), "
                "so its output is withheld. Tell the person; do not run it again to see it."
            )
        if note:
            notes.append(f"[hook {hook.source}] {note}")
    if not notes:
        return result
    output = result.output + ("\n\n" if result.output else "") + "\n".join(notes)
    return ToolResult(ok=result.ok, output=output, data=result.data)


async def notes_for(
    hooks: Sequence[Hook], data: Mapping[str, Any], workspace: Workspace
) -> list[str]:
    """The notes of session-start or turn-end hooks (a failure is a note saying so)."""
    notes = []
    for hook in hooks:
        outcome = await run_hook(hook, data, workspace)
        try:
            if outcome.broken is not None:
                raise ValueError(f"it could not start: {outcome.broken}")
            if outcome.failed is not None:
                raise ValueError(outcome.failed)
            note = note_of(outcome)
        except ValueError as exc:
            log.warning("the %s hook %s failed: %s", hook.event, hook.source, exc)
            notes.append(f"[Foehn] The {hook.event} hook {hook.source} failed: {exc}")
            continue
        if note:
            notes.append(f"[hook {hook.source}] {note}")
    return notes
