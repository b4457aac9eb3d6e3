"""Every front end's question names the domains a call may reach: the terminal, the editor's
confirm request and its message fallback, ACP's permission request, and the MCP elicitation
(which asks in ``ApprovalRequest.describe``'s words)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from foehn_lsp.acp.convert import permission_tool_call
from foehn_lsp.cli.terminal import TerminalApprover
from foehn_lsp.lsp.convert import confirm_params, message_request
from foehn_lsp.policy.approval import ApprovalRequest
from foehn_lsp.workspace import Workspace

REQUEST = ApprovalRequest(
    call_id="c1",
    tool="run_command",
    arguments={"command": ["npm", "ci"]},
    risk="write",
    program="npm",
    sandbox="workspace-write",
    remember="run_command calls that run `npm`, at risk write, in the workspace-write sandbox",
    network=("registry.example", "*.example.org:8443"),
)
SAID = "registry.example, *.example.org:8443 (and nothing else on the network)"


def test_the_description_every_front_end_can_fall_back_on() -> None:
    assert f"which may reach {SAID}," in REQUEST.describe()


def test_the_terminal_shows_it() -> None:
    out = io.StringIO()
    TerminalApprover(Console(file=out, width=200)).show(REQUEST)
    assert f"It may reach {SAID}." in out.getvalue()


def test_the_editor_gets_it_in_the_confirm_request_and_the_message() -> None:
    assert confirm_params("run-1", REQUEST)["network"] == [
        "registry.example",
        "*.example.org:8443",
    ]
    assert SAID in message_request(REQUEST).message


def test_acp_shows_it_in_the_permission_request(tmp_path: Path) -> None:
    update = permission_tool_call(REQUEST, Workspace([tmp_path]))
    texts = [block.content.text for block in update.content or [] if hasattr(block, "content")]
    assert f"It may reach {SAID}." in texts


def test_a_call_that_reaches_nothing_says_nothing_of_it() -> None:
    quiet = ApprovalRequest(call_id="c2", tool="write_file", arguments={}, risk="write")
    assert "may reach" not in quiet.describe()
    assert confirm_params("run-1", quiet)["network"] == []
