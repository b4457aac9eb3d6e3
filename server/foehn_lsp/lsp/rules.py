"""Rules, ``explain`` and custom commands for editors (shapes: ``lsp.table``).

``rules`` entries are the rule as ``foehn rules list --json`` shows it (``number`` is its
position in the user file, for ``foehn.rules.remove``; ``origin`` is ``user`` or
``workspace``); ``commands`` entries are ``{name, description, hint, source}``. A rule that does
not check out, or a file that cannot be written, is an error the person reads.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from foehn_lsp.errors import FoehnError
from foehn_lsp.lsp.arguments import BadArguments
from foehn_lsp.lsp.server import FoehnServer


async def explain(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.agent.chain import prepare
    from foehn_lsp.config import user_config_file
    from foehn_lsp.policy.guards import load
    from foehn_lsp.policy.rules.explain import CannotExplain, explain_call

    if (
        len(args) != 1
        or not isinstance(args[0], Mapping)
        or not isinstance(args[0].get("tool"), str)
    ):
        raise BadArguments("foehn.explain takes [{tool, arguments}]")
    await ls.ready()
    assert ls.tools is not None
    workspace = ls.opened()
    rules = (
        await asyncio.to_thread(
            load, user_config_file(), workspace.root, trusted=ls.settings.trust_workspace
        )
    ).rules
    try:
        prepared = await prepare(
            ls.tools.registry, args[0]["tool"], args[0].get("arguments", {}), workspace
        )
        return explain_call(prepared, policy=ls.settings.approval, rules=rules)
    except CannotExplain as exc:  # the call's arguments, not the request's: still bad ones
        raise BadArguments(str(exc)) from None


async def list_rules(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.config import user_config_file
    from foehn_lsp.policy.guards import load
    from foehn_lsp.policy.rules.store import listed

    await ls.ready()
    assert ls.tools is not None
    workspace = ls.opened()
    user_file = user_config_file()
    loaded = await asyncio.to_thread(
        load, user_file, workspace.root, trusted=ls.settings.trust_workspace
    )
    tools = {tool.name: tool.risk for tool in ls.tools.registry}
    return {
        "file": str(user_file),
        "rules": listed(loaded.rules, user_file),
        "problems": [*loaded.rules.problems, *loaded.hooks.problems],
        "warnings": loaded.rules.warnings(tools),
    }


async def add_rule(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.config import user_config_file
    from foehn_lsp.policy.rules.ruleset import RULE_KEYS, parse_rules
    from foehn_lsp.policy.rules.store import append_rule

    shape = (
        "foehn.rules.add takes "
        "[{rule: {tool, decision, program?, args?, paths?, sandbox?, message?}}]"
    )
    if (
        len(args) != 1
        or not isinstance(args[0], Mapping)
        or not isinstance(args[0].get("rule"), Mapping)
    ):
        raise BadArguments(shape)
    table = dict(args[0]["rule"])
    if not set(table) <= set(RULE_KEYS):
        raise BadArguments(f"{shape}; unknown keys {sorted(set(table) - set(RULE_KEYS))}")
    text = "[[rules]]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in table.items())
    rules, problems = parse_rules(text, "the rule")
    if problems:
        raise FoehnError("; ".join(p.removeprefix("the rule:") for p in problems))
    try:
        saved = await asyncio.to_thread(append_rule, user_config_file(), rules[0])
    except OSError as exc:
        raise FoehnError(str(exc)) from None
    return {"rule": saved.json()}


async def remove(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.config import user_config_file
    from foehn_lsp.policy.rules.store import remove_rule

    if (
        len(args) != 1
        or not isinstance(args[0], Mapping)
        or not isinstance(args[0].get("number"), int)
        or isinstance(args[0].get("number"), bool)
    ):
        raise BadArguments("foehn.rules.remove takes [{number}] (as foehn.rules.list numbers it)")
    try:
        removed = await asyncio.to_thread(remove_rule, user_config_file(), args[0]["number"])
    except OSError as exc:
        raise FoehnError(str(exc)) from None
    return {"removed": removed}


async def list_commands(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.sessions.commands import load_commands
    from foehn_lsp.slash import SESSION_COMMANDS

    await ls.ready()
    workspace = ls.opened()
    commands = await asyncio.to_thread(
        load_commands,
        workspace.root,
        trusted=ls.settings.trust_workspace,
        built_in=SESSION_COMMANDS,
    )
    servers = ls.tools.servers if ls.tools is not None else None
    prompts = servers.prompt_commands() if servers is not None else []
    return {
        "commands": [c.json() for c in commands.commands] + [p.json() for p in prompts],
        "problems": list(commands.problems),
    }
