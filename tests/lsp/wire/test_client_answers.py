"""What the client answers, or does not: a malformed answer is never taken as yes, every wait
times out, and a wait given up (timed out, or its run cancelled) is withdrawn with
``$/cancelRequest``. A raw client over stdio answers exactly what each case needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.turns import EDIT, READ
from foehn_lsp.testing import Fault, ModelServer, Turn
from lsp.wire.raw import NO_REPLY, Raw, RawClient, initialized, is_method, raw_server

pytestmark = pytest.mark.process

BEFORE = "def main():\n    return 1  # TODO\n"
FAST = {"confirmSeconds": 0.5, "applyEditSeconds": 0.5, "progressSeconds": 0.5}


async def run(client: RawClient, task: str = "fix the TODO") -> dict[str, Any]:
    reply = await client.call(
        "workspace/executeCommand", {"command": "foehn.run", "arguments": [task]}, within=60
    )
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def tool_result(model: ModelServer) -> str:
    """What the model was told about its last tool call (the edit, after reading the file)."""
    messages = model.requests[1].body["messages"]
    content: str = [m for m in messages if m["role"] == "tool"][-1]["content"]
    return content


def withdrawn(client: RawClient, method: str) -> list[Any]:
    """Ids of the server's ``method`` requests that it withdrew with ``$/cancelRequest``."""
    asked = {r["id"] for r in client.server_requests if r["method"] == method}
    cancels = [m["params"]["id"] for m in client.received if m.get("method") == "$/cancelRequest"]
    return [i for i in cancels if i in asked]


@pytest.mark.parametrize(
    "answer",
    [
        {},
        {"error": "nope"},
        "allow",
        {"decision": "yes"},
        {"decision": "allow", "remember": True},
        {"decision": "allow", "reason": 5},
        Raw({"error": {"code": -32000, "message": "the dialog broke"}}),
        Raw({"error": "nope"}),
        None,
    ],
)
async def test_a_confirmation_of_the_wrong_shape_is_a_denial(
    app: Path, model: ModelServer, answer: Any
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="It was denied."))
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: answer
        await initialized(client, app, confirm_request=True, apply_edit=False)
        result = await run(client)
    assert result["stopReason"] == "answer"
    assert "denied" in tool_result(model)
    assert (app / "app.py").read_text() == BEFORE


async def test_an_allowed_confirmation_runs_the_call(app: Path, model: ModelServer) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Done."))
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: {"decision": "allow"}
        await initialized(client, app, confirm_request=True, apply_edit=False)
        assert (await run(client))["stopReason"] == "answer"
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"


@pytest.mark.parametrize(
    ("answer", "allowed"),
    [
        ({"title": "Allow"}, True),
        ({"title": "Allow for this run", "id": 2}, True),
        ({"title": "Deny"}, False),
        ({"title": "Yes please"}, False),
        ("Allow", False),
        ({}, False),
        ({"title": ["Allow"]}, False),
        (None, False),
    ],
)
async def test_only_an_offered_action_is_an_answer_to_show_message_request(
    app: Path, model: ModelServer, answer: Any, allowed: bool
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="ok"))
    async with raw_server(app, model) as client:
        client.handlers["window/showMessageRequest"] = lambda params: answer
        await initialized(client, app, apply_edit=False)
        await run(client)
    assert ("return 2" in (app / "app.py").read_text()) is allowed


@pytest.mark.parametrize(
    "answer",
    [
        {"applied": "false"},
        {"applied": "true"},
        {"applied": 1},
        None,
        {},
        {"applied": True, "failedChange": -1},
        Raw({"error": {"code": -32603, "message": "no"}}),
    ],
)
async def test_an_edit_answer_of_the_wrong_shape_is_not_applied(
    app: Path, model: ModelServer, answer: Any
) -> None:
    model.script(
        Turn(tool_calls=[READ, EDIT]), Turn(text="It did not land."), Turn(text="It did not land.")
    )
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: {"decision": "allow"}
        client.handlers["workspace/applyEdit"] = lambda params: answer
        await initialized(client, app, confirm_request=True)
        assert (await run(client))["stopReason"] == "answer"
    told = tool_result(model)
    assert "not applied (" in told
    assert "read the file again" in told


