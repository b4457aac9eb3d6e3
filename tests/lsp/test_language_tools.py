"""The editor's language tools through the real language server (pytest-lsp over stdio) and the
scripted model server: offered only to a client that declares ``languageTools``; the server
finds the symbol's column and asks ``foehn/definition``, ``foehn/references``,
``foehn/workspaceSymbols`` and ``foehn/rename``, which this client answers as an editor's
language server would (positions in UTF-16). A rename is approved from its diff, applied
through ``workspace/applyEdit`` and undone; one that reaches outside the workspace is refused
whole; a client that never answers times out and the run goes on."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import apply_to_disk, lsp_client, run
from lsp.test_lsp_plans import event_of
from lsp.test_lsp_sessions import command

pytestmark = pytest.mark.process

LANGUAGE_TOOLS = {"definition", "references", "workspace_symbols", "rename_symbol"}
LIB = "def helper(x):\n    return x\n"
APP = 'from lib import helper\n\nmark = "😋"; print(helper(1))\n'
SECRET = "SECRET-OUTSIDE-0123"
OTHER = f"from lib import helper  # {SECRET}\n"


@pytest.fixture
def app(root: Path) -> Path:
    (root / "lib.py").write_text(LIB)
    (root / "app.py").write_text(APP)
    return root


@pytest.fixture
def outside(root: Path) -> Path:
    folder = root.parent / "elsewhere"
    folder.mkdir()
    (folder / "other.py").write_text(OTHER)
    return folder / "other.py"


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def uses(path: Path, word: str) -> list[dict[str, Any]]:
    """Where ``word`` is written in ``path``, as LSP locations (UTF-16 characters)."""
    found = []
    # An editor's lines: only \r\n, \r and \n end one (not \f, \v or U+2028 as in Python).
    for number, line in enumerate(re.split(r"\r\n|\r|\n", path.read_bytes().decode())):
        for match in re.finditer(rf"\b{word}\b", line):
            start, end = utf16(line[: match.start()]), utf16(line[: match.end()])
            found.append(
                {
                    "uri": path.as_uri(),
                    "range": {
                        "start": {"line": number, "character": start},
                        "end": {"line": number, "character": end},
                    },
                }
            )
    return found


def text_of(path: Path) -> str:
    return path.read_text()


def tool_names(body: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in body["tools"]}


def told(model: ModelServer, request: int) -> str:
    """The last tool result the model was sent in ``request``."""
    content: str = model.requests[request].body["messages"][-1]["content"]
    return content


def approving(client: LanguageClient, asked: list[Any], labels: list[str]) -> None:
    @client.feature("foehn/confirm")
    def confirm(params: Any) -> dict[str, str]:
        asked.append(event_of(params))
        return {"decision": "allow"}

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        labels.append(params.label or "")
        apply_to_disk(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)


async def test_the_language_tools_are_offered_only_to_a_client_that_declares_them(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(text="One."), Turn(text="Two."))
    listed = []
    async with lsp_client(app, model, init_options={"diagnostics": True}) as client:
        await run(client, {"task": "Hello"})
        listed.append(await listed_tools(client))
    async with lsp_client(app, model, init_options={"languageTools": True}) as client:
        await run(client, {"task": "Hello"})
        listed.append(await listed_tools(client))
    without, declared = (tool_names(r.body) for r in model.requests)
    assert not LANGUAGE_TOOLS & without
    assert declared >= LANGUAGE_TOOLS
    assert declared - LANGUAGE_TOOLS == without
    # foehn.tools lists them too, only where the model is offered them.
    assert not LANGUAGE_TOOLS & listed[0]
    assert listed[1] - listed[0] == LANGUAGE_TOOLS


async def listed_tools(client: LanguageClient) -> set[str]:
    return {tool["name"] for tool in (await command(client, "foehn.tools"))["tools"]}


async def test_each_run_asks_the_editor_under_its_own_run_id(app: Path, model: ModelServer) -> None:
    query = ("workspace_symbols", {"query": "help"})
    model.script(
        Turn(tool_calls=[query]), Turn(text="One."), Turn(tool_calls=[query]), Turn(text="Two.")
    )
    asked: list[str] = []
    async with lsp_client(app, model, init_options={"languageTools": True}) as client:

        @client.feature("foehn/workspaceSymbols")
        def symbols(params: Any) -> dict[str, Any]:
            asked.append(event_of(params)["runId"])
            return {"symbols": []}

        await run(client, {"task": "Find helper", "runId": "r1"})
        await run(client, {"task": "Find helper again", "runId": "r2"})
    assert asked == ["r1", "r2"]


async def test_definition_references_and_symbols_come_from_the_editor(
    app: Path, model: ModelServer, outside: Path
) -> None:
    at = {"path": "app.py", "line": 3, "name": "helper"}
    model.script(
        Turn(tool_calls=[("definition", at)]),
        Turn(tool_calls=[("references", at)]),
        Turn(tool_calls=[("workspace_symbols", {"query": "help"})]),
        Turn(text="helper is defined in lib.py."),
    )
    asked: list[tuple[str, dict[str, Any]]] = []
    async with lsp_client(app, model, init_options={"languageTools": True}) as client:

        @client.feature("foehn/definition")
        def definition(params: Any) -> dict[str, Any]:
            asked.append(("definition", event_of(params)))
            return {"locations": uses(app / "lib.py", "helper")}

        @client.feature("foehn/references")
        def references(params: Any) -> dict[str, Any]:
            asked.append(("references", event_of(params)))
            found = [*uses(app / "lib.py", "helper"), *uses(app / "app.py", "helper")]
            return {"locations": [*found, *uses(outside, "helper")]}

        @client.feature("foehn/workspaceSymbols")
        def symbols(params: Any) -> dict[str, Any]:
            asked.append(("symbols", event_of(params)))
            [where] = uses(app / "lib.py", "helper")[:1]
            return {
                "symbols": [
                    {"name": "helper", "kind": 12, "containerName": "lib", "location": where}
                ]
            }

        result = await run(client, {"task": "Where is helper defined?", "runId": "r1"})
    assert result["answer"] == "helper is defined in lib.py."
    # The name's column on line 3 follows a character of two UTF-16 units.
    position = {"line": 2, "character": len('mark = "😋"; print(') + 1}
    uri = (app / "app.py").as_uri()
    assert asked == [
        ("definition", {"runId": "r1", "uri": uri, "position": position}),
        ("references", {"runId": "r1", "uri": uri, "position": position}),
        ("symbols", {"runId": "r1", "query": "help"}),
    ]
    assert told(model, 1) == (
        "definition of helper at app.py:3:19 (1 location):\nlib.py:1:5: def helper(x):"
    )
    references_told = told(model, 2)
    assert references_told.splitlines() == [
        "references to helper at app.py:3:19 (4 locations):",
        "lib.py:1:5: def helper(x):",
        "app.py:1:17: from lib import helper",
        'app.py:3:19: mark = "😋"; print(helper(1))',
        f"{outside}:1:17 (outside the workspace; not read)",
    ]
    assert SECRET not in references_told
    assert told(model, 3) == "symbols matching 'help' (1):\nhelper (function in lib) lib.py:1:5"


async def test_a_client_that_claims_the_tools_but_never_answers_times_out(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[("definition", {"path": "app.py", "line": 1, "name": "helper"})]),
        Turn(text="The editor did not say."),
    )
    options = {"languageTools": True, "settings": {"clientTimeouts": {"languageSeconds": 0.5}}}
    async with lsp_client(app, model, init_options=options) as client:

        @client.feature("foehn/definition")
        async def definition(params: Any) -> dict[str, Any]:
            await asyncio.sleep(5)
            return {"locations": []}

        result = await run(client, {"task": "Where is helper defined?"})
    assert result["answer"] == "The editor did not say."
    assert told(model, 1) == (
        "definition: the editor did not answer foehn/definition (no answer within 0.5 s); "
        "nothing was changed. Use search or read_symbol instead"
    )


def renaming(client: LanguageClient, asked: list[Any], *extra: Path) -> None:
    """The editor's rename provider: every use of the old name in the workspace's files (and
    in ``extra``), returned without being applied."""

    @client.feature("foehn/rename")
    def rename(params: Any) -> dict[str, Any]:
        asked.append(event_of(params))
        root = Path(asked[-1]["uri"].removeprefix("file://")).parent
        changes: dict[str, list[dict[str, Any]]] = {}
        for path in [*sorted(root.glob("*.py")), *extra]:
            for where in uses(path, "helper"):
                edit = {"range": where["range"], "newText": asked[-1]["newName"]}
                changes.setdefault(where["uri"], []).append(edit)
        return {"edit": {"changes": changes}}


async def test_a_rename_is_approved_from_its_diff_applied_through_the_editor_and_undone(
    app: Path, model: ModelServer
) -> None:
    (app / "app.py").write_text("from lib import helper\n\nprint(helper(1))\n")
    model.script(
        Turn(
            tool_calls=[
                (
                    "rename_symbol",
                    {"path": "lib.py", "line": 1, "name": "helper", "new_name": "assist"},
                )
            ]
        ),
        Turn(text="Renamed helper to assist in lib.py and app.py."),
    )
    confirmed: list[Any] = []
    labels: list[str] = []
    renames: list[Any] = []
    checked: list[list[str]] = []
    options = {"languageTools": True, "confirmRequest": True, "diagnostics": True}
    async with lsp_client(app, model, init_options=options) as client:
        approving(client, confirmed, labels)
        renaming(client, renames)

        @client.feature("foehn/diagnostics")
        def diagnostics(params: Any) -> dict[str, Any]:
            uris = event_of(params)["uris"]
            checked.append(sorted(uris))
            return {"files": [{"uri": uri, "diagnostics": []} for uri in uris]}

        result = await run(client, {"task": "Rename helper to assist", "runId": "r1"})
        assert result["answer"] == "Renamed helper to assist in lib.py and app.py."
        assert len(model.requests) == 2  # the claim is true: it is not sent back
        assert renames == [
            {
                "runId": "r1",
                "uri": (app / "lib.py").as_uri(),
                "position": {"line": 0, "character": 4},
                "newName": "assist",
            }
        ]
        [request] = confirmed
        assert request["tool"] == "rename_symbol"
        preview = request["preview"]
        assert preview["summary"] == "rename helper to assist (2 files)"
        for line in (
            "-def helper(x):",
            "+def assist(x):",
            "-print(helper(1))",
            "+print(assist(1))",
        ):
            assert line in preview["diff"]
        assert labels == ["Foehn: rename helper to assist (2 files)"]
        assert (app / "lib.py").read_text() == "def assist(x):\n    return x\n"
        assert (app / "app.py").read_text() == "from lib import assist\n\nprint(assist(1))\n"
        assert "+def assist(x):" in told(model, 1)
        # Both files were checked before the rename and after it, as an edit's are.
        assert checked == [sorted([(app / "app.py").as_uri(), (app / "lib.py").as_uri()])] * 2

        undone = await command(client, "foehn.session.undo", {"sessionId": result["session"]})
    assert undone["applied"]
    assert sorted(undone["restored"]) == ["app.py", "lib.py"]
    assert (app / "lib.py").read_text() == LIB
    assert (app / "app.py").read_text() == "from lib import helper\n\nprint(helper(1))\n"


# Characters Python's str.splitlines breaks at and an editor does not: a form feed, U+2028.
LIB_PAGED = "# one\fpage\u2028two\ndef helper(x):\n    return helper(x - 1) if x else 0\n"
APP_PAGED = "from lib import helper  # see\u2028below\f\nprint(helper(1))\n"


async def test_lines_are_counted_as_the_editor_counts_them(app: Path, model: ModelServer) -> None:
    (app / "lib.py").write_text(LIB_PAGED)
    (app / "app.py").write_text(APP_PAGED)
    at = {"path": "lib.py", "line": 2, "name": "helper"}
    model.script(
        Turn(tool_calls=[("references", at)]),
        Turn(tool_calls=[("rename_symbol", {**at, "new_name": "assist"})]),
        Turn(text="Renamed helper to assist."),
        Turn(text="It failed."),
    )
    confirmed: list[Any] = []
    labels: list[str] = []
    renames: list[Any] = []
    async with lsp_client(
        app, model, init_options={"languageTools": True, "confirmRequest": True}
    ) as client:
        approving(client, confirmed, labels)
        renaming(client, renames)
        client.feature("foehn/references")(
            lambda params: {"locations": uses(app / "lib.py", "helper")}
        )
        result = await run(client, {"task": "Rename helper to assist"})
    assert told(model, 1).splitlines() == [
        "references to helper at lib.py:2:5 (2 locations):",
        "lib.py:2:5: def helper(x):",
        "lib.py:3:12: return helper(x - 1) if x else 0",
    ]
    assert [r["position"] for r in renames] == [{"line": 1, "character": 4}]
    assert (app / "lib.py").read_bytes() == LIB_PAGED.replace("helper", "assist").encode()
    assert (app / "app.py").read_bytes() == APP_PAGED.replace("helper", "assist").encode()
    assert result["answer"] == "Renamed helper to assist."


async def test_a_rename_that_reaches_outside_the_workspace_is_refused_whole(
    app: Path, model: ModelServer, outside: Path
) -> None:
    rename = ("rename_symbol", {"path": "lib.py", "line": 1, "name": "helper", "new_name": "x2"})
    model.script(
        Turn(tool_calls=[rename]), Turn(text="It cannot be renamed."), Turn(text="Not renamed.")
    )
    confirmed: list[Any] = []
    labels: list[str] = []
    renames: list[Any] = []
    async with lsp_client(
        app, model, init_options={"languageTools": True, "confirmRequest": True}
    ) as client:
        approving(client, confirmed, labels)
        renaming(client, renames, outside)
        await run(client, {"task": "Rename helper to x2"})
    assert len(renames) == 1
    assert (confirmed, labels) == ([], [])
    assert (app / "lib.py").read_text() == LIB
    assert (app / "app.py").read_text() == APP
    assert text_of(outside) == OTHER
    assert told(model, 1) == (
        "rename_symbol refused: the rename would also change files outside the workspace "
        f"({outside}); nothing was changed"
    )


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (
            {"path": "app.py", "line": 2, "name": "helper"},
            "'helper' is not written on line 2 of app.py (''); it is on lines 1, 3",
        ),
        (
            {"path": "app.py", "line": 3, "name": "nowhere"},
            "'nowhere' is not written on line 3 of app.py "
            "('mark = \"😋\"; print(helper(1))'); it is nowhere in app.py",
        ),
        (
            {"path": "app.py", "line": 9, "name": "helper"},
            "line 9 is past the end of app.py, which has 3 lines",
        ),
        (
            {"path": "app.py", "line": 0, "name": "helper"},
            "line: Input should be greater than or equal to 1",
        ),
        ({"path": "../elsewhere/other.py", "line": 1, "name": "helper"}, "escapes the workspace"),
    ],
)
async def test_a_symbol_that_is_not_where_the_model_says_is_a_clear_error(
    app: Path, model: ModelServer, outside: Path, arguments: dict[str, Any], error: str
) -> None:
    model.script(Turn(tool_calls=[("references", arguments)]), Turn(text="Hm."))
    asked: list[Any] = []
    async with lsp_client(app, model, init_options={"languageTools": True}) as client:

        @client.feature("foehn/references")
        def references(params: Any) -> dict[str, Any]:
            asked.append(params)
            return {"locations": []}

        await run(client, {"task": "Who uses helper?"})
    assert asked == []
    assert error in told(model, 1)
    assert SECRET not in told(model, 1)


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (
            {
                "edit": {
                    "documentChanges": [{"kind": "rename", "oldUri": "file:///x", "newUri": "y"}]
                }
            },
            "rename_symbol refused: the editor's rename would also create, rename or delete "
            "files (file:///x); nothing was changed",
        ),
        ({"edit": None}, "the editor's rename provider changed nothing for helper at lib.py:1:5"),
        ({"changes": {}}, "the editor's answer to foehn/rename was not {edit: WorkspaceEdit"),
    ],
)
async def test_a_rename_answer_that_cannot_be_applied_changes_nothing(
    app: Path, model: ModelServer, answer: dict[str, Any], error: str
) -> None:
    rename = ("rename_symbol", {"path": "lib.py", "line": 1, "name": "helper", "new_name": "x2"})
    model.script(Turn(tool_calls=[rename]), Turn(text="No."), Turn(text="No."))
    confirmed: list[Any] = []
    labels: list[str] = []
    async with lsp_client(
        app, model, init_options={"languageTools": True, "confirmRequest": True}
    ) as client:
        approving(client, confirmed, labels)
        client.feature("foehn/rename")(lambda params: answer)
        await run(client, {"task": "Rename helper to x2"})
    assert (confirmed, labels) == ([], [])
    assert (text_of(app / "lib.py"), text_of(app / "app.py")) == (LIB, APP)
    assert told(model, 1).startswith(error)
