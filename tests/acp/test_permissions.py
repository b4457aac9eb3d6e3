"""The ACP approver and the update stream, with a fake client at the seam (the end-to-end tests
drive the same paths through the real SDK): the order of what the client hears, what 'always'
remembers, and every way an answer can fail to come."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

from acp import schema
from acp.exceptions import RequestError
from acp.helpers import update_agent_message_text
from acp.interfaces import Client

from foehn_lsp.acp.permissions import ClientApprover
from foehn_lsp.acp.updates import UpdateStream
from foehn_lsp.policy.approval import ApprovalRequest, Approved, Denied
from foehn_lsp.workspace import Workspace


class SlowClient:
    """Takes its time over each update; answers permission requests from a script."""

    def __init__(self, answers: list[Any] | None = None) -> None:
        self.heard: list[str] = []
        self.answers = list(answers or [])

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        await asyncio.sleep(0.05)
        self.heard.append(f"update {update.content.text}")

    async def request_permission(self, session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        self.heard.append(f"asked {tool_call.tool_call_id}")
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        if answer == "never":
            await asyncio.Event().wait()
        if answer == "cancelled":
            return schema.RequestPermissionResponse(
                outcome=schema.DeniedOutcome(outcome="cancelled")
            )
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=answer)
        )


def request(call_id: str = "c1", risk: str = "write", program: str | None = None) -> Any:
    return ApprovalRequest(
        call_id=call_id,
        tool="run_command" if program else "edit_file",
        arguments={},
        risk=risk,
        program=program,
        sandbox="workspace-write" if program else None,
    )


def approver_for(root: Path, client: SlowClient, *, timeout: float = 60.0) -> Any:
    stream = UpdateStream(cast(Client, client), "s1")
    approver = ClientApprover(
        cast(Client, client), "s1", Workspace([root]), before_asking=stream.flush, timeout=timeout
    )
    return stream, approver


async def test_updates_go_out_in_order_and_before_the_question(root: Path) -> None:
    client = SlowClient(["allow_once"])
    stream, approver = approver_for(root, client)
    for text in ("one", "two", "three"):
        stream.put(update_agent_message_text(text))
    assert await approver.ask(request()) == Approved(scope="once")
    assert client.heard == ["update one", "update two", "update three", "asked c1"]
    await stream.close()


async def test_always_covers_exactly_the_same_scope_for_the_session(root: Path) -> None:
    client = SlowClient(["allow_always", "allow_once", "reject_always", "allow_once"])
    stream, approver = approver_for(root, client)
    assert await approver.ask(request("c1")) == Approved(scope="run")
    assert await approver.ask(request("c2")) == Approved(scope="run")  # not asked again
    assert await approver.ask(request("c3", risk="destructive")) == Approved(scope="once")
    touch = request("c4", program="touch")
    assert isinstance(await approver.ask(touch), Denied)
    assert isinstance(await approver.ask(request("c5", program="touch")), Denied)
    assert await approver.ask(request("c6", program="ls")) == Approved(scope="once")
    assert [h for h in client.heard if h.startswith("asked")] == [
        "asked c1",
        "asked c3",
        "asked c4",
        "asked c6",
    ]
    await stream.close()


async def test_no_answer_is_a_denial(root: Path) -> None:
    client = SlowClient(["never", "cancelled", RequestError.internal_error(), "maybe"])
    stream, approver = approver_for(root, client, timeout=0.2)
    timed_out = await approver.ask(request("c1"))
    assert timed_out == Denied(reason="no answer within 0.2 seconds")
    assert await approver.ask(request("c2")) == Denied(
        reason="the permission request was cancelled"
    )
    failed = await approver.ask(request("c3"))
    assert isinstance(failed, Denied)
    assert failed.reason.startswith("the editor could not ask")
    assert isinstance(await approver.ask(request("c4")), Denied)
    await stream.close()


async def test_read_only_mode_refuses_all_but_reads_without_asking(root: Path) -> None:
    client = SlowClient(["allow_once"])
    stream, approver = approver_for(root, client)
    approver.read_only = True
    assert await approver.ask(request("c1")) == Denied(reason="the session is in read-only mode")
    assert await approver.ask(request("c2", risk="read_only")) == Approved(scope="once")
    assert client.heard == ["asked c2"]
    await stream.close()


async def test_a_cancelled_turn_stops_waiting_at_once(root: Path) -> None:
    client = SlowClient(["never"])
    stream, approver = approver_for(root, client)
    waiting = asyncio.create_task(approver.ask(request()))
    await asyncio.sleep(0.1)
    waiting.cancel()
    done, _ = await asyncio.wait({waiting}, timeout=5)
    assert done == {waiting}
    assert waiting.cancelled()
    await stream.close()