async def test_an_edit_the_editor_applied_is_reported_as_applied(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Done."))
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: {"decision": "allow"}
        client.handlers["workspace/applyEdit"] = lambda params: {"applied": True}
        await initialized(client, app, confirm_request=True)
        await run(client)
    assert "not applied" not in tool_result(model)


async def test_an_unanswered_confirmation_times_out_as_a_denial_the_person_sees(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Denied."))
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: NO_REPLY
        await initialized(client, app, confirm_request=True, settings={"clientTimeouts": FAST})
        assert (await run(client))["stopReason"] == "answer"
        shown = [
            m["params"]["message"]
            for m in client.received
            if m.get("method") == ("window/showMessage")
        ]
        assert "Foehn: no answer about edit_file within 0.5 s; it was denied" in shown
        assert len(withdrawn(client, "foehn/confirm")) == 1
    assert "no answer within 0.5 s" in tool_result(model)
    assert (app / "app.py").read_text() == BEFORE


async def test_an_unanswered_edit_times_out_and_the_model_is_told(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[READ, EDIT]), Turn(text="It did not land."), Turn(text="It did not land.")
    )
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: {"decision": "allow"}
        client.handlers["workspace/applyEdit"] = lambda params: NO_REPLY
        await initialized(client, app, confirm_request=True, settings={"clientTimeouts": FAST})
        assert (await run(client))["stopReason"] == "answer"
        assert len(withdrawn(client, "workspace/applyEdit")) == 1
    assert "the editor did not confirm the edit (no answer within 0.5 s)" in tool_result(model)


async def test_an_unanswered_progress_creation_costs_the_run_nothing(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(text="Hello."))
    async with raw_server(app, model) as client:
        client.handlers["window/workDoneProgress/create"] = lambda params: NO_REPLY
        await initialized(client, app)
        result = await run(client, "say hello")
        assert result["answer"] == "Hello."
        await client.wait_for(is_method("$/cancelRequest"))
        assert len(withdrawn(client, "window/workDoneProgress/create")) == 1
        assert await client.absent(is_method("$/progress"), wait=0.2)


async def test_cancelling_a_run_withdraws_its_confirmation_and_resolves_the_run(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="never asked"))
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: NO_REPLY
        await initialized(client, app, confirm_request=True)
        pending = client.request(
            "workspace/executeCommand", {"command": "foehn.run", "arguments": ["fix"]}
        )
        await client.wait_for(is_method("foehn/confirm"))
        cancelled = await client.call(
            "workspace/executeCommand", {"command": "foehn.cancel", "arguments": []}
        )
        assert len(cancelled["result"]["cancelled"]) == 1
        assert (await client.reply(pending))["result"]["stopReason"] == "cancelled"
        await client.wait_for(is_method("$/cancelRequest"))
        assert len(withdrawn(client, "foehn/confirm")) == 1
    assert (app / "app.py").read_text() == BEFORE


async def test_cancelling_a_run_whose_progress_was_never_created_resolves_it(
    app: Path, model: ModelServer
) -> None:
    model.script(Fault(delay=30, then=Turn(text="too late")))
    async with raw_server(app, model) as client:
        client.handlers["window/workDoneProgress/create"] = lambda params: NO_REPLY
        await initialized(client, app)
        pending = client.request(
            "workspace/executeCommand", {"command": "foehn.run", "arguments": ["wait"]}
        )
        await client.wait_for(is_method("window/workDoneProgress/create"))
        await client.call("workspace/executeCommand", {"command": "foehn.cancel", "arguments": []})
        assert (await client.reply(pending))["result"]["stopReason"] == "cancelled"
        await client.wait_for(is_method("$/cancelRequest"))
        assert len(withdrawn(client, "window/workDoneProgress/create")) == 1


async def test_settings_are_pulled_once_per_change_and_never_per_run(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(text="one"), Turn(text="two"), Turn(text="three"))
    async with raw_server(app, model) as client:
        client.handlers["workspace/configuration"] = lambda params: NO_REPLY
        await initialized(client, app, settings={"clientTimeouts": {"configurationSeconds": 0.5}})
        assert (await run(client, "1"))["answer"] == "one"
        assert (await run(client, "2"))["answer"] == "two"
        pulls = [r for r in client.server_requests if r["method"] == "workspace/configuration"]
        assert len(pulls) == 1
        client.handlers["workspace/configuration"] = lambda params: [{"maxToolIterations": 4}]
        client.notify("workspace/didChangeConfiguration", {"settings": None})
        await client.wait_for(is_method("workspace/configuration"), count=2)
        assert (await run(client, "3"))["answer"] == "three"
        pulls = [r for r in client.server_requests if r["method"] == "workspace/configuration"]
        assert len(pulls) == 2
        assert len(withdrawn(client, "workspace/configuration")) == 1


