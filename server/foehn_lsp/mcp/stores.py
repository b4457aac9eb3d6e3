"""Where Foehn keeps secrets it gets for the person (the tokens of MCP servers it signed in
to): never in ``config.toml``, never in a workspace.

A ``SecretStore`` keeps one text per key. ``default_store`` picks the OS keyring (macOS
Keychain, Windows Credential Manager, the Secret Service of a Linux desktop) through
``keyring`` when the system has one, and otherwise ``FileStore``: one file per key under the
user's state folder (``mcp/auth/``), the folder readable by its owner only (0700) and each file
created 0600. The language server keeps them in the editor's secret storage instead
(``lsp.secrets``), through the same interface.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, Protocol

from foehn_lsp.config.folders import state_dir

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
