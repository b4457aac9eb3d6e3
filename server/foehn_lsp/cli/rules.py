"""``foehn explain`` and ``foehn rules``: why a call would be allowed, asked about or denied,
and the rules that say so.

    foehn explain [--json] [--workspace DIR] -- PROGRAM ARGS…
    foehn explain [--json] [--workspace DIR] --tool NAME --args JSON
    foehn rules list [--json] [--workspace DIR]
    foehn rules add DECISION [--tool NAME] [--path GLOB]… [--sandbox POLICY] [--message TEXT]
                    [-- PROGRAM ARGS…]
    foehn rules remove N

``explain`` prepares the call as a run would (``agent.chain.prepare``) and decides it (nothing
runs, no hook is asked) and prints the ``policy.rules.explain`` object. ``rules`` edits the
``[[rules]]`` tables of the user's ``config.toml`` and leaves the rest of the file as it was.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from foehn_lsp.agent.chain import prepare
from foehn_lsp.cli.args import EXIT_OK, UsageError, folder
from foehn_lsp.config import load_settings, user_config_file
from foehn_lsp.errors import ToolInputError
from foehn_lsp.policy.guards import load
from foehn_lsp.policy.rules.explain import describe, explain_call
from foehn_lsp.policy.rules.match import known_spellings
from foehn_lsp.policy.rules.ruleset import DECISIONS, Rule, RuleSet, parse_rules
from foehn_lsp.policy.rules.store import append_rule, listed, remove_rule
from foehn_lsp.sandbox.policy import SANDBOX_ORDER
from foehn_lsp.sessions.builder import load_tools
from foehn_lsp.workspace import Workspace


def explain_command(args: argparse.Namespace) -> int:
    root = folder(args.workspace)
    if args.tool is None and not args.argv:
        raise UsageError("give a command after -- (foehn explain -- git push) or --tool NAME")
    if args.tool is not None and args.argv:
        raise UsageError("give either a command after -- or --tool NAME --args JSON, not both")
    tool = args.tool or "run_command"
    if args.tool is None:
        arguments: Any = {"command": args.argv}
    else:
        try:
            arguments = json.loads(args.args) if args.args else {}
        except json.JSONDecodeError as exc:
            raise UsageError(f"--args is not JSON: {exc}") from None
    settings = load_settings()
    # MCP servers are started only to explain one of their tools.
    found = load_tools(settings, root, lazy=False, servers=tool.startswith("mcp__"))
    try:
        rules = load(user_config_file(), root, trusted=settings.trust_workspace).rules
        prepared = asyncio.run(prepare(found.registry, tool, arguments, Workspace([root])))
        explained = explain_call(prepared, policy=settings.approval, rules=rules)
    except ToolInputError as exc:
        raise UsageError(str(exc)) from None
    finally:
        if found.servers is not None:
            found.servers.close()
    for problem in rules.problems:
        print(f"foehn: {problem}", file=sys.stderr)
    if args.json:
        json.dump(explained, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        print(describe(explained))
    return EXIT_OK


def rules_command(args: argparse.Namespace) -> int:
    user_file = user_config_file()
    if args.action == "list":
        return _list(args, user_file)
    if args.action == "add":
        return _add(args, user_file)
    number = args.number
    removed = remove_rule(user_file, number)
    print(f"removed rule {number} from {user_file}:", file=sys.stderr)
    print(removed.rstrip())
    return EXIT_OK


def _list(args: argparse.Namespace, user_file: Path) -> int:
    root = folder(args.workspace)
    settings = load_settings()
    loaded = load(user_file, root, trusted=settings.trust_workspace)
    found = load_tools(settings, root, servers=False)
    warnings = loaded.rules.warnings({tool.name: tool.risk for tool in found.registry})
    rows = listed(loaded.rules, user_file)
    if args.json:
        json.dump(
            {
                "file": str(user_file),
                "rules": rows,
                "problems": [*loaded.rules.problems, *loaded.hooks.problems],
                "warnings": warnings,
            },
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        print()
    else:
        for row, rule in zip(rows, loaded.rules.rules, strict=True):
            number = f"{row['number']:>3}" if row["number"] is not None else "  -"
            print(f"{number}  {rule.describe():<60}  {rule.source}")
        if not rows:
            print(f"no rules in {user_file}", file=sys.stderr)
    for line in [*loaded.rules.problems, *loaded.hooks.problems, *warnings]:
        print(f"foehn: {line}", file=sys.stderr)
    return EXIT_OK


def _add(args: argparse.Namespace, user_file: Path) -> int:
    table: dict[str, Any] = {"tool": args.tool or ("run_command" if args.argv else None)}
    if table["tool"] is None:
        raise UsageError("name the tool (--tool NAME) or give a program after --")
    if args.argv:
        table["program"] = args.argv[0]
        if len(args.argv) > 1:
            table["args"] = args.argv[1:]
    if args.path:
        table["paths"] = args.path
    table["decision"] = args.decision
    if getattr(args, "sandbox", None):
        table["sandbox"] = args.sandbox
    if getattr(args, "message", None):
        table["message"] = args.message
    text = "[[rules]]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in table.items())
    rules, problems = parse_rules(text, "the new rule")
    if problems:
        raise UsageError("; ".join(p.removeprefix("the new rule:1: ") for p in problems))
    saved = append_rule(user_file, rules[0])
    print(f"added at {saved.source}: {saved.describe()}", file=sys.stderr)
    _warn(saved)
    return EXIT_OK


def _warn(rule: Rule) -> None:
    """What the person should know about a rule they just wrote."""
    settings = load_settings()
    root = Path.cwd()
    found = load_tools(settings, root, servers=False)
    for warning in RuleSet(rules=(rule,)).warnings({t.name: t.risk for t in found.registry}):
        print(f"foehn: {warning}", file=sys.stderr)
    options = [a for a in rule.args or () if a.startswith("-") and len(a) > 1]
    subcommand = next((a for a in rule.args or () if not a.startswith("-")), None)
    if rule.program and options and not known_spellings(rule.program, subcommand):
        print(
            f"foehn: Foehn does not know other spellings of {rule.program}'s "
            f"{', '.join(options)}; if one has a long or short twin, add a rule for it too",
            file=sys.stderr,
        )


def add_parsers(commands: Any) -> None:
    """``explain`` and ``rules``, as DESIGN.md's CLI block names them."""
    explain = commands.add_parser(
        "explain",
        help="why a call would be allowed, asked about or denied",
        description="Why a call would be allowed, asked about or denied: the rule or table "
        "entry that decides, the risk, the sandbox, and what the person would be asked.",
    )
    explain.add_argument("argv", nargs="*", metavar="PROGRAM ARGS", help="after --")
    explain.add_argument("--tool", metavar="NAME", help="a tool other than run_command")
    explain.add_argument("--args", metavar="JSON", help="the tool's arguments, as JSON")
    explain.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    explain.add_argument("--json", action="store_true", help="the explanation as JSON")
    explain.set_defaults(handler=explain_command)

    rules = commands.add_parser("rules", help="list, add or remove your rules")
    actions = rules.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="every rule in force, with where it is written")
    listing.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    listing.add_argument("--json", action="store_true", help="as JSON")
    add = actions.add_parser("add", help="add a rule to your config.toml")
    decisions = add.add_subparsers(dest="decision", required=True, metavar="DECISION")
    for decision in DECISIONS:
        one = decisions.add_parser(decision, help=f"a rule that says {decision}")
        one.add_argument("argv", nargs="*", metavar="PROGRAM ARGS", help="after --")
        one.add_argument("--tool", metavar="NAME", help="default: run_command for a program")
        one.add_argument("--path", action="append", metavar="GLOB", help="a path glob")
        if decision == "allow":
            one.add_argument("--sandbox", choices=SANDBOX_ORDER, help="what the program may do")
        else:
            one.add_argument("--message", metavar="TEXT", help="what the model reads")
    remove = actions.add_parser("remove", help="remove rule N (as rules list numbers it)")
    remove.add_argument("number", type=int, metavar="N")
    rules.set_defaults(handler=rules_command)
