"""The real ``foehn acp`` process driven by the official SDK's client side over stdio, pointed at
a real model server on 127.0.0.1. The client records what the agent sends and answers its
requests as a test scripts them; as an editor would, it writes files it is asked to write."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from acp import schema, spawn_agent_process
from acp.core import ClientSideConnection
from acp.interfaces import Agent, Client

from foehn_lsp.testing import ModelServer
from preloaded import foehn_argv

NEVER = "never"
"""A permission answer that never comes (until the request is cancelled)."""


@dataclass
class EditorClient:
    """An ACP client: ``answers`` are the option ids (or ``"cancelled"``, or ``NEVER``) it gives
    to permission requests in order; ``buffers`` are unsaved editor texts by absolute path."""

    answers: list[str] = field(default_factory=list)
    buffers: dict[str, str] = field(default_factory=dict)
    updates: list[dict[str, Any]] = field(default_factory=list)
    permissions: list[dict[str, Any]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    process: asyncio.subprocess.Process | None = None
    """The agent process this client talks to (set by ``acp_agent``)."""

    def on_connect(self, conn: Agent) -> None:
        pass

    async def request_permission(
        self,
        session_id: str,
        tool_call: schema.ToolCallUpdate,
        options: list[schema.PermissionOption],
        **kwargs: Any,
    ) -> schema.RequestPermissionResponse:
        announced = any(
            u["sessionUpdate"] == "tool_call" and u["toolCallId"] == tool_call.tool_call_id
            for u in self.updates
        )
        await self._record(
            self.permissions,
            {
                "sessionId": session_id,
                "toolCall": tool_call.model_dump(mode="json", by_alias=True, exclude_none=True),
                "options": [o.model_dump(mode="json", by_alias=True) for o in options],
                "announced": announced,
            },
        )
        answer = self.answers.pop(0) if self.answers else "reject_once"
        if answer == NEVER:
            await asyncio.Event().wait()
        if answer == "cancelled":
            return schema.RequestPermissionResponse(
                outcome=schema.DeniedOutcome(outcome="cancelled")
            )
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        data = update.model_dump(mode="json", by_alias=True, exclude_none=True)
        await self._record(self.updates, {"sessionId": session_id, **data})

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> schema.ReadTextFileResponse:
        self.reads.append(path)
        text = self.buffers.get(path)
        if text is None:
            text = await asyncio.to_thread(Path(path).read_text, encoding="utf-8")
        return schema.ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> schema.WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers.pop(path, None)
        await asyncio.to_thread(Path(path).write_text, content, encoding="utf-8")
        return schema.WriteTextFileResponse()

    async def _record(self, into: list[dict[str, Any]], item: dict[str, Any]) -> None:
        async with self.changed:
            into.append(item)
            self.changed.notify_all()

    async def until(self, condition: Callable[[], bool]) -> None:
        """Until ``condition`` holds over what was recorded (at most 60 seconds)."""
        async with asyncio.timeout(60), self.changed:
            await self.changed.wait_for(condition)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [u for u in self.updates if u["sessionUpdate"] == kind]

    def text(self) -> str:
        return "".join(u["content"]["text"] for u in self.of("agent_message_chunk"))


def agent_environment(root: Path, model: ModelServer, **extra: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    for variable in ("OPENAI_API_KEY", "MISTRAL_API_KEY", "ANTHROPIC_API_KEY"):
        environment.pop(variable, None)
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
    environment.update(extra)
    return {k: v for k, v in environment.items() if v}


@asynccontextmanager
async def acp_agent(
    root: Path,
    model: ModelServer,
    client: EditorClient,
    *,
    fs: bool = True,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    elicitation: schema.ElicitationCapabilities | None = None,
) -> AsyncIterator[ClientSideConnection]:
    """``foehn acp`` started and initialized; its stderr goes to a file next to the
    workspace. With ``elicitation`` the client says it can show the agent's questions (ACP's
    unstable ``elicitation/create``, which the client then routes)."""
    environment = agent_environment(root, model, **(env or {}))
    with open(root.parent / "agent-stderr.log", "ab") as stderr:  # noqa: ASYNC230
        async with spawn_agent_process(
            cast(Client, client),
            *foehn_argv("acp", *args),
            env=environment,
            cwd=root,
            transport_kwargs={
                "stderr": stderr,
                "limit": 50 * 1024 * 1024,
                "shutdown_timeout": 20.0,
            },
            use_unstable_protocol=elicitation is not None,
        ) as (conn, process):
            client.process = process
            async with asyncio.timeout(60):
                await conn.initialize(
                    protocol_version=1,
                    client_capabilities=schema.ClientCapabilities(
                        fs=schema.FileSystemCapabilities(read_text_file=fs, write_text_file=fs),
                        terminal=False,
                        elicitation=elicitation,
                    ),
                    client_info=schema.Implementation(name="tests", version="1"),
                )
            yield conn
