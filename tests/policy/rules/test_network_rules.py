"""The network in the person's say: a rule's ``network`` for a program shape, what a call with a
network may do unasked (nothing, unless a rule or the grant allows it), what the person is
shown and what "for this run" remembers, through the real registry chain and the real gate."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import prepare, steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.policy.approval import (
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Approved,
    Denied,
)
from foehn_lsp.policy.guards import Guards, TurnGuards
from foehn_lsp.policy.rules.explain import describe, explain_call
from foehn_lsp.policy.rules.ruleset import parse_rules
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.registry import Handler, Invocation
from policy.gated import gated


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    """The user's config.toml (its [sandbox] table and its rules)."""
    folder = tmp_path / "xdg"
    (folder / "foehn").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    path = folder / "foehn" / "config.toml"

    def write(text: str) -> Path:
        path.write_text(text)
        return path

    return write


ALLOW_TOUCH = (
    '[[rules]]\ntool = "run_command"\nprogram = "touch"\nargs = ["t.txt"]\ndecision = "allow"\n'
    'sandbox = "workspace-write"\n'
)


def test_a_rules_network_is_for_an_allowed_program_shape_run_workspace_write() -> None:
    text = (
        ALLOW_TOUCH + 'network = ["registry.example", "*.files.example"]\n\n'
        '[[rules]]\ntool = "run_command"\nprogram = "curl"\ndecision = "deny"\n'
        'network = ["a.example"]\n\n'
        '[[rules]]\ntool = "run_command"\nprogram = "npm"\ndecision = "allow"\n'
        'network = ["a.example"]\n\n'
        '[[rules]]\ntool = "fetch"\ndecision = "allow"\nsandbox = "workspace-write"\n'
        'network = ["a.example"]\n\n'
        + ALLOW_TOUCH
        + 'network = [\n  "ok.example",\n  "10.0.0.1",\n]\n'
    )
    rules, problems = parse_rules(text, "config.toml")
    assert [[d.shown() for d in r.network] for r in rules] == [
        ["registry.example", "*.files.example"]
    ]
    assert problems == [
        "config.toml:13: rules.network: grants domains to the program shape of an allow rule",
        "config.toml:19: rules.network: a program reaches the network only in the "
        'workspace-write sandbox: add sandbox = "workspace-write"',
        "config.toml:25: rules.network: grants domains to the program shape of an allow rule",
        "config.toml:35: rules.network: '10.0.0.1': an address, not a domain name: grant the "
        "name the program asks for; it is not granted",
    ]
    assert "network = [" in rules[0].toml()
    assert rules[0].json()["network"] == [
        "registry.example",
        "*.files.example",
    ]


def test_a_workspace_can_never_grant_the_network() -> None:
    rules, problems = parse_rules(
        ALLOW_TOUCH + 'network = ["registry.example"]\n', ".foehn/rules.toml", workspace=True
    )
    assert rules == []
    assert problems == [
        ".foehn/rules.toml:7: rules.network: a workspace's rules cannot grant the network; "
        "only your config"
    ]


class Person:
    def __init__(self, decision: ApprovalDecision) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.decision


async def _through_gate(
    registry: ToolRegistry,
    ctx: ToolContext,
    path: Path,
    calls: list[tuple[str, dict[str, Any]]],
    *,
    decision: ApprovalDecision | None = None,
    policy: dict[str, Any] | None = None,
) -> tuple[Person, list[Invocation], list[ToolResult]]:
    person = Person(decision or Denied(reason="no"))
    guards = TurnGuards(guards=Guards(path, ctx.workspace.root, trusted=False))
    assert not guards.guards.rules.problems
    gate = ApprovalGate(ApprovalSettings(**(policy or {})), person, lambda e: None, guards)
    ran: list[Invocation] = []

    async def seen(invocation: Invocation, next_step: Handler) -> ToolResult:
        ran.append(invocation)
        return ToolResult.success("(not run here)")

    results = [
        await registry.call(
            tool, json.dumps(args), ctx, call_id=str(n), steps=(*steps(gated(gate)), seen)
        )
        for n, (tool, args) in enumerate(calls)
    ]
    return person, ran, results


TOUCH = ("run_command", {"command": ["touch", "t.txt"]})
READ = ("run_command", {"command": ["git", "--version"]})


