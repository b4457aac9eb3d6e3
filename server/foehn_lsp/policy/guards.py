"""A session's rules and hooks: read from the user's ``config.toml`` (and the approved text of a
trusted workspace's ``.foehn/rules.toml``), read again whenever the user file changes, and the
one way "always allow" saves a rule.

The builder makes one ``Guards`` per session; the approval gate asks it for the rules and hooks
in force at each call, so a rule the person adds (in the file, with ``foehn rules add``, or by
answering "always") holds from the next call on.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from foehn_lsp.policy.hooks import Hook, HookSet, notes_for, parse_hooks, payload
from foehn_lsp.policy.rules.ruleset import WORKSPACE_RULES, Rule, RuleSet, combine, parse_rules
from foehn_lsp.policy.rules.store import append_rule
from foehn_lsp.workspace.trust import approved_text, store_file

if TYPE_CHECKING:
    from foehn_lsp.workspace import Workspace

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Loaded:
    rules: RuleSet
    hooks: HookSet


def load(user_file: Path | None, workspace_root: Path | None, *, trusted: bool) -> Loaded:
    """The rules and hooks of the user file and (trusted) the approved workspace file."""
    rule_sources: list[tuple[str, list[Rule], list[str]]] = []
    hooks: list[Hook] = []
    hook_problems: list[str] = []
    texts: list[tuple[str, str, bool]] = []
    if user_file is not None:
        try:
            texts.append((str(user_file), user_file.read_text("utf-8"), False))
        except FileNotFoundError:
            pass
        except (OSError, UnicodeDecodeError) as exc:
            rule_sources.append((str(user_file), [], [f"{user_file}: cannot read it: {exc}"]))
    if trusted and workspace_root is not None:
        text = approved_text(workspace_root, WORKSPACE_RULES)
        if text is not None:
            texts.append((str(workspace_root / WORKSPACE_RULES), text, True))
    for file, text, workspace in texts:
        found, wrong = parse_rules(text, file, workspace=workspace)
        rule_sources.append((file, found, wrong))
        more, bad = parse_hooks(text, file, workspace=workspace)
        hooks += more
        hook_problems += bad
    loaded = Loaded(
        rules=combine(rule_sources),
        hooks=HookSet(hooks=tuple(hooks), problems=tuple(hook_problems)),
    )
    for problem in (*loaded.rules.problems, *loaded.hooks.problems):
        log.warning("%s", problem)
    return loaded


class Guards:
    """The rules and hooks in force for one session."""

    def __init__(
        self, user_file: Path | None, workspace_root: Path | None, *, trusted: bool
    ) -> None:
        self.user_file = user_file
        self.workspace_root = workspace_root
        self.trusted = trusted
        self._lock = threading.Lock()
        self._stamp: tuple[tuple[int, int] | None, ...] | None = None
        self._loaded: Loaded | None = None

    @classmethod
    def none(cls) -> Guards:
        """No rules and no hooks (tests, and front ends that have no person's config)."""
        return cls(None, None, trusted=False)

    def _current(self) -> Loaded:
        stamp = self._file_stamp()
        with self._lock:
            if self._loaded is None or stamp != self._stamp:
                self._loaded = load(self.user_file, self.workspace_root, trusted=self.trusted)
                self._stamp = stamp
            return self._loaded

    def _file_stamp(self) -> tuple[tuple[int, int] | None, ...]:
        """What the rules are read from: the user file and, in a trusted workspace, its rules
        file and the person's approvals of it (a change to either is read at the next call)."""
        files = [self.user_file]
        if self.trusted and self.workspace_root is not None:
            files += [self.workspace_root / WORKSPACE_RULES, store_file(self.workspace_root)]
        return tuple(_stamp(file) for file in files)

    @property
    def rules(self) -> RuleSet:
        return self._current().rules

    @property
    def hooks(self) -> HookSet:
        return self._current().hooks

    def save(self, rule: Rule, *, note: str) -> Rule:
        """Append ``rule`` to the user file; it holds from the next call on. Raises
        ``ConfigError`` when there is no user file to write or it cannot be written."""
        from foehn_lsp.errors import ConfigError

        if self.user_file is None:
            raise ConfigError("this session has no user config file to save rules in")
        saved = append_rule(self.user_file, rule, note=note)
        with self._lock:
            self._loaded = None
        return saved


def _stamp(file: Path | None) -> tuple[int, int] | None:
    if file is None:
        return None
    try:
        status = file.stat()
    except OSError:
        return None
    return (status.st_mtime_ns, status.st_size)


@dataclass(frozen=True, kw_only=True)
class TurnGuards:
    """A session's guards as one turn's calls see them (hooks are told the session and turn)."""

    guards: Guards
    session: str = ""
    turn: int = 0


async def session_started(
    guards: Guards, session: str, turn: int, workspace: Workspace
) -> list[str]:
    """The notes of the session-start hooks, for the session's first turn here."""
    hooks = guards.hooks.of("session_start")
    if not hooks:
        return []
    data = payload("session_start", session=session, turn=turn, cwd=workspace.root)
    return await notes_for(hooks, data, workspace)


class TurnEnd(Protocol):
    """How a turn ended (``agent.loop.TurnOutcome``), as the turn-end hooks are told it; named
    here so that the guards, which the loop uses, do not import the loop."""

    @property
    def reason(self) -> str: ...

    @property
    def answer(self) -> str: ...


async def turn_ended(
    guards: Guards, session: str, turn: int, workspace: Workspace, outcome: TurnEnd
) -> list[str]:
    """The notes of the turn-end hooks, for the next turn."""
    hooks = guards.hooks.of("turn_end")
    if not hooks:
        return []
    result = {"reason": outcome.reason, "answer": outcome.answer}
    data = payload("turn_end", session=session, turn=turn, cwd=workspace.root, result=result)
    return await notes_for(hooks, data, workspace)
