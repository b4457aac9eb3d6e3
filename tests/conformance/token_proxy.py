"""What puts the bearer token on the conformance suite's requests to ``foehn mcp --http``: the
suite's server scenarios send none, and Foehn refuses every request without it.

    python token_proxy.py LISTEN_PORT UPSTREAM_PORT TOKEN_FILE

Every request to 127.0.0.1:LISTEN_PORT goes on to 127.0.0.1:UPSTREAM_PORT unchanged but for
``Authorization: Bearer TOKEN``, and for ``Host``/``Origin`` naming this proxy, which name the
upstream instead (so that Foehn sees what a client that reached it directly would have sent; a
foreign ``Host`` or ``Origin``, as in the DNS-rebinding scenario, goes on as it came). The
answer streams back as it arrives (server-sent events included).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse

LISTEN, UPSTREAM = int(sys.argv[1]), int(sys.argv[2])
TOKEN = Path(sys.argv[3]).read_text().strip()
HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}
upstream = httpx.AsyncClient(base_url=f"http://127.0.0.1:{UPSTREAM}", timeout=None)


def mapped(value: str) -> str:
    for name in ("127.0.0.1", "localhost"):
        value = value.replace(f"{name}:{LISTEN}", f"{name}:{UPSTREAM}")
    return value


async def forward(request: Request) -> StreamingResponse:
    headers = {k: mapped(v) for k, v in request.headers.items() if k.lower() not in HOP}
    headers["host"] = mapped(request.headers.get("host", f"127.0.0.1:{LISTEN}"))
    headers["authorization"] = f"Bearer {TOKEN}"
    sent = upstream.build_request(
        request.method,
        request.url.path + (f"?{request.url.query}" if request.url.query else ""),
        headers=headers,
        content=await request.body(),
    )
    answer = await upstream.send(sent, stream=True)

    async def body() -> AsyncIterator[bytes]:
        async for chunk in answer.aiter_raw():
            yield chunk

    kept = {k: v for k, v in answer.headers.items() if k.lower() not in HOP}
    return StreamingResponse(
        body(),
        status_code=answer.status_code,
        headers=kept,
        background=BackgroundTask(answer.aclose),
    )


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    response = await forward(Request(scope, receive))
    await response(scope, receive, send)


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=LISTEN, log_level="warning")
