"""Trust by content for editors: what of a trusted workspace waits for the person's approval
(``foehn.trust.list``), and approving it (``foehn.trust.approve``; shapes in ``lsp.table``).

An ``entry`` is ``{path, kind, status, sha256, approvedSha256, approvedAt, reason, before,
after, diff}`` (``kind``: plugin | mcp_servers | rules | command | system_prompt; ``status``:
new | changed | refused; ``before`` is the approved text or null, ``after`` the text now,
``diff`` the unified diff between them); an ``approval`` is ``{path, sha256, approvedAt}``.
``sha256`` in an approve request is the entry's (at least its first 12 hex digits): a file that
changed since the editor showed it is refused with the reason. After an approval the tools are
discovered again, so an approved plugin or MCP list is used from the next run.

When a run starts in a trusted workspace where files wait, the server tells the person once per
set of waiting files with ``window/showMessage`` (how to review them) and sends the
notification ``foehn/trustWaiting`` ``{workspace, waiting: [entry]}`` for an editor that renders
the diffs itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foehn_lsp.errors import TrustError
from foehn_lsp.lsp import convert
from foehn_lsp.lsp.arguments import BadArguments
from foehn_lsp.lsp.server import FoehnServer
from foehn_lsp.lsp.table import TRUST_WAITING

if TYPE_CHECKING:
    from foehn_lsp.workspace.trust import Approval

# ``foehn_lsp.workspace.trust`` (the review, the approval store and what they import) is
# imported by the functions that use it: the server registers these handlers before it answers
# ``initialize``.


def _root(ls: FoehnServer) -> Path:
    return ls.opened().root.resolve()


def _approval(approval: Approval) -> dict[str, Any]:
    return {"path": approval.path, "sha256": approval.sha256, "approvedAt": approval.approved_at}


def listing(root: Path, trusted: bool) -> dict[str, Any]:
    from foehn_lsp.workspace.trust import read_approvals, store_file, waiting

    approvals = read_approvals(root)
    return {
        "workspace": str(root),
        "trusted": trusted,
        "store": str(store_file(root)),
        "problem": approvals.problem,
        "waiting": [item.json() for item in waiting(root)],
        "approved": [_approval(a) for a in approvals.files.values()],
    }


async def list_waiting(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    if args:
        raise BadArguments("foehn.trust.list takes []")
    await ls.ready()
    root = _root(ls)
    return await asyncio.to_thread(listing, root, ls.settings.trust_workspace)


async def approve_files(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    wanted = [a for a in args if isinstance(a, Mapping)]
    if (
        not args
        or len(wanted) != len(args)
        or not all(
            isinstance(a.get("path"), str) and isinstance(a.get("sha256"), str) for a in wanted
        )
    ):
        raise BadArguments("foehn.trust.approve takes [{path, sha256}, …]")
    from foehn_lsp.workspace.trust import approve

    await ls.ready()
    root = _root(ls)
    approved, refused = [], []
    for entry in wanted:
        try:
            done = await asyncio.to_thread(approve, root, entry["path"], entry["sha256"])
        except TrustError as exc:
            refused.append({"path": entry["path"], "reason": str(exc)})
            continue
        approved.append(_approval(done))
    if approved:
        await asyncio.to_thread(ls.rediscover)
    return {"approved": approved, "refused": refused}


async def tell_waiting(ls: FoehnServer, root: Path) -> None:
    """At the start of a run: say once per set of waiting files that they wait, and how to
    review them; a person who dismisses it is not told again until the set changes."""
    from foehn_lsp.workspace.trust import waiting, waiting_summary

    if not ls.settings.trust_workspace:
        return
    items = await asyncio.to_thread(waiting, root)
    told = tuple((item.path, item.sha256) for item in items)
    if not items or told == ls.trust_told:
        return
    ls.trust_told = told
    ls.protocol.notify(
        TRUST_WAITING, {"workspace": str(root), "waiting": [i.json() for i in items]}
    )
    ls.window_show_message(
        convert.show(
            f"Foehn: {waiting_summary(items)}. Review the changes with the command "
            "foehn.trust.list (or `foehn trust` in a terminal) and approve them to use them.",
            error=False,
        )
    )
