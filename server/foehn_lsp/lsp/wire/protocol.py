"""pygls's protocol, held to the LSP 3.17 lifecycle and to one answer per request.

The transport hands every decoded message to ``FoehnProtocol.receive`` as plain JSON. Here:

- the envelope is checked before pygls sees it (-32600 for what is not a JSON-RPC message);
- the lifecycle is enforced: -32002 before ``initialize``, ``initialize`` only once,
  InvalidRequest after ``shutdown``, notifications dropped outside the session (but ``exit``);
- parameters pygls cannot convert are answered with -32602 (pygls 2.1.1 logs and drops them);
- the client's answers to our requests stay raw JSON, so that ``lsp/wire/answers.py`` checks their
  exact shape (pygls would run them through cattrs, which reads ``"false"`` as True);
- an internal error (-32603) never carries the server's traceback: it is logged, and the client
  gets one line;
- pygls's bookkeeping for finished handlers is dropped (2.1.1 keeps a future per notification
  and per command forever);
- ``$/cancelRequest`` for a running ``foehn.run`` stops that run (pygls cancels only its own
  wrapper around commands; pygls issue #517).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import sys
import threading
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.feature_manager import is_thread_function
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)
from pygls.protocol.language_server import lsp_method

from foehn_lsp.lsp.wire.writer import ThreadedWriter

log = logging.getLogger(__name__)

INTERNAL_ERROR = -32603
CONFIRM = "foehn/confirm"
FAST_METHODS = frozenset({types.TEXT_DOCUMENT_CODE_ACTION})
"""Requests whose (plain, synchronous) handlers need nothing but their parameters."""


def raw_converter() -> Any:
    """pygls's converter, except that custom messages stay dicts (not namedtuples)."""
    converter = default_converter()  # type: ignore[no-untyped-call]
    for cls in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(cls, lambda obj, cls: cls(**obj))

    def is_model(kind: Any) -> bool:
        # A model class exists only once pydantic is loaded; asking here must not load it,
        # or registering the first handler would pay for pydantic before ``initialize``.
        pydantic = sys.modules.get("pydantic")
        return (
            pydantic is not None and isinstance(kind, type) and issubclass(kind, pydantic.BaseModel)
        )

    converter.register_unstructure_hook_func(is_model, lambda value: value.model_dump(mode="json"))
    return converter


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class FoehnProtocol(LanguageServerProtocol):
    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.initialize_received = False
        self.shutdown_received = False
        self.ending = False
        """Set by the reader on seeing ``shutdown`` or ``exit``: nothing more is answered early."""
        self.on_cancel: Callable[[Any], None] | None = None
        """Called with the id of every request the client cancels (the run manager's hook)."""
        self._confirming: set[str] = set()
        self._confirming_lock = threading.Lock()

    def answer_now(self, data: Any) -> bool:
        """Answer ``data`` on the calling thread (the reader's) if it is a request that needs
        nothing but its parameters, so that a busy event loop does not delay it: a code action
        while twenty runs are working. Called on every message in stream order; False leaves
        the message to ``receive`` on the event loop."""
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            return False
        method = data.get("method")
        request_id: Any = data.get("id")
        if method in (types.SHUTDOWN, types.EXIT):
            self.ending = True
        if method not in FAST_METHODS or not _is_id(request_id):
            return False
        handler = self.fm.features.get(method)
        if (
            self.ending
            or not self.initialize_received
            or handler is None
            or asyncio.iscoroutinefunction(handler)
            or inspect.isgeneratorfunction(handler)
            or is_thread_function(handler)  # type: ignore[no-untyped-call]
            or not isinstance(data.get("params"), dict)
        ):
            return False
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": data["params"]}
        try:
            params = self.structure_message(message).params
        except JsonRpcException:
            return False  # ``receive`` answers it with what was wrong
        try:
            result = handler(params)
        except Exception:
            log.exception("%s failed", method)
            error = JsonRpcInternalError.of(sys.exc_info()).to_response_error()  # type: ignore[no-untyped-call]
            self._send_response(request_id, None, error)
            return True
        response = JsonRPCResponseMessage(id=request_id, jsonrpc="2.0", result=result)
        self._send_data(response, urgent=True)
        return True

    def receive(self, data: Any) -> None:
        """Handle one decoded message; every request gets exactly one answer."""
        if not isinstance(data, dict):
            kind = "a batch" if isinstance(data, list) else "not a JSON object"
            self.reply_error(None, JsonRpcInvalidRequest(f"Invalid Request: {kind}"))
            return
        method = data.get("method")
        has_id = "id" in data
        if has_id and not (_is_id(data["id"]) or (data["id"] is None and method is None)):
            self.reply_error(None, JsonRpcInvalidRequest("Invalid Request: bad id"))
            return
        request_id = data.get("id")
        if data.get("jsonrpc") != "2.0":
            if has_id and method is not None:
                self.reply_error(request_id, JsonRpcInvalidRequest('jsonrpc must be "2.0"'))
            else:
                log.warning("dropped a message without jsonrpc 2.0")
            return
        if method is None:
            self._receive_response(data)
            return
        if not isinstance(method, str):
            if has_id:
                self.reply_error(request_id, JsonRpcInvalidRequest("method must be a string"))
            return
        params = data.get("params")
        if params is not None and not isinstance(params, dict | list):
            if has_id:
                self.reply_error(
                    request_id, JsonRpcInvalidRequest("params must be an object or an array")
                )
            return
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if has_id:
            self._receive_request(request_id, method, {**message, "id": request_id})
        else:
            self._receive_notification(method, message)

    def _receive_request(self, request_id: Any, method: str, message: dict[str, Any]) -> None:
        if self.shutdown_received:
            self.reply_error(request_id, JsonRpcInvalidRequest("the server is shutting down"))
            return
        if method == types.INITIALIZE:
            if self.initialize_received:
                self.reply_error(
                    request_id, JsonRpcInvalidRequest("initialize may be sent only once")
                )
                return
        elif not self.initialize_received:
            self.reply_error(
                request_id, JsonRpcServerNotInitialized("the server has not been initialized")
            )
            return
        try:
            structured = self.structure_message(message)
        except JsonRpcException as exc:
            cause = exc.__cause__
            detail = _conversion_problem(cause) if cause is not None else exc.message
            self.reply_error(request_id, JsonRpcInvalidParams(f"Invalid params: {detail}"))
            return
        if method == types.INITIALIZE:
            self.initialize_received = True
        elif method == types.SHUTDOWN:
            self.shutdown_received = True
        self.handle_message(structured)

    def _receive_notification(self, method: str, message: dict[str, Any]) -> None:
        if method != types.EXIT and (self.shutdown_received or not self.initialize_received):
            log.info("dropped %s outside the session", method)
            return
        try:
            structured = self.structure_message(message)
        except JsonRpcException as exc:
            log.warning("dropped %s: %s", method, exc.__cause__ or exc)
            return
        self.handle_message(structured)

    def _receive_response(self, data: dict[str, Any]) -> None:
        request_id: Any = data.get("id")
        future = None
        if _is_id(request_id):
            future = self._request_futures.pop(request_id, None)
            self._result_types.pop(request_id, None)
        if future is None:
            log.info("an answer to no pending request (id %r)", request_id)
            return
        if future.done():
            return
        if "error" in data and "result" not in data:
            error = data["error"]
            if isinstance(error, dict) and isinstance(error.get("code"), int):
                message = error.get("message")
                future.set_exception(
                    JsonRpcException(
                        code=error["code"], message=str(message), data=error.get("data")
                    )
                )
            else:
                future.set_exception(JsonRpcException(message=f"a malformed error: {error!r}"))
        elif "result" in data and "error" not in data:
            future.set_result(data["result"])
        else:
            future.set_exception(
                JsonRpcException(message="an answer with neither result nor error")
            )

    def _send_data(self, data: Any, urgent: bool = False) -> None:
        """pygls's framing, with the encoding left to the writer's thread when it has one."""
        if not data:
            return
        writer = self.writer
        if not isinstance(writer, ThreadedWriter):
            super()._send_data(data)
            return

        def encode() -> bytes:
            body = json.dumps(data, default=self._serialize_message).encode(self.CHARSET)
            return b"Content-Length: %d\r\n\r\n" % len(body) + body

        writer.write(encode, urgent)

    def reply_error(self, request_id: Any, error: JsonRpcException) -> None:
        if request_id is None:
            # JSON-RPC wants ``"id": null`` here; lsprotocol's converter would leave it out.
            problem = {"code": error.code, "message": error.message}
            self._send_data({"jsonrpc": "2.0", "id": None, "error": problem})
            return
        self._send_response(request_id, None, error.to_response_error())

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls's shutdown, except that it cancels the pending futures from a copy: their
        callbacks remove them from the dict pygls 2.1.1 iterates over."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        self._shutdown = True

    def _send_response(
        self, msg_id: Any, result: Any | None = None, error: types.ResponseError | None = None
    ) -> None:
        if error is not None and error.code == INTERNAL_ERROR and error.data is not None:
            # pygls puts the traceback in ``data``; it is in the log already.
            message = f"Foehn failed: {error.message} (details in the server log)"
            error = types.ResponseError(code=INTERNAL_ERROR, message=message)
            self.notify(
                types.WINDOW_LOG_MESSAGE,
                types.LogMessageParams(type=types.MessageType.Error, message=message),
            )
        super()._send_response(msg_id, result, error)

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            # Later, not inside the callback: pygls's shutdown iterates over these futures.
            loop = asyncio.get_running_loop()
            future.add_done_callback(
                lambda done: loop.call_soon_threadsafe(self.forget, msg_id, done)
            )

    def forget(self, msg_id: Any, future: Any) -> None:
        """Drop pygls's entry for a finished handler or an abandoned request."""
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]
        self._result_types.pop(msg_id, None)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        if self.on_cancel is not None:
            self.on_cancel(msg_id)
        super()._handle_cancel_notification(msg_id)

    def pending(self) -> int:
        """pygls's futures still held: the memory test watches this."""
        return len(self._request_futures) + len(self._result_types)

    def send_raw_request(self, method: str, params: Any, msg_id: str) -> Future[Any]:
        """Send a request whose answer comes back as raw JSON."""
        future: Future[Any] = self.send_request(method, params, msg_id=msg_id)
        if method == CONFIRM:
            with self._confirming_lock:
                self._confirming.add(msg_id)
            future.add_done_callback(lambda done: self._confirmed(msg_id))
        return future

    def confirming(self) -> list[str]:
        """Ids of Foehn's ``foehn/confirm`` requests waiting for an answer (read by the reader
        thread: a garbled answer that names none of them is a denial of each)."""
        with self._confirming_lock:
            return sorted(self._confirming)

    def _confirmed(self, msg_id: str) -> None:
        with self._confirming_lock:
            self._confirming.discard(msg_id)


def _conversion_problem(exc: BaseException) -> str:
    """One line from cattrs's nested errors, e.g. ``params.range.start.line: must be >= 0``."""
    from cattrs.errors import ClassValidationError

    problems: list[str] = []

    def walk(error: BaseException, path: str) -> None:
        if isinstance(error, ClassValidationError):
            for inner in error.exceptions:
                note = getattr(inner, "__notes__", [""])
                field = str(note[0]).removeprefix("Structuring class ").split(" @ attribute ")
                name = field[-1] if len(field) > 1 else ""
                walk(inner, f"{path}.{name}" if path and name else name or path)
        elif isinstance(error, KeyError):
            problems.append(f"{path}.{error.args[0]} is required" if path else "missing field")
        else:
            problems.append(f"{path}: {error}" if path else str(error))

    walk(exc, "")
    return "; ".join(problems[:3]) or str(exc)
