"""What the OAuth tests share: the guarded test server as the tests see it (``OAuthServer``)
and the person's browser (``Browser``)."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx


@dataclass
class OAuthServer:
    """``servers/oauth_server.py`` running: its ``/mcp`` URL, its faults and its evidence."""

    url: str
    state: Path

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")

    def faults(self, **faults: object) -> None:
        (self.state / "faults.json").write_text(json.dumps(faults))

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        path = self.state / "events.jsonl"
        found = (
            [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        )
        return [event for event in found if kind is None or event["kind"] == kind]

    def reset(self) -> None:
        """No faults, clients, codes, tokens or evidence: as if just started."""
        self.faults()
        self._post("/test/reset")
        (self.state / "events.jsonl").unlink(missing_ok=True)

    def _post(self, path: str) -> None:
        request = urllib.request.Request(f"{self.base}{path}", method="POST")
        with urllib.request.urlopen(request, timeout=10):
            pass

    def revoke(self, *, refresh: bool = False) -> None:
        self._post(f"/test/revoke{'?refresh=1' if refresh else ''}")


class Browser:
    """The person's browser: opens each page shown, signs in at once (the authorization server
    approves without asking) and follows the redirect back to Foehn, as a browser would; or,
    with ``visits=False``, a person who never looks."""

    def __init__(self, *, visits: bool = True) -> None:
        self.visits = visits
        self.shown: list[tuple[str, str]] = []
        self.back: list[int] = []

    async def __call__(self, server: str, url: str) -> None:
        self.shown.append((server, url))
        if self.visits:
            asyncio.get_running_loop().create_task(self.visit(url))

    async def visit(self, url: str) -> None:
        async with httpx.AsyncClient(timeout=10) as http:
            page = await http.get(url)
            assert page.status_code == 302, page.text
            answer = await http.get(page.headers["location"])
            self.back.append(answer.status_code)