@pytest.mark.parametrize("answer", ["x", [1], {}, [{"a": 1}, {"b": 2}], [[]]])
async def test_a_configuration_of_the_wrong_shape_leaves_the_settings_as_they_were(
    app: Path, model: ModelServer, answer: Any
) -> None:
    model.script(Turn(tool_calls=[("scan", {})]), Turn(tool_calls=[("scan", {})]), Turn(text="x"))
    async with raw_server(app, model) as client:
        client.handlers["workspace/configuration"] = lambda params: answer
        await initialized(client, app, settings={"maxToolIterations": 1})
        assert (await run(client, "scan"))["stopReason"] == "max_iterations"
        logged = await client.wait_for(is_method("window/logMessage"))
        assert any("Foehn ignored its settings" in m["params"]["message"] for m in logged)


async def test_a_client_that_leaves_during_a_confirmation_leaves_no_edit(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="never"))
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: NO_REPLY
        await initialized(client, app, confirm_request=True, apply_edit=False)
        client.request("workspace/executeCommand", {"command": "foehn.run", "arguments": ["fix"]})
        await client.wait_for(is_method("foehn/confirm"))
        assert client.process.stdin is not None
        client.process.stdin.close()
        assert await client.exit_code() == 1
    assert (app / "app.py").read_text() == BEFORE


async def test_cancel_request_for_a_run_answers_it_once_as_cancelled(
    app: Path, model: ModelServer
) -> None:
    model.script(Fault(delay=30, then=Turn(text="too late")))
    async with raw_server(app, model) as client:
        await initialized(client, app)
        client.request(
            "workspace/executeCommand", {"command": "foehn.run", "arguments": ["wait"]}, msg_id="r"
        )
        await client.wait_for(is_method("foehn/runEvent"))
        client.notify("$/cancelRequest", {"id": "r"})
        reply = await client.reply("r")
        assert reply["error"]["code"] == -32800
        [done] = await client.wait_for(
            lambda m: m.get("method") == "foehn/runEvent" and m["params"]["event"] == "done"
        )
        assert done["params"]["reason"] == "cancelled"
        assert await client.absent(lambda m: m.get("id") == "r" and m is not reply, wait=0.5)


@pytest.mark.parametrize(
    ("answer", "because"),
    [
        ({"applied": False}, "it gave no reason"),
        ({"applied": False, "failureReason": "the file is read-only"}, "the file is read-only"),
        (Raw({"error": {"code": -32603, "message": "no"}}), "no"),
        (None, "null"),
        ({}, "{}"),
        ({"applied": "yes"}, '"yes"'),
        ({"applied": "false"}, '"false"'),
        ({"applied": 0}, "0"),
        ({"applied": []}, "[]"),
    ],
)
async def test_an_edit_the_editor_did_not_apply_is_not_told_as_a_denial(
    app: Path, model: ModelServer, answer: Any, because: str
) -> None:
    # A failed change is asked once more for a tool call; the model answers again.
    model.script(
        Turn(tool_calls=[READ, EDIT]), Turn(text="It did not land."), Turn(text="It did not land.")
    )
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: {"decision": "allow"}
        client.handlers["workspace/applyEdit"] = lambda params: answer
        await initialized(client, app, confirm_request=True)
        assert (await run(client))["stopReason"] == "answer"
    told = tool_result(model)
    assert "denied" not in told
    assert "the editor did not apply the edit" in told
    assert because in told
    assert "nobody refused it" in told
    assert (app / "app.py").read_text() == BEFORE


def audit_decisions(app: Path) -> list[dict[str, Any]]:
    """Every approval decision the server's audit log recorded."""
    return [
        record
        for path in (app.parent / "state" / "foehn" / "audit").glob("*.jsonl")
        for line in path.read_text().splitlines()
        if "decision" in (record := json.loads(line))
    ]


