"""What an editor's chat view asks besides turns and sessions: which provider the server will
use (so "no key" or "embedded model" shows before the first question), the workspace's files
for ``@`` mentions (.gitignore honoured: the listing tools' own ripgrep rules), and a file's
content before a turn, from the session's checkpoint, for a per-file diff and undo."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from foehn_lsp.errors import FoehnError
from foehn_lsp.lsp.arguments import BadArguments
from foehn_lsp.lsp.server import FoehnServer

if TYPE_CHECKING:
    from foehn_lsp.config import Settings

MAX_FILES = 20_000
LIST_TIMEOUT = 10.0


def provider_status(
    settings: Settings, settings_error: str | None, local_available: bool | None = None
) -> dict[str, Any]:
    """``{provider, model, embedded, needsKey, keyless, noModel, error}``: the rule of
    ``providers.status``, answered without creating (or loading) the provider. ``noModel``: no
    provider is chosen and the offline model is not installed (an editor offers both)."""
    from foehn_lsp.providers.status import provider_status as which_provider

    status: dict[str, Any] = {
        "provider": settings.provider or "",
        "model": settings.model or "",
        "embedded": False,
        "needsKey": False,
        "keyless": False,
        "noModel": False,
        "error": settings_error,
    }
    if settings_error:
        return status
    chosen = which_provider(settings, local_available=local_available)
    if chosen.provider is None:
        status["error"] = (
            "No model is configured: choose a provider and set its key, or install the "
            f"embedded offline model ({chosen.install_hint})."
        )
        status["noModel"] = True
        return status
    if chosen.embedded:
        return {**status, "provider": "local", "embedded": True}
    status["model"] = settings.resolved_model()
    status["needsKey"] = chosen.missing_key is not None
    status["keyless"] = chosen.keyless
    return status


async def status(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    await ls.ready()
    return provider_status(ls.settings, ls.settings_error)


async def files(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    """``{files: [relative paths with "/"]}``, at most ``MAX_FILES``, sorted."""
    from foehn_lsp.workspace import Workspace
    from foehn_lsp.workspace.listing import list_files

    roots = ls.workspace_roots()
    if not roots:
        return {"files": []}
    try:
        listed = await asyncio.to_thread(list_files, Workspace(roots), timeout=LIST_TIMEOUT)
    except TimeoutError:
        raise FoehnError("listing the files took too long") from None
    return {"files": listed[:MAX_FILES], "truncated": len(listed) > MAX_FILES}


def file_before(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    """``[{session, turn, path}]`` -> ``{before: text | null, lost, binary}``: the file as it
    was before that turn (``null``: it did not exist)."""
    from foehn_lsp.sessions.store import SessionStore

    if len(args) != 1 or not isinstance(args[0], dict):
        raise BadArguments("foehn.chat.fileDiff takes [{session, turn, path}]")
    session, turn, path = args[0].get("session"), args[0].get("turn"), args[0].get("path")
    if not isinstance(session, str) or not isinstance(turn, int) or not isinstance(path, str):
        raise BadArguments("foehn.chat.fileDiff takes [{session, turn, path}]")
    before = SessionStore(ls.opened().root).before(session, turn, path)
    if before is None:
        raise BadArguments(f"turn {turn} of session {session} did not change {path}")
    if before.content is None:
        return {"before": None, "lost": before.lost, "binary": False}
    try:
        return {"before": before.content.decode("utf-8"), "lost": False, "binary": False}
    except UnicodeDecodeError:
        return {"before": None, "lost": False, "binary": True}
