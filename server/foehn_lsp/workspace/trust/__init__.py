"""Trust by content: a trusted workspace's own plugins, MCP servers, rules, hooks, commands and
system-message files are used only as the person approved them (``review``), approvals kept in
the user state folder (``store``)."""

from foehn_lsp.workspace.trust.review import (
    ApprovedPlugin,
    Reviewed,
    approve,
    approved_plugins,
    approved_text,
    gated_files,
    kind_of,
    review,
    waiting,
    waiting_summary,
)
from foehn_lsp.workspace.trust.store import (
    Approval,
    Approvals,
    forget_approval,
    read_approvals,
    store_file,
)

__all__ = [
    "Approval",
    "Approvals",
    "ApprovedPlugin",
    "Reviewed",
    "approve",
    "approved_plugins",
    "approved_text",
    "forget_approval",
    "gated_files",
    "kind_of",
    "read_approvals",
    "review",
    "store_file",
    "waiting",
    "waiting_summary",
]
