"""Checking after edits: before a turn answers, the problems its edits added to the files it
changed go back to the model.

A ``ProblemSource`` says what is wrong with some files now: the workspace's own checkers run in
the sandbox (``checks.checkers``), or the editor's language servers (the language server's
``foehn/diagnostics`` request). ``EditChecks`` sits in the call chain after approval: before a
call that names a file it will change (``edit_file``, ``write_file``; ``move_path``'s
destination, checked as its source is; the files another tool's planned edit writes, as
``rename_symbol``'s) runs, the file is checked as it is, once per turn, so
problems it already had are not the edit's. When the model answers, ``after`` checks the
changed files again and keeps only the new problems, matched by file, checker and message (not
by line, which an edit moves). A file a program changed had no check before, so it is left out
and named in one line; so is a checker that is missing, hangs or floods.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from foehn_lsp.errors import FoehnError
from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.plans import PlannedEdit
from foehn_lsp.tools.registry import Handler, Invocation
from foehn_lsp.workspace.edits import WriteFile
from foehn_lsp.workspace.paths import Workspace

log = logging.getLogger(__name__)

MAX_SHOWN = 20
"""New problems the model reads at most (the rest are counted)."""
MAX_ROUNDS = 3
"""Answers sent back for new problems in one turn, at most."""
_SOURCE_SUFFIXES = frozenset(
    [
        ".py",
        ".pyi",
        ".js",
        ".jsx",
        ".mjs",
        ".cjs",
        ".ts",
        ".tsx",
        ".mts",
        ".cts",
        ".go",
        ".rs",
        ".java",
        ".kt",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".cs",
        ".rb",
    ]
)


@dataclass(frozen=True, kw_only=True)
class Problem:
    path: str
    """Relative to the workspace root, with "/"."""
    line: int
    """1-based."""
    message: str
    source: str
    """The checker (``mypy``, ``ruff``, ``Pylance``, …)."""

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.path, self.source, " ".join(self.message.split()))

    def shown(self) -> str:
        return f"{self.path}:{self.line}: {self.message} ({self.source})"


@dataclass(frozen=True, kw_only=True)
class CheckReport:
    problems: tuple[Problem, ...] = ()
    skipped: tuple[str, ...] = ()
    """One line per checker that gave no answer (missing, hung, flooded), and why."""


class ProblemSource(Protocol):
    """What is wrong with ``paths`` (relative to the root) now. Never raises for a checker
    that fails: that is a ``skipped`` line."""

    async def check(self, paths: Sequence[str]) -> CheckReport: ...


class EditChecks:
    """One turn's checking: a middleware that checks files before their first change, and
    ``after`` for the answer."""

    def __init__(self, source: ProblemSource, workspace: Workspace) -> None:
        self.source = source
        self.workspace = workspace
        self.before: dict[str, tuple[Problem, ...]] = {}
        self.skipped: list[str] = []
        self.dirty = False
        """A change ran since the last ``after``."""
        self.rounds = 0
        self._lock = asyncio.Lock()

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        if invocation.risk >= RiskLevel.WRITE or invocation.scope.sandbox is not None:
            self.dirty = True
        named = {after: now for now, after in self._named(invocation) if after not in self.before}
        if named:
            await self._baseline(named)
        return await next_step(invocation)

    async def after(self, changed: Sequence[str]) -> CheckReport | None:
        """The changed files' new problems, or ``None`` when nothing changed since the last
        check (or the turn already had ``MAX_ROUNDS``)."""
        if not self.dirty or self.rounds >= MAX_ROUNDS:
            return None
        self.dirty = False
        present = [p for p in dict.fromkeys(changed) if _exists(self.workspace, p)]
        checked = [p for p in present if p in self.before]
        unknown = [p for p in present if p not in self.before and _source(p)]
        skipped = list(dict.fromkeys(self.skipped))
        if unknown:
            skipped.append(
                "not checked (changed by a program, so there was no check before): "
                + ", ".join(unknown[:5])
                + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
            )
        report = await self.source.check(checked) if checked else CheckReport()
        old = Counter(p.key for path in checked for p in self.before[path])
        new: list[Problem] = []
        for problem in report.problems:
            if problem.path not in checked:
                continue
            if old[problem.key] > 0:
                old[problem.key] -= 1
            else:
                new.append(problem)
        skipped += [s for s in report.skipped if s not in skipped]
        self.skipped = []
        if new:
            self.rounds += 1
        return CheckReport(problems=tuple(new), skipped=tuple(skipped))

    def _named(self, invocation: Invocation) -> list[tuple[str, str]]:
        """(the file as it is now, where the call leaves it), relative to the root: the files
        the call names (``Tool.paths``), else those its planned edit writes."""
        changes = invocation.tool.paths_of(invocation.shown_arguments()).changes
        if not changes:
            return self._planned(invocation)
        named = []
        for change in changes:
            now = self._relative(invocation, change.before)
            after = self._relative(invocation, change.after)
            if now is not None and after is not None:
                named.append((now, after))
        return named

    def _planned(self, invocation: Invocation) -> list[tuple[str, str]]:
        """The files a tool's planned edit writes where they are (``rename_symbol``'s, which
        its arguments do not name)."""
        planned = invocation.plan
        if not isinstance(planned, PlannedEdit):
            return []
        return [
            (shown, shown)
            for change in planned.plan.changes
            if isinstance(change, WriteFile) and self.workspace.contains(change.path)
            for shown in [self.workspace.display(change.path)]
        ]

    def _relative(self, invocation: Invocation, value: object) -> str | None:
        if not isinstance(value, str):
            return None
        try:
            return self.workspace.display(invocation.ctx.workspace.resolve(value))
        except (FoehnError, OSError, ValueError):
            return None

    async def _baseline(self, named: dict[str, str]) -> None:
        """Check each file as it is now (``named``: where it will be → where it is) and keep
        its problems under where it will be."""
        async with self._lock:
            named = {after: now for after, now in named.items() if after not in self.before}
            existing = sorted({now for now in named.values() if _exists(self.workspace, now)})
            report = await self.source.check(existing) if existing else CheckReport()
            self.skipped += report.skipped
            for after, now in named.items():
                self.before[after] = tuple(
                    dataclasses.replace(p, path=after) for p in report.problems if p.path == now
                )


def note(report: CheckReport) -> str:
    """What the model reads when its edits added problems."""
    shown = "\n".join(f"- {p.shown()}" for p in report.problems[:MAX_SHOWN])
    more = len(report.problems) - MAX_SHOWN
    lines = [
        "[Foehn] Checked the files you changed: your edits added these problems "
        "(the checkers' own words; problems the files had before are left out):",
        shown,
    ]
    if more > 0:
        lines.append(f"… and {more} more.")
    lines += [f"({s})" for s in report.skipped]
    lines.append(
        "Fix them with a tool call before you answer, or say in your answer why they stay."
    )
    return "\n".join(lines)


def _exists(workspace: Workspace, path: str) -> bool:
    try:
        return workspace.resolve(path).is_file()
    except (FoehnError, OSError, ValueError):
        return False


def _source(path: str) -> bool:
    return any(path.endswith(suffix) for suffix in _SOURCE_SUFFIXES)
