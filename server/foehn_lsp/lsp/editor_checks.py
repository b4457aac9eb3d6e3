"""The editor's own diagnostics for checking a turn's edits, where the client serves them
(``initializationOptions.diagnostics: true``).

The server asks ``foehn/diagnostics`` ``{runId, uris}``; the client opens any of those files
its language servers have not seen, waits until their diagnostics settle, and answers
``{files: [{uri, diagnostics: Diagnostic[]}]}`` (LSP's ``Diagnostic``: 0-based ``range``,
``message``, ``severity``?, ``source``?, ``code``?). Errors and warnings count (a diagnostic
without a severity counts as an error); information and hints do not. No answer in time, an
error, or an answer of another shape skips the check with one line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from foehn_lsp.checks.checking import CheckReport, Problem
from foehn_lsp.lsp.table import DIAGNOSTICS
from foehn_lsp.lsp.wire import client
from foehn_lsp.workspace.paths import Workspace

if TYPE_CHECKING:
    from foehn_lsp.lsp.server import FoehnServer

COUNTED_SEVERITIES = frozenset({1, 2})
"""LSP's Error and Warning."""


def serves_diagnostics(server: FoehnServer) -> bool:
    return server.init_options.get("diagnostics") is True


class EditorDiagnostics:
    """A ``ProblemSource``: the editor's language servers, through ``foehn/diagnostics``."""

    def __init__(self, server: FoehnServer, run_id: str, workspace: Workspace) -> None:
        self.server = server
        self.run_id = run_id
        self.workspace = workspace

    async def check(self, paths: Sequence[str]) -> CheckReport:
        uris = {self.workspace.resolve(p).as_uri(): p for p in paths}
        reply = await client.request(
            self.server.protocol,
            DIAGNOSTICS,
            {"runId": self.run_id, "uris": list(uris)},
            self.server.timeouts.diagnostics,
        )
        if not isinstance(reply, client.Answer):
            return CheckReport(skipped=(f"the editor's diagnostics skipped: {reply.reason}",))
        problems = problems_of(reply.value, uris)
        if problems is None:
            return CheckReport(
                skipped=(
                    "the editor's diagnostics skipped: the answer was not "
                    "{files: [{uri, diagnostics}]}",
                )
            )
        return CheckReport(problems=tuple(problems))


def problems_of(value: Any, paths: Mapping[str, str]) -> list[Problem] | None:
    """The counted diagnostics of the asked files (``paths``: uri → path) in ``value``, or
    ``None`` when ``value`` is not of the answer's shape."""
    files = value.get("files") if isinstance(value, Mapping) else None
    if not isinstance(files, list):
        return None
    problems = []
    for entry in files:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("uri"), str):
            return None
        diagnostics = entry.get("diagnostics")
        if not isinstance(diagnostics, list):
            return None
        path = paths.get(entry["uri"])
        for diagnostic in diagnostics:
            found = _problem(diagnostic, path) if path is not None else None
            if found is False:
                return None
            if isinstance(found, Problem):
                problems.append(found)
    return problems


def _problem(diagnostic: Any, path: str) -> Problem | bool | None:
    """The diagnostic as a problem, ``None`` when it does not count, ``False`` when it is not
    a diagnostic."""
    if not isinstance(diagnostic, Mapping) or not isinstance(diagnostic.get("message"), str):
        return False
    start = (
        diagnostic.get("range", {}).get("start", {})
        if isinstance(diagnostic.get("range"), Mapping)
        else {}
    )
    line = start.get("line") if isinstance(start, Mapping) else None
    if not isinstance(line, int) or isinstance(line, bool) or line < 0:
        return False
    severity = diagnostic.get("severity", 1)
    if severity not in COUNTED_SEVERITIES:
        return None
    source = diagnostic.get("source")
    code = diagnostic.get("code")
    message = diagnostic["message"] + (f" [{code}]" if isinstance(code, str | int) else "")
    return Problem(
        path=path,
        line=line + 1,
        message=message,
        source=source if isinstance(source, str) and source else "editor",
    )
