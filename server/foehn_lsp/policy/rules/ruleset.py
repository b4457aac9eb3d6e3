"""Rules people write: which calls are allowed, asked about or denied, read from the user's
``config.toml`` (``[[rules]]``) and a trusted workspace's ``.foehn/rules.toml`` (only as
approved by its content).

    [[rules]]
    tool = "run_command"          # a tool name, "mcp__server__*", or "*"
    program = "git"               # programs only: argv[0]'s basename
    args = ["push", "*"]          # programs only: "*" = the rest, "?" = one argument
    paths = ["migrations/**"]     # file tools: globs relative to the workspace
    decision = "deny"             # allow | ask | deny        (deny > ask > allow)
    sandbox = "workspace-write"   # allow of a program: the policy it runs under (read-only)
    network = ["registry.example"]       # allow of a program: the domains it may reach
    message = "Never push from Foehn."   # the model reads it on deny

This module reads and checks rules; ``policy.rules.match`` says whether one covers a call and
``policy.rules.decision`` decides. A malformed rule is reported with its file, line and key and
ignored whole; when a file has one, that file's allow rules are withheld too (its deny and ask
rules, which only ever add a question or a refusal, still hold), so a broken rule set never
lets more through than the person wrote. ``network`` grants domains (``config.network``) to the
program shape of an allow rule that runs it ``workspace-write``; a workspace's rules cannot.
"""

from __future__ import annotations

import difflib
import json
import posixpath
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from foehn_lsp.config.network import Domain, LineFinder, parse_domains
from foehn_lsp.policy.rules.tables import TableAt, array_tables, where
from foehn_lsp.risk import RiskLevel
from foehn_lsp.sandbox.policy import SANDBOX_ORDER, SandboxPolicy

Decision = Literal["allow", "ask", "deny"]
DECISIONS: tuple[Decision, ...] = get_args(Decision)

RULE_KEYS = ("tool", "program", "args", "paths", "decision", "sandbox", "network", "message")
WORKSPACE_RULES = ".foehn/rules.toml"
TOOL_NAME = re.compile(r"^[A-Za-z0-9_*-]{1,64}$")


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One ``[[rules]]`` table, checked."""

    tool: str
    """A tool name, or a pattern with ``*`` (``mcp__github__*``, ``*``)."""
    decision: Decision
    program: str | None = None
    """For calls that start a program: the program's name (argv[0]'s basename)."""
    args: tuple[str, ...] | None = None
    """The argument shape after the program: words, ``?`` (one argument), ``*`` (the rest,
    last only). ``None``: any arguments."""
    paths: tuple[str, ...] | None = None
    """Globs relative to the workspace (``**`` spans folders) for the paths a call names."""
    sandbox: SandboxPolicy | None = None
    """For an allow: the sandbox policy the call runs under (``None``: read-only)."""
    network: tuple[Domain, ...] = ()
    """For an allow of a program shape: the domains it may reach, besides ``[sandbox]
    network``."""
    message: str | None = None
    """What the model reads when the rule denies a call."""
    source: str = ""
    """``FILE:LINE`` of the table's header."""
    workspace: bool = False
    """Read from the workspace's own rules file."""

    @property
    def allowed_sandbox(self) -> SandboxPolicy:
        """The policy an allow runs a program under."""
        return self.sandbox or "read-only"

    def json(self) -> dict[str, Any]:
        """As ``foehn explain --json``, ``foehn rules list --json`` and the LSP show it
        (``network`` only for a rule that grants one)."""
        shown = {
            "tool": self.tool,
            "program": self.program,
            "args": list(self.args) if self.args is not None else None,
            "paths": list(self.paths) if self.paths is not None else None,
            "decision": self.decision,
            "sandbox": self.sandbox,
            "message": self.message,
            "source": self.source,
        }
        if self.network:
            shown["network"] = [d.shown() for d in self.network]
        return shown

    def toml(self) -> str:
        """The rule as a ``[[rules]]`` table (what "always" and ``foehn rules add`` write)."""
        lines = ["[[rules]]", f"tool = {_string(self.tool)}"]
        if self.program is not None:
            lines.append(f"program = {_string(self.program)}")
        if self.args is not None:
            lines.append(f"args = [{', '.join(_string(a) for a in self.args)}]")
        if self.paths is not None:
            lines.append(f"paths = [{', '.join(_string(p) for p in self.paths)}]")
        lines.append(f"decision = {_string(self.decision)}")
        if self.sandbox is not None:
            lines.append(f"sandbox = {_string(self.sandbox)}")
        if self.network:
            lines.append(f"network = [{', '.join(_string(d.shown()) for d in self.network)}]")
        if self.message is not None:
            lines.append(f"message = {_string(self.message)}")
        return "\n".join(lines) + "\n"

    def describe(self) -> str:
        """One line for people: ``deny run_command git push *``."""
        parts = [self.decision, self.tool]
        if self.program is not None:
            parts.append(self.program)
        if self.args is not None:
            parts.extend(self.args)
        if self.paths is not None:
            parts.append("paths " + ", ".join(self.paths))
        if self.sandbox is not None:
            parts.append(f"(sandbox {self.sandbox})")
        if self.network:
            parts.append(f"(network {', '.join(d.shown() for d in self.network)})")
        return " ".join(parts)


