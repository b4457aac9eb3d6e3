"""Rules, ``foehn.explain``, the rules and commands lists, and "always" through the language
server: a real client over stdio, the scripted model server, real files and the real sandbox.
The person's config is ``config/foehn/config.toml`` beside the workspace (the harness's XDG
folder)."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import lsp_client, run

pytestmark = pytest.mark.process


def user_config(root: Path, text: str = "") -> Path:
    path = root.parent / "config" / "foehn" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


async def command(client: Any, name: str, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments))
    )


def call(*argv: str) -> tuple[str, dict[str, Any]]:
    return ("run_command", {"command": list(argv)})


@pytest.fixture
def repo(root: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=60)
    (root / "a.txt").write_text("a\n")
    return root


async def test_a_deny_on_git_push_holds_while_git_status_runs(
    repo: Path, model: ModelServer
) -> None:
    root = repo
    path = user_config(
        root,
        '[[rules]]\ntool = "*"\nprogram = "git"\nargs = ["push", "*"]\ndecision = "deny"\n'
        'message = "Never push from Foehn."\n',
    )
    model.script(
        Turn(tool_calls=[call("/usr/bin/git", "push", "origin"), call("git", "status")]),
        Turn(text="done"),
    )
    confirmations: list[Any] = []
    events: list[Any] = []
    async with lsp_client(root, model, init_options={"confirmRequest": True}) as client:

        @client.feature("foehn/confirm")
        def confirm(params: Any) -> dict[str, str]:
            confirmations.append(params)
            return {"decision": "allowRun"}  # the worst case: the person allows whatever is asked

        client.feature("foehn/runEvent")(lambda params: events.append(params))
        result = await run(client, "push")
    assert result["stopReason"] == "answer"
    assert confirmations == []  # the push was refused without asking; status needs no asking
    approvals = [(e.tool, e.decision, e.reason) for e in events if e.event == "approval"]
    assert approvals == [
        ("run_command", "deny", f"rule {path}:1"),
        ("run_command", "allow", "policy"),
    ]
    told = [m["content"] for m in model.requests[1].body["messages"] if m["role"] == "tool"]
    assert "Never push from Foehn." in told[0]
    assert "a.txt" in told[1]


async def test_explain_rules_and_commands_over_the_protocol(root: Path, model: ModelServer) -> None:
    path = user_config(
        root,
        '# mine\n[[rules]]\ntool = "run_command"\nprogram = "touch"\ndecision = "allow"\n'
        'sandbox = "workspace-write"\n',
    )
    commands = path.parent / "commands"
    commands.mkdir()
    (commands / "review.md").write_text("---\nargument-hint: FILE\n---\nReview $ARGUMENTS.\n")
    async with lsp_client(root, model) as client:
        explained = await command(
            client,
            "foehn.explain",
            {"tool": "run_command", "arguments": {"command": ["touch", "x"]}},
        )
        assert list(explained) == [
            "decision",
            "rule",
            "source",
            "risk",
            "sandbox",
            "network",
            "remembered",
        ]
        assert explained["network"] == []
        assert (explained["decision"], explained["source"]) == ("allow", f"{path}:2")
        asked = await command(
            client,
            "foehn.explain",
            {"tool": "write_file", "arguments": {"path": "n.md", "content": ""}},
        )
        assert asked["decision"] == "ask"
        assert asked["remembered"]["always"]["paths"] == ["n.md"]
        with pytest.raises(JsonRpcException, match="unknown tool 'nope'"):
            await command(client, "foehn.explain", {"tool": "nope", "arguments": {}})
        with pytest.raises(JsonRpcException, match=r"foehn.explain takes \[\{tool, arguments\}\]"):
            await command(client, "foehn.explain", "run_command")

        added = await command(
            client,
            "foehn.rules.add",
            {
                "rule": {
                    "tool": "run_command",
                    "program": "git",
                    "args": ["push", "*"],
                    "decision": "deny",
                }
            },
        )
        assert added["rule"]["source"] == f"{path}:8"
        with pytest.raises(JsonRpcException, match=r"rules\.decision: required"):
            await command(client, "foehn.rules.add", {"rule": {"tool": "x", "decision": "later"}})
        listed = await command(client, "foehn.rules.list")
        assert [(r["number"], r["program"], r["origin"]) for r in listed["rules"]] == [
            (1, "touch", "user"),
            (2, "git", "user"),
        ]
        assert listed["file"] == str(path)
        removed = await command(client, "foehn.rules.remove", {"number": 1})
        assert 'program = "touch"' in removed["removed"]
        assert path.read_text().startswith("# mine\n")
        with pytest.raises(JsonRpcException, match=r"there is no rule 7"):
            await command(client, "foehn.rules.remove", {"number": 7})

        listed_commands = await command(client, "foehn.commands.list")
        assert listed_commands["commands"] == [
            {
                "name": "review",
                "description": "Review $ARGUMENTS.",
                "hint": "FILE",
                "source": str(commands / "review.md"),
            }
        ]
        model.script(Turn(text="Reviewed."))
        result = await run(client, "/review app.py")
    assert result["answer"] == "Reviewed."
    users = [m["content"] for m in model.requests[0].body["messages"] if m["role"] == "user"]
    assert users[0].startswith("Review app.py.")


async def test_the_confirm_request_proposes_a_rule_that_allow_always_saves(
    root: Path, model: ModelServer
) -> None:
    path = user_config(root)
    (root / "keep").mkdir()
    model.script(
        Turn(tool_calls=[call("touch", "a.txt")]),
        Turn(tool_calls=[call("touch", "b.txt")]),
        Turn(tool_calls=[call("rm", "-rf", "keep")]),
        Turn(text="done"),
    )
    asked: list[Any] = []
    async with lsp_client(root, model, init_options={"confirmRequest": True}) as client:

        @client.feature("foehn/confirm")
        def confirm(params: Any) -> dict[str, str]:
            asked.append(params)
            return {"decision": "allowAlways" if len(asked) == 1 else "deny"}

        await run(client, "touch things")
    first, second = asked
    assert first.proposedRule.program == "touch"
    assert first.proposedRule.args == ["?"]
    assert first.why.decision == "ask"
    assert first.why.remembered.always.program == "touch"
    assert second.arguments.command == ["rm", "-rf", "keep"]
    assert tomllib.loads(path.read_text())["rules"] == [
        {
            "tool": "run_command",
            "program": "touch",
            "args": ["?"],
            "decision": "allow",
            "sandbox": "workspace-write",
        }
    ]
    assert (root / "a.txt").exists()
    assert (root / "b.txt").exists()  # allowed by the saved rule, unasked
    assert (root / "keep").is_dir()
