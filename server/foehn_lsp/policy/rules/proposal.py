""" "Always allow" as a rule: the narrowest rule that covers one call.

For a program: the tool, the program by name, its subcommand as written (for programs that have
subcommands: ``git status``, ``npm test``), its options as written, each other argument as
``?``, and the sandbox the call runs under. For a file tool: the tool and the exact paths. For
any other tool: the tool. A rule is proposed only when it would allow the call (never for a
read-only call, which rules only make ask or deny; never for a program named by a path, which
an allow rule never covers; never ``full``, which Foehn never writes for you; never when an ask
or deny rule would still decide), so saving it never widens what the person saw.
"""

from __future__ import annotations

import re

from foehn_lsp.config import ApprovalSettings
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.policy.rules.decision import decide
from foehn_lsp.policy.rules.match import Call, glob_match
from foehn_lsp.policy.rules.ruleset import Rule, RuleSet
from foehn_lsp.risk import RiskLevel
from foehn_lsp.sandbox.policy import SandboxPolicy

SUBCOMMAND_PROGRAMS = frozenset(
    """git npm pnpm yarn bun deno cargo go pip pip3 uv poetry pdm hatch rye conda mamba docker
    podman kubectl helm terraform gh dotnet rustup brew apt apt-get dnf gem bundle mix
    gradle mvn composer nx turbo""".split()  # noqa: SIM905
)


def propose(call: Call, rules: RuleSet | None = None) -> Rule | None:
    """The narrowest allow rule that covers ``call``, or ``None`` when no rule should (also
    when one of ``rules``, the rules in force, would still ask or deny)."""
    if call.sandbox == "full" or call.risk is RiskLevel.READ_ONLY:
        return None
    rule = _shape(call)
    if rule is None:
        return None
    current = rules or RuleSet()
    verdict = decide(
        call, rules=current.with_rule(rule), policy=ApprovalSettings(), risk_source="default"
    )
    return rule if verdict.decision == "allow" and verdict.rule is rule else None


def _shape(call: Call) -> Rule | None:
    if call.argv is not None:
        program = call.argv[0]
        if "/" in program:
            # the tool chose the program (run_tests' configured command): allow the tool
            if call.tool == "run_command":
                return None
            return Rule(tool=call.tool, decision="allow", sandbox=call.sandbox)
        return Rule(
            tool=call.tool,
            program=program,
            args=_argument_shape(program, call.argv[1:]),
            decision="allow",
            sandbox=call.sandbox if call.sandbox != "read-only" else None,
        )
    named = (call.arguments.get(key) for key in ("path", "source", "destination"))
    paths = [p for p in named if isinstance(p, str)]
    if isinstance(listed := call.arguments.get("paths"), list):
        paths += [p for p in listed if isinstance(p, str)]
    if call.tool.startswith("mcp__"):
        return None  # an MCP server runs outside the sandbox: only a rule you write says "full"
    sandbox: SandboxPolicy = "workspace-write"
    if paths:
        shown = []
        for path in paths:
            try:
                shown.append(call.workspace.display(call.workspace.resolve(path)))
            except (PathRefusedError, OSError, ValueError):
                return None
        exact = tuple(dict.fromkeys(_escaped(p) for p in shown))
        if not all(glob_match(g, p) for g, p in zip(exact, dict.fromkeys(shown), strict=True)):
            return None
        return Rule(tool=call.tool, paths=exact, decision="allow", sandbox=sandbox)
    return Rule(tool=call.tool, decision="allow", sandbox=sandbox)


def _argument_shape(program: str, words: tuple[str, ...]) -> tuple[str, ...]:
    shape: list[str] = []
    literal_first = program in SUBCOMMAND_PROGRAMS
    seen_bare = False
    for word in words:
        if word.startswith("-") and len(word) > 1:
            shape.append(word)
        elif literal_first and not seen_bare:
            shape.append(word)
            seen_bare = True
        else:
            shape.append("?")
            seen_bare = True
    return tuple(shape)


def _escaped(path: str) -> str:
    """``path`` as a glob that matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", path)