def _string(value: str) -> str:
    """A TOML basic string: JSON's escapes are all valid TOML, and DEL, which JSON leaves as
    it is and TOML refuses, is escaped too."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


@dataclass(frozen=True, kw_only=True)
class RuleSet:
    """The rules in force, and what is wrong with the ones that are not."""

    rules: tuple[Rule, ...] = ()
    problems: tuple[str, ...] = ()
    """Each malformed rule, and each file whose allow rules are withheld because of one."""

    def warnings(self, tools: Mapping[str, RiskLevel]) -> list[str]:
        """What the person should know about rules that parse: a tool that does not exist
        (with the nearest names that do), and an allow that cannot allow its tool's writes
        (no sandbox that covers them). ``tools``: every tool's name and declared risk."""
        names = sorted(tools)
        found = []
        for rule in self.rules:
            covered = [name for name in names if tool_matches(rule.tool, name)]
            if not covered and not rule.tool.startswith("mcp__"):
                close = difflib.get_close_matches(rule.tool, names, n=3, cutoff=0.5)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                found.append(f"{rule.source}: tool {rule.tool!r} is not a tool Foehn has{hint}")
            writes = [n for n in covered if tools[n] is not RiskLevel.READ_ONLY]
            if (
                rule.decision == "allow"
                and rule.program is None
                and rule.sandbox is None
                and writes
            ):
                found.append(
                    f"{rule.source}: this allow lets {', '.join(writes[:3])} write nothing "
                    'unasked: add sandbox = "workspace-write" to allow its writes'
                )
        return found

    def with_rule(self, rule: Rule) -> RuleSet:
        return RuleSet(rules=(*self.rules, rule), problems=self.problems)


def tool_matches(pattern: str, name: str) -> bool:
    """``pattern`` with ``*`` for any characters, matched against a whole tool name."""
    parts = [re.escape(part) for part in pattern.split("*")]
    return re.fullmatch(".*".join(parts), name) is not None


@dataclass
class _Checked:
    rule: Rule | None = None
    problems: list[str] = field(default_factory=list)


def parse_rules(text: str, file: str, *, workspace: bool = False) -> tuple[list[Rule], list[str]]:
    """The rules of one TOML text and the problems of the malformed ones (``file`` names it in
    sources and problems). With ``workspace``, ``sandbox = "full"`` is refused: a repository
    never gets the person's own rights by a rule."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [], [f"{file}: cannot read the rules: {exc}"]
    tables = data.get("rules", [])
    if not isinstance(tables, list):
        return [], [f"{file}: rules must be written as [[rules]] tables"]
    positions = array_tables(text, "rules")
    rules: list[Rule] = []
    problems: list[str] = []
    for index, table in enumerate(tables):
        at = positions[index] if index < len(positions) else TableAt(line=1)
        lines = LineFinder(text, "rules", array=index)
        checked = _check(table, file, at, lines, workspace=workspace)
        problems.extend(checked.problems)
        if checked.rule is not None:
            rules.append(checked.rule)
    return rules, problems


def _network(
    table: Mapping[str, Any],
    file: str,
    lines: LineFinder,
    problem: Callable[[str, str], None],
    out: _Checked,
    *,
    workspace: bool,
) -> tuple[Domain, ...]:
    """The domains a rule grants its program shape: only an allow of a program, run
    ``workspace-write``, and never a workspace's rule."""
    if "network" not in table:
        return ()
    network, wrong = parse_domains(
        table["network"], key="network", shown="rules.network", file=file, lines=lines
    )
    out.problems.extend(wrong)
    if workspace:
        problem("network", "a workspace's rules cannot grant the network; only your config")
    elif table.get("decision") != "allow" or table.get("program") is None:
        problem("network", "grants domains to the program shape of an allow rule")
    elif table.get("sandbox") != "workspace-write":
        problem(
            "network",
            "a program reaches the network only in the workspace-write sandbox: add "
            'sandbox = "workspace-write"',
        )
    return network


