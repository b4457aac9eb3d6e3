"""Starting the real server over stdio with pytest-lsp's real client, pointed at a real model
server on 127.0.0.1."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from foehn_lsp.testing import ModelServer
from preloaded import foehn_argv


def _fix_code_action_parsing(client: LanguageClient) -> None:
    # lsprotocol 2025.0.0's client-side hook turns every CodeAction with a command into a
    # Command; only test clients are affected (see the notes on the LSP stack).
    converter = client.protocol._converter

    def command_or_action(obj: Any, _: Any) -> Any:
        kind = types.Command if isinstance(obj.get("command"), str) else types.CodeAction
        return converter.structure(obj, kind)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], command_or_action)  # noqa: UP007


@asynccontextmanager
async def lsp_client(
    root: Path,
    model: ModelServer,
    *,
    init_options: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    answer_configuration: Callable[[types.ConfigurationParams], Awaitable[list[Any]]] | None = None,
) -> AsyncIterator[LanguageClient]:
    """The server started and initialized. With ``configuration`` the editor's answer to
    ``workspace/configuration`` has been taken in before this yields (runs start without
    waiting for it); ``answer_configuration`` answers that request instead, when it likes."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    environment.update(
        {
            "FOEHN_PROVIDER": "openai",
            "FOEHN_BASE_URL": model.openai_url,
            "OPENAI_API_KEY": "sk-test-0123456789abcdefgh",
            "FOEHN_STREAMING": "1",
            "XDG_STATE_HOME": str(root.parent / "state"),
            "XDG_CONFIG_HOME": str(root.parent / "config"),
        }
    )
    environment.update(env or {})
    config = ClientServerConfig(server_command=foehn_argv("serve"), server_env=environment)
    client = await config.start()
    assert isinstance(client, LanguageClient)
    _fix_code_action_parsing(client)
    client.set_configuration(configuration or {}, section="foehn")
    if answer_configuration is not None:
        client.protocol.fm.features.pop(types.WORKSPACE_CONFIGURATION)
        client.feature(types.WORKSPACE_CONFIGURATION)(answer_configuration)
    client.initialize_result = await client.initialize_session(  # type: ignore[attr-defined]
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=init_options or {},
        )
    )
    if configuration and answer_configuration is None:
        # foehn.tools is answered once the first pull of the settings is done.
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="foehn.tools", arguments=[])
        )
    try:
        yield client
    finally:
        await client.shutdown_session()
        await client.stop()


async def run(client: LanguageClient, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="foehn.run", arguments=list(arguments))
    )


def apply_to_disk(edit: types.WorkspaceEdit) -> None:
    """What an editor does with the edit, done to the files directly."""
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            path = Path(change.text_document.uri.removeprefix("file://"))
            text = path.read_bytes().decode() if path.exists() else ""
            # An editor's lines, each with its end: only \r\n, \r and \n end one.
            lines = re.split(r"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)", text)
            for text_edit in change.edits:
                start = (
                    sum(len(x) for x in lines[: text_edit.range.start.line])
                    + text_edit.range.start.character
                )
                end = (
                    sum(len(x) for x in lines[: text_edit.range.end.line])
                    + text_edit.range.end.character
                )
                assert isinstance(text_edit, types.TextEdit | types.AnnotatedTextEdit)
                text = text[:start] + text_edit.new_text + text[end:]
            path.write_text(text)
        elif isinstance(change, types.CreateFile):
            Path(change.uri.removeprefix("file://")).write_text("")