async def test_without_a_grant_nothing_changes(
    registry: ToolRegistry, ctx: ToolContext, config: Callable[[str], Path]
) -> None:
    path = config("")
    person, ran, _ = await _through_gate(
        registry, ctx, path, [TOUCH, READ], policy={"write": "allow"}
    )
    assert person.asked == []
    assert [i.scope.network for i in ran] == [(), ()]


async def test_a_call_that_may_reach_the_network_asks_and_shows_where(
    registry: ToolRegistry, ctx: ToolContext, config: Callable[[str], Path]
) -> None:
    path = config('[sandbox]\nnetwork = ["registry.example", "*.example.org:8443"]\n')
    person, ran, _ = await _through_gate(
        registry, ctx, path, [TOUCH, READ], policy={"write": "allow"}
    )
    (request,) = person.asked  # the policy allows writes, but not a way out
    assert request.network == ("registry.example", "*.example.org:8443")
    assert "which may reach registry.example, *.example.org:8443" in request.describe()
    assert request.why is not None
    assert [d["domain"] for d in request.why["network"]] == [
        "registry.example",
        "*.example.org:8443",
    ]
    assert "reaching registry.example" in request.remember
    (read,) = ran  # the read-only call ran, without the network
    assert read.scope.sandbox == "read-only"
    assert read.scope.network == ()


async def test_an_allow_rule_runs_it_unasked_with_its_own_network_added(
    registry: ToolRegistry, ctx: ToolContext, config: Callable[[str], Path]
) -> None:
    path = config(
        '[sandbox]\nnetwork = ["registry.example"]\n\n'
        + ALLOW_TOUCH
        + 'network = ["files.example:8080"]\n'
    )
    person, ran, _ = await _through_gate(registry, ctx, path, [TOUCH])
    assert person.asked == []
    (call,) = ran
    assert call.scope.sandbox == "workspace-write"
    assert [d.shown() for d in call.scope.network] == ["registry.example", "files.example:8080"]
    assert [d.source for d in call.scope.network] == [f"{path}:2", f"{path}:10"]


async def test_for_this_run_remembers_the_network_it_was_shown(
    registry: ToolRegistry, ctx: ToolContext, config: Callable[[str], Path]
) -> None:
    path = config('[sandbox]\nnetwork = ["registry.example"]\n')
    person, ran, _ = await _through_gate(
        registry, ctx, path, [TOUCH, TOUCH], decision=Approved(scope="run")
    )
    assert len(person.asked) == 1
    assert len(ran) == 2


async def test_fetch_runs_unasked_only_for_a_granted_site(
    registry: ToolRegistry, ctx: ToolContext, config: Callable[[str], Path]
) -> None:
    path = config('[sandbox]\nnetwork = ["*.example.org"]\n')
    granted = ("fetch", {"url": "https://docs.example.org/page"})
    other = ("fetch", {"url": "https://elsewhere.example/?q=secret"})
    person, ran, _ = await _through_gate(registry, ctx, path, [granted, other])
    assert [i.arguments.url for i in ran] == ["https://docs.example.org/page"]
    assert ran[0].risk.value == "write"
    assert ran[0].scope.granted == f"{path}:2"
    (request,) = person.asked
    assert request.outside == "elsewhere.example (a site you have not granted)"
    assert request.network == ("elsewhere.example",)


async def test_explain_shows_the_network_a_call_would_get(
    registry: ToolRegistry, ctx: ToolContext, config: Callable[[str], Path]
) -> None:
    path = config('[sandbox]\nnetwork = ["registry.example"]\n')
    guards = Guards(path, ctx.workspace.root, trusted=False)

    async def explained(arguments: dict[str, Any]) -> dict[str, Any]:
        prepared = await prepare(registry, "run_command", arguments, ctx.workspace)
        return explain_call(prepared, policy=ApprovalSettings(), rules=guards.rules)

    npm = await explained({"command": ["npm", "ci"]})
    assert npm["network"] == [{"domain": "registry.example", "source": f"{path}:2"}]
    assert "network   registry.example" in describe(npm)
    read = await explained({"command": ["git", "--version"]})
    assert read["network"] == []
    assert "network   none" in describe(read)