def _check(table: Any, file: str, at: TableAt, lines: LineFinder, *, workspace: bool) -> _Checked:
    out = _Checked()

    def problem(key: str, message: str) -> None:
        out.problems.append(f"{where(file, at.line_of(key))}: rules.{key}: {message}")

    if not isinstance(table, Mapping):
        out.problems.append(f"{where(file, at.line)}: a rule must be a table")
        return out
    for key in table:
        if key not in RULE_KEYS:
            close = difflib.get_close_matches(key, RULE_KEYS, n=1, cutoff=0.6)
            problem(key, "unknown key" + (f"; did you mean {close[0]!r}?" if close else ""))
    tool = table.get("tool")
    if not isinstance(tool, str) or not TOOL_NAME.match(tool):
        problem("tool", 'required: a tool name, "mcp__server__*" or "*"')
    decision = table.get("decision")
    if decision not in DECISIONS:
        problem("decision", f"required: one of allow, ask, deny, got {decision!r}")
    program = table.get("program")
    if program is not None and (
        not isinstance(program, str) or not program or "/" in program or program != program.strip()
    ):
        problem("program", "a program's name (argv[0]'s basename, such as 'git'), not a path")
    args = table.get("args")
    if args is not None:
        if not isinstance(args, list) or not all(isinstance(a, str) and a for a in args):
            problem("args", 'a list of words, "?" (one argument) and "*" (the rest)')
        elif "*" in args[:-1]:
            problem("args", '"*" means the rest of the arguments: only the last word may be "*"')
        if program is None:
            problem("args", "an argument shape needs the program it belongs to (program = …)")
    paths = table.get("paths")
    if paths is not None:
        if not isinstance(paths, list) or not paths or not all(_relative_glob(p) for p in paths):
            problem("paths", "a list of globs relative to the workspace, such as 'migrations/**'")
        if program is not None:
            problem(
                "paths", "paths are for file tools and program/args for programs: write two rules"
            )
    sandbox = table.get("sandbox")
    if sandbox is not None:
        if sandbox not in SANDBOX_ORDER:
            problem("sandbox", f"one of {', '.join(SANDBOX_ORDER)}, got {sandbox!r}")
        elif decision in ("ask", "deny"):
            problem("sandbox", "only an allow runs anything: leave sandbox out of ask and deny")
        elif sandbox == "full" and workspace:
            problem("sandbox", 'a workspace\'s rules cannot allow "full"; only your config can')
    network = _network(table, file, lines, problem, out, workspace=workspace)
    message = table.get("message")
    if message is not None and not isinstance(message, str):
        problem("message", "a string the model reads when the rule denies a call")
    if out.problems:
        return out
    out.rule = Rule(
        tool=tool,  # type: ignore[arg-type]
        decision=decision,  # type: ignore[arg-type]
        program=program,
        args=tuple(args) if args is not None else None,
        paths=tuple(posixpath.normpath(p) for p in paths) if paths is not None else None,
        sandbox=sandbox,
        network=network,
        message=message,
        source=where(file, at.line),
        workspace=workspace,
    )
    return out


def _relative_glob(path: object) -> bool:
    if not isinstance(path, str) or not path or "\0" in path:
        return False
    return not path.startswith(("/", "~")) and ".." not in posixpath.normpath(path).split("/")


def combine(sources: Sequence[tuple[str, list[Rule], list[str]]]) -> RuleSet:
    """The rules of several files: a file with a malformed rule keeps only its deny and ask
    rules."""
    rules: list[Rule] = []
    problems: list[str] = []
    for file, found, wrong in sources:
        problems.extend(wrong)
        if wrong and any(rule.decision == "allow" for rule in found):
            problems.append(
                f"{file}: its allow rules are not applied until the problems above are fixed "
                "(its deny and ask rules are)"
            )
            found = [rule for rule in found if rule.decision != "allow"]
        rules.extend(found)
    return RuleSet(rules=tuple(rules), problems=tuple(problems))
