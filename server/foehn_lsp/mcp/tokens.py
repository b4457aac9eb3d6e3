"""A server's sign-in as Foehn keeps it: ``Credentials``, the SDK's ``TokenStorage`` over one
record of a ``stores.SecretStore``.

The record is JSON, under a key made of the server's name and URL (a changed URL never reuses a
token): the client registration (``client``), the tokens (``tokens``), when the access token
expires (``expires_at``, seconds since the epoch), and the metadata they were got with
(``metadata``, ``resource_metadata``: a refresh goes to that token endpoint). What a sign-in
writes stays in memory until ``commit`` (after the server accepted the token), so a sign-in
that fails, is refused or is never finished leaves nothing behind; ``forget_tokens`` drops
tokens the server refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any

import pydantic
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

from foehn_lsp.mcp.stores import SecretStore

log = logging.getLogger(__name__)


def record_key(server: str, url: str) -> str:
    """The key of a server's record: its name (as a file name may hold it) and a digest of its
    name and URL."""
    digest = hashlib.sha256(f"{server}\0{url}".encode()).hexdigest()[:16]
    return f"{re.sub(r'[^A-Za-z0-9_-]', '_', server)[:40]}-{digest}"


@dataclass(frozen=True, kw_only=True)
class SignedIn:
    """What ``foehn mcp list`` shows of a server's record."""

    registered: bool
    """A client registration is kept (dynamic registration, or a metadata document)."""
    tokens: bool
    expires_at: float | None
    refreshable: bool


class Credentials:
    """The SDK's ``TokenStorage`` for one server, over its record in ``store``."""

    def __init__(self, store: SecretStore, server: str, url: str) -> None:
        self.store = store
        self.server = server
        self.key = record_key(server, url)
        self.url = url
        self._record: dict[str, Any] | None = None
        self._dirty = False

    async def _load(self) -> dict[str, Any]:
        if self._record is None:
            text = await self.store.get(self.key)
            record: Any = None
            if text is not None:
                with contextlib.suppress(ValueError):
                    record = json.loads(text)
                if not isinstance(record, dict) or record.get("url") != self.url:
                    log.warning("MCP server %s: its kept sign-in is unreadable", self.server)
                    record = None
            self._record = record or {"server": self.server, "url": self.url}
        return self._record

    async def get_tokens(self) -> OAuthToken | None:
        stored = (await self._load()).get("tokens")
        try:
            return OAuthToken.model_validate(stored) if stored else None
        except pydantic.ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        record = await self._load()
        record["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        record["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in else None
        self._dirty = True

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        stored = (await self._load()).get("client")
        try:
            return OAuthClientInformationFull.model_validate(stored) if stored else None
        except pydantic.ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        record = await self._load()
        record["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._dirty = True

    async def get_metadata(
        self,
    ) -> tuple[OAuthMetadata | None, ProtectedResourceMetadata | None]:
        """The authorization server's and the resource's metadata the tokens were got with."""
        record = await self._load()
        try:
            found = record.get("metadata")
            resource = record.get("resource_metadata")
            return (
                OAuthMetadata.model_validate(found) if found else None,
                ProtectedResourceMetadata.model_validate(resource) if resource else None,
            )
        except pydantic.ValidationError:
            return None, None

    async def set_metadata(
        self, found: OAuthMetadata | None, resource: ProtectedResourceMetadata | None
    ) -> None:
        record = await self._load()
        for key, value in (("metadata", found), ("resource_metadata", resource)):
            if value is None:
                record.pop(key, None)
            else:
                record[key] = value.model_dump(mode="json", exclude_none=True)
        self._dirty = True

    async def hide_tokens(self) -> None:
        """Count the server as not signed in, without writing anything: a new sign-in then
        asks the person, and the kept tokens stay kept unless it succeeds."""
        record = await self._load()
        record.pop("tokens", None)
        record.pop("expires_at", None)

    async def expire(self) -> None:
        """Count the access token as expired (the server refused it), so that the next request
        refreshes it first; nothing is written."""
        record = await self._load()
        if record.get("tokens"):
            record["expires_at"] = 0.0

    async def expires_at(self) -> float | None:
        value = (await self._load()).get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    async def state(self) -> SignedIn:
        record = await self._load()
        tokens = await self.get_tokens()
        return SignedIn(
            registered=await self.get_client_info() is not None,
            tokens=tokens is not None,
            expires_at=await self.expires_at() if tokens else None,
            refreshable=bool(tokens and tokens.refresh_token and record.get("client")),
        )

    async def commit(self) -> None:
        """Keep what was written since the last commit (the server accepted the token)."""
        if self._dirty and self._record is not None:
            await self.store.put(self.key, json.dumps(self._record))
            self._dirty = False

    async def discard(self) -> None:
        """Forget what was written since the last commit: read the stored record again."""
        self._record = None
        self._dirty = False

    async def forget_tokens(self) -> None:
        """Drop the stored tokens (the server refused them), keeping the client registration;
        what was not committed is forgotten too."""
        await self.discard()
        record = await self._load()
        if record.pop("tokens", None) is not None:
            record.pop("expires_at", None)
            await self.store.put(self.key, json.dumps(record))
        self._dirty = False

    async def forget(self) -> bool:
        """Drop the whole record (``foehn mcp logout``); whether there was one."""
        had = await self.store.get(self.key) is not None
        await self.store.delete(self.key)
        self._record = None
        self._dirty = False
        return had
