"""Code actions: cheap to compute, they only return commands that call ``foehn.run`` with the
document, the range and the diagnostic."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from foehn_lsp.lsp.server import FoehnServer

KINDS = [
    types.CodeActionKind.QuickFix,
    types.CodeActionKind.RefactorRewrite,
    types.CodeActionKind.Empty,
]


def code_action(ls: FoehnServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    return actions_for(params)


def actions_for(params: types.CodeActionParams) -> list[types.CodeAction]:
    """Explain and refactor for a selection, a fix for each diagnostic."""
    uri = params.text_document.uri
    selection = params.range
    actions = []

    def run_command(
        title: str,
        task: str,
        diagnostic: types.Diagnostic | None = None,
        at: types.Range = selection,
    ) -> types.Command:
        argument: dict[str, Any] = {"task": task, "uri": uri, "range": _range_json(at)}
        if diagnostic is not None:
            argument["diagnostic"] = {
                "message": diagnostic.message,
                "source": diagnostic.source,
                "range": _range_json(diagnostic.range),
            }
        return types.Command(title=title, command="foehn.run", arguments=[argument])

    if selection.start != selection.end:
        actions.append(
            types.CodeAction(
                title="Foehn: Explain selection",
                kind=types.CodeActionKind.Empty,
                command=run_command(
                    "Foehn: Explain selection", "Explain what the selected code does, briefly."
                ),
            )
        )
        actions.append(
            types.CodeAction(
                title="Foehn: Refactor selection…",
                kind=types.CodeActionKind.RefactorRewrite,
                command=run_command(
                    "Foehn: Refactor selection…",
                    "Refactor the selected code to make it clearer without changing "
                    "its behaviour. Edit the file.",
                ),
            )
        )
    for diagnostic in params.context.diagnostics:
        title = f"Foehn: Fix '{_short(diagnostic.message)}'"
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=run_command(
                    title, f"Fix this problem: {diagnostic.message}", diagnostic, diagnostic.range
                ),
            )
        )
    return actions


def _short(text: str, limit: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _range_json(value: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": value.start.line, "character": value.start.character},
        "end": {"line": value.end.line, "character": value.end.character},
    }
