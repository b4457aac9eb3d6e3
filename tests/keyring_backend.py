"""A keyring backend for the tests: the system keyring's interface, kept in one JSON file
(``FOEHN_TEST_KEYRING``), so a test can see what Foehn put in "the OS keyring". Chosen the way
a person chooses one, by ``PYTHON_KEYRING_BACKEND=keyring_backend.FileKeyring``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend


class FileKeyring(KeyringBackend):
    priority = 1

    @property
    def path(self) -> Path:
        return Path(os.environ["FOEHN_TEST_KEYRING"])

    def _all(self) -> dict[str, str]:
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._all().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        kept = self._all()
        kept[f"{service}/{username}"] = password
        self.path.write_text(json.dumps(kept))

    def delete_password(self, service: str, username: str) -> None:
        kept = self._all()
        kept.pop(f"{service}/{username}", None)
        self.path.write_text(json.dumps(kept))
