"""A raw JSON-RPC client for ``foehn serve``: asyncio, Content-Length framing and plain dicts,
nothing from pygls in between, so that tests can send exactly the bytes a sloppy or hostile
client would and see exactly what comes back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from foehn_lsp.testing import ModelServer
from preloaded import FOEHN_ARGV, foehn_argv

NO_REPLY = object()
"""A handler's return value that leaves the server's request unanswered."""

Handler = Callable[[Any], Any]


def frame(message: Any) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawClient:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.handlers: dict[str, Handler] = {}
        """Server-to-client requests by method: the result, a ``{"error": ...}`` wrapped in
        ``Raw``, or ``NO_REPLY``. A method without a handler is answered with null."""
        self.received: list[dict[str, Any]] = []
        """Every message the server sent, in order."""
        self.server_requests: list[dict[str, Any]] = []
        self.replies: dict[Any, dict[str, Any]] = {}
        """The server's responses by id (the last one, if it answered twice)."""
        self._changed = asyncio.Condition()
        self._next_id = 1000
        self._reader = asyncio.ensure_future(self._read())

    def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)

    def send(self, message: Any) -> None:
        self.send_bytes(frame(message))

    def request(self, method: str, params: Any = None, *, msg_id: Any = None) -> Any:
        """Send a request; returns its id."""
        if msg_id is None:
            self._next_id += 1
            msg_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return msg_id

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    async def call(self, method: str, params: Any = None, within: float = 30) -> Any:
        """Send a request and wait for its response (the whole response object)."""
        return await self.reply(self.request(method, params), within)

    async def reply(self, msg_id: Any, within: float = 30) -> dict[str, Any]:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: msg_id in self.replies), within)
            return self.replies[msg_id]

    async def wait_for(
        self, match: Callable[[dict[str, Any]], bool], count: int = 1, within: float = 30
    ) -> list[dict[str, Any]]:
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: len(self._matching(match)) >= count), within
            )
            return self._matching(match)

    async def absent(self, match: Callable[[dict[str, Any]], bool], wait: float = 0.5) -> bool:
        """True if nothing matching arrives within ``wait`` seconds."""
        with contextlib.suppress(TimeoutError):
            await self.wait_for(match, within=wait)
            return False
        return True

    def _matching(self, match: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        return [m for m in self.received if match(m)]

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            length = None
            while True:
                line = await stdout.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode().partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            assert length is not None
            message = json.loads(await stdout.readexactly(length))
            if "method" in message and "id" in message:
                self.server_requests.append(message)
                self._answer(message)
            async with self._changed:
                self.received.append(message)
                if "method" not in message:
                    self.replies[message.get("id")] = message
                self._changed.notify_all()

    def _answer(self, message: dict[str, Any]) -> None:
        handler = self.handlers.get(message["method"])
        result = handler(message.get("params")) if handler else None
        if result is NO_REPLY:
            return
        if isinstance(result, Raw):
            self.send({"jsonrpc": "2.0", "id": message["id"], **result.members})
        else:
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    async def exit_code(self, within: float = 20) -> int:
        return await asyncio.wait_for(self.process.wait(), within)

    async def close(self) -> None:
        self._reader.cancel()
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


class Raw:
    """A response's members exactly as given, e.g. ``Raw({"error": "nope"})``."""

    def __init__(self, members: dict[str, Any]) -> None:
        self.members = members


def server_env(root: Path, model: ModelServer, **extra: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    environment.update(
        {
            "FOEHN_PROVIDER": "openai",
            "FOEHN_BASE_URL": model.openai_url,
            "OPENAI_API_KEY": "sk-test-0123456789abcdefgh",
            "FOEHN_STREAMING": "0",
            "XDG_STATE_HOME": str(root.parent / "state"),
            "XDG_CONFIG_HOME": str(root.parent / "config"),
        }
    )
    environment.update(extra)
    return environment


@asynccontextmanager
async def raw_server(
    root: Path, model: ModelServer, *, own_process: bool = False, **extra: str
) -> AsyncIterator[RawClient]:
    """``foehn serve`` in ``root``, forked from the preloaded interpreter (``preloaded.py``); a
    new interpreter of its own with ``own_process``, for a test that reads the process by its
    id (its descendants)."""
    command = [*FOEHN_ARGV, "serve"] if own_process else foehn_argv("serve")
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=server_env(root, model, **extra),
        cwd=root,
        limit=64 * 1024 * 1024,
    )
    client = RawClient(process)
    try:
        yield client
    finally:
        await client.close()


def initialize_params(
    root: Path | None,
    *,
    confirm_request: bool = False,
    settings: dict[str, Any] | None = None,
    progress: bool = True,
    configuration: bool = True,
    apply_edit: bool = True,
) -> dict[str, Any]:
    """What an editor like VS Code sends, without the parts Foehn does not read."""
    options: dict[str, Any] = {"runEvents": True}
    if confirm_request:
        options["confirmRequest"] = True
    if settings is not None:
        options["settings"] = settings
    params: dict[str, Any] = {
        "processId": os.getpid(),
        "capabilities": {
            "window": {"workDoneProgress": progress},
            "workspace": {
                "applyEdit": apply_edit,
                "configuration": configuration,
                "workspaceEdit": {"documentChanges": True},
            },
        },
        "initializationOptions": options,
    }
    if root is not None:
        params["rootUri"] = root.as_uri()
        params["workspaceFolders"] = [{"uri": root.as_uri(), "name": root.name}]
    return params


async def initialized(client: RawClient, root: Path | None, **options: Any) -> dict[str, Any]:
    answer: dict[str, Any] = await client.call("initialize", initialize_params(root, **options))
    client.notify("initialized", {})
    return answer


def is_reply(msg_id: Any) -> Callable[[dict[str, Any]], bool]:
    return lambda m: "method" not in m and m.get("id") == msg_id


def is_method(method: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("method") == method
