"""Where the tokens of MCP servers Foehn signed in to are kept: never in ``config.toml``, never
in a workspace.

A ``SecretStore`` keeps one text per key. ``default_store`` picks the OS keyring (macOS
Keychain, Windows Credential Manager, the Secret Service of a Linux desktop) through
``keyring`` when the system has one, and otherwise ``FileStore``: one file per server under the
user's state folder (``mcp/auth/``), the folder readable by its owner only (0700) and each file
created 0600. The language server keeps them in the editor's secret storage instead
(``lsp.secrets``), through the same interface.

What is kept for a server is one JSON record, under a key made of its name and URL (a changed
URL never reuses a token): the client registration (``client``), the tokens (``tokens``), when
the access token expires (``expires_at``, seconds since the epoch), and the metadata they were
got with (``metadata``, ``resource_metadata``: a refresh goes to that token endpoint).
``Credentials`` is the SDK's ``TokenStorage`` over that record. It keeps what a sign-in writes
to itself until ``commit`` (after the server accepted the token), so a sign-in that fails, is
refused or is never finished leaves nothing behind; ``forget_tokens`` drops tokens the server
refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pydantic
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

from foehn_lsp.config.folders import state_dir

log = logging.getLogger(__name__)

KEYRING_SERVICE = "foehn-mcp"


class StoreError(Exception):
    """The store could not keep or give back a secret; the message says which and why."""


class SecretStore(Protocol):
    description: str
    """Where the secrets are, in words, for ``foehn mcp list`` and the docs."""

    async def get(self, key: str) -> str | None: ...

    async def put(self, key: str, value: str) -> None: ...

    async def delete(self, key: str) -> None: ...


class FileStore:
    """One file per key in ``folder`` (0700), each written 0600 and replaced atomically."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or state_dir() / "mcp" / "auth"
        self.description = f"a file only you can read, in {self.folder}"

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    async def get(self, key: str) -> str | None:
        return await asyncio.to_thread(self._read, key)

    async def put(self, key: str, value: str) -> None:
        await asyncio.to_thread(self._write, key, value)

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self._path(key).unlink, missing_ok=True)

    def _read(self, key: str) -> str | None:
        try:
            return self._path(key).read_text("utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {self._path(key)}: {exc.strerror or exc}") from None

    def _write(self, key: str, value: str) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(self.folder, 0o700)
            partial = self._path(key).with_suffix(".partial")
            partial.unlink(missing_ok=True)
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(value)
            partial.replace(self._path(key))
        except OSError as exc:
            raise StoreError(f"cannot write {self._path(key)}: {exc.strerror or exc}") from None


class KeyringStore:
    """The OS keyring, through ``keyring``'s chosen backend."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.description = f"the OS keyring ({type(backend).__name__})"

    async def get(self, key: str) -> str | None:
        return await asyncio.to_thread(self._call, "get_password", key)

    async def put(self, key: str, value: str) -> None:
        await asyncio.to_thread(self._call, "set_password", key, value)

    async def delete(self, key: str) -> None:
        if await self.get(key) is not None:
            await asyncio.to_thread(self._call, "delete_password", key)

    def _call(self, method: str, *args: str) -> Any:
        try:
            return getattr(self.backend, method)(KEYRING_SERVICE, *args)
        except Exception as exc:  # the backends raise their own kinds
            raise StoreError(f"the OS keyring refused ({type(exc).__name__}: {exc})") from None


def system_keyring() -> Any | None:
    """The keyring backend ``keyring`` chose, if it is a real one (not the failing or null
    backend of a system without a keyring)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:
        return None
    priority = getattr(backend, "priority", 0)
    if isinstance(backend, fail.Keyring) or not priority or priority <= 0:
        return None
    if type(backend).__module__.startswith("keyring.backends.null"):
        return None
    return backend


def default_store() -> SecretStore:
    """The OS keyring where the system has one, else ``FileStore``."""
    backend = system_keyring()
    return KeyringStore(backend) if backend is not None else FileStore()


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