@pytest.mark.parametrize(
    "garbled",
    [
        b'{"jsonrpc": "2.0", "id": "ID", "result": {decision: allow}}',
        b'{"jsonrpc": "2.0", "id": "ID", "result": {"decision": "allow"',
        b'{"jsonrpc":"2.0","id":"ID","result":"\xff\xfe"}',
    ],
)
async def test_a_confirmation_that_is_not_json_is_a_recorded_denial_at_once(
    app: Path, model: ModelServer, garbled: bytes
) -> None:
    # A refused change is asked once more for a tool call; the model answers again.
    model.script(
        Turn(tool_calls=[READ, EDIT]), Turn(text="It was denied."), Turn(text="It was denied.")
    )
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: NO_REPLY
        # The run would wait out a confirmation for ten minutes; the test waits one.
        await initialized(client, app, confirm_request=True)
        pending = client.request(
            "workspace/executeCommand", {"command": "foehn.run", "arguments": ["fix"]}
        )
        [asked] = await client.wait_for(is_method("foehn/confirm"), within=60)
        body = garbled.replace(b"ID", asked["id"].encode())
        client.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        reply = await client.reply(pending, within=60)
    assert reply["result"]["stopReason"] == "answer"
    assert "not JSON" in tool_result(model)
    assert "denied" in tool_result(model)
    assert (app / "app.py").read_text() == BEFORE
    assert [r["decision"] for r in audit_decisions(app) if r["tool"] == "edit_file"] == ["deny"]


@pytest.mark.parametrize(
    "answer", [{"decision": ["allow"]}, {"decision": {"allow": True}}, {"decision": 1}]
)
async def test_a_decision_of_the_wrong_type_is_a_recorded_denial(
    app: Path, model: ModelServer, answer: Any
) -> None:
    # A refused change is asked once more for a tool call; the model answers again.
    model.script(
        Turn(tool_calls=[READ, EDIT]), Turn(text="It was denied."), Turn(text="It was denied.")
    )
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: answer
        await initialized(client, app, confirm_request=True)
        result = await run(client)
    assert result["stopReason"] == "answer"
    assert "the editor's answer was not understood" in tool_result(model)
    assert (app / "app.py").read_text() == BEFORE
    assert [r["decision"] for r in audit_decisions(app) if r["tool"] == "edit_file"] == ["deny"]


@pytest.mark.parametrize(
    "garbled",
    [
        b"not json at all",
        b'{"jsonrpc": "2.0", "result": {"decision": "allow"',
        b'{"jsonrpc": "2.0", "id": 7, "result": {"decision": allow}}',
    ],
)
async def test_a_confirmation_answer_that_is_not_json_and_names_no_request_is_a_denial(
    app: Path, model: ModelServer, garbled: bytes
) -> None:
    """The id is lost with the JSON: the garbled body is taken as the answer to the
    confirmation that waits, a recorded denial at once, never a wait of ten minutes."""
    model.script(
        Turn(tool_calls=[READ, EDIT]), Turn(text="It was denied."), Turn(text="It was denied.")
    )
    async with raw_server(app, model) as client:
        client.handlers["foehn/confirm"] = lambda params: NO_REPLY
        await initialized(client, app, confirm_request=True)
        pending = client.request(
            "workspace/executeCommand", {"command": "foehn.run", "arguments": ["fix"]}
        )
        await client.wait_for(is_method("foehn/confirm"), within=60)
        client.send_bytes(b"Content-Length: %d\r\n\r\n" % len(garbled) + garbled)
        reply = await client.reply(pending, within=60)
    assert reply["result"]["stopReason"] == "answer"
    assert "not JSON" in tool_result(model)
    assert (app / "app.py").read_text() == BEFORE
    assert [r["decision"] for r in audit_decisions(app) if r["tool"] == "edit_file"] == ["deny"]


@pytest.mark.parametrize(
    ("answer", "because"),
    [
        ({"applied": False}, "it gave no reason"),
        ({"applied": False, "failureReason": "read-only buffer"}, "read-only buffer"),
        (Raw({"error": {"code": -32603, "message": "no"}}), "no"),
        (None, "null"),
        ({}, "{}"),
        ({"applied": "true"}, '"true"'),
    ],
)
async def test_an_edit_not_applied_after_a_message_request_approval_is_not_a_denial(
    app: Path, model: ModelServer, answer: Any, because: str
) -> None:
    """Approved through window/showMessageRequest (no foehn/confirm), then not applied: the
    model reads the editor's failure and its reason, not a refusal."""
    model.script(
        Turn(tool_calls=[READ, EDIT]), Turn(text="It did not land."), Turn(text="It did not land.")
    )
    async with raw_server(app, model) as client:
        client.handlers["window/showMessageRequest"] = lambda params: {"title": "Allow"}
        client.handlers["workspace/applyEdit"] = lambda params: answer
        await initialized(client, app)
        assert (await run(client))["stopReason"] == "answer"
    told = tool_result(model)
    assert "denied" not in told
    assert "the editor did not apply the edit" in told
    assert because in told
    assert (app / "app.py").read_text() == BEFORE
