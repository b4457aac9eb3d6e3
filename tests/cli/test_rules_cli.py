"""Rules, ``foehn explain``, ``foehn rules``, hooks and custom commands as people use them: the
real ``foehn`` process, the scripted model server on 127.0.0.1, real workspaces, programs in
the real sandbox. The person's config is ``config.toml`` under the test's own XDG folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.harness import events, foehn
from foehn_lsp.testing import ModelServer, Turn

pytestmark = pytest.mark.process

NEVER_PUSH = """# my rules
[[rules]]
tool = "*"
program = "git"
args = ["push", "*"]
decision = "deny"
message = "Never push from Foehn."
"""


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


def config(state: Path, text: str) -> Path:
    """Write the person's config.toml (where ``foehn`` looks under the test's XDG folder)."""
    path = state / "config" / "foehn" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def tool_results(body: dict[str, Any]) -> list[str]:
    """What the model was told its calls returned, in order."""
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def command(*argv: str) -> tuple[str, dict[str, Any]]:
    return ("run_command", {"command": list(argv)})


@pytest.fixture
def repo(root: Path) -> Path:
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.email", "t@example.invalid"],
        ["config", "user.name", "t"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)
    (root / "a.txt").write_text("a\n")
    return root


def test_a_deny_on_git_push_holds_while_git_status_runs(
    server: ModelServer, repo: Path, state: Path
) -> None:
    config(state, NEVER_PUSH)
    server.script(
        Turn(tool_calls=[command("git", "push", "origin", "main"), command("git", "status")]),
        Turn(tool_calls=[command("env", "git", "-C", ".", "push", "--force")]),
        Turn(text="done"),
    )
    done = foehn(
        "run", "push it", "--workspace", str(repo), "--approve", "all", "--json",
        server=server, state=state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    stream = events(done.stdout)
    approvals = [
        (e["tool"], e["decision"], e["reason"]) for e in stream if e["event"] == "approval"
    ]
    rule = f"rule {state}/config/foehn/config.toml:2"
    assert approvals == [
        ("run_command", "deny", rule),
        ("run_command", "allow", "policy"),
        ("run_command", "deny", rule),
    ]
    first, second = tool_results(server.requests[1].body)
    assert "Never push from Foehn." in first
    assert "not run" in first
    assert "a.txt" in second  # git status ran and saw the untracked file
    [third] = tool_results(server.requests[2].body)[2:]
    assert "Never push from Foehn." in third


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_an_allow_on_npm_test_runs_it_unasked_inside_workspace_write(
    server: ModelServer, root: Path, state: Path
) -> None:
    config(
        state,
        '[[rules]]\ntool = "run_command"\nprogram = "npm"\nargs = ["test"]\n'
        'decision = "allow"\nsandbox = "workspace-write"\n',
    )
    script = "require('fs').writeFileSync('tested.txt', 'yes')"
    (root / "package.json").write_text(
        json.dumps({"name": "t", "version": "1.0.0", "scripts": {"test": f'node -e "{script}"'}})
    )
    server.script(
        Turn(tool_calls=[command("npm", "test")]),
        Turn(tool_calls=[command("npm", "test", "--", "--watch")]),
        Turn(text="done"),
    )
    done = foehn(
        "run", "test", "--workspace", str(root), "--approve", "never", "--json",
        server=server, state=state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (root / "tested.txt").read_text() == "yes"
    approvals = [
        (e["decision"], e["reason"]) for e in events(done.stdout) if e["event"] == "approval"
    ]
    assert approvals == [
        ("allow", f"rule {state}/config/foehn/config.toml:1"),
        ("deny", "--approve never"),  # more than the rule's shape: asked, and --approve never
    ]
    [result] = tool_results(server.requests[1].body)
    assert "sandbox workspace-write" in result


def test_always_saves_the_narrow_rule_and_a_later_rm_rf_still_asks(
    server: ModelServer, root: Path, state: Path
) -> None:
    path = config(state, '# my settings\nmodel = "test-model"\n')
    (root / "keep").mkdir()
    server.script(
        Turn(tool_calls=[command("touch", "notes.txt")]),
        Turn(tool_calls=[command("touch", "other.txt")]),
        Turn(tool_calls=[command("rm", "-rf", "keep")]),
        Turn(text="done"),
    )
    done = foehn(
        "run", "work", "--workspace", str(root), "--approve", "ask",
        server=server, state=state, stdin="?\ns\ny\nn\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "decision  ask" in done.stderr  # the "why"
    assert "This rule would be saved to your config.toml:" in done.stderr
    saved = tomllib.loads(path.read_text())["rules"]
    assert saved == [
        {
            "tool": "run_command",
            "program": "touch",
            "args": ["?"],
            "decision": "allow",
            "sandbox": "workspace-write",
        }
    ]
    assert path.read_text().startswith('# my settings\nmodel = "test-model"\n')
    assert (root / "notes.txt").exists()
    assert (root / "other.txt").exists()  # the saved rule allowed it, unasked
    assert (root / "keep").is_dir()  # rm -rf was asked about, and refused
    assert done.stderr.count("Foehn wants to run") == 2
    assert "1 call denied" in done.stderr.splitlines()[-1]


def test_explain_prints_the_pinned_object_and_every_conflicting_rule(
    root: Path, state: Path
) -> None:
    path = config(
        state,
        '[[rules]]\ntool = "run_command"\nprogram = "touch"\ndecision = "allow"\n'
        'sandbox = "workspace-write"\n\n'
        '[[rules]]\ntool = "*"\nprogram = "touch"\nargs = ["secret.txt"]\ndecision = "deny"\n'
        'message = "not that file"\n',
    )
    done = foehn(
        "explain", "--json", "--workspace", str(root), "--", "touch", "secret.txt", state=state
    )
    assert done.returncode == 0, done.stderr
    explained = json.loads(done.stdout)
    assert list(explained) == [
        "decision",
        "rule",
        "source",
        "risk",
        "sandbox",
        "network",
        "remembered",
    ]
    assert explained["network"] == []  # no [sandbox] network: the call would reach nothing
    assert explained["decision"] == "deny"
    assert explained["source"] == f"{path}:7"
    assert explained["risk"] == "write"
    assert explained["sandbox"] == "workspace-write"
    assert explained["remembered"] is None
    assert explained["rule"]["message"] == "not that file"
    [conflict] = explained["rule"]["conflicts"]
    assert conflict["source"] == f"{path}:1"
    assert conflict["decision"] == "allow"
    assert conflict["applied"] is False
    allowed = json.loads(
        foehn("explain", "--json", "--workspace", str(root), "--", "touch", "x", state=state).stdout
    )
    assert (allowed["decision"], allowed["source"], allowed["sandbox"]) == (
        "allow",
        f"{path}:1",
        "workspace-write",
    )
    asked = json.loads(
        foehn(
            "explain", "--json", "--workspace", str(root), "--tool", "write_file",
            "--args", '{"path": "docs/a.md", "content": "x"}', state=state,
        ).stdout
    )  # fmt: skip
    assert (asked["decision"], asked["source"], asked["rule"]) == ("ask", "default", None)
    assert asked["remembered"] == {
        "run": "write_file calls, at risk write",
        "always": {
            "tool": "write_file",
            "program": None,
            "args": None,
            "paths": ["docs/a.md"],
            "decision": "allow",
            "sandbox": "workspace-write",
            "message": None,
            "source": "",
        },
    }
    table = json.loads(
        foehn(
            "explain", "--json", "--workspace", str(root), "--", "git", "status", state=state
        ).stdout
    )
    assert (table["decision"], table["source"], table["risk"]) == ("allow", "table", "read_only")
    human = foehn("explain", "--workspace", str(root), "--", "touch", "secret.txt", state=state)
    assert "decision  deny" in human.stdout
    assert "message   not that file" in human.stdout
    assert f"conflict  {path}:1" in human.stdout


def test_explain_reports_bad_input_in_one_line(root: Path, state: Path) -> None:
    path = config(state, '[[rules]]\ntool = "run_command"\ndecison = "deny"\n')
    done = foehn("explain", "--workspace", str(root), "--", "ls", state=state)
    assert done.returncode == 0
    assert f"{path}:3: rules.decison: unknown key; did you mean 'decision'?" in done.stderr
    unknown = foehn("explain", "--tool", "write_fle", "--args", "{}", state=state)
    assert unknown.returncode == 2
    assert "unknown tool 'write_fle'" in unknown.stderr
    invalid = foehn("explain", "--tool", "write_file", "--args", '{"path": 1}', state=state)
    assert invalid.returncode == 2
    assert "invalid arguments for write_file" in invalid.stderr
    assert foehn("explain", state=state).returncode == 2


def test_rules_add_list_and_remove_keep_the_rest_of_the_file(root: Path, state: Path) -> None:
    path = config(state, '# keep me\nmodel = "m"  # and me\n')
    added = foehn("rules", "add", "deny", "--message", "no", "--", "git", "push", "*", state=state)
    assert added.returncode == 0, added.stderr
    assert f"added at {path}:4: deny run_command git push *" in added.stderr
    foehn("rules", "add", "allow", "--tool", "write_file", "--path", "docs/**", state=state)
    listed = json.loads(
        foehn("rules", "list", "--json", "--workspace", str(root), state=state).stdout
    )
    assert [(r["number"], r["decision"], r["tool"]) for r in listed["rules"]] == [
        (1, "deny", "run_command"),
        (2, "allow", "write_file"),
    ]
    assert listed["warnings"] == [
        f"{path}:11: this allow lets write_file write nothing unasked: "
        'add sandbox = "workspace-write" to allow its writes'
    ]
    removed = foehn("rules", "remove", "1", state=state)
    assert removed.returncode == 0, removed.stderr
    text = path.read_text()
    assert text.startswith('# keep me\nmodel = "m"  # and me\n')
    assert "git" not in text
    assert foehn("rules", "remove", "5", state=state).returncode == 1
    bad = foehn("rules", "add", "allow", "--sandbox", "full", "--", "/bin/rm", state=state)
    assert bad.returncode == 2
    assert "program" in bad.stderr
    assert path.read_text() == text


def hook_config(event: str, code: str, **more: Any) -> str:
    extra = "".join(f"{key} = {json.dumps(value)}\n" for key, value in more.items())
    command = json.dumps(["python3", "-c", code])
    return f'[[hooks]]\nevent = "{event}"\ntools = ["run_command"]\ncommand = {command}\n{extra}'


NO_RM = (
    "import json, sys; call = json.load(sys.stdin); "
    "argv = call['arguments']['command']; "
    "print(json.dumps({'decision': 'deny', 'message': 'rm is off limits; use the trash folder'} "
    "if argv[0] == 'rm' else {}))"
)


def test_a_pre_tool_hook_denies_rm_with_a_message_the_model_receives(
    server: ModelServer, root: Path, state: Path
) -> None:
    config(state, hook_config("pre_tool", NO_RM))
    (root / "x.txt").write_text("x")
    server.script(
        Turn(tool_calls=[command("rm", "x.txt"), command("echo", "hello")]), Turn(text="ok")
    )
    done = foehn(
        "run", "clean", "--workspace", str(root), "--approve", "all",
        server=server, state=state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (root / "x.txt").exists()
    removed, echoed = tool_results(server.requests[1].body)
    assert "rm is off limits; use the trash folder" in removed
    assert "hello" in echoed


def test_a_hook_that_sleeps_past_its_timeout_denies(
    server: ModelServer, root: Path, state: Path
) -> None:
    config(state, hook_config("pre_tool", "import time; time.sleep(120)", timeout_s=1))
    server.script(Turn(tool_calls=[command("touch", "made.txt")]), Turn(text="ok"))
    done = foehn(
        "run", "touch", "--workspace", str(root), "--approve", "all",
        server=server, state=state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not (root / "made.txt").exists()
    [result] = tool_results(server.requests[1].body)
    assert "did not finish within 1 s" in result


def test_a_post_tool_hooks_note_reaches_the_model(
    server: ModelServer, root: Path, state: Path
) -> None:
    note = "import json; print(json.dumps({'note': 'remember to run the linter'}))"
    config(state, hook_config("post_tool", note))
    server.script(Turn(tool_calls=[command("echo", "hi")]), Turn(text="ok"))
    done = foehn(
        "run", "say hi", "--workspace", str(root), "--approve", "all",
        server=server, state=state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [result] = tool_results(server.requests[1].body)
    assert "hi" in result
    assert result.endswith("remember to run the linter")


def test_a_custom_command_becomes_a_slash_command_in_chat(
    server: ModelServer, root: Path, state: Path
) -> None:
    commands = state / "config" / "foehn" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS for bugs.\n"
    )
    (commands / "undo.md").write_text("shadowed by the built-in\n")
    server.script(Turn(text="Looks fine."))
    done = foehn(
        "chat", "--workspace", str(root), server=server, state=state,
        stdin="/help\n/review app.py\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "/review FILE" in done.stderr
    assert "Review a file" in done.stderr
    assert "undo.md: /undo is a built-in command" in done.stderr
    users = [m["content"] for m in server.requests[0].body["messages"] if m["role"] == "user"]
    assert users == ["Review app.py for bugs."]
    assert "Looks fine." in done.stdout
