"""The audit log: JSONL per workspace, under the user's state directory, scrubbed of secrets.
It gets one line per tool call (when, which tool, the arguments, the risk, the decision, the
outcome), one per checkpoint and restore, and one per connection a call or an MCP server
attempted (``{"event": "network", "call", "host", "port", "allowed", "reason", "bytes_out",
"bytes_in"}``, with the time and the turn).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from foehn_lsp.config.folders import state_dir
from foehn_lsp.events import (
    ApprovalEvent,
    NetworkEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
    event_json,
)
from foehn_lsp.sandbox.network import Connection
from foehn_lsp.secrets import Scrubber


def audit_path(workspace_root: Path, base: Path | None = None) -> Path:
    """The audit log of ``workspace_root``, under ``base`` (by default the user's state
    directory, as for sessions)."""
    digest = hashlib.sha256(os.fsencode(workspace_root)).hexdigest()[:16]
    return (base or state_dir()) / "audit" / f"{workspace_root.name}-{digest}.jsonl"


class AuditLog:
    """Appends one line per tool call, correlating the call, approval and result events. Each
    line's ``run`` is the turn's id (the file keeps the older name)."""

    def __init__(self, path: Path, scrubber: Scrubber, *, turn_id: str) -> None:
        self.path = path
        self.scrubber = scrubber
        self.turn_id = turn_id
        self._pending: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def note(self, action: str, **detail: Any) -> None:
        """One line for something that is not a tool call: a checkpoint, a restore."""
        self._append(
            {"time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "run": self.turn_id, "action": action}
            | detail
        )

    def __call__(self, event: TurnEvent) -> None:
        match event:
            case ToolCallEvent(id=call_id):
                self._pending[call_id] = {
                    "tool": event.tool,
                    "arguments": event.arguments,
                    "risk": event.risk,
                    "decision": None,
                }
            case ApprovalEvent(id=call_id) if call_id in self._pending:
                self._pending[call_id]["decision"] = event.decision
                self._pending[call_id]["decided_by"] = event.reason
            case NetworkEvent():
                self._append(
                    {
                        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                        "run": self.turn_id,
                        **event_json(event),
                    }
                )
            case ToolResultEvent(id=call_id, ok=ok):
                entry = self._pending.pop(call_id, {"tool": event.tool})
                self._append(
                    {
                        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                        "run": self.turn_id,
                        **entry,
                        "ok": ok,
                        "outcome": event.output[:300],
                    }
                )
            case _:
                return

    def _append(self, record: dict[str, Any]) -> None:
        line = json.dumps(self.scrubber.data(record), ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(line)


class NetworkRecorder:
    """The audit log's ``network`` records of what no turn owns: the connections of the MCP
    servers Foehn starts or connects to (their ``call`` is ``mcp:NAME``). Called from any
    thread."""

    def __init__(self, path: Path, scrubber: Scrubber) -> None:
        self.log = AuditLog(path, scrubber, turn_id="mcp")

    def __call__(self, connection: Connection) -> None:
        self.log(NetworkEvent.of(connection))
