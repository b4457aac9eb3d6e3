"""Trust by content over ACP: before a session's first turn in a trusted workspace, each of its
files that waits for approval (``foehn_lsp.workspace.trust``) is put to the person as a
``session/request_permission`` whose tool call carries the diff against what they approved
(``{type: "diff", path, oldText, newText}``, ``oldText`` null for a new file) and whose raw
input is ``{path, kind, status, sha256}``. "Approve this content" approves exactly the content
shown (a file that changed meanwhile is refused); anything else, no answer within the timeout
included, leaves the file unused. A file that cannot be approved (a link, not text, too large)
is told as a note instead.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from acp import schema
from acp.exceptions import RequestError
from acp.interfaces import Client
from pydantic import ValidationError

from foehn_lsp.acp.convert import diff_content
from foehn_lsp.errors import TrustError
from foehn_lsp.tools.plans import FilePreview
from foehn_lsp.workspace.trust import Reviewed, approve, waiting

log = logging.getLogger(__name__)

APPROVE = "approve"
NOT_NOW = "not_now"
WHAT = {
    "plugin": "a plugin Foehn would import and run in its own process",
    "mcp_servers": "MCP servers Foehn would start or send calls to",
    "rules": "rules and hooks for this workspace",
    "command": "a custom command",
    "system_prompt": "text added to the model's instructions",
}


def permission_call(item: Reviewed, root: Path, number: int) -> schema.ToolCallUpdate:
    """The question about one waiting file, with its diff."""
    before = item.approved.text if item.approved is not None else None
    preview = FilePreview(path=root / item.path, before=before, after=item.text or "")
    return schema.ToolCallUpdate(
        tool_call_id=f"foehn-trust-{number}",
        title=f"Use the workspace's {item.path} ({item.status}): {WHAT[item.kind]}?",
        kind="other",
        status="pending",
        content=list(diff_content([preview])),
        locations=[schema.ToolCallLocation(path=str(root / item.path))],
        raw_input={
            "path": item.path,
            "kind": item.kind,
            "status": item.status,
            "sha256": item.sha256,
        },
    )


OPTIONS = [
    schema.PermissionOption(option_id=APPROVE, name="Approve this content", kind="allow_once"),
    schema.PermissionOption(option_id=NOT_NOW, name="Not now", kind="reject_once"),
]


async def review_waiting(
    client: Client, session_id: str, root: Path, *, within: float
) -> tuple[list[str], list[str]]:
    """Ask about each waiting file of ``root``; the paths approved, and notes for the person
    (files refused, approvals that failed)."""
    items = await asyncio.to_thread(waiting, root)
    approved: list[str] = []
    notes: list[str] = []
    for number, item in enumerate(items, start=1):
        if item.status == "refused" or item.sha256 is None:
            notes.append(f"{item.path} of this workspace is not used: {item.reason}")
            continue
        if not await _asked(client, session_id, permission_call(item, root, number), within):
            notes.append(f"{item.path} of this workspace waits for your approval; not used")
            continue
        try:
            await asyncio.to_thread(approve, root, item.path, item.sha256)
        except TrustError as exc:
            notes.append(str(exc))
            continue
        approved.append(item.path)
    return approved, notes


async def _asked(
    client: Client, session_id: str, call: schema.ToolCallUpdate, within: float
) -> bool:
    try:
        async with asyncio.timeout(within):
            response: Any = await client.request_permission(
                session_id=session_id, tool_call=call, options=OPTIONS
            )
    except TimeoutError:
        return False
    except (RequestError, ConnectionError, ValidationError) as exc:
        log.warning("session %s: the trust question failed: %s", session_id, exc)
        return False
    outcome = response.outcome
    return isinstance(outcome, schema.AllowedOutcome) and outcome.option_id == APPROVE
