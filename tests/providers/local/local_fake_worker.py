"""Stands in for the embedded model's worker process where the real one cannot be made to
misbehave on cue: the same protocol (a config line in, an address line out, llama.cpp's HTTP
routes for streamed chat completions and slot save/restore), scripted replies.

The config's ``model`` names a JSON script:
    {"replies": [{"chunks": ["{\\"answer\\": \\"", "Hi", "\\"}"], "delay": 0.05}, ...],
     "busy": false,        # after a request starts, keep computing even if the client leaves
     "fail_load": null}    # report this error instead of starting
Every request is appended to ``<state_dir>/requests.jsonl``; saved slots are files there.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

config = json.loads(sys.stdin.readline())
script = json.loads(Path(config["model"]).read_text())
state_dir = Path(config["state_dir"])
replies: list[dict[str, Any]] = list(script.get("replies", []))
processing = threading.Event()
slot: dict[str, Any] = {"messages": []}


def burn() -> None:
    """Keep one core busy for good, as a computation that ignores the stop would."""
    while True:
        pass


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def _authorised(self) -> bool:
        if self.headers.get("authorization") == f"Bearer {config['api_key']}":
            return True
        self._json(401, {"error": {"message": "Invalid API Key"}})
        return False

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if not self._authorised():
            return
        self._json(200, [{"id": 0, "is_processing": processing.is_set()}])

    def do_POST(self) -> None:
        if not self._authorised():
            return
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        url = urlparse(self.path)
        with open(state_dir / "requests.jsonl", "a") as log:
            log.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if url.path == "/slots/0":
            action = parse_qs(url.query)["action"][0]
            target = state_dir / body["filename"]
            if action == "save":
                target.write_text(json.dumps(slot["messages"]))
                self._json(200, {"n_saved": len(slot["messages"])})
            elif target.is_file():
                slot["messages"] = json.loads(target.read_text())
                self._json(200, {"n_restored": len(slot["messages"])})
            else:
                self._json(400, {"error": {"message": "failed to restore"}})
            return
        self._stream(body)

    def _send(self, chunk: dict[str, Any] | str) -> None:
        data = chunk if isinstance(chunk, str) else json.dumps(chunk)
        self.wfile.write(f"data: {data}\n\n".encode())
        self.wfile.flush()

    def _stream(self, body: dict[str, Any]) -> None:
        messages = body["messages"]
        cached = 0
        while cached < min(len(messages), len(slot["messages"])) and (
            messages[cached] == slot["messages"][cached]
        ):
            cached += 1
        slot["messages"] = messages
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        processing.set()
        if script.get("busy"):
            threading.Thread(target=burn, daemon=True).start()
        try:
            total = len(messages)
            self._send(
                {
                    "choices": [],
                    "prompt_progress": {"total": total, "cache": cached, "processed": total},
                }
            )
            reply: dict[str, Any] = (
                {"chunks": ["x"]} if body.get("max_tokens") == 1 else replies.pop(0)
            )
            timings = {"cache_n": cached, "prompt_n": total - cached, "predicted_n": 0}
            for piece in reply["chunks"]:
                time.sleep(float(reply.get("delay", 0)))
                timings["predicted_n"] += 1
                self._send(
                    {
                        "choices": [{"delta": {"content": piece}, "finish_reason": None}],
                        "timings": {**timings, "predicted_per_second": 10.0},
                    }
                )
            self._send(
                {
                    "choices": [{"delta": {}, "finish_reason": reply.get("finish", "stop")}],
                    "usage": {"prompt_tokens": total, "completion_tokens": len(reply["chunks"])},
                    "timings": timings,
                }
            )
            self._send("[DONE]")
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            if not script.get("busy"):
                processing.clear()


if script.get("fail_load"):
    print(json.dumps({"error": script["fail_load"]}), flush=True)
    os._exit(1)
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print(json.dumps({"address": f"http://127.0.0.1:{server.server_address[1]}"}), flush=True)
sys.stdin.read()
os._exit(0)
