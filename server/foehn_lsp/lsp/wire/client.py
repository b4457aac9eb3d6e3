"""Asking the client for something: every wait has a timeout, and a wait that is given up
(timed out, or its run cancelled) withdraws the request with ``$/cancelRequest`` and drops
pygls's bookkeeping for it.

The answer comes back as raw JSON (``Answer``) or as why there is none (``NoAnswer``); the
caller checks the shape with ``lsp/wire/answers.py``.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from foehn_lsp.lsp.wire.protocol import FoehnProtocol

log = logging.getLogger(__name__)

_ids = itertools.count(1)


@dataclass(frozen=True, kw_only=True)
class ClientTimeouts:
    """Seconds to wait for the editor; editor setting ``foehn.clientTimeouts``."""

    confirm: float = 600.0
    """A person reads the diff and decides: minutes. Timing out is a denial."""
    apply_edit: float = 30.0
    """Timing out is an edit that was not applied; the model is told."""
    progress: float = 10.0
    """Creating the progress indicator; the run never waits for it."""
    configuration: float = 5.0
    """Pulling the ``foehn`` settings; the settings stay as they were."""
    diagnostics: float = 30.0
    """The editor's diagnostics of changed files (``foehn/diagnostics``), which it answers
    once they settle; timing out skips the check after the edits."""
    language: float = 30.0
    """The editor's language requests (``foehn/definition``, ``foehn/rename``, …); timing
    out fails the tool's call, and the turn goes on."""

    @classmethod
    def from_editor(cls, settings: Mapping[str, Any]) -> ClientTimeouts:
        """``{confirmSeconds, applyEditSeconds, progressSeconds, configurationSeconds,
        diagnosticsSeconds, languageSeconds}``;
        a missing or invalid value keeps its default."""
        raw = settings.get("clientTimeouts")
        raw = raw if isinstance(raw, Mapping) else {}
        values = {}
        for name, key in (
            ("confirm", "confirmSeconds"),
            ("apply_edit", "applyEditSeconds"),
            ("progress", "progressSeconds"),
            ("configuration", "configurationSeconds"),
            ("diagnostics", "diagnosticsSeconds"),
            ("language", "languageSeconds"),
        ):
            value = raw.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                values[name] = float(value)
        return cls(**values)


@dataclass(frozen=True, kw_only=True)
class Answer:
    value: Any
    """The ``result`` member exactly as the client sent it."""


@dataclass(frozen=True, kw_only=True)
class NoAnswer:
    reason: str
    """Why, in words: ``no answer within 30 s``, ``the editor answered with an error: …``."""
    timed_out: bool = False


async def request(
    protocol: FoehnProtocol, method: str, params: Any, within: float
) -> Answer | NoAnswer:
    """Send ``method`` and wait at most ``within`` seconds. If the waiting task is cancelled
    (its run was stopped), the request is withdrawn and the cancellation goes on."""
    msg_id = f"foehn-{next(_ids)}"
    future = protocol.send_raw_request(method, params, msg_id)
    waiter = asyncio.wrap_future(future)
    try:
        value = await asyncio.wait_for(asyncio.shield(waiter), within)
    except TimeoutError:
        withdraw(protocol, msg_id, future)
        log.warning("%s: no answer within %g s", method, within)
        return NoAnswer(reason=f"no answer within {within:g} s", timed_out=True)
    except asyncio.CancelledError:
        withdraw(protocol, msg_id, future)
        raise
    except JsonRpcException as exc:
        return NoAnswer(reason=f"the editor answered with an error: {exc.message}")
    return Answer(value=value)


def withdraw(protocol: FoehnProtocol, msg_id: str, future: Any) -> None:
    """Tell the client we no longer wait for ``msg_id`` and forget it."""
    protocol.forget(msg_id, future)
    if not future.done():
        future.cancel()
        protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
