"""Code actions: cheap to compute, they only return commands that call ``foehn.run`` with the
document, the range and the diagnostic."""

from __future__ import annotations

from lsprotocol import types

from foehn_lsp.lsp import convert
from foehn_lsp.lsp.server import FoehnServer

KINDS = [
    types.CodeActionKind.QuickFix,
    types.CodeActionKind.RefactorRewrite,
    types.CodeActionKind.Empty,
]


def code_action(ls: FoehnServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    return convert.code_actions(params)
